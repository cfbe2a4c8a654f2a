package analyze

import (
	"strconv"
	"strings"

	"github.com/ptc-go/ptc/lisp/syntax"
)

// MacroHost runs the macros a program defines. The analyzer cannot run
// code, so it hands a defmacro's function to the host, and each call of a
// macro to the host to expand.
type MacroHost interface {
	// DefineMacro makes fn, the form (fn name [params] body...) or
	// (fn name ([params] body...)...), the expander of the macro name.
	DefineMacro(name string, fn *syntax.List) error
	// Known returns the names of the macros defined so far (nil: none);
	// the analyzer only reads it.
	Known() map[string]bool
	// ExpandMacro calls the expander of name with the unevaluated
	// arguments of call and returns the form it makes.
	ExpandMacro(name string, call *syntax.List) (syntax.Node, error)
}

// StopError is an error of a MacroHost that ends the analysis, reported
// with its own kind rather than as a fault of the macro: the caller's
// deadline passed or its context ended while a macro ran.
type StopError interface {
	error
	StopKind() string
}

// macroFailed reports err, the host's failure to define or expand the
// macro name (what says which), ending the analysis when err is a
// StopError.
func (a *analyzer) macroFailed(pos int32, what, name string, err error) Expr {
	if stop, ok := err.(StopError); ok {
		a.errs = append(a.errs, &Error{Pos: a.lines.Pos(pos), Kind: stop.StopKind(), Msg: stop.Error()})
		panic(bailout{})
	}
	return a.errorf(pos, "invalid_form", "%s %s: %v", what, name, err)
}

// maxMacroExpansions bounds the expansions of one analysis: each runs
// the macro's code, and a macro that expands into a call of itself would
// otherwise go on until the nesting limit.
const maxMacroExpansions = 2_000

// defineMacro analyzes (defmacro name doc? attrs? [params] body...) or
// (defmacro name doc? attrs? ([params] body...)...): the host compiles the
// function, and from here on a call (name ...) is expanded.
func (a *analyzer) defineMacro(l *syntax.List) Expr {
	pos := a.pos(l)
	args := l.Items[1:]
	if len(args) < 2 {
		return a.errorf(pos, "invalid_arity", "defmacro expects (defmacro name [params] body...), got %d argument(s)", len(args))
	}
	s, ok := args[0].(*syntax.Symbol)
	if !ok || s.Ns != "" {
		return a.errorf(a.pos(args[0]), "invalid_form", "defmacro expects a name, got %s", syntax.Format(args[0]))
	}
	if isSpecialName(s.Name) || isReplaceableMacro(s.Name) {
		return a.errorf(a.pos(args[0]), "invalid_form", "defmacro cannot redefine %s, a form of the language: choose another name", s.Name)
	}
	rest := args[1:]
	if str, ok := rest[0].(*syntax.String); ok && !str.Char && len(rest) > 1 {
		rest = rest[1:] // the docstring
	}
	if _, ok := rest[0].(*syntax.Map); ok && len(rest) > 1 {
		rest = rest[1:] // the attribute map
	}
	switch r := rest[0].(type) {
	case *syntax.Vector:
	case *syntax.List:
		if len(r.Items) == 0 {
			return a.errorf(a.pos(r), "invalid_form", "defmacro %s: an arity is ([params] body...), got ()", s.Name)
		}
	default:
		return a.errorf(a.pos(rest[0]), "invalid_form", "defmacro %s expects a parameter vector, got %s", s.Name, syntax.Format(rest[0]))
	}
	if a.cfg.Macros == nil {
		return a.errorf(pos, "invalid_form", "defmacro is not available here")
	}
	items := make([]syntax.Node, 0, len(rest)+2)
	items = append(items, &syntax.Symbol{Span: l.Items[0].Bounds(), Name: "fn"}, s)
	fn := &syntax.List{Span: l.Span, Items: append(items, rest...)}
	if err := a.cfg.Macros.DefineMacro(s.Name, fn); err != nil {
		return a.macroFailed(pos, "defmacro", s.Name, err)
	}
	a.macros = a.cfg.Macros.Known()
	a.newEpoch()
	return &VarRef{At: At{pos}, Name: s.Name} // #'name, as def returns
}

