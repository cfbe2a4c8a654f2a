package bundled

import (
	"maps"
	"math"
	"slices"

	"github.com/ptc-go/ptc/lisp"
)

// The suite's data is made by code, not stored: deterministic (a fixed
// linear congruential sequence, no math/rand whose streams may change
// between Go releases), small enough to read in a trace, and large enough
// that an answer cannot be guessed.

// lcg is a deterministic sequence of pseudo-random numbers.
type lcg uint64

func (s *lcg) next() uint64 {
	*s = *s*6364136223846793005 + 1442695040888963407
	return uint64(*s >> 33)
}

// intn returns a number in [0, n).
func (s *lcg) intn(n int) int { return int(s.next() % uint64(n)) }

// pick returns one of xs.
func pick[T any](s *lcg, xs []T) T { return xs[s.intn(len(xs))] }

var regions = []string{"north", "south", "east", "west"}

// order is a row of the orders tool.
type order struct {
	ID       string  `json:"id"`
	Customer string  `json:"customer_id"`
	Region   string  `json:"region"`
	Status   string  `json:"status"`
	Amount   float64 `json:"amount"`
	Placed   string  `json:"placed"`
}

// orders returns the suite's 60 orders.
func orders() []order {
	s := lcg(42)
	statuses := []string{"paid", "paid", "paid", "refunded", "pending"}
	out := make([]order, 60)
	for i := range out {
		out[i] = order{
			ID:       "ORD-" + pad(1000+i*7, 5),
			Customer: "C" + pad(1+s.intn(20), 3),
			Region:   pick(&s, regions),
			Status:   pick(&s, statuses),
			Amount:   float64(500+s.intn(99500)) / 100,
			Placed:   "2024-" + pad(1+s.intn(12), 2) + "-" + pad(1+s.intn(28), 2),
		}
	}
	return out
}

// pad writes n with leading zeros to width digits.
func pad(n, width int) string {
	s := itoa(n)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

// argString returns a tool call's string argument name, "" when it is
// absent or not a string.
func argString(args *lisp.Map, name string) string {
	if args == nil {
		return ""
	}
	v, _ := args.Get(lisp.Keyword(name))
	s, _ := v.(string)
	return s
}

// roundTo rounds x to places decimals, as the reference programs do.
func roundTo(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
