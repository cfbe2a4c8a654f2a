package firewall

import (
	"math"
	"math/big"
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

// Variants is the number of surrogates of a value, one per shadow run.
// They differ from the value by amounts that share no factor (a number by
// 1,234,567 = 127 × 9,721 and by 98,765,432,101 = 7 × 149 × 94,693,607; a
// letter's code point by 975 = 3 × 5² × 13 and by 848 = 2⁴ × 53), so that
// a residue, a quotient or a rounded sum that one of them leaves alike,
// the other changes: a value is shown only when both shadow runs show it
// the same.
const Variants = 2

// Surrogate returns v with every value under a "_" key (at any depth)
// replaced by its surrogate of the given variant (0 ≤ variant <
// Variants), and the rest shared with v. ok is false when v is too deep
// to walk whole: the caller must then treat everything the shadow run
// shows as firewalled.
func Surrogate(v lisp.Value, variant int) (out lisp.Value, ok bool) {
	s := &surrogater{memo: map[surrogateKey]lisp.Value{}, variant: variant}
	out = s.value(v, false, 0)
	return out, !s.tooDeep
}

// SurrogateHidden is Surrogate that also replaces what fw hides of v: a
// collection it hides by identity, an element it hides by its place (what
// an agent called as a tool computed from its own firewalled data, which
// its caller's firewall absorbed).
func (fw *Firewall) SurrogateHidden(v lisp.Value, variant int) (out lisp.Value, ok bool) {
	s := &surrogater{memo: map[surrogateKey]lisp.Value{}, variant: variant, fw: fw}
	out = s.value(v, false, 0)
	return out, !s.tooDeep
}

// SurrogateAll returns the surrogate of v as a whole: every scalar in it
// replaced, map keys kept.
func SurrogateAll(v lisp.Value, variant int) (out lisp.Value, ok bool) {
	s := &surrogater{memo: map[surrogateKey]lisp.Value{}, variant: variant}
	out = s.value(v, true, 0)
	return out, !s.tooDeep
}

// The offsets of the surrogates of numbers, per variant: large and odd, so
// that sums, products, quotients by anything up to a million, the parity
// and the last digits of a firewalled number all change.
var (
	intOffsets   = [Variants]int64{1234567, 98765432101}
	floatOffsets = [Variants]float64{1234.5678, -98765.4321}
	// letterBase are the first lower- and upper-case letters that a and A
	// become: Cyrillic а and А (975 code points on), Greek α and Α (848).
	letterBase = [Variants][2]rune{{'а', 'А'}, {'α', 'Α'}}
	// digitShift is what a digit becomes: its value plus the shift, mod 10.
	digitShift = [Variants]rune{5, 3}
)

const maxWalk = 10000 // nesting walked; deeper fails closed

type surrogateKey struct {
	coll  any
	under bool
}

type surrogater struct {
	memo    map[surrogateKey]lisp.Value
	variant int
	fw      *Firewall // when set, what it hides is replaced too
	tooDeep bool
}

// hidden reports whether the element under key in coll is replaced.
func (s *surrogater) hidden(coll, key lisp.Value) bool {
	return s.fw != nil && s.fw.HidesMember(coll, key)
}

func (s *surrogater) value(v lisp.Value, under bool, depth int) lisp.Value {
	if depth > maxWalk {
		s.tooDeep = true
		return v
	}
	if !under && s.fw != nil && (isCollection(v) || hideableScalar(v)) && s.fw.Hides(v) {
		under = true
	}
	switch x := v.(type) {
	case *lisp.Map:
		return s.coll(x, under, depth, func() lisp.Value {
			var b *lisp.MapBuilder
			for i, n := 0, x.Len(); i < n; i++ {
				k, e := x.EntryAt(i)
				se := s.value(e, under || HiddenKey(k) || s.hidden(x, k), depth+1)
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
				se := s.value(e, under || s.hidden(x, int64(i)), depth+1)
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
		key := surrogateKey{x, under}
		if out, ok := s.memo[key]; ok {
			return out
		}
		// A cell that holds itself (through its value) meets itself
		// before its copy is made: that occurrence is a stand-in.
		s.memo[key] = cellStandIn
		if x.Pending() {
			// A delay's body is code, holding what it closed over as it
			// is: a copy that ran it would compute from real values.
			// Dereferencing the stand-in fails, and what follows is
			// shown as differing.
			return cellStandIn
		}
		out := copyCell(x, s.value(x.Deref(), under, depth+1))
		s.memo[key] = out
		return out
	}
	if !under {
		return v
	}
	return surrogateScalar(v, s.variant)
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
	case *lisp.Map, *lisp.Vector, *lisp.Set, *lisp.Cell, *lisp.Exception, *lisp.Decimal, *big.Int:
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
func surrogateScalar(v lisp.Value, variant int) lisp.Value {
	switch x := v.(type) {
	case string:
		return surrogateText(x, variant)
	case lisp.Keyword:
		return lisp.Keyword(surrogateText(string(x), variant))
	case int64:
		off := intOffsets[variant]
		if x > math.MaxInt64-off {
			return x - off
		}
		return x + off
	case *big.Int:
		return new(big.Int).Add(x, big.NewInt(intOffsets[variant]))
	case *lisp.Decimal:
		// Every digit of the mantissa shifted; the sign, the point and the
		// exponent kept.
		text := []byte(x.String())
		for i, c := range text {
			if c == 'E' {
				break
			}
			if c >= '0' && c <= '9' {
				text[i] = byte('0' + (rune(c)-'0'+digitShift[variant])%10)
			}
		}
		if d, err := lisp.Read(string(text)+"M", lisp.ReadOptions{}); err == nil {
			return d
		}
		return v
	case float64:
		switch {
		case math.IsNaN(x):
			return 1.5 + float64(variant)
		case math.IsInf(x, 0):
			return -x
		}
		y := x + floatOffsets[variant]
		if y == x {
			y = -1.5*x - 1
		}
		return y
	case bool:
		return !x
	case lisp.Date:
		return lisp.Date{Y: x.Y + 7 + variant, M: (x.M+4+variant)%12 + 1, D: (x.D+11+variant*2)%28 + 1}
	case lisp.Instant:
		return x.Add(time.Duration(intOffsets[variant])*time.Second + 891*time.Millisecond)
	}
	return v
}

// surrogateText maps every character of s to another: ASCII letters to
// Cyrillic ones of the same case (every code point grows, so a sum of
// codes changes too, and no case change makes them alike), digits by five
// (a number parsed from them is another number), any other character to
// a neighbour that is not one of its case forms.
func surrogateText(s string, variant int) string {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		out = utf8.AppendRune(out, surrogateRune(r, variant))
	}
	return string(out)
}

func surrogateRune(r rune, variant int) rune {
	switch {
	case r >= 'a' && r <= 'z':
		return letterBase[variant][0] + (r - 'a')
	case r >= 'A' && r <= 'Z':
		return letterBase[variant][1] + (r - 'A')
	case r >= '0' && r <= '9':
		return '0' + (r-'0'+digitShift[variant])%10
	case r < utf8.RuneSelf:
		return r ^ rune(1+variant*2) // ASCII punctuation and control: another such
	}
	for _, flip := range []rune{2 << variant, 4 << variant, 8 << variant, 16 << variant, 32 << variant} {
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
