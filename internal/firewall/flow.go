package firewall

import (
	"math"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ptc-go/ptc/lisp"
)

// # What a program computes from firewalled values
//
// Hiding the firewalled values themselves is not enough: a program can
// show the model what it computed from them (the upper-cased secret, a
// five-byte prefix, three times a hidden salary). The agent finds those
// values by running each program a second time, in a shadow run, on the
// same data with every firewalled value replaced by a surrogate (Surrogate:
// same type, same size, a different value at every position) and with the
// tools' results of the real run replayed. What the two runs show the same
// does not depend on the firewalled values; what they show differently does,
// and is hidden (Derive, DeriveLines). This is secure multi-execution, as
// Devriese and Piessens defined it, used here as a detector: the real run's
// values still go to the tools and to the caller.
//
// A value is judged, not a position in the program: a count of a
// firewalled collection is the same in both runs and stays visible, a
// branch on a firewalled value that changes what is shown hides what it
// changed (stricter than a label that travels with data).

// Surrogate returns v with every value under a "_" key (at any depth)
// replaced by its surrogate, and the rest shared with v. ok is false when
// v is too deep to walk whole: the caller must then treat everything the
// shadow run shows as firewalled.
func Surrogate(v lisp.Value) (out lisp.Value, ok bool) {
	s := &surrogater{memo: map[surrogateKey]lisp.Value{}}
	out = s.value(v, false, 0)
	return out, !s.tooDeep
}

// SurrogateAll returns the surrogate of v as a whole: every scalar in it
// replaced, map keys kept.
func SurrogateAll(v lisp.Value) (out lisp.Value, ok bool) {
	s := &surrogater{memo: map[surrogateKey]lisp.Value{}}
	out = s.value(v, true, 0)
	return out, !s.tooDeep
}

// Offsets of the surrogates of numbers: large, odd and not a multiple of
// 10, so that sums, products, quotients by anything up to a million, the
// parity and the last digits of a firewalled number all change.
const (
	intOffset   = 1234567
	floatOffset = 1234.5678
	maxWalk     = 10000 // nesting walked; deeper fails closed
)

type surrogateKey struct {
	coll  any
	under bool
}

type surrogater struct {
	memo    map[surrogateKey]lisp.Value
	tooDeep bool
}

func (s *surrogater) value(v lisp.Value, under bool, depth int) lisp.Value {
	if depth > maxWalk {
		s.tooDeep = true
		return v
	}
	switch x := v.(type) {
	case *lisp.Map:
		return s.coll(x, under, depth, func() lisp.Value {
			var b *lisp.MapBuilder
			for i, n := 0, x.Len(); i < n; i++ {
				k, e := x.EntryAt(i)
				se := s.value(e, under || HiddenKey(k), depth+1)
				if b == nil && !same(se, e) {
					b = lisp.NewMapBuilder(nil)
					for j := 0; j < i; j++ {
						kj, ej := x.EntryAt(j)
						b.Set(kj, ej)
					}
				}
				if b != nil {
					b.Set(k, se)
				}
			}
			if b == nil {
				return x
			}
			return b.Map()
		})
	case *lisp.Vector:
		return s.coll(x, under, depth, func() lisp.Value {
			items := x.Items()
			var out []lisp.Value
			for i, e := range items {
				se := s.value(e, under, depth+1)
				if out == nil && !same(se, e) {
					out = make([]lisp.Value, len(items))
					copy(out, items[:i])
				}
				if out != nil {
					out[i] = se
				}
			}
			if out == nil {
				return x
			}
			if x.IsList() {
				return lisp.NewList(out)
			}
			return lisp.NewVector(out)
		})
	case *lisp.Set:
		if !under {
			return x // a set's elements are under no key
		}
		return s.coll(x, under, depth, func() lisp.Value {
			items := x.Items()
			out := make([]lisp.Value, len(items))
			for i, e := range items {
				out[i] = s.value(e, true, depth+1)
			}
			return lisp.NewSet(out...)
		})
	case *lisp.Cell:
		// A shadow run must never change the real run's cells: it gets
		// a new cell of the same kind, holding the surrogate of what the
		// real one holds now (the same new cell wherever the real one
		// occurs).
		return s.coll(x, under, depth, func() lisp.Value {
			return copyCell(x, s.value(x.Deref(), under, depth+1))
		})
	}
	if !under {
		return v
	}
	return surrogateScalar(v)
}

