package lisp

import (
	"errors"

	"github.com/ptc-go/ptc/lisp/syntax"
)

// read-string and clojure.edn/read-string: the reader as a data parser.
// They read the first form of a string as data, never evaluating it:
// numbers, strings, characters, keywords, symbols, nil, booleans, lists,
// vectors, maps, sets and regexes; 'x reads as (quote x) and @x as
// (clojure.core/deref x), as Clojure reads them; #inst "…" reads as an
// instant and #uuid "…" as its canonical text, as in programs. The reader
// forms that evaluate or make host objects (#=, other tagged literals) and
// #(...) (whose parameters Clojure names with a counter that differs from
// run to run) are refused.

func registerRead(t *builtinTable) {
	t.add("read-string", 1, 2, func(th *thread, a []Value) (Value, error) {
		s, err := readStringArg("read-string", a)
		if err != nil {
			return nil, err
		}
		return th.readString("read-string", s, false, nil)
	})
	t.add("clojure.edn/read-string", 1, 2, func(th *thread, a []Value) (Value, error) {
		// (edn/read-string s) or (edn/read-string opts s): of the options
		// only :eof, the value for a string without a form, applies.
		var eof Value
		if len(a) == 2 {
			opts, ok := a[0].(*Map)
			if !ok && a[0] != nil {
				return nil, argError("clojure.edn/read-string", 0, "an options map", a[0])
			}
			if opts != nil {
				eof, _ = opts.Get(Keyword("eof"))
			}
			a = a[1:]
		}
		if a[0] == nil {
			return eof, nil // as clojure.edn: nil reads as the end of input
		}
		s, err := stringArg("clojure.edn/read-string", a, 0)
		if err != nil {
			return nil, err
		}
		return th.readString("clojure.edn/read-string", s, true, eof)
	})
}

// readStringArg takes (read-string s) and (read-string opts s); the options
// (:eof, :read-cond) change nothing a program can read here.
func readStringArg(fn string, a []Value) (string, error) {
	if len(a) == 2 {
		if _, ok := a[0].(*Map); !ok {
			return "", argError(fn, 0, "an options map", a[0])
		}
		a = a[1:]
	}
	return stringArg(fn, a, 0)
}

// readString reads the first form of s. Without one, edn returns eof and
// read-string fails, as in Clojure ("EOF while reading").
func (th *thread) readString(fn, s string, edn bool, eof Value) (Value, error) {
	if err := th.scanned(len(s)); err != nil {
		return nil, err
	}
	forms, err := syntax.Config{MaxDepth: maxReadStringDepth}.Read(s)
	if len(forms) == 0 && err == nil {
		if edn {
			return eof, nil
		}
		return nil, classError(InvalidArgument, classRuntime, "EOF while reading")
	}
	if err != nil {
		// Clojure reads one form and never looks further: an error after
		// the first form is not one.
		var list syntax.ErrorList
		if !errors.As(err, &list) || len(list) == 0 || len(forms) == 0 || int(list[0].Pos.Offset) <= int(forms[0].Bounds().Stop) {
			msg := err.Error()
			if len(list) > 0 {
				msg = list[0].Msg
			}
			return nil, classError(InvalidArgument, classRuntime, "%s: cannot read %s: %s", fn, brief(s), msg)
		}
	}
	return th.readNode(fn, forms[0])
}

// maxReadStringDepth bounds the nesting read-string reads, as the program
// reader's default does.
const maxReadStringDepth = 512

// readNode turns a form into the data it reads as, charging a slot for
// each value it makes.
func (th *thread) readNode(fn string, n syntax.Node) (Value, error) {
	if err := th.charge(1); err != nil {
		return nil, err
	}
	items := func(ns []syntax.Node) ([]Value, error) {
		if err := th.charge(int64(len(ns))); err != nil {
			return nil, err
		}
		out := make([]Value, len(ns))
		for i, x := range ns {
			v, err := th.readNode(fn, x)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	switch n := n.(type) {
	case *syntax.Nil:
		return nil, nil
	case *syntax.Bool:
		return n.Value, nil
	case *syntax.Int:
		return n.Value, nil
	case *syntax.BigInt:
		return n.Value, nil
	case *syntax.Decimal:
		if d, ok := parseDecimal(n.Text); ok {
			return d, nil
		}
		return nil, classError(InvalidArgument, classNumberFormat, "Invalid number: %sM", n.Text)
	case *syntax.Float:
		return n.Value, nil
	case *syntax.String:
		return n.Value, th.chargeString(len(n.Value))
	case *syntax.Keyword:
		return Keyword(n.Name), nil
	case *syntax.Symbol:
		return Symbol{Ns: n.Ns, Name: n.Name}, nil
	case *syntax.Vector:
		xs, err := items(n.Items)
		return NewVector(xs), err
	case *syntax.List:
		xs, err := items(n.Items)
		return NewList(xs), err
	case *syntax.Set:
		xs, err := items(n.Items)
		if err != nil {
			return nil, err
		}
		return NewSet(xs...), nil
	case *syntax.Map:
		xs, err := items(n.Items)
		if err != nil {
			return nil, err
		}
		b := emptyMapBuilder()
		for i := 0; i+1 < len(xs); i += 2 {
			b.Set(xs[i], xs[i+1])
		}
		return b.Map(), nil
	case *syntax.Quote:
		x, err := th.readNode(fn, n.Form)
		return listOf(Symbol{Name: "quote"}, x), err
	case *syntax.Deref:
		x, err := th.readNode(fn, n.Form)
		return listOf(Symbol{Ns: "clojure.core", Name: "deref"}, x), err
	case *syntax.VarQuote:
		return listOf(Symbol{Name: "var"}, Symbol{Ns: n.Sym.Ns, Name: n.Sym.Name}), nil
	case *syntax.Regex:
		return th.compileRegex(n.Pattern)
	case *syntax.Inst:
		return Instant{T: n.Time}, nil
	case *syntax.UUID:
		return n.Value, nil // a UUID is its text
	}
	return nil, classError(InvalidArgument, classRuntime, "%s: %s is code, not data: it reads only literals, symbols and collections", fn, syntax.Format(n))
}