// isMacro reports whether a call headed by name is a call of a macro the
// program defined: unless a local binds the name.
func (a *analyzer) isMacro(name string) bool {
	return a.macros[name] && !a.isLocal(name)
}

// expandOnce expands a call of the macro name.
func (a *analyzer) expandOnce(name string, l *syntax.List) (syntax.Node, bool) {
	a.expansions++
	if a.expansions > maxMacroExpansions {
		a.errorf(a.pos(l), "invalid_form", "more than %d macro expansions: does a macro expand into a call of itself?", maxMacroExpansions)
		panic(bailout{})
	}
	out, err := a.cfg.Macros.ExpandMacro(name, l)
	a.newEpoch() // whatever the macro's code did
	if err != nil {
		a.macroFailed(a.pos(l), "macro", name, err)
		return nil, false
	}
	return out, true
}

// macroCall analyzes the expansion of a macro call in its place.
func (a *analyzer) macroCall(name string, l *syntax.List, tail bool) Expr {
	out, ok := a.expandOnce(name, l)
	if !ok {
		return &Const{At: At{a.pos(l)}}
	}
	a.descend(l, "macro expansions nested too deep")
	e := a.expr(out, tail)
	a.depth--
	return e
}

// macroexpand is (macroexpand-1 'form) or (macroexpand 'form): the
// expansion, as data, of a quoted call of a macro the program defined
// above (any other form is its own expansion). The analyzer expands
// macros, so the form must be quoted literal data.
func (a *analyzer) macroexpand(name string, l *syntax.List) Expr {
	pos := a.pos(l)
	if len(l.Items) != 2 {
		return a.errorf(pos, "invalid_arity", "%s expects one quoted form, (%s '(m x)), got %d argument(s)", name, name, len(l.Items)-1)
	}
	var form syntax.Node
	switch q := l.Items[1].(type) {
	case *syntax.Quote:
		form = q.Form
	case *syntax.List:
		if s, ok := firstNode(q.Items).(*syntax.Symbol); ok && s.Ns == "" && s.Name == "quote" && len(q.Items) == 2 {
			form = q.Items[1]
		}
	}
	if form == nil {
		return a.errorf(a.pos(l.Items[1]), "invalid_form",
			"%s expands a quoted form while the program is analyzed: write (%s '(m x)), got %s", name, name, syntax.Format(l.Items[1]))
	}
	for {
		c, ok := form.(*syntax.List)
		if !ok {
			break
		}
		s, ok := firstNode(c.Items).(*syntax.Symbol)
		if !ok || s.Ns != "" || !a.isMacro(s.Name) {
			break
		}
		out, ok := a.expandOnce(s.Name, c)
		if !ok {
			return &Const{At: At{pos}}
		}
		form = out
		if name == "macroexpand-1" {
			break
		}
	}
	return a.quote(form, pos)
}

// ---- syntax-quote -------------------------------------------------------

// syntaxQuote expands `form into the form that builds it, as Clojure's
// reader does: symbols are quoted (builtins qualified with their
// namespace, name# made a fresh name shared by the whole template), ~x is
// x's value and ~@xs splices the elements of xs into the enclosing
// collection.
func (a *analyzer) syntaxQuote(n *syntax.SyntaxQuote) syntax.Node {
	sq := &sqExpander{span: n.Span}
	return sq.form(a, n.Form, 0)
}

// sqExpander is the state of one syntax-quote: the names its name#
// symbols stand for.
type sqExpander struct {
	span  syntax.Span
	autos map[string]string
}

func (sq *sqExpander) sym(ns, name string) *syntax.Symbol {
	return &syntax.Symbol{Span: sq.span, Ns: ns, Name: name}
}

func (sq *sqExpander) call(ns, name string, args ...syntax.Node) *syntax.List {
	return &syntax.List{Span: sq.span, Items: append([]syntax.Node{sq.sym(ns, name)}, args...)}
}

