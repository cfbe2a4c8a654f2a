package lisp_test

import (
	"testing"
	"time"

	"github.com/ptc-go/ptc/lisp"
)

// TestLocalDateTimeInGo: a LocalDateTime prints #date-time "...", reads
// back as one, is a lisp.Instant whose Local() is true (its fields in UTC),
// converts to JSON as its ISO form, and Add keeps its kind.
func TestLocalDateTimeInGo(t *testing.T) {
	v := run(t, `(LocalDateTime/parse "2024-03-15T10:00:05.120")`, lisp.Options{}).Value
	i, ok := v.(lisp.Instant)
	if !ok || !i.Local() || !i.T.Equal(time.Date(2024, 3, 15, 10, 0, 5, 120e6, time.UTC)) {
		t.Fatalf("value %#v", v)
	}
	printed := lisp.Print(v, lisp.PrintOptions{Exact: true})
	if printed != `#date-time "2024-03-15T10:00:05.120"` {
		t.Errorf("printed %s", printed)
	}
	back, err := lisp.Read(printed, lisp.ReadOptions{})
	if err != nil || !lisp.Equal(back, v) {
		t.Errorf("read back %v, %v", back, err)
	}
	if j, err := lisp.ToJSON(v, nil); err != nil || string(j) != `"2024-03-15T10:00:05.120"` {
		t.Errorf("ToJSON %s %v", j, err)
	}
	if g, err := lisp.ToGo(v); err != nil || !g.(time.Time).Equal(i.T) {
		t.Errorf("ToGo %v %v", g, err)
	}
	if moved := i.Add(time.Hour); !moved.Local() || moved.T.Hour() != 11 {
		t.Errorf("Add: %v", moved)
	}
	inst := run(t, `(Instant/parse "2024-03-15T10:00:05.120Z")`, lisp.Options{}).Value
	if lisp.Equal(inst, v) || inst.(lisp.Instant).Local() {
		t.Errorf("an instant of the same time is a LocalDateTime: %v", inst)
	}
	for _, bad := range []string{`#date-time "2024-03-15T10:00Z"`, `#date-time "2024-13-01T00:00"`, `#date-time 5`} {
		if v, err := lisp.Read(bad, lisp.ReadOptions{}); err == nil {
			t.Errorf("Read(%s) = %v, want an error", bad, v)
		}
	}
}
