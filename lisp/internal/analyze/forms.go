package analyze

import (
	"strconv"
	"strings"

	"github.com/ptc-go/ptc/lisp/syntax"
)

// list analyzes a parenthesized form: a special form, a tool call or a call.
func (a *analyzer) list(l *syntax.List, tail bool) Expr {
	pos := l.Start
	a.meter.at = pos // see meter
	if len(l.Items) == 0 {
		// () is the empty list, as in Clojure.
		return &VectorLit{At: At{pos}, List: true}
	}
	var fn Expr
	if sym, ok := l.Items[0].(*syntax.Symbol); ok {
		if sym.Ns == "" {
			if len(a.macros) > 0 && a.isMacro(sym.Name) {
				return a.macroCall(sym.Name, l, tail)
			}
			// The head of most calls is a plain builtin, which none of
			// these forms is; with nothing since that could change it
			// and no local of its name (see builtinAnswer.plain), it
			// is that builtin again, made here as symbol would make it,
			// the name looked up once.
			fp := fingerprint(sym.Name)
			e := &a.builtinSeen[seenIndex(fp)]
			// Names of 4 to 8 bytes (count, get-in, assoc) are compared
			// as two overlapping words, not with a call, whose cost is
			// mostly the registers reloaded after it.
			n := len(sym.Name)
			hit := e.plain != 0 && e.fp == fp && len(e.name) == n &&
				(n <= 3 || (n <= 8 && word4(e.name) == word4(sym.Name) && word4(e.name[n-4:]) == word4(sym.Name[n-4:])) ||
					(n > 8 && e.name == sym.Name))
			if hit && uint32(e.plain) == a.epoch {
				if a.depth < a.cfg.MaxDepth {
					fn = builtinOf(sym)
				}
			} else if hit && uint32(e.plain) == a.epoch|specialForm {
				return a.special(sym.Name, l, tail) // found so before: see plain
			} else if !hit || e.plain&specialForm != 0 {
				// (A name remembered plain in an earlier epoch is
				// none of these forms.)
				if isSpecialName(sym.Name) && (isCoreSpecial(sym.Name) || !a.isLocal(sym.Name)) {
					if a.epoch <= maxEpoch {
						// Remembered until a local of its name or a
						// new epoch; the entry's builtin answer is
						// asked again when needed.
						*e = builtinAnswer{name: sym.Name, fp: fp, plain: uint16(a.epoch) | specialForm}
					}
					return a.special(sym.Name, l, tail)
				}
				if isInteropName(sym.Name) && !a.isLocal(sym.Name) {
					return a.interop(sym, l)
				}
				if isReplaceableMacro(sym.Name) && a.isMacroHere(sym.Name) {
					return a.replaceableMacro(sym.Name, l, pos)
				}
			}
		} else if ns, ok := a.canonicalNamespace(sym.Ns); ok && ns == "" && isSpecialName(sym.Name) {
			// clojure.core/let, core/when...: the special form itself.
			return a.special(sym.Name, l, tail)
		} else if ok && ns == "" && isReplaceableMacro(sym.Name) {
			return a.replaceableMacro(sym.Name, l, pos) // clojure.core/time: the macro, whatever a def names time
		} else {
			ns := sym.Ns
			if _, aliased := a.aliases[ns]; aliased && ns == "data" {
				ns = "" // (require '[clojure.data :as data]): data/diff is clojure.data's
			}
			switch ns {
			case "ctx", "tool":
				return &ToolCall{At: At{pos}, Name: sym.Name, Args: a.exprs(l.Items[1:])}
			case "data":
				return a.errorf(pos, "invalid_form",
					"data/%s is data, not a tool: read it without parentheses, or call a tool with (tool/name args)", sym.Name)
			case "memory":
				return a.memoryCall(sym, l)
			}
		}
	}
	if fn == nil {
		if k, ok := l.Items[0].(*syntax.Keyword); ok && a.depth < a.cfg.MaxDepth {
			fn = keywordOf(k) // (:key m), as expr would make it
		} else {
			fn = a.expr(l.Items[0], false)
		}
	}
	args := a.fill(l.Items[1:])
	p := a.calls.take()
	if p == nil {
		p = a.calls.grow()
	}
	p.Off, p.Fn, p.Args = pos, fn, args // field by field: no temporary (see slab.take)
	return p
}

// LazySeqFn is the name of the runtime function that (lazy-seq body...)
// calls with (fn [] body...); no program can spell it (it has a space).
const LazySeqFn = " lazy-seq"

// WithOutStrFn is the name of the runtime function that (with-out-str
// body...) calls with (fn [] body...); no program can spell it.
const WithOutStrFn = " with-out-str"

// firstNode is ns[0], nil when ns is empty.
func firstNode(ns []syntax.Node) syntax.Node {
	if len(ns) == 0 {
		return nil
	}
	return ns[0]
}

// WithPrecisionFn is the name of the runtime function that
// (with-precision p :rounding MODE body...) calls with p, the mode as a
// keyword (nil without one) and (fn [] body...); no program can spell it.
const WithPrecisionFn = " with-precision"

// BindingFn names the runtime function that (binding [v e ...] body...)
// calls with the names, their values and (fn [] body...); no program can
// spell it.
const BindingFn = " binding"

// binding is (binding [name expr ...] body...): the values, computed in
// order, are what the names (vars defined with def) mean while body runs,
// in this thread and in the pmap branches it starts, as Clojure's dynamic
// bindings; a def in body defines as it would outside.
func (a *analyzer) binding(l *syntax.List) Expr {
	pos := a.pos(l)
	args := l.Items[1:]
	if len(args) < 1 {
		return a.errorf(pos, "invalid_arity", "binding expects (binding [name value ...] body...), got no bindings")
	}
	v, ok := args[0].(*syntax.Vector)
	if !ok || len(v.Items)%2 != 0 {
		return a.errorf(a.pos(args[0]), "invalid_form", "binding expects a vector of name value pairs, (binding [*depth* 1] ...), got %s", syntax.Format(args[0]))
	}
	sp := l.Span
	var names, values []syntax.Node
	for i := 0; i < len(v.Items); i += 2 {
		s, ok := v.Items[i].(*syntax.Symbol)
		if !ok || s.Ns != "" || a.isLocal(s.Name) || isSpecialName(s.Name) || a.isBuiltin(s.Name) && !a.isShadowed(s.Name) {
			return a.errorf(a.pos(v.Items[i]), "invalid_form",
				"binding binds vars defined with def, (def ^:dynamic *depth* 0), got %s", syntax.Format(v.Items[i]))
		}
		names = append(names, &syntax.String{Span: s.Span, Value: s.Name})
		values = append(values, v.Items[i+1])
	}
	fn := &syntax.List{Span: sp, Items: append([]syntax.Node{
		&syntax.Symbol{Span: sp, Name: "fn"}, &syntax.Vector{Span: sp}}, args[1:]...)}
	return a.expr(&syntax.List{Span: sp, Items: []syntax.Node{&syntax.Symbol{Span: l.Items[0].Bounds(), Name: BindingFn},
		&syntax.Vector{Span: sp, Items: names}, &syntax.Vector{Span: v.Span, Items: values}, fn}}, false)
}

// TimeFn, DelayFn and FutureFn name the runtime functions that (time
// expr), (delay body...) and (future body...) call with (fn [] body...);
// no program can spell them.
const (
	TimeFn   = " time"
	DelayFn  = " delay"
	FutureFn = " future"
	DosyncFn = " dosync"
)

// isReplaceableMacro reports whether name is one of Clojure's macros that
// a program may def a function of (Clojure lets it, and programs name
// values time or delay): they are not special forms, which keep their
// meaning whatever a program defines.
func isReplaceableMacro(name string) bool {
	return name == "time" || name == "delay" || name == "future" || name == "dosync"
}

// IsReplaceableMacro is isReplaceableMacro, for the runtime's namespace.
func IsReplaceableMacro(name string) bool { return isReplaceableMacro(name) }

// isMacroHere reports whether a call of a replaceable macro is the macro:
// unless a local or a def of the program, or of an earlier run, names it.
func (a *analyzer) isMacroHere(name string) bool {
	return !a.isLocal(name) && !a.defSet[name] && !a.isShadowed(name)
}

// replaceableMacro is (time expr), (delay body...) or (future body...): a
// call of the runtime's function with (fn [] body...). time prints how
// long its one expression took; delay runs the body at its first deref,
// future at once (refs.go).
func (a *analyzer) replaceableMacro(name string, l *syntax.List, pos int32) Expr {
	args := l.Items[1:]
	fnName := map[string]string{"time": TimeFn, "delay": DelayFn, "future": FutureFn, "dosync": DosyncFn}[name]
	if name == "time" && len(args) != 1 {
		return a.errorf(pos, "invalid_arity", "time expects one expression, (time expr), got %d argument(s)", len(args))
	}
	fn := &syntax.List{Span: l.Span, Items: append([]syntax.Node{
		&syntax.Symbol{Span: l.Span, Name: "fn"}, &syntax.Vector{Span: l.Span}}, args...)}
	return a.expr(&syntax.List{Span: l.Span, Items: []syntax.Node{
		&syntax.Symbol{Span: l.Items[0].Bounds(), Name: fnName}, fn}}, false)
}

// DefmultiFn and DefmethodFn name the runtime functions of defmulti and
// defmethod: (defmulti f dispatch) is (def f (DefmultiFn #'f "f" dispatch
// default)), which keeps a multimethod f already holds, as Clojure does;
// (defmethod f v [x] ...) is (def f (DefmethodFn f v (fn [x] ...))), a
// multimethod with one more method.
const (
	DefmultiFn      = " defmulti"
	DefmethodFn     = " defmethod"
	ChangeMethodsFn = " change-methods"
)

// isInteropName reports whether a call head names a host method (.method),
// a constructor (Class.), or is one of ., .. and new.
func isInteropName(name string) bool {
	// Most names neither start nor end with a dot: say so at once.
	if name == "" {
		return false
	}
	if name[0] != '.' && name[len(name)-1] != '.' {
		return name == "new"
	}
	isMethod := len(name) > 1 && name[0] == '.' && name != ".."
	isCtor := len(name) > 1 && strings.HasSuffix(name, ".") && name[0] != '.'
	return isMethod || isCtor || name == "." || name == ".." || name == "new"
}

