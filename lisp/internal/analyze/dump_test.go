package analyze

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp/syntax"
)

// This file holds the helpers shared by the tests of the package: a fixed
// builtin table, analysis of source text, and dump, which prints an analyzed
// tree in a compact, unambiguous notation so that tests can compare whole
// trees with one string:
//
//	nil true 42 4.0 "s" :k      constants and keywords (floats always with a '.')
//	x@3                         Local named x in slot 3 (@3 when unnamed, G@3 for a gensym)
//	^x#1                        Captured x, capture index 1
//	self:f                      Self
//	+  clojure.string/join      Builtin (its canonical name)
//	$foo                        Global
//	(f a b)                     Call
//	(fn f caps=[x<-L0 y<-C1 f<-S] ([a@0 & r@1] n=3 BODY) ...)
//
// Patterns print as x@0, [p q & r :as @4] and {:k=a@0|DEFAULT "s"=b@1 :as @2}.

// testBuiltins is the builtin table of the tests.
var testBuiltins = map[string]bool{
	"+": true, "-": true, "*": true, "=": true, "<": true, ">": true,
	"map": true, "filter": true, "inc": true, "dec": true, "first": true, "rest": true,
	"count": true, "some?": true, "nil?": true, "re-pattern": true, "str": true,
	"clojure.string/join": true, "join": true, "clojure.string/upper-case": true,
	"clojure.set/union": true, "Math/sqrt": true, "assoc": true, "conj": true,
	"get": true, "identity": true, "println": true, "vector": true, "even?": true,
}

func testConfig() Config {
	return Config{IsBuiltin: func(name string) bool { return testBuiltins[name] }}
}

// read reads src, failing the test on a syntax error.
func read(t testing.TB, src string) []syntax.Node {
	t.Helper()
	forms, err := syntax.Read(src)
	if err != nil {
		t.Fatalf("syntax.Read(%q): %v", src, err)
	}
	return forms
}

// analyzeSrc analyzes src with cfg.
func analyzeSrc(t testing.TB, src string, cfg Config) (*Program, error) {
	t.Helper()
	return Analyze(src, read(t, src), cfg)
}

// mustAnalyze analyzes src with the test config and fails on an error.
func mustAnalyze(t testing.TB, src string) *Program {
	t.Helper()
	p, err := analyzeSrc(t, src, testConfig())
	if err != nil {
		t.Fatalf("Analyze(%q): unexpected error: %v", src, err)
	}
	if p == nil {
		t.Fatalf("Analyze(%q): nil program without an error", src)
	}
	return p
}

// analyzeErrs analyzes src with cfg and returns its errors, failing the test
// when there are none or when the error is not an ErrorList.
func analyzeErrs(t testing.TB, src string, cfg Config) ErrorList {
	t.Helper()
	p, err := analyzeSrc(t, src, cfg)
	if err == nil {
		t.Fatalf("Analyze(%q): no error, got %s", src, dump(p.Body))
	}
	if p != nil {
		t.Errorf("Analyze(%q): a program returned together with an error", src)
	}
	list, ok := err.(ErrorList)
	if !ok {
		t.Fatalf("Analyze(%q): error of type %T, want ErrorList", src, err)
	}
	if len(list) == 0 {
		t.Fatalf("Analyze(%q): empty ErrorList", src)
	}
	return list
}

func dump(e Expr) string {
	var b strings.Builder
	dumpTo(&b, e)
	return b.String()
}

func dumpPattern(p Pattern) string {
	var b strings.Builder
	dumpPat(&b, p)
	return b.String()
}

func slotName(name string, slot int) string {
	switch {
	case name == "":
		return "@" + strconv.Itoa(slot)
	case strings.HasPrefix(name, " "):
		return "G@" + strconv.Itoa(slot)
	}
	return name + "@" + strconv.Itoa(slot)
}

func dumpList(b *strings.Builder, head string, es []Expr) {
	b.WriteString("(" + head)
	for _, e := range es {
		b.WriteByte(' ')
		dumpTo(b, e)
	}
	b.WriteByte(')')
}

// dumpItems writes es between open and close, separated by spaces.
func dumpItems(b *strings.Builder, open string, es []Expr, close string) {
	b.WriteString(open)
	spaced(b, len(es), func(i int) { dumpTo(b, es[i]) })
	b.WriteString(close)
}

func dumpBindings(b *strings.Builder, bs []Binding) {
	b.WriteByte('[')
	spaced(b, len(bs), func(i int) {
		bd := bs[i]
		dumpPat(b, bd.Pattern)
		b.WriteByte(' ')
		dumpTo(b, bd.Init)
	})
	b.WriteByte(']')
}

