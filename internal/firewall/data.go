package firewall

import (
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	"github.com/ptc-go/ptc/lisp"
)

// DataRedactor redacts Go data for a reader (an error's details: what
// lisp.ToGo makes, and whatever a host put there), within a bound of
// work: a program may fail with a large value.
type DataRedactor struct {
	Veil Veil
	// Budget is how many more values Data may visit; past it, and past a
	// depth of 100, values are hidden rather than shown unchecked.
	Budget int
	// Other, when set, redacts a value of a type Data does not know (it
	// reports false for one it does not know either), calling Data or
	// Map for its parts. Values no one knows are shown by their printed
	// form, scrubbed.
	Other func(r *DataRedactor, x any, depth int) (any, bool)
}

// Map returns a redacted copy of m: its keys scrubbed, the values of "_"
// keys as Placeholder.
func (r *DataRedactor) Map(m map[string]any, depth int) map[string]any {
	out := make(map[string]any, len(m))
	for k, x := range m {
		sk := r.Veil.Scrub(k)
		if HiddenKey(k) {
			out[sk] = Placeholder
			continue
		}
		out[sk] = r.Data(x, depth+1)
	}
	return out
}

// Data returns a redacted copy of x.
func (r *DataRedactor) Data(x any, depth int) any {
	v := r.Veil
	if r.Budget--; r.Budget < 0 || depth > 100 {
		return Placeholder // beyond the bound: hidden rather than shown unchecked
	}
	switch x := x.(type) {
	case nil, bool:
		return x
	case string:
		if len(x) >= minScrub && v.Hides(x) {
			return Placeholder
		}
		return v.Scrub(x)
	case map[string]any:
		return r.Map(x, depth)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.Data(e, depth+1)
		}
		return out
	case *lisp.Map, *lisp.Vector, *lisp.Set:
		if v.Hides(x) {
			return Placeholder
		}
		g, err := lisp.ToGo(x)
		if err != nil {
			return Placeholder
		}
		return r.Data(g, depth+1)
	case int64, int, int32, uint64, float64, json.Number, lisp.Keyword, time.Time, *big.Int, *lisp.Decimal:
		for _, s := range []string{fmt.Sprint(x), lisp.Print(x, lisp.PrintOptions{})} {
			if v.Scrub(s) != s {
				return Placeholder
			}
		}
		return x
	}
	if r.Other != nil {
		if out, ok := r.Other(r, x, depth); ok {
			return out
		}
	}
	// Anything else is shown by its printed form, scrubbed.
	return v.Scrub(fmt.Sprint(x))
}