// interop handles (.method obj args) and (Class. args) for the few
// host methods the runtime supports; everything else is explained away.
func (a *analyzer) interop(sym *syntax.Symbol, l *syntax.List) Expr {
	name := sym.Name
	pos := a.pos(l)
	switch name {
	case ".":
		if call, ok := dotCall(l.Items[1:], l.Span); ok {
			return a.expr(call, false)
		}
		return a.errorf(pos, "invalid_form", "(. x method args...) needs a target and a method name: write (.method x args...)")
	case "..":
		// (.. x trim toUpperCase) is (. (. x trim) toUpperCase).
		if len(l.Items) < 3 {
			return a.errorf(pos, "invalid_form", "(.. x method...) needs a target and methods: write (.method x args...)")
		}
		acc := l.Items[1]
		for _, step := range l.Items[2:] {
			call, ok := dotCall([]syntax.Node{acc, step}, l.Span)
			if !ok {
				return a.errorf(a.pos(step), "invalid_form", "(.. x method...) takes method names or (method args...): write (.method x args...)")
			}
			acc = call
		}
		return a.expr(acc, false)
	case "new":
		// (new Class args...) is (Class. args...).
		if len(l.Items) >= 2 {
			if c, ok := l.Items[1].(*syntax.Symbol); ok && c.Ns == "" && c.Name != "" {
				ctor := &syntax.Symbol{Span: c.Span, Name: c.Name + "."}
				return a.expr(&syntax.List{Span: l.Span, Items: append([]syntax.Node{ctor}, l.Items[2:]...)}, false)
			}
		}
		return a.errorf(pos, "invalid_form", "(new Class args...) needs a class name: write (Class. args...)")
	}
	if a.isBuiltin(name) {
		return &Call{At: At{pos}, Fn: a.builtinRef(name, a.pos(sym)), Args: a.exprs(l.Items[1:])}
	}
	// A record's constructor (R. a b) and fields (.a r), (.-a r).
	if base, ok := strings.CutSuffix(name, "."); ok && base != "" && a.defSet["->"+base] {
		ctor := &syntax.Symbol{Span: sym.Span, Name: "->" + base}
		return a.expr(&syntax.List{Span: l.Span, Items: append([]syntax.Node{ctor}, l.Items[1:]...)}, false)
	}
	if field := strings.TrimPrefix(strings.TrimPrefix(name, "."), "-"); len(l.Items) == 2 && name[0] == '.' && a.fieldSet[field] {
		return a.expr(&syntax.List{Span: l.Span, Items: []syntax.Node{&syntax.Keyword{Span: sym.Span, Name: field}, l.Items[1]}}, false)
	}
	if a.cfg.Hint != nil {
		if h := a.cfg.Hint(name); h != "" {
			return a.errorf(pos, "invalid_form", "%s", h)
		}
	}
	return a.errorf(pos, "invalid_form",
		"Java interop (%s) is not supported: PTC-Lisp has no host objects; use the builtin functions", name)
}

// dotCall rewrites the parts of (. target method args...) or
// (. target (method args...)) into the call Clojure means: (.method target
// args...), or (Class/method args...) when the target names a class such
// as Integer or Math.
func dotCall(parts []syntax.Node, span syntax.Span) (syntax.Node, bool) {
	if len(parts) < 2 {
		return nil, false
	}
	target, member, args := parts[0], parts[1], parts[2:]
	if l, ok := member.(*syntax.List); ok && len(args) == 0 && len(l.Items) > 0 {
		member, args = l.Items[0], l.Items[1:]
	}
	m, ok := member.(*syntax.Symbol)
	if !ok || m.Ns != "" || m.Name == "" {
		return nil, false
	}
	if class, ok := target.(*syntax.Symbol); ok && class.Ns == "" {
		if _, known := CanonicalNamespace(class.Name); known && class.Name != "" && class.Name[0] >= 'A' && class.Name[0] <= 'Z' {
			fn := &syntax.Symbol{Span: m.Span, Ns: class.Name, Name: m.Name}
			return &syntax.List{Span: span, Items: append([]syntax.Node{fn}, args...)}, true
		}
	}
	fn := &syntax.Symbol{Span: m.Span, Name: "." + m.Name}
	return &syntax.List{Span: span, Items: append([]syntax.Node{fn, target}, args...)}, true
}

func (a *analyzer) memoryCall(sym *syntax.Symbol, l *syntax.List) Expr {
	pos := a.pos(l)
	args := l.Items[1:]
	switch sym.Name {
	case "put":
		if len(args) != 2 {
			return a.errorf(pos, "invalid_arity", "memory/put expects (memory/put key value), got %d argument(s)", len(args))
		}
		return &MemoryPut{At: At{pos}, Key: a.expr(args[0], false), Value: a.expr(args[1], false)}
	case "get":
		if len(args) != 1 {
			return a.errorf(pos, "invalid_arity", "memory/get expects (memory/get key), got %d argument(s)", len(args))
		}
		return &MemoryGet{At: At{pos}, Key: a.expr(args[0], false)}
	}
	return a.errorf(pos, "invalid_form",
		"memory/%s is a stored value, not a function: read it as memory/%s; use (memory/put key value) and (memory/get key)",
		sym.Name, sym.Name)
}

