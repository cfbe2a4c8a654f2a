package lisp

import (
	"strings"
	"sync"
)

// java.lang.StringBuilder (and StringBuffer): (StringBuilder.),
// (StringBuilder. "init"), (new StringBuilder), .append (which returns the
// builder, so it chains in doto and ->), .insert, .reverse, .setLength,
// .deleteCharAt, .delete, .replace, .setCharAt, and the reads of a
// CharSequence: .toString, str, .length, .charAt, .substring, .indexOf,
// count, seq.
//
// A builder is a Cell of kind builderCell (state.go), mutable like an array
// (arrays.go: a run changes its own copy in place, and a run that fails puts
// back the text it found), equal only to itself. Its text grows in place,
// charged to the memory limit as it grows, so a builder appended to itself
// in a loop stops at the limit. Indexes count characters as count and subs
// do (deviation 43). It prints as #string-builder["text"] (Clojure prints
// #object[java.lang.StringBuilder 0x1b2c "text"], with an address), and
// converts to JSON and Go as its text.

// builderData is the text of a builder.
type builderData struct {
	sync.Mutex
	buf    []byte
	buffer bool // a StringBuffer
}

func (d *builderData) text() string {
	d.Lock()
	defer d.Unlock()
	return string(d.buf)
}

func (d *builderData) clone() cellData {
	return &builderData{buf: append([]byte(nil), d.buf...), buffer: d.buffer}
}

func (d *builderData) slots() int { return len(d.buf)/valueSize + 2 }

func (th *thread) newBuilder(s string, buffer bool) (*Cell, error) {
	if err := th.chargeString(len(s)); err != nil {
		return nil, err
	}
	return th.newCell(builderCell, &builderData{buf: []byte(s), buffer: buffer}, nil)
}

// builderArg returns argument i as a builder, or nil when it is not one.
func builderArg(a []Value, i int) *Cell {
	if c, ok := a[i].(*Cell); ok && c.kind == builderCell {
		return c
	}
	return nil
}

// builderText is the text of a builder, for the methods that read it.
func builderText(c *Cell) string { return c.load().val.(*builderData).text() }

// editBuilder replaces the builder's text by edit of it: the methods that
// change it other than at its end, each a copy of the text, charged.
func (th *thread) editBuilder(c *Cell, edit func(s string) (string, error)) error {
	return th.mutate(c, func(cd cellData) error {
		d := cd.(*builderData)
		out, err := edit(string(d.buf))
		if err != nil {
			return err
		}
		if err := th.chargeString(len(out)); err != nil {
			return err
		}
		if err := th.scanned(len(out)); err != nil {
			return err
		}
		d.buf = append(d.buf[:0], out...)
		return nil
	})
}

// javaString is String.valueOf(x), what append and insert add: "null" for
// nil, else str's text.
func (th *thread) javaString(x Value) (string, error) {
	if x == nil {
		return "null", nil
	}
	return th.render(x, false)
}