func (sq *sqExpander) quoted(x syntax.Node) syntax.Node {
	return &syntax.List{Span: sq.span, Items: []syntax.Node{sq.sym("", "quote"), x}}
}

// form expands one form of the template.
func (sq *sqExpander) form(a *analyzer, n syntax.Node, depth int) syntax.Node {
	if depth > a.cfg.MaxDepth {
		a.tooDeep(n, "syntax-quote nested too deep")
	}
	switch n := n.(type) {
	case *syntax.Symbol:
		return sq.quoted(sq.resolve(a, n))
	case *syntax.Unquote:
		return n.Form
	case *syntax.UnquoteSplicing:
		a.errorf(a.pos(n), "invalid_form", "~@ splices into a list, vector, map or set: write `(f ~@xs), not `~@xs")
		return &syntax.Nil{Span: n.Span}
	case *syntax.List:
		if len(n.Items) == 0 {
			return sq.call("clojure.core", "list")
		}
		// (apply list ...) rather than Clojure's (seq ...): the same
		// elements, and a list, which prints (...) here too.
		return sq.call("clojure.core", "apply", sq.sym("clojure.core", "list"), sq.concat(a, n.Items, depth))
	case *syntax.Vector:
		return sq.call("clojure.core", "vec", sq.concat(a, n.Items, depth))
	case *syntax.Set:
		return sq.call("clojure.core", "set", sq.concat(a, n.Items, depth))
	case *syntax.Map:
		return sq.call("clojure.core", "apply", sq.sym("clojure.core", "hash-map"), sq.concat(a, n.Items, depth))
	case *syntax.Quote:
		return sq.form(a, &syntax.List{Span: n.Span, Items: []syntax.Node{sq.sym("", "quote"), n.Form}}, depth+1)
	case *syntax.Deref:
		return sq.form(a, &syntax.List{Span: n.Span, Items: []syntax.Node{sq.sym("clojure.core", "deref"), n.Form}}, depth+1)
	case *syntax.VarQuote:
		return sq.quoted(&syntax.List{Span: n.Span, Items: []syntax.Node{sq.sym("", "var"), n.Sym}})
	case *syntax.ShortFn:
		return sq.form(a, ShortFnForm(n), depth+1)
	case *syntax.SyntaxQuote:
		// A template inside a template: the inner one is expanded first,
		// and its expansion quoted, as Clojure does.
		return sq.form(a, a.syntaxQuote(n), depth+1)
	}
	return n // literals stand for themselves
}

// concat is (clojure.core/concat parts...) for the items of a collection.
func (sq *sqExpander) concat(a *analyzer, items []syntax.Node, depth int) syntax.Node {
	parts := make([]syntax.Node, len(items))
	for i, it := range items {
		switch it := it.(type) {
		case *syntax.UnquoteSplicing:
			parts[i] = it.Form
		case *syntax.Unquote:
			parts[i] = sq.call("clojure.core", "list", it.Form)
		default:
			parts[i] = sq.call("clojure.core", "list", sq.form(a, it, depth+1))
		}
	}
	return sq.call("clojure.core", "concat", parts...)
}

// resolve is the symbol a template symbol stands for: name# a fresh
// name, a builtin its qualified name, a special form itself, and a name
// of the program itself (it is not qualified with user/: PTC-Lisp
// resolves a program's names without one).
func (sq *sqExpander) resolve(a *analyzer, s *syntax.Symbol) *syntax.Symbol {
	if s.Ns != "" {
		if canon, ok := a.canonicalNamespace(s.Ns); ok && canon != "" && canon != s.Ns {
			return sq.sym(canon, s.Name)
		}
		return s
	}
	name := s.Name
	switch {
	case strings.HasSuffix(name, "#") && len(name) > 1:
		if sq.autos == nil {
			sq.autos = map[string]string{}
		}
		g, ok := sq.autos[name]
		if !ok {
			a.gensymN++
			g = name[:len(name)-1] + "__" + strconv.Itoa(a.gensymN) + "__auto__"
			sq.autos[name] = g
		}
		return sq.sym("", g)
	case isClojureSpecialForm(name), strings.HasPrefix(name, ".") || strings.HasSuffix(name, "."):
		return s
	case a.defSet[name] || a.macros[name] || a.isShadowed(name):
		return s
	case isSpecialName(name) || isReplaceableMacro(name):
		if isPTCForm(name) {
			return s
		}
		return sq.sym("clojure.core", name)
	}
	if q, ok := a.refers[name]; ok {
		if i := strings.LastIndexByte(q, '/'); i > 0 {
			return sq.sym(q[:i], q[i+1:])
		}
	}
	if a.isBuiltin(name) && !strings.Contains(name, "/") {
		return sq.sym("clojure.core", name)
	}
	return s
}

