package bundled

import (
	"math"
	"sort"

	"github.com/ptc-go/ptc/lisp"
)

// Helpers shared by the tasks of task_join.go … task_topties.go.

// taArg returns a tool call's string argument key, "" when it is absent
// or not a string.
func taArg(args *lisp.Map, key string) string {
	if args == nil {
		return ""
	}
	v, _ := args.Lookup(lisp.Keyword(key))
	s, _ := v.(string)
	return s
}

// taRound rounds to cents.
func taRound(x float64) float64 { return math.Round(x*100) / 100 }

// taSorted returns the keys of set, sorted.
func taSorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// joinCustomer is a row of the customer tool.
type joinCustomer struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Tier    string `json:"tier"`
	Country string `json:"country"`
}

// joinCustomers returns the 20 customers orders() refers to, by id.
func joinCustomers() map[string]joinCustomer {
	s := lcg(7)
	tiers := []string{"gold", "silver", "silver", "bronze"}
	countries := []string{"SE", "DE", "FR", "US", "JP"}
	names := []string{"Ada", "Bo", "Cyd", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo"}
	out := map[string]joinCustomer{}
	for i := 1; i <= 20; i++ {
		id := "C" + pad(i, 3)
		out[id] = joinCustomer{ID: id, Name: pick(&s, names) + " " + string(rune('A'+i-1)) + ".",
			Tier: pick(&s, tiers), Country: pick(&s, countries)}
	}
	return out
}