func dumpFn(b *strings.Builder, e *Fn) {
	b.WriteString("(fn")
	if e.Name != "" {
		b.WriteString(" " + e.Name)
	}
	if len(e.Captures) > 0 {
		b.WriteString(" caps=[")
		spaced(b, len(e.Captures), func(i int) {
			c := e.Captures[i]
			switch c.From {
			case FromLocal:
				fmt.Fprintf(b, "%s<-L%d", c.Name, c.Index)
			case FromCaptured:
				fmt.Fprintf(b, "%s<-C%d", c.Name, c.Index)
			case FromSelf:
				fmt.Fprintf(b, "%s<-S", c.Name)
			default:
				fmt.Fprintf(b, "%s<-?%d", c.Name, c.From)
			}
		})
		b.WriteByte(']')
	}
	for _, ar := range e.Arities {
		b.WriteString(" ([")
		spaced(b, len(ar.Params), func(i int) {
			p := ar.Params[i]
			dumpPat(b, p)
		})
		if ar.Rest != nil {
			if len(ar.Params) > 0 {
				b.WriteByte(' ')
			}
			b.WriteString("& ")
			dumpPat(b, ar.Rest)
		}
		fmt.Fprintf(b, "] n=%d ", ar.NumSlots)
		dumpTo(b, ar.Body)
		b.WriteByte(')')
	}
	b.WriteByte(')')
}

func dumpTo(b *strings.Builder, e Expr) {
	switch e := e.(type) {
	case nil:
		b.WriteString("<nil>")
	case *Const:
		switch v := e.Value.(type) {
		case nil:
			b.WriteString("nil")
		case bool:
			b.WriteString(strconv.FormatBool(v))
		case int64:
			b.WriteString(strconv.FormatInt(v, 10))
		case float64:
			s := strconv.FormatFloat(v, 'g', -1, 64)
			if !strings.ContainsAny(s, ".eIN") {
				s += ".0"
			}
			b.WriteString(s)
		case string:
			b.WriteString(strconv.Quote(v))
		default:
			fmt.Fprintf(b, "<const %T %v>", v, v)
		}
	case *Keyword:
		b.WriteString(":" + e.Name)
	case *SymbolLit:
		b.WriteString("'")
		if e.Ns != "" {
			b.WriteString(e.Ns + "/")
		}
		b.WriteString(e.Name)
	case *VectorLit:
		if e.List {
			dumpItems(b, "'(", e.Items, ")")
			break
		}
		dumpItems(b, "[", e.Items, "]")
	case *SetLit:
		dumpItems(b, "#{", e.Items, "}")
	case *MapLit:
		b.WriteByte('{')
		spaced(b, len(e.Keys), func(i int) {
			dumpTo(b, e.Keys[i])
			b.WriteByte(' ')
			dumpTo(b, e.Vals[i])
		})
		b.WriteByte('}')
	case *Local:
		b.WriteString(slotName(e.Name, int(e.Slot)))
	case *Captured:
		fmt.Fprintf(b, "^%s#%d", e.Name, e.Index)
	case *Self:
		b.WriteString("self:" + e.Name)
	case *Builtin:
		b.WriteString(e.Name)
	case *Global:
		b.WriteString("$" + e.Name)
	case *VarRef:
		b.WriteString("#'" + e.Name)
	case *CtxRef:
		b.WriteString("ctx/" + e.Name)
	case *HistoryRef:
		fmt.Fprintf(b, "*%d", e.N)
	case *MemoryGet:
		dumpList(b, "memory/get", []Expr{e.Key})
	case *MemoryPut:
		dumpList(b, "memory/put", []Expr{e.Key, e.Value})
	case *If:
		dumpList(b, "if", []Expr{e.Test, e.Then, e.Else})
	case *Do:
		dumpList(b, "do", e.Body)
	case *And:
		dumpList(b, "and", e.Exprs)
	case *Or:
		dumpList(b, "or", e.Exprs)
	case *Let:
		b.WriteString("(let ")
		dumpBindings(b, e.Bindings)
		b.WriteByte(' ')
		dumpTo(b, e.Body)
		b.WriteByte(')')
	case *Loop:
		b.WriteString("(loop ")
		dumpBindings(b, e.Bindings)
		b.WriteByte(' ')
		dumpTo(b, e.Body)
		b.WriteByte(')')
	case *Recur:
		head := "recur->fn"
		if e.Loop != nil {
			head = "recur->loop"
		}
		dumpList(b, head, e.Args)
	case *Fn:
		dumpFn(b, e)
	case *Def:
		head := "def"
		if e.Once {
			head = "defonce"
		}
		dumpList(b, head+" "+e.Name, []Expr{e.Value})
	case *Raise:
		fmt.Fprintf(b, "(raise %s %q", e.Kind, e.Msg)
		if e.Value != nil {
			b.WriteByte(' ')
			if e.Display {
				b.WriteString("str ")
			}
			dumpTo(b, e.Value)
		}
		if e.Suffix != "" {
			fmt.Fprintf(b, " %q", e.Suffix)
		}
		b.WriteByte(')')
	case *Call:
		b.WriteByte('(')
		dumpTo(b, e.Fn)
		for _, a := range e.Args {
			b.WriteByte(' ')
			dumpTo(b, a)
		}
		b.WriteByte(')')
	case *ToolCall:
		if e.NameExpr != nil {
			b.WriteString("(tool* ")
			dumpTo(b, e.NameExpr)
			for _, a := range e.Args {
				b.WriteByte(' ')
				dumpTo(b, a)
			}
			b.WriteByte(')')
		} else {
			dumpList(b, "tool "+strconv.Quote(e.Name), e.Args)
		}
	case *Return:
		dumpList(b, "return", []Expr{e.Value})
	case *Fail:
		dumpList(b, "fail", []Expr{e.Value})
	case *Where:
		b.WriteString("(where ")
		dumpTo(b, &VectorLit{Items: e.Path})
		if e.Op != "" || e.Value != nil {
			b.WriteString(" " + e.Op + " ")
			dumpTo(b, e.Value)
		}
		b.WriteByte(')')
	case *Combine:
		dumpList(b, e.Kind, e.Preds)
	case *Case:
		b.WriteString("(case ")
		dumpTo(b, e.Expr)
		for i, ts := range e.Tests {
			b.WriteString(" (")
			for j, t := range ts {
				if j > 0 {
					b.WriteByte(' ')
				}
				dumpTo(b, t)
			}
			b.WriteString(") ")
			dumpTo(b, e.Results[i])
		}
		if e.Default != nil {
			b.WriteString(" :default ")
			dumpTo(b, e.Default)
		}
		b.WriteByte(')')
	case *For:
		head := "doseq"
		if e.Collect {
			head = "for"
		}
		b.WriteString("(" + head + " [")
		spaced(b, len(e.Clauses), func(i int) {
			c := e.Clauses[i]
			dumpPat(b, c.Pattern)
			b.WriteByte(' ')
			dumpTo(b, c.Coll)
			for _, m := range c.Mods {
				b.WriteString(" :" + m.Kind + " ")
				if m.Kind == "let" {
					dumpBindings(b, m.Bindings)
				} else {
					dumpTo(b, m.Test)
				}
			}
		})
		b.WriteString("] ")
		dumpTo(b, e.Body)
		b.WriteByte(')')
	case *Dotimes:
		fmt.Fprintf(b, "(dotimes [@%d ", e.Slot)
		dumpTo(b, e.Count)
		b.WriteString("] ")
		dumpTo(b, e.Body)
		b.WriteByte(')')
	case *LetFn:
		b.WriteString("(letfn [")
		spaced(b, len(e.Fns), func(i int) {
			f := e.Fns[i]
			fmt.Fprintf(b, "@%d ", e.Slots[i])
			dumpFn(b, f)
		})
		b.WriteString("] ")
		dumpTo(b, e.Body)
		b.WriteByte(')')
	default:
		fmt.Fprintf(b, "<%T>", e)
	}
}

