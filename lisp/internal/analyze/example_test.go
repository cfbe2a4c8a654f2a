package analyze_test

import (
	"fmt"

	"github.com/ptc-go/ptc/lisp/internal/analyze"
	"github.com/ptc-go/ptc/lisp/syntax"
)

func ExampleAnalyze() {
	builtins := map[string]bool{"*": true, "map": true}
	cfg := analyze.Config{IsBuiltin: func(name string) bool { return builtins[name] }}

	src := `(defn twice [x] (* 2 x)) (map twice ctx/items)`
	forms, _ := syntax.Read(src)
	prog, err := analyze.Analyze(src, forms, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range prog.Body.(*analyze.Do).Body {
		fmt.Printf("%T\n", e)
	}
	call := prog.Body.(*analyze.Do).Body[1].(*analyze.Call)
	fmt.Printf("%T %T %T\n", call.Fn, call.Args[0], call.Args[1])
	fmt.Println("defs:", prog.Defs)

	src = "(let [x 1]\n  (recur x))\n(foo/bar)"
	forms, _ = syntax.Read(src)
	_, err = analyze.Analyze(src, forms, cfg)
	for _, e := range err.(analyze.ErrorList) {
		fmt.Println(e.Kind, e)
	}
	// Output:
	// *analyze.Def
	// *analyze.Call
	// *analyze.Builtin *analyze.Global *analyze.CtxRef
	// defs: [twice]
	// invalid_form 2:3: recur must be inside loop or fn
	// unbound_var 3:2: unknown namespace foo/ in foo/bar: use ctx/name for context data, (tool/name args) for tools, memory/name for stored values
}
