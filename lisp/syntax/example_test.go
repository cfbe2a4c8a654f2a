package syntax_test

import (
	"fmt"

	"github.com/ptc-go/ptc/lisp/syntax"
)

func ExampleRead() {
	src := `(defn greet [name] (str "Hello, " name))`
	forms, err := syntax.Read(src)
	if err != nil {
		panic(err)
	}
	lines := syntax.LinesOf(src)
	for _, item := range forms[0].(*syntax.List).Items {
		b := item.Bounds()
		fmt.Printf("%-16T %s-%s\n", item, lines.Pos(b.Start), lines.Pos(b.Stop))
	}
	// Output:
	// *syntax.Symbol   1:2-1:6
	// *syntax.Symbol   1:7-1:12
	// *syntax.Vector   1:13-1:19
	// *syntax.List     1:20-1:40
}

func ExampleRead_errors() {
	_, err := syntax.Read("(let [x 1\n      y 2)\n  (+ x y)")
	fmt.Println(err)
	for _, e := range err.(syntax.ErrorList) {
		fmt.Println(e.Pos, e.Msg, "| opener at", e.Opened)
	}
	// Output:
	// 2:10: mismatched ')': expected ']' to close '[' opened at 1:6 (and 1 more error)
	// 2:10 mismatched ')': expected ']' to close '[' opened at 1:6 | opener at 1:6
	// 3:10 unclosed '(' opened at 1:1 | opener at 1:1
}

func ExampleFormat() {
	forms, _ := syntax.Read("{:a 1,\n :b [1.5e3 \\λ \"x\\ty\" 0x10]} ; done")
	fmt.Println(syntax.Format(forms[0]))
	// Output:
	// {:a 1 :b [1500.0 \λ "x\ty" 16]}
}

func ExampleSnippet() {
	src := "(let [total (reduce + ::s/xs)]\n  total)"
	_, err := syntax.Read(src)
	e := err.(syntax.ErrorList)[0]
	fmt.Println(e)
	fmt.Println(syntax.Snippet(src, e.Pos, 80))
	// Output:
	// 1:23: auto-resolved keywords (::s/xs) are not supported: write :s/xs
	// (let [total (reduce + ::s/xs)]
	//                       ^
}