// special dispatches the special forms and macros.
func (a *analyzer) special(name string, l *syntax.List, tail bool) Expr {
	pos := a.pos(l)
	args := l.Items[1:]
	switch name {
	case "defmacro":
		return a.defineMacro(l)
	case "macroexpand", "macroexpand-1":
		return a.macroexpand(name, l)
	case "if", "if-not":
		if len(args) < 2 || len(args) > 3 {
			return a.errorf(pos, "invalid_arity", "%s expects (%s test then else?), got %d argument(s)", name, name, len(args))
		}
		test := a.expr(args[0], false)
		then := a.expr(args[1], tail)
		var els Expr
		if len(args) == 3 {
			els = a.expr(args[2], tail)
		} else {
			els = a.consts.new(Const{At: At{pos}})
		}
		if name == "if-not" {
			then, els = els, then
		}
		return a.ifs.new(If{At: At{pos}, Test: test, Then: then, Else: els})
	case "when", "when-not":
		if len(args) < 1 {
			return a.errorf(pos, "invalid_arity", "%s expects (%s test body...), got no test", name, name)
		}
		test := a.expr(args[0], false)
		body := a.body(args[1:], pos, tail)
		var none Expr = a.consts.new(Const{At: At{pos}})
		if name == "when-not" {
			return a.ifs.new(If{At: At{pos}, Test: test, Then: none, Else: body})
		}
		return a.ifs.new(If{At: At{pos}, Test: test, Then: body, Else: none})
	case "cond":
		return a.cond(args, pos, tail)
	case "if-let", "when-let", "if-some", "when-some", "when-first":
		return a.ifLet(name, args, pos, tail)
	case "do":
		return a.body(args, pos, tail)
	case "let", "let*":
		return a.let(name, args, pos, tail)
	case "loop":
		return a.loop(args, pos)
	case "recur":
		return a.recur(args, pos, tail)
	case "fn", "fn*":
		return a.fnForm(args, pos, "")
	case "defn", "defn-":
		return a.defn(name, args, pos)
	case "def", "defonce":
		return a.def(name, args, pos)
	case "declare":
		for _, s := range args {
			sym, ok := s.(*syntax.Symbol)
			if !ok || sym.Ns != "" {
				return a.errorf(a.pos(s), "invalid_form", "declare expects names, got %s", syntax.Format(s))
			}
			if !a.definable(sym, "declare") {
				return &Const{At: At{pos}}
			}
			a.addDef(sym.Name)
		}
		return &Const{At: At{pos}}
	case "quote":
		if len(args) != 1 {
			return a.errorf(pos, "invalid_arity", "quote expects one form, got %d", len(args))
		}
		return a.quote(args[0], pos)
	case "var":
		if len(args) != 1 {
			return a.errorf(pos, "invalid_arity", "var expects one name, got %d", len(args))
		}
		s, _ := args[0].(*syntax.Symbol)
		return a.varRef(s, pos)
	case "and", "or":
		exprs := a.exprSlice(len(args))
		for i, x := range args {
			exprs[i] = a.expr(x, tail && i == len(args)-1)
		}
		if name == "and" {
			if len(exprs) == 0 {
				return &Const{At: At{pos}, Value: true}
			}
			return &And{At: At{pos}, Exprs: exprs}
		}
		if len(exprs) == 0 {
			return &Const{At: At{pos}}
		}
		return &Or{At: At{pos}, Exprs: exprs}
	case "->", "->>":
		if len(args) == 0 {
			return a.errorf(pos, "invalid_thread_form", "%s needs a value to thread: (%s x form...)", name, name)
		}
		acc := args[0]
		for _, step := range args[1:] {
			acc = thread(acc, step, name == "->>")
		}
		return a.expr(acc, tail)
	case "some->", "some->>":
		return a.someThread(name, args, pos)
	case "cond->", "cond->>":
		return a.condThread(name, args, pos)
	case "as->":
		return a.asThread(args, pos)
	case "doseq", "for":
		return a.forForm(name, args, pos)
	case "dotimes":
		return a.dotimes(args, pos)
	case "letfn":
		return a.letfn(args, pos, tail)
	case "case":
		return a.caseForm(args, pos, tail)
	case "condp":
		return a.condp(args, pos, tail)
	case "where":
		return a.where(args, pos)
	case "all-of", "any-of", "none-of":
		return &Combine{At: At{pos}, Kind: name, Preds: a.exprs(args)}
	case "return", "fail":
		if len(args) != 1 {
			return a.errorf(pos, "invalid_arity", "%s expects exactly one argument: (%s value), got %d", name, name, len(args))
		}
		if name == "return" {
			return &Return{At: At{pos}, Value: a.expr(args[0], false)}
		}
		return &Fail{At: At{pos}, Value: a.expr(args[0], false)}
	case "call":
		return a.call(args, pos)
	case "try":
		return a.tryForm(args, pos)
	case "throw":
		if len(args) != 1 {
			return a.errorf(pos, "invalid_arity", "throw expects one exception: (throw (ex-info \"what went wrong\" {:key value})), got %d argument(s)", len(args))
		}
		return &Throw{At: At{pos}, Value: a.expr(args[0], false)}
	case "comment", "ns", "require", "import", "use", "refer":
		return &Const{At: At{pos}}
	case "lazy-seq":
		// (lazy-seq body...) is a call of the runtime's lazy-seq function
		// with (fn [] body...), which it runs once, when first realized.
		fn := &syntax.List{Span: l.Span, Items: append([]syntax.Node{
			&syntax.Symbol{Span: l.Span, Name: "fn"}, &syntax.Vector{Span: l.Span}}, args...)}
		return a.expr(&syntax.List{Span: l.Span, Items: []syntax.Node{
			&syntax.Symbol{Span: l.Items[0].Bounds(), Name: LazySeqFn}, fn}}, false)
	case "with-out-str":
		// (with-out-str body...) is a call of the runtime's function with
		// (fn [] body...): it runs the body with its output captured.
		fn := &syntax.List{Span: l.Span, Items: append([]syntax.Node{
			&syntax.Symbol{Span: l.Span, Name: "fn"}, &syntax.Vector{Span: l.Span}}, args...)}
		return a.expr(&syntax.List{Span: l.Span, Items: []syntax.Node{
			&syntax.Symbol{Span: l.Items[0].Bounds(), Name: WithOutStrFn}, fn}}, false)
	case "with-precision":
		// (with-precision p body...) and (with-precision p :rounding MODE
		// body...), MODE a RoundingMode's name (HALF_UP), as Clojure's
		// macro takes it: the runtime's function binds the precision for
		// the body, given as (fn [] body...).
		if len(args) < 1 {
			return a.errorf(pos, "invalid_arity", "with-precision expects (with-precision precision body...), got no precision")
		}
		sp := l.Items[0].Bounds()
		mode := syntax.Node(&syntax.Nil{Span: sp})
		body := args[1:]
		if k, ok := firstNode(body).(*syntax.Keyword); ok && k.Name == "rounding" {
			if len(body) < 2 {
				return a.errorf(pos, "invalid_form", "with-precision: :rounding expects a RoundingMode such as HALF_UP")
			}
			m, ok := body[1].(*syntax.Symbol)
			if !ok {
				return a.errorf(pos, "invalid_form", "with-precision: :rounding expects a RoundingMode such as HALF_UP, got %s", syntax.Format(body[1]))
			}
			mode = &syntax.Keyword{Span: m.Span, Name: m.Name}
			body = body[2:]
		}
		fn := &syntax.List{Span: l.Span, Items: append([]syntax.Node{
			&syntax.Symbol{Span: l.Span, Name: "fn"}, &syntax.Vector{Span: l.Span}}, body...)}
		return a.expr(&syntax.List{Span: l.Span, Items: []syntax.Node{
			&syntax.Symbol{Span: sp, Name: WithPrecisionFn}, args[0], mode, fn}}, false)
	case "memfn":
		// (memfn name args...) is (fn [target args...] (.name target
		// args...)): a Java method as a function. The parameters' names
		// hold a space, so no name of the program is captured.
		if len(args) < 1 {
			return a.errorf(pos, "invalid_arity", "memfn expects (memfn method-name args...), got no method name")
		}
		method, ok := args[0].(*syntax.Symbol)
		if !ok || method.Ns != "" || strings.HasPrefix(method.Name, ".") {
			return a.errorf(pos, "invalid_form", "memfn expects a method name such as toUpperCase, got %s", syntax.Format(args[0]))
		}
		sp := l.Items[0].Bounds()
		params := []syntax.Node{&syntax.Symbol{Span: sp, Name: " target"}}
		call := []syntax.Node{&syntax.Symbol{Span: method.Span, Name: "." + method.Name}, params[0]}
		for i := range args[1:] {
			p := &syntax.Symbol{Span: sp, Name: " arg" + strconv.Itoa(i)}
			params = append(params, p)
			call = append(call, p)
		}
		return a.expr(&syntax.List{Span: l.Span, Items: []syntax.Node{
			&syntax.Symbol{Span: sp, Name: "fn"}, &syntax.Vector{Span: sp, Items: params},
			&syntax.List{Span: l.Span, Items: call}}}, false)
	case "lazy-cat":
		// (lazy-cat a b) is (concat (lazy-seq a) (lazy-seq b)).
		items := []syntax.Node{&syntax.Symbol{Span: l.Items[0].Bounds(), Ns: "clojure.core", Name: "concat"}}
		for _, x := range args {
			items = append(items, &syntax.List{Span: x.Bounds(), Items: []syntax.Node{
				&syntax.Symbol{Span: x.Bounds(), Name: "lazy-seq"}, x}})
		}
		return a.expr(&syntax.List{Span: l.Span, Items: items}, false)
	case "while":
		// (while test body...) is Clojure's macro: (loop [] (when test
		// body... (recur))), nil when test turns false. A loop like any
		// other, bounded by the loop and step limits.
		if len(args) < 1 {
			return a.errorf(pos, "invalid_arity", "while expects (while test body...), got no test")
		}
		core := func(name string) *syntax.Symbol {
			return &syntax.Symbol{Span: l.Items[0].Bounds(), Ns: "clojure.core", Name: name}
		}
		when := append([]syntax.Node{core("when")}, args...)
		when = append(when, &syntax.List{Span: l.Span, Items: []syntax.Node{core("recur")}})
		return a.expr(&syntax.List{Span: l.Span, Items: []syntax.Node{
			core("loop"), &syntax.Vector{Span: l.Span}, &syntax.List{Span: l.Span, Items: when}}}, tail)
	case "doto":
		// (doto x (f a) g) is (let [t x] (f t a) (g t) t): the forms are
		// called with x first, for their effects, and x is the value.
		if len(args) < 1 {
			return a.errorf(pos, "invalid_arity", "doto expects (doto x (method args...)...), got no value")
		}
		t := a.gensym(l.Span.Start, "doto")
		items := []syntax.Node{&syntax.Symbol{Span: l.Items[0].Bounds(), Ns: "clojure.core", Name: "let"},
			&syntax.Vector{Span: l.Span, Items: []syntax.Node{t, args[0]}}}
		for _, f := range args[1:] {
			if fl, ok := f.(*syntax.List); ok && len(fl.Items) > 0 {
				call := append([]syntax.Node{fl.Items[0], t}, fl.Items[1:]...)
				items = append(items, &syntax.List{Span: fl.Span, Items: call})
			} else {
				items = append(items, &syntax.List{Span: f.Bounds(), Items: []syntax.Node{f, t}})
			}
		}
		items = append(items, t)
		return a.expr(&syntax.List{Span: l.Span, Items: items}, tail)
	case "amap", "areduce":
		return a.arrayLoop(name, l, tail)
	case "defrecord":
		return a.defrecord(l)
	case "defprotocol":
		return a.defprotocol(l)
	case "extend-type":
		return a.extendType(l)
	case "extend-protocol":
		return a.extendProtocol(l)
	case "reify":
		return a.reify(l, tail)
	case "binding":
		return a.binding(l)
	case "defmulti":
		return a.defmulti(l)
	case "defmethod":
		return a.defmethod(l)
	case "prefer-method", "remove-method", "remove-all-methods":
		return a.changeMethods(name, l)
	case "assert":
		if len(args) < 1 || len(args) > 2 {
			return a.errorf(pos, "invalid_arity", "assert expects (assert test message?), got %d argument(s)", len(args))
		}
		// Clojure's messages: "Assert failed: (pos? x)", and with a
		// message "Assert failed: " + (str message) + "\n" + the test.
		form := syntax.Format(args[0])
		raise := &Raise{At: At{pos}, Kind: "assertion_error", Msg: "Assert failed: " + form}
		if len(args) == 2 {
			raise.Msg, raise.Value, raise.Display, raise.Suffix = "Assert failed: ", a.expr(args[1], false), true, "\n"+form
		}
		return &If{At: At{pos}, Test: a.expr(args[0], false), Then: &Const{At: At{pos}}, Else: raise}
	}
	return a.errorf(pos, "invalid_form", "unsupported special form %s", name)
}

// arrayLoop rewrites Clojure's array macros into loops:
//
//	(amap a i ret expr)         (let [a' a n (alength a') ret (aclone a')]
//	                              (loop [i 0] (if (< i n) (do (aset ret i expr) (recur (inc i))) ret)))
//	(areduce a i acc init expr) (let [a' a n (alength a')]
//	                              (loop [i 0 acc init] (if (< i n) (recur (inc i) expr) acc)))
func (a *analyzer) arrayLoop(name string, l *syntax.List, tail bool) Expr {
	pos := a.pos(l)
	args := l.Items[1:]
	want := 4
	usage := "(amap a idx ret expr)"
	if name == "areduce" {
		want, usage = 5, "(areduce a idx ret init expr)"
	}
	if len(args) != want {
		return a.errorf(pos, "invalid_arity", "%s expects %s, got %d argument(s)", name, usage, len(args))
	}
	idx, ok1 := args[1].(*syntax.Symbol)
	ret, ok2 := args[2].(*syntax.Symbol)
	if !ok1 || !ok2 || idx.Ns != "" || ret.Ns != "" {
		return a.errorf(pos, "invalid_form", "%s binds names: %s", name, usage)
	}
	span := l.Items[0].Bounds()
	sym := func(n string) *syntax.Symbol { return &syntax.Symbol{Span: span, Ns: "clojure.core", Name: n} }
	list := func(items ...syntax.Node) *syntax.List { return &syntax.List{Span: l.Span, Items: items} }
	vec := func(items ...syntax.Node) *syntax.Vector { return &syntax.Vector{Span: l.Span, Items: items} }
	zero := &syntax.Int{Span: span}
	arr, n := a.gensym(l.Span.Start, "array"), a.gensym(l.Span.Start, "length")
	test := list(sym("<"), idx, n)
	next := list(sym("inc"), idx)
	var form *syntax.List
	if name == "amap" {
		form = list(sym("let"), vec(arr, args[0], n, list(sym("alength"), arr), ret, list(sym("aclone"), arr)),
			list(sym("loop"), vec(idx, zero),
				list(sym("if"), test, list(sym("do"), list(sym("aset"), ret, idx, args[3]), list(sym("recur"), next)), ret)))
	} else {
		form = list(sym("let"), vec(arr, args[0], n, list(sym("alength"), arr)),
			list(sym("loop"), vec(idx, zero, ret, args[3]),
				list(sym("if"), test, list(sym("recur"), next, args[4]), ret)))
	}
	return a.expr(form, tail)
}

