package lisp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// A sorted-by collection leaves a run in its comparator's order (printed,
// in JSON), and comes back from its printed form as an ordinary one with
// the same entries, with a note that says so.
func TestSortedByLeavesTheRun(t *testing.T) {
	res, err := lisp.Run(context.Background(), `(def m (sorted-map-by > 1 :a 3 :c 2 :b)) (def s (sorted-set-by > 1 3 2)) m`, lisp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := lisp.Print(res.Value, lisp.PrintOptions{Exact: true})
	if text != "{3 :c, 2 :b, 1 :a}" {
		t.Errorf("PrintExact = %s", text)
	}
	js, err := lisp.ToJSON(res.Value, nil)
	if err != nil || string(js) != `{"3":"c","2":"b","1":"a"}` {
		t.Errorf("ToJSON = %s, %v", js, err)
	}
	back, err := lisp.Read(text, lisp.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !lisp.Equal(back, res.Value) || lisp.Print(back, lisp.PrintOptions{Exact: true}) != "{1 :a, 2 :b, 3 :c}" {
		t.Errorf("read back %s, want the ordinary map of the same entries", lisp.Print(back, lisp.PrintOptions{Exact: true}))
	}
	if len(res.Notes) != 2 || !strings.Contains(res.Notes[0], "m holds a sorted-map-by") || !strings.Contains(res.Notes[1], "s holds") {
		t.Errorf("notes %q", res.Notes)
	}
	// The next run reads the def itself (in the same process) with its comparator.
	res2, err := lisp.Run(context.Background(), `[(first m) (first (conj s 9)) (keys (assoc m 0 :z))]`, lisp.Options{Namespace: res.Namespace})
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(res2.Value, lisp.PrintOptions{Exact: true}); got != "[[3 :c] 9 [3 2 1 0]]" {
		t.Errorf("next run: %s", got)
	}
}

// The comparator runs on the thread of whichever run or pmap branch adds
// to the collection.
func TestSortedByInParallelBranches(t *testing.T) {
	src := `(def base (sorted-map-by > 0 :zero))
(pmap (fn [i] (keys (into base (map (fn [j] [(+ (* 10 i) j) j]) (range 5))))) (range 8))`
	res, err := lisp.Run(context.Background(), src, lisp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := lisp.Print(res.Value, lisp.PrintOptions{Exact: true})
	if !strings.HasPrefix(got, "[[4 3 2 1 0] [14 13 12 11 10 0]") {
		t.Errorf("got %s", got)
	}
}
