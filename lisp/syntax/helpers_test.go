package syntax

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// dump renders a node's structure without positions, spelling out what
// Format leaves implicit (Char, the Ns/Name split).
func dump(n Node) string {
	var b strings.Builder
	dumpTo(&b, n)
	return b.String()
}

func dumpAll(ns []Node) string {
	var b strings.Builder
	for i, n := range ns {
		if i > 0 {
			b.WriteByte(' ')
		}
		dumpTo(&b, n)
	}
	return b.String()
}

func dumpItems(b *strings.Builder, open string, items []Node, close string) {
	b.WriteString(open)
	for i, it := range items {
		if i > 0 {
			b.WriteByte(' ')
		}
		dumpTo(b, it)
	}
	b.WriteString(close)
}

func dumpTo(b *strings.Builder, n Node) {
	switch n := n.(type) {
	case *Nil:
		b.WriteString("nil")
	case *Bool:
		b.WriteString(strconv.FormatBool(n.Value))
	case *Int:
		b.WriteString("int:" + strconv.FormatInt(n.Value, 10))
	case *BigInt:
		b.WriteString("bigint:" + n.Value.String())
	case *Decimal:
		b.WriteString("decimal:" + n.Text)
	case *Float:
		b.WriteString("float:" + strconv.FormatFloat(n.Value, 'g', -1, 64))
	case *String:
		if n.Char {
			b.WriteString("char:" + strconv.Quote(n.Value))
		} else {
			b.WriteString("str:" + strconv.Quote(n.Value))
		}
	case *Keyword:
		b.WriteString("kw:" + n.Name)
	case *Symbol:
		if n.Ns != "" {
			b.WriteString("sym:" + n.Ns + "|" + n.Name)
		} else {
			b.WriteString("sym:" + n.Name)
		}
	case *List:
		dumpItems(b, "(", n.Items, ")")
	case *Vector:
		dumpItems(b, "[", n.Items, "]")
	case *Map:
		dumpItems(b, "{", n.Items, "}")
	case *Set:
		dumpItems(b, "#{", n.Items, "}")
	case *ShortFn:
		dumpItems(b, "#(", n.Items, ")")
	case *Quote:
		b.WriteString("'")
		dumpTo(b, n.Form)
	case *Deref:
		b.WriteString("@")
		dumpTo(b, n.Form)
	case *SyntaxQuote:
		b.WriteString("`")
		dumpTo(b, n.Form)
	case *Unquote:
		b.WriteString("~")
		dumpTo(b, n.Form)
	case *UnquoteSplicing:
		b.WriteString("~@")
		dumpTo(b, n.Form)
	case *VarQuote:
		b.WriteString("#'")
		dumpTo(b, n.Sym)
	case *Regex:
		b.WriteString("re:" + strconv.Quote(n.Pattern))
	case *Inst:
		b.WriteString("inst:" + n.Time.Format("2006-01-02T15:04:05.000Z07:00"))
	case *UUID:
		b.WriteString("uuid:" + n.Value)
	default:
		b.WriteString("?")
	}
}

func errStrings(err error) []string {
	if err == nil {
		return nil
	}
	el, ok := err.(ErrorList)
	if !ok {
		return []string{"not an ErrorList: " + err.Error()}
	}
	var out []string
	for _, e := range el {
		out = append(out, e.Error())
	}
	return out
}

func formatAll(ns []Node) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = Format(n)
	}
	return strings.Join(parts, " ")
}

// walk calls f on n and every node inside it, parents first.
func walk(n Node, f func(Node)) {
	if n == nil {
		return
	}
	f(n)
	var items []Node
	switch n := n.(type) {
	case *List:
		items = n.Items
	case *Vector:
		items = n.Items
	case *Map:
		items = n.Items
	case *Set:
		items = n.Items
	case *ShortFn:
		items = n.Items
	case *Quote:
		walk(n.Form, f)
	case *Deref:
		walk(n.Form, f)
	case *SyntaxQuote:
		walk(n.Form, f)
	case *Unquote:
		walk(n.Form, f)
	case *UnquoteSplicing:
		walk(n.Form, f)
	case *VarQuote:
		walk(n.Sym, f)
	}
	for _, it := range items {
		walk(it, f)
	}
}

// posAt computes the position of a byte offset from scratch.
func posAt(src string, off int) Pos {
	line := 1 + strings.Count(src[:off], "\n")
	start := strings.LastIndexByte(src[:off], '\n') + 1
	return Pos{Offset: int32(off), Line: int32(line), Col: int32(1 + utf8.RuneCountInString(src[start:off]))}
}

// checkSpans verifies, for every node, that its positions agree with its
// offsets and that the source text it spans reads back as the same node.
func checkSpans(t testing.TB, src string, forms []Node) {
	t.Helper()
	lines := LinesOf(src)
	for _, f := range forms {
		walk(f, func(n Node) {
			b := n.Bounds()
			if b.Start < 0 || int(b.Stop) > len(src) || b.Start >= b.Stop {
				t.Fatalf("%s: bad span %+v", dump(n), b)
			}
			s, e := lines.Pos(b.Start), lines.Pos(b.Stop)
			if s.Offset < 0 || int(e.Offset) > len(src) || s.Offset >= e.Offset {
				t.Fatalf("%s: bad span %+v..%+v", dump(n), s, e)
			}
			if got := posAt(src, int(s.Offset)); got != s {
				t.Fatalf("%s: start %+v, want %+v", dump(n), s, got)
			}
			if got := posAt(src, int(e.Offset)); got != e {
				t.Fatalf("%s: end %+v, want %+v", dump(n), e, got)
			}
			text := src[s.Offset:e.Offset]
			again, err := Read(text)
			if err != nil || len(again) != 1 || dump(again[0]) != dump(n) {
				t.Fatalf("span %q of %s reads as %s, %v", text, dump(n), dumpAll(again), err)
			}
		})
	}
}