// defmulti rewrites (defmulti name doc? attrs? dispatch & options) into a
// def of DefmultiFn's multimethod. The only option is :default, the
// dispatch value of the method used when no other matches (:default).
// defrecord is (defrecord Name [fields...] Protocol (method [this] body)...):
// a record is a map of its fields that carries its type (lisp/protocols.go),
// made by the constructors Clojure defines, (->Name f1 f2...), (map->Name
// m) and (Name. f1 f2...), and an implementation of protocols
// (protocols.go has the rewrite).
func (a *analyzer) defrecord(l *syntax.List) Expr {
	pos := a.pos(l)
	args := l.Items[1:]
	if len(args) < 2 {
		return a.errorf(pos, "invalid_form", "defrecord expects (defrecord Name [field ...]), got %d argument(s)", len(args))
	}
	name, ok := args[0].(*syntax.Symbol)
	if !ok || name.Ns != "" || strings.Contains(name.Name, ".") {
		return a.errorf(a.pos(args[0]), "invalid_form", "defrecord needs a plain name, got %s", syntax.Format(args[0]))
	}
	fields, ok := args[1].(*syntax.Vector)
	if !ok {
		return a.errorf(a.pos(args[1]), "invalid_form", "defrecord needs a vector of fields, (defrecord %s [a b]), got %s", name.Name, syntax.Format(args[1]))
	}
	specs, ok := a.implSpecs("defrecord", args[2:])
	if !ok {
		return &Const{At: At{pos}}
	}
	sp := l.Span
	sym := func(ns, n string) *syntax.Symbol { return &syntax.Symbol{Span: sp, Ns: ns, Name: n} }
	call := func(items ...syntax.Node) *syntax.List { return &syntax.List{Span: sp, Items: items} }
	var params, entries, blanks, keys []syntax.Node
	var fieldSyms []*syntax.Symbol
	seen := map[string]bool{}
	for _, f := range fields.Items {
		fs, ok := f.(*syntax.Symbol)
		if !ok || fs.Ns != "" || seen[fs.Name] {
			return a.errorf(a.pos(f), "invalid_form", "defrecord %s: a field is a plain name, once, got %s", name.Name, syntax.Format(f))
		}
		seen[fs.Name] = true
		params = append(params, fs)
		fieldSyms = append(fieldSyms, fs)
		key := &syntax.Keyword{Span: fs.Span, Name: fs.Name}
		keys = append(keys, key)
		entries = append(entries, key, fs)
		blanks = append(blanks, key, &syntax.Nil{Span: fs.Span})
	}
	a.recordFields(fieldSyms)
	methods, ok := a.recordMethods(name, fieldSyms, specs, sp)
	if !ok {
		return &Const{At: At{pos}}
	}
	m := sym("", " m")
	fieldKeys := &syntax.Vector{Span: fields.Span, Items: keys}
	positional := call(sym("", "defn"), sym("", "->"+name.Name), &syntax.Vector{Span: fields.Span, Items: params},
		call(sym("", RecordFn), name, fieldKeys, &syntax.Map{Span: sp, Items: entries}))
	fromMap := call(sym("", "defn"), sym("", "map->"+name.Name), &syntax.Vector{Span: sp, Items: []syntax.Node{m}},
		call(sym("", RecordFn), name, fieldKeys, call(sym("clojure.core", "merge"), &syntax.Map{Span: sp, Items: blanks}, m)))
	items := []syntax.Node{sym("", "do"),
		call(sym("", "def"), name, call(sym("", RecordClassFn), &syntax.String{Span: name.Span, Value: name.Name})),
		positional, fromMap}
	items = append(items, methods...)
	items = append(items, name)
	return a.expr(call(items...), false)
}

// recordFields remembers the fields of the program's records: (.field r)
// reads one, as Clojure's field access does.
func (a *analyzer) recordFields(fields []*syntax.Symbol) {
	if a.fieldSet == nil {
		a.fieldSet = map[string]bool{}
	}
	for _, f := range fields {
		a.fieldSet[f.Name] = true
	}
}

func (a *analyzer) defmulti(l *syntax.List) Expr {
	pos := a.pos(l)
	args := l.Items[1:]
	if len(args) < 2 {
		return a.errorf(pos, "invalid_arity", "defmulti expects (defmulti name dispatch-fn), got %d argument(s)", len(args))
	}
	name, ok := args[0].(*syntax.Symbol)
	if !ok || name.Ns != "" {
		return a.errorf(a.pos(args[0]), "invalid_form", "defmulti needs a plain name, got %s", syntax.Format(args[0]))
	}
	rest := args[1:]
	if _, ok := rest[0].(*syntax.String); ok && len(rest) > 1 {
		rest = rest[1:] // the docstring
	}
	if _, ok := rest[0].(*syntax.Map); ok && len(rest) > 1 {
		rest = rest[1:] // the attribute map
	}
	dispatch, opts := rest[0], rest[1:]
	var dflt syntax.Node = &syntax.Keyword{Span: l.Span, Name: "default"}
	var hierarchy syntax.Node = &syntax.Nil{Span: l.Span}
	if len(opts)%2 != 0 {
		return a.errorf(pos, "invalid_form", "defmulti options come in pairs: (defmulti %s dispatch-fn :default value)", name.Name)
	}
	for i := 0; i < len(opts); i += 2 {
		k, ok := opts[i].(*syntax.Keyword)
		switch {
		case ok && k.Name == "default":
			dflt = opts[i+1]
		case ok && k.Name == "hierarchy":
			hierarchy = opts[i+1] // #'h
		default:
			return a.errorf(a.pos(opts[i]), "invalid_form", "defmulti takes the options :default and :hierarchy, got %s", syntax.Format(opts[i]))
		}
	}
	span := l.Items[0].Bounds()
	val := &syntax.List{Span: l.Span, Items: []syntax.Node{&syntax.Symbol{Span: span, Name: DefmultiFn},
		&syntax.List{Span: name.Span, Items: []syntax.Node{&syntax.Symbol{Span: span, Ns: "clojure.core", Name: "var"}, name}},
		&syntax.String{Span: name.Span, Value: name.Name}, dispatch, dflt, hierarchy}}
	return a.def("defmulti", []syntax.Node{name, val}, pos)
}

// defmethod rewrites (defmethod name dispatch-value fn-tail...) into a def
// of name as DefmethodFn's multimethod with the method added.
func (a *analyzer) defmethod(l *syntax.List) Expr {
	pos := a.pos(l)
	args := l.Items[1:]
	if len(args) < 3 {
		return a.errorf(pos, "invalid_arity", "defmethod expects (defmethod name dispatch-value [params] body...), got %d argument(s)", len(args))
	}
	name, ok := args[0].(*syntax.Symbol)
	if !ok || name.Ns != "" {
		return a.errorf(a.pos(args[0]), "invalid_form", "defmethod needs the name of a defmulti, got %s", syntax.Format(args[0]))
	}
	span := l.Items[0].Bounds()
	// The method is an anonymous fn (unless the tail names it): the name
	// in its body is the multimethod, so recursion dispatches again.
	fn := &syntax.List{Span: l.Span, Items: append([]syntax.Node{&syntax.Symbol{Span: span, Ns: "clojure.core", Name: "fn"}}, args[2:]...)}
	val := &syntax.List{Span: l.Span, Items: []syntax.Node{&syntax.Symbol{Span: span, Name: DefmethodFn}, name, args[1], fn}}
	return a.def("defmethod", []syntax.Node{name, val}, pos)
}

// changeMethods rewrites (prefer-method f a b), (remove-method f v) and
// (remove-all-methods f) on a multimethod's name into a def of the name
// as ChangeMethodsFn's multimethod with the change, as defmethod does;
// the value is the multimethod, as Clojure's.
func (a *analyzer) changeMethods(op string, l *syntax.List) Expr {
	pos := a.pos(l)
	args := l.Items[1:]
	want := map[string]int{"prefer-method": 3, "remove-method": 2, "remove-all-methods": 1}[op]
	if len(args) != want {
		return a.errorf(pos, "invalid_arity", "%s expects %d argument(s), got %d", op, want, len(args))
	}
	name, ok := args[0].(*syntax.Symbol)
	if !ok || name.Ns != "" {
		return a.errorf(a.pos(args[0]), "invalid_form", "%s needs the name of a defmulti, got %s", op, syntax.Format(args[0]))
	}
	span := l.Items[0].Bounds()
	items := []syntax.Node{&syntax.Symbol{Span: span, Name: ChangeMethodsFn}, &syntax.String{Span: span, Value: op}}
	items = append(items, args...)
	for len(items) < 6 { // the function, then its five arguments
		items = append(items, &syntax.Nil{Span: span})
	}
	def := a.def(op, []syntax.Node{name, &syntax.List{Span: l.Span, Items: items}}, pos)
	return &Do{At: At{pos}, Body: []Expr{def, a.expr(name, false)}}
}

// thread inserts acc into step as its first (->) or last (->>) argument.
// A bare step (symbol, keyword, #() or fn form) is called with acc.
func thread(acc, step syntax.Node, last bool) syntax.Node {
	if l, ok := step.(*syntax.List); ok && len(l.Items) > 0 && !isFnForm(l) {
		items := make([]syntax.Node, 0, len(l.Items)+1)
		if last {
			items = append(append(items, l.Items...), acc)
		} else {
			items = append(append(append(items, l.Items[0]), acc), l.Items[1:]...)
		}
		return &syntax.List{Span: l.Span, Items: items}
	}
	return &syntax.List{Span: step.Bounds(), Items: []syntax.Node{step, acc}}
}

func isFnForm(l *syntax.List) bool {
	s, ok := l.Items[0].(*syntax.Symbol)
	return ok && s.Ns == "" && (s.Name == "fn" || s.Name == "fn*")
}

// gensym returns a symbol no program can spell (it contains a space).
func (a *analyzer) gensym(pos int32, hint string) *syntax.Symbol {
	a.gensymN++
	return &syntax.Symbol{Span: syntax.Span{Start: pos, Stop: pos}, Name: " " + hint + strconv.Itoa(a.gensymN)}
}

func (a *analyzer) cond(args []syntax.Node, pos int32, tail bool) Expr {
	if len(args)%2 != 0 {
		return a.errorf(pos, "invalid_cond_form",
			"cond needs test/result pairs, got an odd number of forms (%d); use :else for the default", len(args))
	}
	var result Expr = &Const{At: At{pos}}
	// Build from the last pair so that the first truthy test wins.
	tests := make([]Expr, len(args)/2)
	results := make([]Expr, len(args)/2)
	for i := 0; i < len(args); i += 2 {
		tests[i/2] = a.expr(args[i], false)
		results[i/2] = a.expr(args[i+1], tail)
	}
	for i := len(tests) - 1; i >= 0; i-- {
		if alwaysTruthy(tests[i]) {
			result = results[i]
			continue
		}
		result = &If{At: At{tests[i].Offset()}, Test: tests[i], Then: results[i], Else: result}
	}
	return result
}

// alwaysTruthy reports whether e is a constant truthy test (:else, true, 1...).
func alwaysTruthy(e Expr) bool {
	switch e := e.(type) {
	case *Keyword, *SymbolLit:
		return true
	case *Const:
		return e.Value != nil && e.Value != false
	}
	return false
}

