package lisp_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	// The region tests read the zones' rules from Go's copy of the
	// time-zone database, so that they pass on a host without one.
	_ "time/tzdata"

	"github.com/ptc-go/ptc/lisp"
)

// TestZonedRoundTrip: a ZonedDateTime or an OffsetDateTime prints exactly
// as #zoned-date-time / #offset-date-time with Java's text, reads back
// equal (its zone and offset included, in the hour a clock set back
// repeats), converts to JSON as RFC 3339 with its offset and to Go as a
// time.Time in its zone.
func TestZonedRoundTrip(t *testing.T) {
	res := run(t, `[(java.time.ZonedDateTime/parse "2024-10-27T02:30+02:00[Europe/Paris]")
	                (java.time.ZonedDateTime/parse "2024-10-27T02:30+01:00[Europe/Paris]")
	                (java.time.OffsetDateTime/parse "2024-03-15T10:15:30.5-03:30")
	                (.atZone (java.time.Instant/parse "2024-03-15T10:15:30Z") java.time.ZoneOffset/UTC)]`, lisp.Options{})
	printed := lisp.Print(res.Value, lisp.PrintOptions{Exact: true})
	want := `[#zoned-date-time "2024-10-27T02:30+02:00[Europe/Paris]" #zoned-date-time "2024-10-27T02:30+01:00[Europe/Paris]" ` +
		`#offset-date-time "2024-03-15T10:15:30.500-03:30" #zoned-date-time "2024-03-15T10:15:30Z"]`
	if printed != want {
		t.Fatalf("printed %s\nwant    %s", printed, want)
	}
	back, err := lisp.Read(printed, lisp.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !lisp.Equal(back, res.Value) {
		t.Errorf("read back %s, not equal", lisp.Print(back, lisp.PrintOptions{Exact: true}))
	}
	js, err := lisp.ToJSON(res.Value, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := `["2024-10-27T02:30:00+02:00","2024-10-27T02:30:00+01:00","2024-03-15T10:15:30.5-03:30","2024-03-15T10:15:30Z"]`; string(js) != want {
		t.Errorf("JSON %s, want %s", js, want)
	}
	gv, err := lisp.ToGo(res.Value)
	if err != nil {
		t.Fatal(err)
	}
	g := gv.([]any)
	first, second := g[0].(time.Time), g[1].(time.Time)
	if second.Sub(first) != time.Hour || first.Location().String() != "Europe/Paris" || first.Hour() != 2 || second.Hour() != 2 {
		t.Errorf("ToGo: %v and %v, want 02:30 twice, an hour apart, in Europe/Paris", first, second)
	}
}

// TestZonesHostile: zone ids come from data; a huge or odd one is a short
// error, and a run that asks for ever more regions stops at its limit.
func TestZonesHostile(t *testing.T) {
	_, err := lisp.Run(context.Background(), `(java.time.ZoneId/of (apply str "Europe/" (repeat 100000 "x")))`, lisp.Options{})
	if !errors.Is(err, lisp.InvalidArgument) || len(err.Error()) > 400 || !strings.Contains(err.Error(), "Unknown time-zone ID") {
		t.Errorf("a huge id: %.300v", err)
	}
	_, err = lisp.Run(context.Background(), `(java.time.ZoneId/of "../../../../etc/passwd")`, lisp.Options{})
	if !errors.Is(err, lisp.InvalidArgument) {
		t.Errorf("a path as a zone: %v", err)
	}
	// Each distinct region is looked up once and kept for the run; the
	// run may keep 1024 (there are about 600).
	_, err = lisp.Run(context.Background(), `(doseq [i (range 2000)] (try (java.time.ZoneId/of (str "Etc/GMT+" (mod i 13))) (catch Exception e nil))) :ok`, lisp.Options{})
	if err != nil {
		t.Errorf("the same 13 zones 2000 times: %v", err)
	}
}