func registerBuilder(t *builtinTable) {
	construct := func(buffer bool) builtinFn {
		return func(th *thread, a []Value) (Value, error) {
			if len(a) == 0 {
				return th.newBuilder("", buffer)
			}
			switch x := a[0].(type) {
			case int64:
				if x < 0 {
					return nil, classError(InvalidArgument, classNegativeArraySize, "StringBuilder.: capacity %d (NegativeArraySizeException)", x)
				}
				return th.newBuilder("", buffer) // a capacity
			case string:
				return th.newBuilder(x, buffer)
			case *Cell:
				if x.kind == builderCell {
					return th.newBuilder(builderText(x), buffer)
				}
			case nil:
				return nil, classError(TypeError, classNullPointer, "StringBuilder. of nil (NullPointerException): give it a string")
			}
			return nil, argError("StringBuilder.", 0, "a string or a capacity", a[0])
		}
	}
	t.add("StringBuilder.", 0, 1, construct(false), "java.lang.StringBuilder.")
	b := t.add("StringBuffer.", 0, 1, construct(true), "java.lang.StringBuffer.")
	b.Name = "StringBuilder." // documented with StringBuilder.

	t.add(".append", 2, 4, func(th *thread, a []Value) (Value, error) {
		c := builderArg(a, 0)
		if c == nil {
			return nil, argError(".append", 0, "a StringBuilder (strings do not change: use str)", a[0])
		}
		s, err := th.javaString(a[1])
		if err != nil {
			return nil, err
		}
		if len(a) > 2 {
			// (.append sb chars start end): a part of a CharSequence.
			if len(a) != 4 {
				return nil, errorf(ArityError, ".append takes a value, or a text, a start and an end")
			}
			if s, err = substringArgs(".append", s, a[2:]); err != nil {
				return nil, err
			}
		}
		// The buffer grows by doubling: twice the text is charged.
		if err := th.chargeString(2 * len(s)); err != nil {
			return nil, err
		}
		err = th.mutate(c, func(cd cellData) error {
			d := cd.(*builderData)
			d.buf = append(d.buf, s...)
			return nil
		})
		return c, err
	})
	t.add(".insert", 3, 3, func(th *thread, a []Value) (Value, error) {
		c := builderArg(a, 0)
		if c == nil {
			return nil, argError(".insert", 0, "a StringBuilder", a[0])
		}
		i, err := intArg(".insert", a, 1)
		if err != nil {
			return nil, err
		}
		s, err := th.javaString(a[2])
		if err != nil {
			return nil, err
		}
		return c, th.editBuilder(c, func(text string) (string, error) {
			n := int64(graphemeCount(text))
			if i < 0 || i > n {
				return "", classError(InvalidArgument, classStringIndex, ".insert: offset %d, length %d (StringIndexOutOfBoundsException)", i, n)
			}
			at := charOffset(text, 0, i)
			return text[:at] + s + text[at:], nil
		})
	})
	t.add(".reverse", 1, 1, func(th *thread, a []Value) (Value, error) {
		c := builderArg(a, 0)
		if c == nil {
			return nil, argError(".reverse", 0, "a StringBuilder (for a string use clojure.string/reverse)", a[0])
		}
		return c, th.editBuilder(c, func(text string) (string, error) {
			gs := graphemes(text)
			var sb strings.Builder
			sb.Grow(len(text))
			for i := len(gs) - 1; i >= 0; i-- {
				sb.WriteString(gs[i].(string))
			}
			return sb.String(), nil
		})
	})
	t.add(".setLength", 2, 2, func(th *thread, a []Value) (Value, error) {
		c := builderArg(a, 0)
		if c == nil {
			return nil, argError(".setLength", 0, "a StringBuilder", a[0])
		}
		n, err := intArg(".setLength", a, 1)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, classError(InvalidArgument, classStringIndex, ".setLength: length %d (StringIndexOutOfBoundsException)", n)
		}
		return nil, th.editBuilder(c, func(text string) (string, error) {
			have := int64(graphemeCount(text))
			if n <= have {
				return text[:charOffset(text, 0, n)], nil
			}
			// Longer: padded with the character \u0000, as Java does;
			// charged before it is made.
			if n-have > maxCharge {
				return "", th.charge(maxCharge + 1)
			}
			if err := th.chargeString(int(n - have)); err != nil {
				return "", err
			}
			return text + strings.Repeat("\x00", int(n-have)), nil
		})
	})
	t.add(".deleteCharAt", 2, 2, func(th *thread, a []Value) (Value, error) {
		c := builderArg(a, 0)
		if c == nil {
			return nil, argError(".deleteCharAt", 0, "a StringBuilder", a[0])
		}
		i, err := intArg(".deleteCharAt", a, 1)
		if err != nil {
			return nil, err
		}
		return c, th.editBuilder(c, func(text string) (string, error) {
			n := int64(graphemeCount(text))
			if i < 0 || i >= n {
				return "", classError(InvalidArgument, classStringIndex, ".deleteCharAt: index %d, length %d (StringIndexOutOfBoundsException)", i, n)
			}
			from := charOffset(text, 0, i)
			return text[:from] + text[from+graphemeLen(text[from:]):], nil
		})
	})
	t.add(".delete", 3, 3, func(th *thread, a []Value) (Value, error) {
		c := builderArg(a, 0)
		if c == nil {
			return nil, argError(".delete", 0, "a StringBuilder", a[0])
		}
		start, end, err := twoInts(".delete", a)
		if err != nil {
			return nil, err
		}
		return c, th.editBuilder(c, func(text string) (string, error) {
			n := int64(graphemeCount(text))
			end := min(end, n) // Java clamps the end
			if start < 0 || start > end {
				return "", classError(InvalidArgument, classStringIndex, ".delete: start %d, end %d, length %d (StringIndexOutOfBoundsException)", start, end, n)
			}
			from := charOffset(text, 0, start)
			to := charOffset(text, from, end-start)
			return text[:from] + text[to:], nil
		})
	})
	t.add(".setCharAt", 3, 3, func(th *thread, a []Value) (Value, error) {
		c := builderArg(a, 0)
		if c == nil {
			return nil, argError(".setCharAt", 0, "a StringBuilder", a[0])
		}
		i, err := intArg(".setCharAt", a, 1)
		if err != nil {
			return nil, err
		}
		r, err := charArg(".setCharAt", a, 2)
		if err != nil {
			return nil, err
		}
		ch := string(r)
		if s, ok := a[2].(string); ok {
			ch = s
		}
		return nil, th.editBuilder(c, func(text string) (string, error) {
			n := int64(graphemeCount(text))
			if i < 0 || i >= n {
				return "", classError(InvalidArgument, classStringIndex, ".setCharAt: index %d, length %d (StringIndexOutOfBoundsException)", i, n)
			}
			from := charOffset(text, 0, i)
			return text[:from] + ch + text[from+graphemeLen(text[from:]):], nil
		})
	})
	// String's (.replace s target replacement) and StringBuilder's
	// (.replace sb start end text).
	t.wrap(".replace", func(old *Builtin) *Builtin {
		return &Builtin{Name: old.Name, MinArgs: 3, MaxArgs: 4, fn: func(th *thread, a []Value) (Value, error) {
			c := builderArg(a, 0)
			if c == nil {
				if len(a) == 4 {
					return nil, errorf(ArityError, ".replace of a string takes a target and a replacement: (.replace s \"a\" \"b\")")
				}
				return old.fn(th, a)
			}
			if len(a) != 4 {
				return nil, errorf(ArityError, ".replace of a StringBuilder takes a start, an end and a text: (.replace sb 0 2 \"ab\")")
			}
			start, end, err := twoInts(".replace", a)
			if err != nil {
				return nil, err
			}
			s, err := stringArg(".replace", a, 3)
			if err != nil {
				return nil, err
			}
			return c, th.editBuilder(c, func(text string) (string, error) {
				n := int64(graphemeCount(text))
				end := min(end, n)
				if start < 0 || start > n || start > end {
					return "", classError(InvalidArgument, classStringIndex, ".replace: start %d, end %d, length %d (StringIndexOutOfBoundsException)", start, end, n)
				}
				from := charOffset(text, 0, start)
				to := charOffset(text, from, end-start)
				return text[:from] + s + text[to:], nil
			})
		}}
	})
	// The reads of a CharSequence see the builder's text.
	for _, name := range []string{".length", ".charAt", ".substring", ".indexOf", ".lastIndexOf", ".isEmpty", ".subSequence", ".chars"} {
		if _, ok := t.names[name]; !ok {
			continue
		}
		t.wrap(name, func(old *Builtin) *Builtin {
			b := *old
			fn := old.fn
			b.fn = func(th *thread, a []Value) (Value, error) {
				if c := builderArg(a, 0); c != nil {
					s := builderText(c)
					if err := th.chargeString(len(s)); err != nil {
						return nil, err
					}
					return withColl(fn, th, s, a)
				}
				return fn(th, a)
			}
			return &b
		})
	}
}

// twoInts reads the integer arguments 1 and 2.
func twoInts(fn string, a []Value) (int64, int64, error) {
	x, err := intArg(fn, a, 1)
	if err != nil {
		return 0, 0, err
	}
	y, err := intArg(fn, a, 2)
	return x, y, err
}

// substringArgs is s[start:end] in characters, for (.append sb s start end).
func substringArgs(fn, s string, a []Value) (string, error) {
	start, err := intArg(fn, a, 0)
	if err != nil {
		return "", err
	}
	end, err := intArg(fn, a, 1)
	if err != nil {
		return "", err
	}
	n := int64(graphemeCount(s))
	if start < 0 || end > n || start > end {
		return "", classError(InvalidArgument, classIndexOutOfBound, "%s: start %d, end %d, length %d (IndexOutOfBoundsException)", fn, start, end, n)
	}
	from := charOffset(s, 0, start)
	return s[from:charOffset(s, from, end-start)], nil
}