func (a *analyzer) bindingVector(form string, n syntax.Node, pos int32) ([]syntax.Node, bool) {
	v, ok := n.(*syntax.Vector)
	if !ok {
		a.errorf(pos, "invalid_form", "%s requires a vector of bindings, e.g. (%s [x 1] ...)", form, form)
		return nil, false
	}
	if len(v.Items)%2 != 0 {
		a.errorf(a.pos(v), "invalid_form", "%s bindings need an even number of forms (name value pairs), got %d", form, len(v.Items))
		return nil, false
	}
	return v.Items, true
}

func (a *analyzer) let(form string, args []syntax.Node, pos int32, tail bool) Expr {
	if len(args) == 0 {
		return a.errorf(pos, "invalid_arity", "%s expects (%s [bindings] body...)", form, form)
	}
	v, ok := args[0].(*syntax.Vector)
	if !ok || len(v.Items)%2 != 0 {
		a.bindingVector(form, args[0], pos) // the error
		return &Const{At: At{pos}}
	}
	items := v.Items
	// No defer: an error that abandons the analysis (a panic) abandons
	// its scopes with it.
	m := a.mark()
	bs, ok := a.bindings.take(len(items) / 2)
	if !ok {
		bs = a.bindings.grow(len(items) / 2)
	}
	for i := range bs {
		pair := items[2*i : 2*i+2] // one bounds check for the two
		bs[i].Init = a.expr(pair[1], false)
		// A plain name, the most frequent pattern, is bound here, as
		// pattern would bind it: a call less for most of the names.
		if s, ok := pair[0].(*syntax.Symbol); ok && s.Ns == "" && s.Name != "&" && a.depth < a.cfg.MaxDepth {
			f := a.fn
			slot := f.next
			f.next++
			if f.next > f.max {
				f.max = f.next
			}
			a.bindFP(f, s.Name, fingerprint(s.Name), slot)
			p := a.bindSlots.take()
			if p == nil {
				p = a.bindSlots.grow()
			}
			p.Name, p.Slot = s.Name, slot
			bs[i].Pattern = p
			continue
		}
		bs[i].Pattern = a.pattern(pair[0])
	}
	var body Expr
	if len(args) == 2 {
		body = a.expr(args[1], tail) // body, for the most frequent body
	} else {
		body = a.body(args[1:], pos, tail)
	}
	a.release(m)
	p := a.lets.take()
	if p == nil {
		p = a.lets.grow()
	}
	p.Off, p.Bindings, p.Body = pos, bs, body
	return p
}

func (a *analyzer) ifLet(form string, args []syntax.Node, pos int32, tail bool) Expr {
	isIf := strings.HasPrefix(form, "if")
	if len(args) < 1 || (isIf && (len(args) < 2 || len(args) > 3)) {
		want := "(" + form + " [name value] then else?)"
		if !isIf {
			want = "(" + form + " [name value] body...)"
		}
		return a.errorf(pos, "invalid_arity", "%s expects %s", form, want)
	}
	items, ok := a.bindingVector(form, args[0], pos)
	if !ok {
		return &Const{At: At{pos}}
	}
	if len(items) != 2 {
		return a.errorf(a.pos(args[0]), "invalid_form", "%s takes exactly one binding: [name value]", form)
	}
	init := a.expr(items[1], false)
	first := form == "when-first"
	if first {
		// (when-first [x coll] ...) binds x to (first (seq coll)) when the
		// seq is not empty: x may be nil or false.
		init = &Call{At: At{pos}, Fn: a.builtinRef("seq", pos), Args: []Expr{init}}
	}
	m := a.mark()
	defer a.release(m)
	tmp := a.temp()
	var test Expr = &Local{At: At{pos}, Name: "", Slot: int32(tmp)}
	if strings.HasSuffix(form, "-some") {
		test = &Call{At: At{pos}, Fn: a.builtinRef("some?", pos), Args: []Expr{test}}
	}
	var bound Expr = &Local{At: At{pos}, Slot: int32(tmp)}
	if first {
		bound = &Call{At: At{pos}, Fn: a.builtinRef("first", pos), Args: []Expr{bound}}
	}
	inner := a.mark()
	pat := a.pattern(items[0])
	var then Expr
	if isIf {
		then = a.expr(args[1], tail)
	} else {
		then = a.body(args[1:], pos, tail)
	}
	a.release(inner)
	then = &Let{At: At{pos}, Bindings: []Binding{{Pattern: pat, Init: bound}}, Body: then}
	var els Expr = &Const{At: At{pos}}
	if isIf && len(args) == 3 {
		els = a.expr(args[2], tail)
	}
	return &Let{At: At{pos},
		Bindings: []Binding{{Pattern: &BindSlot{Slot: tmp}, Init: init}},
		Body:     &If{At: At{pos}, Test: test, Then: then, Else: els}}
}

func (a *analyzer) loop(args []syntax.Node, pos int32) Expr {
	if len(args) == 0 {
		return a.errorf(pos, "invalid_arity", "loop expects (loop [bindings] body...)")
	}
	items, ok := a.bindingVector("loop", args[0], pos)
	if !ok {
		return &Const{At: At{pos}}
	}
	m := a.mark()
	defer a.release(m)
	lp := a.loops.new(Loop{At: At{pos}})
	if len(items) > 0 {
		lp.Bindings = a.bindings.slice(len(items) / 2)[:0]
		lp.Targets = a.patterns.slice(len(items) / 2)[:0]
	}
	for i := 0; i < len(items); i += 2 {
		init := a.expr(items[i+1], false)
		p := a.pattern(items[i])
		lp.Bindings = append(lp.Bindings, Binding{Pattern: p, Init: init})
		lp.Targets = append(lp.Targets, p)
	}
	saved := a.fn.recur
	a.fn.recur = recurTarget{loop: lp, arity: len(lp.Bindings), kind: "loop"}
	lp.Body = a.body(args[1:], pos, true)
	a.fn.recur = saved
	return lp
}

func (a *analyzer) recur(args []syntax.Node, pos int32, tail bool) Expr {
	t := a.fn.recur
	if t.none() {
		return a.errorf(pos, "invalid_form", "recur must be inside loop or fn")
	}
	if t.blockedBy == "try" {
		return a.errorf(pos, "invalid_form",
			"recur cannot cross a try (Clojure: Cannot recur across try): let the try compute a value and recur outside it, e.g. (let [r (try ... (catch Exception e ...))] (recur ...))")
	}
	if t.blockedBy != "" {
		return a.errorf(pos, "invalid_form",
			"recur cannot be used inside the body of %s: loop over the data with loop/recur, or use reduce", t.blockedBy)
	}
	if !tail {
		return a.errorf(pos, "invalid_form", "recur must be in tail position (the last expression of its loop or fn)")
	}
	if len(args) != t.arity {
		return a.errorf(pos, "arity_mismatch", "recur expects %d argument(s) for its %s, got %d", t.arity, t.kind, len(args))
	}
	return a.recurs.new(Recur{At: At{pos}, Args: a.exprs(args), Loop: t.loop})
}

// fn analyzes (fn name? [params] body...) and (fn name? ([params] body...)...).
func (a *analyzer) fnForm(args []syntax.Node, pos int32, defName string) Expr {
	name := ""
	if len(args) > 0 {
		if s, ok := args[0].(*syntax.Symbol); ok && s.Ns == "" {
			name = s.Name
			args = args[1:]
		}
	}
	return a.fnArities(args, pos, name, defName)
}

func (a *analyzer) fnArities(args []syntax.Node, pos int32, selfName, defName string) Expr {
	if len(args) == 0 {
		return a.errorf(pos, "invalid_form", "fn needs a parameter vector: (fn [x] body...)")
	}
	var arities [][]syntax.Node // each: params vector then body
	if _, ok := args[0].(*syntax.Vector); ok {
		arities = append(arities, args)
	} else {
		for _, ar := range args {
			l, ok := ar.(*syntax.List)
			if !ok || len(l.Items) == 0 {
				return a.errorf(a.pos(ar), "invalid_form",
					"fn expects a parameter vector, or one list per arity: ([x] body) ([x y] body)")
			}
			if _, ok := l.Items[0].(*syntax.Vector); !ok {
				return a.errorf(a.pos(l), "invalid_form", "each arity must start with a parameter vector")
			}
			arities = append(arities, l.Items)
		}
	}
	fn := &Fn{At: At{pos}, Name: selfName}
	if fn.Name == "" {
		fn.Name = defName
	}
	scope := a.newFnScope(selfName)
	saved := a.fn
	a.fn = scope
	defer func() { a.fn = saved }()
	seen := map[int]bool{}
	variadicMin := -1
	maxFixed := -1
	for _, ar := range arities {
		scope.truncate(0)
		scope.next, scope.max = 0, 0
		arity := a.arity(ar[0].(*syntax.Vector), ar[1:], pos)
		if arity == nil {
			continue
		}
		n := len(arity.Params)
		if arity.Rest != nil {
			if variadicMin >= 0 {
				return a.errorf(a.pos(ar[0]), "invalid_form", "a function can have only one variadic arity")
			}
			variadicMin = n
		} else {
			if seen[n] {
				return a.errorf(a.pos(ar[0]), "invalid_form", "a function has two arities with %d parameter(s)", n)
			}
			seen[n] = true
			maxFixed = max(maxFixed, n)
		}
		fn.Arities = append(fn.Arities, arity)
	}
	if variadicMin >= 0 && maxFixed > variadicMin {
		return a.errorf(pos, "invalid_form", "a fixed arity cannot have more parameters than the variadic one")
	}
	fn.Captures = scope.captures
	return fn
}

