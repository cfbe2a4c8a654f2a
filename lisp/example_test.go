package lisp_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ptc-go/ptc/lisp"
)

func ExampleRun() {
	orders := []map[string]any{
		{"id": 1, "customer": "acme", "amount": 250},
		{"id": 2, "customer": "globex", "amount": 40},
		{"id": 3, "customer": "acme", "amount": 120},
	}
	res, err := lisp.Run(context.Background(), `
	  (->> ctx/orders
	       (filter (where :amount > 100))
	       (group-by :customer)
	       (map (fn [[c os]] {:customer c :total (sum-by :amount os)})))`,
		lisp.Options{Input: map[string]any{"orders": orders}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(lisp.Print(res.Value, lisp.PrintOptions{}))
	// Output: [{:customer "acme", :total 370}]
}

func ExampleCompile() {
	prog, err := lisp.Compile(`(def n (inc (or memory/n 0))) (println "run" n) n`)
	if err != nil {
		fmt.Println(err)
		return
	}
	var ns *lisp.Namespace // carries defs from one run to the next
	for i := 0; i < 3; i++ {
		res, err := prog.Run(context.Background(), lisp.Options{Namespace: ns})
		if err != nil {
			fmt.Println(err)
			return
		}
		ns = res.Namespace
		fmt.Println(res.Output[0], "->", lisp.Print(res.Value, lisp.PrintOptions{}))
	}
	// Output:
	// run 1 -> 1
	// run 2 -> 2
	// run 3 -> 3
}

func ExampleTools() {
	tools := lisp.Tools{
		"get-user": func(ctx context.Context, args *lisp.Map) (any, error) {
			id, _ := args.Get(lisp.Keyword("id"))
			return map[string]any{"id": id, "name": fmt.Sprint("user-", id)}, nil
		},
	}
	res, err := lisp.Run(context.Background(),
		`(mapv #(:name (tool/get-user {:id %})) [1 2])`, lisp.Options{Tools: tools})
	fmt.Println(lisp.Print(res.Value, lisp.PrintOptions{}), err, res.ToolCalls)
	// Output: ["user-1" "user-2"] <nil> 2
}

func ExampleError() {
	_, err := lisp.Run(context.Background(), "(let [total (+ 1 \"2\")]\n  total)", lisp.Options{})
	var le *lisp.Error
	if errors.As(err, &le) {
		fmt.Println(errors.Is(err, lisp.TypeError))
		fmt.Println(le.Detailed())
	}
	// Output:
	// true
	// 1:13: type_error: + expects a number as argument 2, got string "2"
	// (let [total (+ 1 "2")]
	//             ^
}

func ExampleStatus() {
	res, _ := lisp.Run(context.Background(), `(if (empty? ctx/items) (fail {:reason :empty}) (return (count ctx/items)))`,
		lisp.Options{Input: map[string]any{"items": []int{}}})
	fmt.Println(res.Status, lisp.Print(res.Value, lisp.PrintOptions{}))
	// Output: failed {:reason :empty}
}

func ExampleFromGo() {
	type Item struct {
		SKU   string  `json:"sku"`
		Price float64 `json:"price"`
		Notes string  `json:"notes,omitempty"`
	}
	v, err := lisp.FromGo([]Item{{SKU: "a-1", Price: 9.5}})
	fmt.Println(lisp.Print(v, lisp.PrintOptions{}), err)
	// Output: [{"price" 9.5, "sku" "a-1"}] <nil>
}

func ExampleToGo() {
	v, _ := lisp.Read(`{:name "Ann" :tags #{:b :a} :scores [1 2.5]}`, lisp.ReadOptions{Format: lisp.ReadEDN})
	g, err := lisp.ToGo(v)
	fmt.Printf("%#v %v\n", g, err)
	// Output: map[string]interface {}{"name":"Ann", "scores":[]interface {}{1, 2.5}, "tags":[]interface {}{"a", "b"}} <nil>
}

// Read reads a value written as EDN, as JSON or in the printed form.
func ExampleRead() {
	edn, err := lisp.Read(`#{:b :a 1}`, lisp.ReadOptions{Format: lisp.ReadEDN})
	fmt.Println(lisp.Print(edn, lisp.PrintOptions{}), err)
	js, err := lisp.Read(`{"b": [1, 2.0, null], "a": "x"}`, lisp.ReadOptions{Format: lisp.ReadJSON})
	fmt.Println(lisp.Print(js, lisp.PrintOptions{}), err)
	// The printed form reads back what Print with Exact wrote.
	printed := lisp.Print(lisp.NewVector([]lisp.Value{lisp.Keyword("a"), "b", int64(1)}), lisp.PrintOptions{Exact: true})
	back, err := lisp.Read(printed, lisp.ReadOptions{})
	fmt.Println(printed, lisp.Equal(back, lisp.NewVector([]lisp.Value{lisp.Keyword("a"), "b", int64(1)})), err)
	// Output:
	// #{1 :a :b} <nil>
	// {"a" "x", "b" [1 2.0 nil]} <nil>
	// [:a "b" 1] true <nil>
}

// Print prints a value as pr-str does, as str does (Display), or cut for
// an LLM to read (MaxItems, FloatPrecision, MaxChars).
func ExamplePrint() {
	v, _ := lisp.Read(`{:ids [1 2 3 4 5 6 7 8 9 10] :ratio 0.333333 :name "Ann"}`, lisp.ReadOptions{Format: lisp.ReadEDN})
	fmt.Println(lisp.Print(v, lisp.PrintOptions{}))
	fmt.Println(lisp.Print(v, lisp.PrintOptions{MaxItems: 3, FloatPrecision: 2}))
	fmt.Println(lisp.Print("Ann", lisp.PrintOptions{}), lisp.Print("Ann", lisp.PrintOptions{Display: true}))
	fmt.Println(lisp.Print(v, lisp.PrintOptions{MaxChars: 12}))
	// Output:
	// {:ids [1 2 3 4 5 6 7 8 9 10], :name "Ann", :ratio 0.333333}
	// {:ids [1 2 3 ... (7 more)], :name "Ann", :ratio 0.33}
	// "Ann" Ann
	// {:ids [1 2 3...
}

func ExampleEqual() {
	a, _ := lisp.Read(`{:n 1 :xs [1 2]}`, lisp.ReadOptions{Format: lisp.ReadEDN})
	b, _ := lisp.Read(`{:xs [1.0 2] :n 1}`, lisp.ReadOptions{Format: lisp.ReadEDN})
	fmt.Println(lisp.Equal(a, b), lisp.Compare(int64(1), 1.0))
	// Output: true 0
}

// Dependencies tells whether a program can run on its own, without the
// runs before it: an agent keeping a program for later checks it.
func ExampleProgram_Dependencies() {
	for _, src := range []string{
		`(->> ctx/orders (filter #(> (:amount %) 100)) count)`,
		`(+ total memory/extra (count *1))`,
	} {
		p, err := lisp.Compile(src)
		if err != nil {
			fmt.Println(err)
			return
		}
		d := p.Dependencies()
		fmt.Println(d.SelfContained(), d.Vars, d.History)
	}
	// Output:
	// true [] false
	// false [extra total] true
}

// slowAgent is a ToolCaller whose "research" tool stands for work with
// limits of its own (an agent, an LLM call): it is untimed.
type slowAgent struct{}

func (slowAgent) CallTool(ctx context.Context, name string, args *lisp.Map) (any, error) {
	select {
	case <-time.After(300 * time.Millisecond): // longer than the program's Timeout
		return "findings", nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (slowAgent) Untimed(name string) bool { return name == "research" }

// A ToolCaller with a method Untimed(name string) bool marks untimed
// tools: the program's clock stands still while it waits on one.
func ExampleToolCaller_untimed() {
	res, err := lisp.Run(context.Background(), `(str (tool/research {}) " and " (tool/research {}))`,
		lisp.Options{Tools: slowAgent{}, Limits: lisp.Limits{Timeout: 200 * time.Millisecond}})
	fmt.Println(res.Value, err)
	// Output: findings and findings <nil>
}

// LookupDoc finds an entry of the documentation by any of its names; the
// entry lists its other names as Aliases.
func ExampleLookupDoc() {
	d, ok := lisp.LookupDoc("Math/sqrt")
	fmt.Println(ok, d.Name, d.Usage, d.Aliases)
	fmt.Println(d.Examples[0].Program, "=>", d.Examples[0].Result)
	// Output:
	// true sqrt [(sqrt x)] [Math/sqrt clojure.math/sqrt]
	// (sqrt 16) => 4.0
}

// The zero Cache is ready to use, with the default bounds; a text seen
// before is not compiled again.
func ExampleCache() {
	var cache lisp.Cache // or &lisp.Cache{MaxPrograms: 100}
	for range 3 {
		if _, _, err := cache.Compile(context.Background(), "(+ 1 2)"); err != nil {
			fmt.Println(err)
		}
	}
	s := cache.Stats()
	fmt.Println(s.Hits, s.Misses, s.Programs)
	// Output: 2 1 1
}

// BigDecimals are exact, as Clojure's: money adds up to the cent, and a
// Go host reads the result as a json.Number of its digits.
func ExampleDecimal() {
	res, err := lisp.Run(context.Background(), `(reduce + (map #(* (:price %) (:qty %)) [{:price 9.99M :qty 3} {:price 0.10M :qty 7}]))`, lisp.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	g, _ := lisp.ToGo(res.Value)
	fmt.Println(lisp.Print(res.Value, lisp.PrintOptions{}), g)
	// Output: 30.67M 30.67
}
