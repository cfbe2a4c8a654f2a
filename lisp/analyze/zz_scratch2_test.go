package analyze

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp/syntax"
)

func show(err error) {
	if l, ok := err.(ErrorList); ok {
		for _, e := range l {
			fmt.Printf(" [%s %s: %.120s]", e.Kind, e.Pos, e.Msg)
		}
		fmt.Println()
		return
	}
	fmt.Println(err)
}

func TestZZDepth(t *testing.T) {
	big := syntax.Config{MaxDepth: 100000}
	for _, n := range []int{511, 512, 513, 2000, 20000} {
		src := strings.Repeat("(do ", n) + "1" + strings.Repeat(")", n)
		forms, err := big.Read(src)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Analyze(forms, testConfig())
		fmt.Printf("do n=%d prog=%v ", n, p != nil)
		show(err)
		src = "'" + strings.Repeat("[", n) + strings.Repeat("]", n)
		forms, err = big.Read(src)
		if err != nil {
			t.Fatal(err)
		}
		p, err = Analyze(forms, testConfig())
		fmt.Printf("quote n=%d prog=%v ", n, p != nil)
		show(err)
		src = "(let [" + strings.Repeat("[", n) + "a" + strings.Repeat("]", n) + " 1] a)"
		forms, err = big.Read(src)
		if err != nil {
			t.Fatal(err)
		}
		p, err = Analyze(forms, testConfig())
		fmt.Printf("pattern n=%d prog=%v ", n, p != nil)
		show(err)
		src = "(-> 1" + strings.Repeat(" inc", n) + ")"
		forms, err = big.Read(src)
		if err != nil {
			t.Fatal(err)
		}
		p, err = Analyze(forms, testConfig())
		fmt.Printf("thread n=%d prog=%v ", n, p != nil)
		show(err)
	}
	p, err := analyzeSrc(t, "(do (do (do 1)))", Config{MaxDepth: 3})
	fmt.Print(p != nil, " ")
	show(err)
	p, err = analyzeSrc(t, "(do (do 1))", Config{MaxDepth: 3})
	fmt.Print(p != nil, " ")
	show(err)
	hint := func(n string) string {
		switch n {
		case "atom", "swap!", "str/format", "format", ".getTime":
			return "HINT(" + n + ")"
		}
		return ""
	}
	for _, src := range []string{"(atom 1)", "(swap! a inc)", "(str/format 1)", "(str/nope 1)", "(clojure.string/format 1)", "(.getTime x)", "(let [atom 1] atom)", "(def atom 1) atom", "(foo/atom 1)"} {
		p, err := analyzeSrc(t, src, Config{IsBuiltin: testConfig().IsBuiltin, Hint: hint})
		fmt.Print(src, " ", p != nil, " ")
		show(err)
	}
	src := "(foo/a) (foo/b) (foo/c) (foo/d) (foo/e)"
	for _, me := range []int{0, 1, 3, 5, 100} {
		_, err := analyzeSrc(t, src, Config{MaxErrors: me})
		fmt.Print(me, " ")
		show(err)
	}
	_, err = analyzeSrc(t, strings.Repeat("(foo/a) ", 20), Config{})
	show(err)
	fmt.Println(err)
	_, err = analyzeSrc(t, "(foo/a)", Config{})
	fmt.Println(err)
}