func (a *analyzer) arity(params *syntax.Vector, body []syntax.Node, pos int32) *Arity {
	ar := &Arity{}
	items := params.Items
	var fixed []syntax.Node
	var rest syntax.Node
	for i := 0; i < len(items); i++ {
		if s, ok := items[i].(*syntax.Symbol); ok && s.Ns == "" && s.Name == "&" {
			if i+2 != len(items) {
				a.errorf(a.pos(items[i]), "invalid_form", "& must be followed by exactly one parameter")
				return nil
			}
			rest = items[i+1]
			break
		}
		fixed = append(fixed, items[i])
	}
	// Arguments land in slots 0..n-1 and the rest argument in slot n; then
	// destructuring patterns bind their names in later slots.
	slots := make([]int, len(fixed))
	for i, p := range fixed {
		if s, ok := p.(*syntax.Symbol); ok {
			slots[i] = a.declare(a.paramName(s))
		} else {
			slots[i] = a.temp()
		}
	}
	restSlot := -1
	if rest != nil {
		if s, ok := rest.(*syntax.Symbol); ok {
			restSlot = a.declare(a.paramName(s))
		} else {
			restSlot = a.temp()
		}
	}
	for i, p := range fixed {
		if _, ok := p.(*syntax.Symbol); ok {
			ar.Params = append(ar.Params, &BindSlot{Name: p.(*syntax.Symbol).Name, Slot: slots[i]})
		} else {
			ar.Params = append(ar.Params, a.pattern(p))
		}
	}
	if rest != nil {
		if s, ok := rest.(*syntax.Symbol); ok {
			ar.Rest = &BindSlot{Name: s.Name, Slot: restSlot}
		} else {
			ar.Rest = a.pattern(rest)
		}
	}
	n := len(fixed)
	if rest != nil {
		n++
	}
	saved := a.fn.recur
	a.fn.recur = recurTarget{arity: n, kind: "function"}
	ar.Body = a.body(conditions(body), pos, true)
	a.fn.recur = saved
	ar.NumSlots = a.fn.max
	return ar
}

// conditions rewrites a function body that starts with Clojure's
// condition map, {:pre [tests] :post [tests]}, followed by more forms:
// each :pre test is asserted first; with :post, the body's value is bound
// to % while each :post test is asserted, then returned:
//
//	(assert pre)... (let [% (do body...)] (assert post)... %)
//
// A body whose first form is any other map, or its only form, is left as
// it is (the map is a value), as in Clojure.
func conditions(body []syntax.Node) []syntax.Node {
	if len(body) < 2 {
		return body
	}
	m, ok := body[0].(*syntax.Map)
	if !ok || len(m.Items) == 0 {
		return body
	}
	var pre, post []syntax.Node
	for i := 0; i+1 < len(m.Items); i += 2 {
		k, ok := m.Items[i].(*syntax.Keyword)
		v, isVec := m.Items[i+1].(*syntax.Vector)
		if !ok || !isVec || (k.Name != "pre" && k.Name != "post") {
			return body
		}
		if k.Name == "pre" {
			pre = v.Items
		} else {
			post = v.Items
		}
	}
	sp := m.Span
	sym := func(name string) *syntax.Symbol { return &syntax.Symbol{Span: sp, Name: name} }
	assert := func(test syntax.Node) syntax.Node {
		return &syntax.List{Span: test.Bounds(), Items: []syntax.Node{sym("assert"), test}}
	}
	out := make([]syntax.Node, 0, len(pre)+1)
	for _, t := range pre {
		out = append(out, assert(t))
	}
	if len(post) == 0 {
		return append(out, body[1:]...)
	}
	// % is a local here, as in Clojure's expansion: the body is
	// evaluated before it is bound, and a #(...) in a test has its own.
	result := sym("%")
	let := []syntax.Node{sym("let"), &syntax.Vector{Span: sp, Items: []syntax.Node{result,
		&syntax.List{Span: sp, Items: append([]syntax.Node{sym("do")}, body[1:]...)}}}}
	for _, t := range post {
		let = append(let, assert(t))
	}
	return append(out, &syntax.List{Span: sp, Items: append(let, result)})
}

func (a *analyzer) paramName(s *syntax.Symbol) string {
	if s.Ns != "" {
		a.errorf(a.pos(s), "invalid_form", "parameter names cannot be qualified: %s", symText(s))
	}
	return s.Name
}

func (a *analyzer) defName(form string, args []syntax.Node, pos int32) (string, bool) {
	if len(args) == 0 {
		a.errorf(pos, "invalid_form", "%s needs a name", form)
		return "", false
	}
	s, ok := args[0].(*syntax.Symbol)
	if !ok || s.Ns != "" {
		a.errorf(a.pos(args[0]), "invalid_form", "%s needs a plain name, got %s", form, syntax.Format(args[0]))
		return "", false
	}
	if !a.definable(s, form) {
		return "", false
	}
	a.addDef(s.Name)
	return s.Name, true
}

// definable reports whether a def may bind the name, and says why not. A
// builtin function may be redefined, as in Clojure: from here on the name
// means the user's value. Special forms and macros keep their meaning: the
// analyzer expands them, and in a namespace that persists across runs a
// redefined (when ...) or (return ...) would change every later program.
func (a *analyzer) definable(s *syntax.Symbol, form string) bool {
	if msg := ReservedName(s.Name); msg != "" {
		a.errorf(a.pos(s), "cannot_shadow_builtin", "cannot %s %s: %s", verb(form), s.Name, msg)
		return false
	}
	if a.isBuiltin(s.Name) && !a.shadow[s.Name] {
		if a.shadow == nil {
			a.shadow = map[string]bool{}
		}
		a.shadow[s.Name] = true
		a.newEpoch()
	}
	return true
}

func verb(form string) string {
	if form == "declare" {
		return "declare"
	}
	return "define"
}

// ReservedName explains why a program cannot define name, or returns ""
// when it can. Reserved are the special forms and macros (if, when, let,
// ->, where ...), the forms that end a program or call a tool (return,
// fail, call), the history (*1 *2 *3) and the literals. The names of the
// namespaces (data, ctx, memory, tool) are free: only data/x, ctx/x,
// memory/x and tool/x are the namespaces, so (def data ...) is a var.
func ReservedName(name string) string {
	switch name {
	case "return":
		return "(return value) ends the program with its value, so the name stays reserved; name yours something else, e.g. return-value"
	case "fail":
		return "(fail value) ends the mission as failed, so the name stays reserved; name yours something else, e.g. fail-with"
	case "call":
		return "(call \"tool\" args) calls a tool, so the name stays reserved; name yours something else, e.g. call-with"
	case "*1", "*2", "*3":
		return name + " holds an earlier turn's value, so the name stays reserved; name yours something else, e.g. last-value"
	case "nil", "true", "false":
		return name + " is a literal, so the name stays reserved; name yours something else, e.g. my-" + name
	}
	if isSpecialName(name) {
		return name + " is a special form of PTC-Lisp and keeps its meaning; name yours something else, e.g. my-" + name
	}
	return ""
}

func (a *analyzer) defn(form string, args []syntax.Node, pos int32) Expr {
	name, ok := a.defName(form, args, pos)
	if !ok {
		return &Const{At: At{pos}}
	}
	rest := args[1:]
	if len(rest) > 0 {
		if _, ok := rest[0].(*syntax.String); ok && len(rest) > 1 {
			rest = rest[1:] // docstring
		}
	}
	if len(rest) > 0 {
		if _, ok := rest[0].(*syntax.Map); ok && len(rest) > 1 {
			rest = rest[1:] // attribute map
		}
	}
	if len(rest) == 0 {
		return a.errorf(pos, "invalid_form", "%s %s needs a parameter vector: (%s %s [x] body...)", form, name, form, name)
	}
	return &Def{At: At{pos}, Name: name, Value: a.fnArities(rest, pos, "", name)}
}

func (a *analyzer) def(form string, args []syntax.Node, pos int32) Expr {
	name, ok := a.defName(form, args, pos)
	if !ok {
		return &Const{At: At{pos}}
	}
	rest := args[1:]
	if len(rest) == 2 {
		if _, ok := rest[0].(*syntax.String); ok {
			rest = rest[1:]
		}
	}
	if len(rest) == 0 && form == "def" {
		// (def x) declares x, as in Clojure (where the var is unbound):
		// reading it before a def gives it a value is an error.
		return &VarRef{At: At{pos}, Name: name}
	}
	if len(rest) != 1 {
		return a.errorf(pos, "invalid_form", "%s expects (%s %s value), got %d value form(s)", form, form, name, len(rest))
	}
	var val Expr
	if l, ok := rest[0].(*syntax.List); ok && len(l.Items) > 0 {
		if s, ok := l.Items[0].(*syntax.Symbol); ok && s.Ns == "" && (s.Name == "fn" || s.Name == "fn*") && !a.isLocal(s.Name) {
			val = a.fnForm(l.Items[1:], a.pos(l), name)
		}
	}
	if val == nil {
		val = a.expr(rest[0], false)
	}
	return &Def{At: At{pos}, Name: name, Value: val, Once: form == "defonce"}
}

func (a *analyzer) call(args []syntax.Node, pos int32) Expr {
	if len(args) == 0 {
		return a.errorf(pos, "invalid_arity", "call expects (call \"tool-name\" args...)")
	}
	tc := &ToolCall{At: At{pos}}
	switch n := args[0].(type) {
	case *syntax.String:
		tc.Name = n.Value
	case *syntax.Keyword:
		tc.Name = n.Name
	case *syntax.Symbol:
		if !a.isLocal(n.Name) && n.Ns == "" && !a.isBuiltin(n.Name) && !a.defSet[n.Name] {
			return a.errorf(a.pos(n), "invalid_form",
				"call expects the tool name as a string: (call \"%s\" args...)", n.Name)
		}
		tc.NameExpr = a.expr(n, false)
	default:
		tc.NameExpr = a.expr(n, false)
	}
	rest := args[1:]
	switch tc.Name {
	case "return", "fail":
		if len(rest) != 1 {
			return a.errorf(pos, "invalid_arity", "(call \"%s\" value) takes exactly one value, got %d", tc.Name, len(rest))
		}
		if tc.Name == "return" {
			return &Return{At: At{pos}, Value: a.expr(rest[0], false)}
		}
		return &Fail{At: At{pos}, Value: a.expr(rest[0], false)}
	}
	tc.Args = a.exprs(rest)
	return tc
}

var whereOps = map[string]string{
	"=": "=", "==": "=", "not=": "not=", "!=": "not=", ">": ">", "<": "<", ">=": ">=", "<=": "<=",
	"in": "in", "includes": "includes", "contains": "includes",
}