// isClojureSpecialForm reports Clojure's special forms, which a template
// leaves unqualified.
func isClojureSpecialForm(name string) bool {
	switch name {
	case "def", "if", "do", "let*", "letfn*", "quote", "var", "fn*", "loop*", "recur", "throw", "try",
		"catch", "finally", "new", "set!", "&", "case*", "monitor-enter", "monitor-exit", "import*", "deftype*", "reify*":
		return true
	}
	return false
}

// isPTCForm reports the forms PTC-Lisp adds to Clojure's: not in
// clojure.core, so a template leaves them unqualified.
func isPTCForm(name string) bool {
	switch name {
	case "where", "all-of", "any-of", "none-of", "return", "fail", "call":
		return true
	}
	return false
}

// ShortFnForm is #(...) as the fn form it stands for: (fn [%1 %2 & %&]
// (...)), with % the first parameter, as Clojure's reader makes it.
func ShortFnForm(n *syntax.ShortFn) *syntax.List {
	maxN, rest := 0, false
	scanPlaceholders(n.Items, &maxN, &rest)
	sp := n.Span
	usesBare := usesSymbol(n.Items, "%")
	var params []syntax.Node
	for i := 1; i <= maxN; i++ {
		name := "%" + strconv.Itoa(i)
		if i == 1 && usesBare {
			name = "%"
		}
		params = append(params, &syntax.Symbol{Span: sp, Name: name})
	}
	if rest {
		params = append(params, &syntax.Symbol{Span: sp, Name: "&"}, &syntax.Symbol{Span: sp, Name: "%&"})
	}
	var body syntax.Node = &syntax.List{Span: sp, Items: n.Items}
	if usesBare && usesSymbol(n.Items, "%1") {
		body = &syntax.List{Span: sp, Items: []syntax.Node{&syntax.Symbol{Span: sp, Name: "let"},
			&syntax.Vector{Span: sp, Items: []syntax.Node{&syntax.Symbol{Span: sp, Name: "%1"}, &syntax.Symbol{Span: sp, Name: "%"}}}, body}}
	}
	return &syntax.List{Span: sp, Items: []syntax.Node{&syntax.Symbol{Span: sp, Name: "fn"}, &syntax.Vector{Span: sp, Items: params}, body}}
}

// usesSymbol reports whether the unqualified symbol name occurs in items
// (the reader bounds their nesting).
func usesSymbol(items []syntax.Node, name string) bool {
	for _, it := range items {
		var sub []syntax.Node
		switch n := it.(type) {
		case *syntax.Symbol:
			if n.Ns == "" && n.Name == name {
				return true
			}
		case *syntax.List:
			sub = n.Items
		case *syntax.Vector:
			sub = n.Items
		case *syntax.Map:
			sub = n.Items
		case *syntax.Set:
			sub = n.Items
		case *syntax.Quote:
			sub = []syntax.Node{n.Form}
		case *syntax.Deref:
			sub = []syntax.Node{n.Form}
		case *syntax.SyntaxQuote:
			sub = []syntax.Node{n.Form}
		case *syntax.Unquote:
			sub = []syntax.Node{n.Form}
		case *syntax.UnquoteSplicing:
			sub = []syntax.Node{n.Form}
		}
		if usesSymbol(sub, name) {
			return true
		}
	}
	return false
}