// cellStandIn replaces a cell that cannot be copied (one that holds
// itself): dereferencing it fails in the shadow run, and what follows is
// shown as differing.
const cellStandIn = "\x00cell"

// copyCell returns a new cell of c's kind holding v, made as lisp.Read
// makes one from its printed form.
func copyCell(c *lisp.Cell, v lisp.Value) lisp.Value {
	text := lisp.Print(v, lisp.PrintOptions{Exact: true})
	out, err := lisp.Read("#"+c.Kind()+"["+text+"]", lisp.ReadOptions{})
	if _, ok := out.(*lisp.Cell); !ok || err != nil {
		return cellStandIn
	}
	return out
}

// coll returns the memoized surrogate of a collection: shared structure
// is walked once per mode, so the walk is linear in the value's size.
func (s *surrogater) coll(x lisp.Value, under bool, depth int, build func() lisp.Value) lisp.Value {
	if !WalkOnce(x) {
		return build()
	}
	key := surrogateKey{x, under}
	if out, ok := s.memo[key]; ok {
		return out
	}
	out := build()
	s.memo[key] = out
	return out
}

// same reports whether a and b are the same value object (the walk's
// "nothing changed"): scalars by value, collections by identity.
func same(a, b lisp.Value) bool {
	switch a.(type) {
	case *lisp.Map, *lisp.Vector, *lisp.Set, *lisp.Cell, *lisp.Exception:
		return a == b
	case float64:
		fb, ok := b.(float64)
		return ok && math.Float64bits(a.(float64)) == math.Float64bits(fb)
	}
	return keyLike(a) && keyLike(b) && a == b
}

// keyLike reports whether v can be compared with == and used as a map key.
func keyLike(v lisp.Value) bool {
	switch v.(type) {
	case nil, bool, int64, float64, string, lisp.Keyword, lisp.Symbol, lisp.Date:
		return true
	}
	return false
}

// surrogateScalar returns a value of v's type that differs from v, and
// whose every part differs from v's part at the same place: each
// character of a string (also when either is upper- or lower-cased), the
// digits of a number, the year, month and day of a date.
func surrogateScalar(v lisp.Value) lisp.Value {
	switch x := v.(type) {
	case string:
		return surrogateText(x)
	case lisp.Keyword:
		return lisp.Keyword(surrogateText(string(x)))
	case int64:
		if x > math.MaxInt64-intOffset {
			return x - intOffset
		}
		return x + intOffset
	case float64:
		switch {
		case math.IsNaN(x):
			return 1.5
		case math.IsInf(x, 0):
			return -x
		}
		y := x + floatOffset
		if y == x {
			y = -1.5*x - 1
		}
		return y
	case bool:
		return !x
	case lisp.Date:
		return lisp.Date{Y: x.Y + 7, M: (x.M+5)%12 + 1, D: (x.D+12)%28 + 1}
	case lisp.Instant:
		return lisp.Instant{T: x.T.Add(1234567*time.Second + 891*time.Millisecond)}
	}
	return v
}

// surrogateText maps every character of s to another: letters by ROT13
// and digits by five (so a case change or a parse gives another result),
// any other character to a neighbour that is not one of its case forms.
func surrogateText(s string) string {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		out = utf8.AppendRune(out, surrogateRune(r))
	}
	return string(out)
}

func surrogateRune(r rune) rune {
	switch {
	case r >= 'a' && r <= 'z':
		return 'a' + (r-'a'+13)%26
	case r >= 'A' && r <= 'Z':
		return 'A' + (r-'A'+13)%26
	case r >= '0' && r <= '9':
		return '0' + (r-'0'+5)%10
	case r < utf8.RuneSelf:
		return r ^ 1 // ASCII punctuation and control: another such
	}
	for _, flip := range []rune{2, 4, 8, 16, 32} {
		c := r ^ flip
		if c != utf8.RuneError && utf8.ValidRune(c) && !caseForms(r, c) {
			return c
		}
	}
	return 'x'
}

// caseForms reports whether a and b are case forms of one letter.
func caseForms(a, b rune) bool {
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}