func (a *analyzer) where(args []syntax.Node, pos int32) Expr {
	if len(args) != 1 && len(args) != 3 {
		return a.errorf(pos, "invalid_where_form",
			"where expects (where :field) or (where :field op value), e.g. (where :age > 18); got %d argument(s)", len(args))
	}
	w := &Where{At: At{pos}}
	switch f := args[0].(type) {
	case *syntax.Keyword:
		w.Path = []Expr{&Keyword{At: At{a.pos(f)}, Name: f.Name}}
	case *syntax.String:
		w.Path = []Expr{&Const{At: At{a.pos(f)}, Value: f.Value}}
	case *syntax.Vector:
		for _, it := range f.Items {
			switch k := it.(type) {
			case *syntax.Keyword:
				w.Path = append(w.Path, &Keyword{At: At{a.pos(k)}, Name: k.Name})
			case *syntax.String:
				w.Path = append(w.Path, &Const{At: At{a.pos(k)}, Value: k.Value})
			default:
				return a.errorf(a.pos(it), "invalid_where_form", "where field paths contain keywords or strings, got %s", syntax.Format(it))
			}
		}
	default:
		return a.errorf(a.pos(args[0]), "invalid_where_form",
			"where needs a field keyword or a path vector first, e.g. (where :status = \"open\"), got %s", syntax.Format(args[0]))
	}
	if len(args) == 1 {
		return w
	}
	op, ok := args[1].(*syntax.Symbol)
	if !ok || op.Ns != "" || whereOps[op.Name] == "" {
		return a.errorf(a.pos(args[1]), "invalid_where_operator",
			"where operator must be one of = not= > < >= <= in includes, got %s", syntax.Format(args[1]))
	}
	w.Op = whereOps[op.Name]
	w.Value = a.expr(args[2], false)
	return w
}

func (a *analyzer) someThread(name string, args []syntax.Node, pos int32) Expr {
	if len(args) == 0 {
		return a.errorf(pos, "invalid_thread_form", "%s needs a value to thread", name)
	}
	m := a.mark()
	defer a.release(m)
	// (let [g x] (if (nil? g) nil (let [g (step g)] ...)))
	init := a.expr(args[0], false)
	return a.someSteps(init, args[1:], name == "some->>", pos)
}

func (a *analyzer) someSteps(init Expr, steps []syntax.Node, last bool, pos int32) Expr {
	if len(steps) == 0 {
		return init
	}
	g := a.gensym(pos, "some")
	slot := a.declare(g.Name)
	ref := &Local{At: At{pos}, Slot: int32(slot)}
	next := a.expr(thread(g, steps[0], last), false)
	isNil := &Call{At: At{pos}, Fn: a.builtinRef("nil?", pos), Args: []Expr{ref}}
	return &Let{At: At{pos}, Bindings: []Binding{{Pattern: &BindSlot{Name: g.Name, Slot: slot}, Init: init}},
		Body: &If{At: At{pos}, Test: isNil, Then: &Const{At: At{pos}}, Else: a.someSteps(next, steps[1:], last, pos)}}
}

func (a *analyzer) condThread(name string, args []syntax.Node, pos int32) Expr {
	if len(args) == 0 || len(args)%2 != 1 {
		return a.errorf(pos, "invalid_thread_form", "%s expects (%s x test form ...) with test/form pairs", name, name)
	}
	m := a.mark()
	defer a.release(m)
	let := &Let{At: At{pos}}
	prev := a.gensym(pos, "cond")
	init := a.expr(args[0], false)
	let.Bindings = append(let.Bindings, Binding{Pattern: &BindSlot{Name: prev.Name, Slot: a.declare(prev.Name)}, Init: init})
	for i := 1; i < len(args); i += 2 {
		test := a.expr(args[i], false)
		step := a.expr(thread(prev, args[i+1], name == "cond->>"), false)
		prevRef, _ := a.resolveLocal(prev.Name, pos)
		g := a.gensym(pos, "cond")
		slot := a.declare(g.Name)
		let.Bindings = append(let.Bindings, Binding{Pattern: &BindSlot{Name: g.Name, Slot: slot},
			Init: &If{At: At{pos}, Test: test, Then: step, Else: prevRef}})
		prev = g
	}
	let.Body, _ = a.resolveLocal(prev.Name, pos)
	return let
}

func (a *analyzer) asThread(args []syntax.Node, pos int32) Expr {
	if len(args) < 2 {
		return a.errorf(pos, "invalid_thread_form", "as-> expects (as-> value name form...)")
	}
	s, ok := args[1].(*syntax.Symbol)
	if !ok || s.Ns != "" {
		return a.errorf(a.pos(args[1]), "invalid_thread_form", "as-> needs a name after the value")
	}
	m := a.mark()
	defer a.release(m)
	let := &Let{At: At{pos}}
	let.Bindings = append(let.Bindings, Binding{Init: a.expr(args[0], false)})
	let.Bindings[0].Pattern = &BindSlot{Name: s.Name, Slot: a.declare(s.Name)}
	for _, f := range args[2:] {
		init := a.expr(f, false)
		let.Bindings = append(let.Bindings, Binding{Pattern: &BindSlot{Name: s.Name, Slot: a.declare(s.Name)}, Init: init})
	}
	let.Body, _ = a.resolveLocal(s.Name, pos)
	return let
}

func (a *analyzer) forForm(form string, args []syntax.Node, pos int32) Expr {
	if len(args) < 1 {
		return a.errorf(pos, "invalid_arity", "%s expects (%s [x coll] body...)", form, form)
	}
	v, ok := args[0].(*syntax.Vector)
	if !ok || len(v.Items) == 0 || len(v.Items)%2 != 0 {
		return a.errorf(pos, "invalid_arity", "%s needs a binding vector of name/collection pairs: (%s [x coll] body...)", form, form)
	}
	if len(args) < 2 {
		return a.errorf(pos, "invalid_arity", "%s needs a body: (%s [x coll] body...)", form, form)
	}
	m := a.mark()
	defer a.release(m)
	saved := a.fn.recur
	a.fn.recur = recurTarget{blockedBy: form} // recur cannot target the hidden loop of for/doseq
	defer func() { a.fn.recur = saved }()
	f := &For{At: At{pos}, Collect: form == "for"}
	items := v.Items
	for i := 0; i < len(items); i += 2 {
		if kw, ok := items[i].(*syntax.Keyword); ok {
			if len(f.Clauses) == 0 {
				return a.errorf(a.pos(kw), "invalid_form", "%s bindings must start with a name, not :%s", form, kw.Name)
			}
			c := &f.Clauses[len(f.Clauses)-1]
			switch kw.Name {
			case "let":
				bv, ok := a.bindingVector(":let", items[i+1], a.pos(kw))
				if !ok {
					return &Const{At: At{pos}}
				}
				mod := ForMod{Kind: "let"}
				for j := 0; j < len(bv); j += 2 {
					init := a.expr(bv[j+1], false)
					mod.Bindings = append(mod.Bindings, Binding{Pattern: a.pattern(bv[j]), Init: init})
				}
				c.Mods = append(c.Mods, mod)
			case "when", "while":
				c.Mods = append(c.Mods, ForMod{Kind: kw.Name, Test: a.expr(items[i+1], false)})
			default:
				return a.errorf(a.pos(kw), "invalid_form", "%s supports the modifiers :let, :when and :while, not :%s", form, kw.Name)
			}
			continue
		}
		switch items[i+1].(type) {
		case *syntax.Int, *syntax.Float, *syntax.Bool, *syntax.Keyword:
			return a.errorf(a.pos(items[i+1]), "invalid_arity", "%s cannot iterate over %s: give it a collection", form, syntax.Format(items[i+1]))
		}
		coll := a.expr(items[i+1], false)
		f.Clauses = append(f.Clauses, ForClause{Pattern: a.pattern(items[i]), Coll: coll})
	}
	f.Body = a.body(args[1:], pos, false)
	return f
}

func (a *analyzer) dotimes(args []syntax.Node, pos int32) Expr {
	if len(args) < 1 {
		return a.errorf(pos, "invalid_arity", "dotimes expects (dotimes [i n] body...)")
	}
	v, ok := args[0].(*syntax.Vector)
	if !ok || len(v.Items) != 2 {
		return a.errorf(pos, "invalid_arity", "dotimes expects (dotimes [i n] body...)")
	}
	s, ok := v.Items[0].(*syntax.Symbol)
	if !ok || s.Ns != "" {
		return a.errorf(a.pos(v.Items[0]), "invalid_form", "dotimes needs a name: (dotimes [i n] body...)")
	}
	count := a.expr(v.Items[1], false)
	m := a.mark()
	defer a.release(m)
	saved := a.fn.recur
	a.fn.recur = recurTarget{blockedBy: "dotimes"}
	defer func() { a.fn.recur = saved }()
	slot := a.declare(s.Name)
	return &Dotimes{At: At{pos}, Slot: slot, Count: count, Body: a.body(args[1:], pos, false)}
}

func (a *analyzer) letfn(args []syntax.Node, pos int32, tail bool) Expr {
	if len(args) < 1 {
		return a.errorf(pos, "invalid_arity", "letfn expects (letfn [(f [x] ...) ...] body...)")
	}
	v, ok := args[0].(*syntax.Vector)
	if !ok {
		return a.errorf(pos, "invalid_form", "letfn expects a vector of function specs: (letfn [(f [x] ...)] body...)")
	}
	m := a.mark()
	defer a.release(m)
	lf := &LetFn{At: At{pos}}
	var specs []*syntax.List
	for _, it := range v.Items {
		l, ok := it.(*syntax.List)
		if !ok || len(l.Items) < 2 {
			return a.errorf(a.pos(it), "invalid_form", "letfn function specs look like (name [params] body...)")
		}
		s, ok := l.Items[0].(*syntax.Symbol)
		if !ok || s.Ns != "" {
			return a.errorf(a.pos(l), "invalid_form", "letfn function specs start with a name")
		}
		lf.Slots = append(lf.Slots, a.declare(s.Name))
		specs = append(specs, l)
	}
	for _, l := range specs {
		name := l.Items[0].(*syntax.Symbol).Name
		fe := a.fnArities(l.Items[1:], a.pos(l), "", name)
		fn, ok := fe.(*Fn)
		if !ok {
			return fe
		}
		lf.Fns = append(lf.Fns, fn)
	}
	lf.Body = a.body(args[1:], pos, tail)
	return lf
}

func (a *analyzer) caseForm(args []syntax.Node, pos int32, tail bool) Expr {
	if len(args) < 1 {
		return a.errorf(pos, "invalid_arity", "case expects (case value test result ... default?)")
	}
	c := &Case{At: At{pos}, Expr: a.expr(args[0], false)}
	clauses := args[1:]
	var def syntax.Node
	if len(clauses)%2 == 1 {
		def = clauses[len(clauses)-1]
		clauses = clauses[:len(clauses)-1]
	}
	for i := 0; i < len(clauses); i += 2 {
		var tests []Expr
		if l, ok := clauses[i].(*syntax.List); ok {
			for _, t := range l.Items {
				tests = append(tests, a.caseConst(t))
			}
		} else if q, ok := clauses[i].(*syntax.Quote); ok {
			// 'a is the list (quote a) to Clojure's case: it matches
			// the symbol a, and quote.
			tests = append(tests, &SymbolLit{At: At{a.pos(q)}, Name: "quote"}, a.caseConst(q.Form))
		} else {
			tests = append(tests, a.caseConst(clauses[i]))
		}
		c.Tests = append(c.Tests, tests)
		c.Results = append(c.Results, a.expr(clauses[i+1], tail))
	}
	if def != nil {
		c.Default = a.expr(def, tail)
	}
	return c
}

