package bundled

import (
	"math"
	"sort"

	"github.com/ptc-go/ptc/lisp"
)

// Helpers of the second half of the bundled tasks (composition, MCP and
// the data tasks around them).

// tbRound rounds x to places decimals, as the reference programs do.
func tbRound(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}

// tbSortedKeys returns the keys of m, sorted.
func tbSortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// tbArg reads a tool's argument by name (keyword or string key); "" when
// it is missing or not a string.
func tbArg(args *lisp.Map, name string) string {
	v, _ := args.Lookup(lisp.Keyword(name))
	s, _ := v.(string)
	return s
}
