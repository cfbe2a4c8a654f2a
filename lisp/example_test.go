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
		lisp.Options{Context: map[string]any{"orders": orders}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(lisp.PrintString(res.Value))
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
		fmt.Println(res.Output[0], "->", lisp.PrintString(res.Value))
	}
	// Output:
	// run 1 -> 1
	// run 2 -> 2
	// run 3 -> 3
}

func ExampleTools() {
	tools := lisp.Tools{
		"get-user": func(ctx context.Context, args *lisp.Map) (any, error) {
			id, _ := args.Lookup(lisp.Keyword("id"))
			return map[string]any{"id": id, "name": fmt.Sprint("user-", id)}, nil
		},
	}
	res, err := lisp.Run(context.Background(),
		`(mapv #(:name (tool/get-user {:id %})) [1 2])`, lisp.Options{Tools: tools})
	fmt.Println(lisp.PrintString(res.Value), err, res.ToolCalls)
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
		lisp.Options{Context: map[string]any{"items": []int{}}})
	fmt.Println(res.Status, lisp.PrintString(res.Value))
	// Output: failed {:reason :empty}
}

func ExampleFromGo() {
	type Item struct {
		SKU   string  `json:"sku"`
		Price float64 `json:"price"`
		Notes string  `json:"notes,omitempty"`
	}
	v, err := lisp.FromGo([]Item{{SKU: "a-1", Price: 9.5}})
	fmt.Println(lisp.PrintString(v), err)
	// Output: [{"price" 9.5, "sku" "a-1"}] <nil>
}

func ExampleToGo() {
	v, _ := lisp.ReadData(`{:name "Ann" :tags #{:b :a} :scores [1 2.5]}`)
	g, err := lisp.ToGo(v)
	fmt.Printf("%#v %v\n", g, err)
	// Output: map[string]interface {}{"name":"Ann", "scores":[]interface {}{1, 2.5}, "tags":[]interface {}{"a", "b"}} <nil>
}

func ExampleParseJSON() {
	v, _ := lisp.ParseJSON([]byte(`{"b": [1, 2.0, null], "a": "x"}`))
	fmt.Println(lisp.PrintString(v))
	// Output: {"a" "x", "b" [1 2.0 nil]}
}

func ExampleFormatValue() {
	v, _ := lisp.ReadData(`{:ids [1 2 3 4 5 6 7 8 9 10] :ratio 0.333333}`)
	fmt.Println(lisp.FormatValue(v, lisp.PrintOptions{MaxItems: 3, FloatPrecision: 2}))
	// Output: {:ids [1 2 3 ... (7 more)], :ratio 0.33}
}

func ExampleReadData() {
	v, err := lisp.ReadData(`#{:b :a 1}`)
	fmt.Println(lisp.PrintString(v), err)
	// Output: #{1 :a :b} <nil>
}

func ExampleEqual() {
	a, _ := lisp.ReadData(`{:n 1 :xs [1 2]}`)
	b, _ := lisp.ReadData(`{:xs [1.0 2] :n 1}`)
	fmt.Println(lisp.Equal(a, b), lisp.CompareKeys(int64(1), 1.0))
	// Output: true -1
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

// The program's clock stands still while it waits on an untimed tool.
func ExampleUntimedToolCaller() {
	res, err := lisp.Run(context.Background(), `(str (tool/research {}) " and " (tool/research {}))`,
		lisp.Options{Tools: slowAgent{}, Limits: lisp.Limits{Timeout: 200 * time.Millisecond}})
	fmt.Println(res.Value, err)
	// Output: findings and findings <nil>
}