// caseConst reads a test constant of case. A symbol is the symbol itself,
// as in Clojure: (case op + ...) matches '+, and (case (type x) Long ...)
// never matches a class.
func (a *analyzer) caseConst(n syntax.Node) Expr {
	return a.quote(n, a.pos(n))
}

func (a *analyzer) condp(args []syntax.Node, pos int32, tail bool) Expr {
	if len(args) < 2 {
		return a.errorf(pos, "invalid_arity", "condp expects (condp pred value test result ... default?)")
	}
	m := a.mark()
	defer a.release(m)
	predSlot := a.temp()
	valSlot := a.temp()
	pred := a.expr(args[0], false)
	val := a.expr(args[1], false)
	clauses := args[2:]
	// A clause is "test result" or "test :>> f", where f receives the
	// predicate's result; a single form left at the end is the default.
	type clause struct {
		test   Expr
		result Expr
		arrow  bool
		pos    int32
	}
	var cls []clause
	var defNode syntax.Node
	for i := 0; i < len(clauses); {
		if i+1 == len(clauses) {
			defNode = clauses[i]
			break
		}
		test := &Call{At: At{a.pos(clauses[i])}, Fn: &Local{At: At{pos}, Slot: int32(predSlot)},
			Args: []Expr{a.expr(clauses[i], false), &Local{At: At{pos}, Slot: int32(valSlot)}}}
		if k, ok := clauses[i+1].(*syntax.Keyword); ok && k.Name == ">>" {
			if i+2 == len(clauses) {
				return a.errorf(a.pos(k), "invalid_form", "condp: :>> must be followed by a function")
			}
			cls = append(cls, clause{test: test, result: a.expr(clauses[i+2], false), arrow: true, pos: a.pos(clauses[i])})
			i += 3
			continue
		}
		cls = append(cls, clause{test: test, result: a.expr(clauses[i+1], tail), pos: a.pos(clauses[i])})
		i += 2
	}
	var result Expr
	if defNode != nil {
		result = a.expr(defNode, tail)
	} else {
		result = &Raise{At: At{pos}, Kind: "invalid_argument", Msg: "condp: no clause matches", Value: &Local{At: At{pos}, Slot: int32(valSlot)}}
	}
	// Chain the tests from the last one. An arrow clause keeps the test's
	// value in a slot of its own and calls f with it.
	for i := len(cls) - 1; i >= 0; i-- {
		c := cls[i]
		if !c.arrow {
			result = &If{At: At{c.pos}, Test: c.test, Then: c.result, Else: result}
			continue
		}
		hit := a.temp()
		result = &Let{At: At{c.pos}, Bindings: []Binding{{Pattern: &BindSlot{Slot: hit}, Init: c.test}},
			Body: &If{At: At{c.pos}, Test: &Local{At: At{c.pos}, Slot: int32(hit)},
				Then: &Call{At: At{c.pos}, Fn: c.result, Args: []Expr{&Local{At: At{c.pos}, Slot: int32(hit)}}},
				Else: result}}
	}
	return &Let{At: At{pos}, Bindings: []Binding{
		{Pattern: &BindSlot{Slot: predSlot}, Init: pred},
		{Pattern: &BindSlot{Slot: valSlot}, Init: val},
	}, Body: result}
}

// shortFn expands #(...) into a function of %1..%n (and %& for the rest).
func (a *analyzer) shortFn(n *syntax.ShortFn) Expr {
	pos := a.pos(n)
	maxN, rest := 0, false
	if err := scanPlaceholders(n.Items, &maxN, &rest); err != nil {
		return a.errorf(a.pos(err), "invalid_form", "nested #() are not allowed: use (fn [x] ...) for the inner function")
	}
	scope := a.newFnScope("")
	saved := a.fn
	a.fn = scope
	defer func() { a.fn = saved }()
	ar := &Arity{}
	for i := 1; i <= maxN; i++ {
		slot := a.declare("%" + strconv.Itoa(i))
		if i == 1 {
			a.bind(scope, "%", slot)
		}
		ar.Params = append(ar.Params, &BindSlot{Name: "%" + strconv.Itoa(i), Slot: slot})
	}
	if rest {
		ar.Rest = &BindSlot{Name: "%&", Slot: a.declare("%&")}
	}
	scope.recur = recurTarget{arity: len(ar.Params) + boolInt(rest), kind: "function"}
	if len(n.Items) == 0 {
		ar.Body = &Const{At: At{pos}}
	} else {
		ar.Body = a.list(&syntax.List{Span: n.Span, Items: n.Items}, true)
	}
	ar.NumSlots = scope.max
	return &Fn{At: At{pos}, Arities: []*Arity{ar}, Captures: scope.captures}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// scanPlaceholders finds the highest %N and whether %& is used, and returns
// the first nested #() it meets.
func scanPlaceholders(items []syntax.Node, maxN *int, rest *bool) syntax.Node {
	for _, it := range items {
		switch n := it.(type) {
		case *syntax.Symbol:
			if n.Ns != "" {
				continue
			}
			switch {
			case n.Name == "%":
				*maxN = max(*maxN, 1)
			case n.Name == "%&":
				*rest = true
			case isPlaceholder(n.Name):
				if k, err := strconv.Atoi(n.Name[1:]); err == nil && k <= maxPlaceholder {
					*maxN = max(*maxN, k)
				}
			}
		case *syntax.ShortFn:
			return n
		case *syntax.List:
			if bad := scanPlaceholders(n.Items, maxN, rest); bad != nil {
				return bad
			}
		case *syntax.Vector:
			if bad := scanPlaceholders(n.Items, maxN, rest); bad != nil {
				return bad
			}
		case *syntax.Map:
			if bad := scanPlaceholders(n.Items, maxN, rest); bad != nil {
				return bad
			}
		case *syntax.Set:
			if bad := scanPlaceholders(n.Items, maxN, rest); bad != nil {
				return bad
			}
		case *syntax.Quote:
			if bad := scanPlaceholders([]syntax.Node{n.Form}, maxN, rest); bad != nil {
				return bad
			}
		case *syntax.Deref:
			if bad := scanPlaceholders([]syntax.Node{n.Form}, maxN, rest); bad != nil {
				return bad
			}
		case *syntax.SyntaxQuote:
			if bad := scanPlaceholders([]syntax.Node{n.Form}, maxN, rest); bad != nil {
				return bad
			}
		case *syntax.Unquote:
			if bad := scanPlaceholders([]syntax.Node{n.Form}, maxN, rest); bad != nil {
				return bad
			}
		case *syntax.UnquoteSplicing:
			if bad := scanPlaceholders([]syntax.Node{n.Form}, maxN, rest); bad != nil {
				return bad
			}
		}
	}
	return nil
}

// tryForm analyzes (try body... (catch Class name handler...)... (finally
// cleanup...)) with Clojure's rules: the clauses come after the body, and
// the finally is the last one. No recur crosses a try (Clojure: "Cannot
// recur across try"): neither its body nor its clauses are in tail position.
func (a *analyzer) tryForm(args []syntax.Node, pos int32) Expr {
	saved := a.fn.recur
	a.fn.recur = recurTarget{blockedBy: "try"}
	defer func() { a.fn.recur = saved }()
	first := len(args) // the first clause
	for i, x := range args {
		if clauseHead(x) != "" {
			first = i
			break
		}
	}
	t := &Try{At: At{pos}, Body: a.body(args[:first], pos, false)}
	for _, x := range args[first:] {
		l, _ := x.(*syntax.List)
		switch clauseHead(x) {
		case "catch":
			if t.Finally != nil {
				return a.errorf(a.pos(x), "invalid_form", "the finally clause must be the last clause of try")
			}
			c, ok := a.catchClause(l)
			if !ok {
				return &Const{At: At{pos}}
			}
			t.Catches = append(t.Catches, c)
		case "finally":
			if t.Finally != nil {
				return a.errorf(a.pos(x), "invalid_form", "try has one finally clause at most")
			}
			t.Finally = a.body(l.Items[1:], a.pos(l), false)
		default:
			return a.errorf(a.pos(x), "invalid_form",
				"only catch and finally clauses can follow a catch or finally in try: put %s in the try's body, before its clauses", syntax.Format(x))
		}
	}
	return t
}

// clauseHead returns "catch" or "finally" when x is such a clause of try.
func clauseHead(x syntax.Node) string {
	l, ok := x.(*syntax.List)
	if !ok || len(l.Items) == 0 {
		return ""
	}
	if s, ok := l.Items[0].(*syntax.Symbol); ok && s.Ns == "" && (s.Name == "catch" || s.Name == "finally") {
		return s.Name
	}
	return ""
}

// catchClause analyzes (catch Class name handler...). The class is checked
// against the known ones when the program is compiled.
func (a *analyzer) catchClause(l *syntax.List) (Catch, bool) {
	const want = "catch expects (catch Exception e handler...): a class such as Exception, then a name for the exception"
	if len(l.Items) < 3 {
		a.errorf(a.pos(l), "invalid_form", "%s", want)
		return Catch{}, false
	}
	c := Catch{Off: a.pos(l.Items[1])}
	switch cl := l.Items[1].(type) {
	case *syntax.Symbol:
		c.Class = symText(cl)
	case *syntax.Keyword:
		if cl.Name != "default" {
			a.errorf(a.pos(cl), "invalid_form", "%s, got :%s", want, cl.Name)
			return Catch{}, false
		}
		c.Class = ":default"
	default:
		a.errorf(a.pos(cl), "invalid_form", "%s, got %s", want, syntax.Format(cl))
		return Catch{}, false
	}
	name, ok := l.Items[2].(*syntax.Symbol)
	if !ok || name.Ns != "" || name.Name == "&" {
		a.errorf(a.pos(l.Items[2]), "invalid_form", "%s; got %s instead of a name", want, syntax.Format(l.Items[2]))
		return Catch{}, false
	}
	m := a.mark()
	defer a.release(m)
	c.Slot = a.declare(name.Name)
	c.Body = a.body(l.Items[3:], a.pos(l), false)
	return c, true
}