func dumpPat(b *strings.Builder, p Pattern) {
	switch p := p.(type) {
	case nil:
		b.WriteString("<nil>")
	case *BindSlot:
		b.WriteString(slotName(p.Name, p.Slot))
	case *BindVector:
		b.WriteByte('[')
		sep := ""
		for _, it := range p.Items {
			b.WriteString(sep)
			dumpPat(b, it)
			sep = " "
		}
		if p.Rest != nil {
			b.WriteString(sep + "& ")
			dumpPat(b, p.Rest)
			sep = " "
		}
		if p.As >= 0 {
			fmt.Fprintf(b, "%s:as @%d", sep, p.As)
		}
		b.WriteByte(']')
	case *BindMap:
		b.WriteByte('{')
		sep := ""
		for _, k := range p.Keys {
			b.WriteString(sep)
			if k.Keyword {
				b.WriteString(":" + k.Key)
			} else {
				b.WriteString(strconv.Quote(k.Key))
			}
			b.WriteByte('=')
			dumpPat(b, k.Pattern)
			if k.Default != nil {
				b.WriteByte('|')
				dumpTo(b, k.Default)
			}
			sep = " "
		}
		if p.As >= 0 {
			fmt.Fprintf(b, "%s:as @%d", sep, p.As)
		}
		b.WriteByte('}')
	default:
		fmt.Fprintf(b, "<%T>", p)
	}
}

// dumpCase is a program and the dump of its analysis.
type dumpCase struct{ name, src, want string }

// checkDumps analyzes each case in a subtest and compares the dump.
func checkDumps(t *testing.T, cases []dumpCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if got := dump(mustAnalyze(t, tt.src).Body); got != tt.want {
				t.Errorf("Analyze(%q)\n got: %s\nwant: %s", tt.src, got, tt.want)
			}
		})
	}
}

// spaced writes n items with item, separated by spaces.
func spaced(b *strings.Builder, n int, item func(i int)) {
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		item(i)
	}
}
