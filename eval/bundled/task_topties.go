package bundled

import (
	"context"
	"sort"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, topTiesTask) }

// topTiesTask: a top N with ties, counted by distinct customer: the
// cut-off row's ties belong in the answer, a plain take drops them.
func topTiesTask(context.Context) (Task, func() error, error) {
	rows := orders()
	ordersTool := agent.Tool{
		Signature:   "() -> [{id :string, customer_id :string, region :string, status :string, amount :float, placed :string}]",
		Description: "Lists every order.",
		Func:        func(context.Context, *lisp.Map) (any, error) { return rows, nil },
	}
	expect := func(region string, n int) map[string]any {
		counts := map[string]int{}
		for _, o := range rows {
			if o.Region == region {
				counts[o.Customer]++
			}
		}
		type row struct {
			id string
			n  int
		}
		var rs []row
		for id, k := range counts {
			rs = append(rs, row{id, k})
		}
		sort.Slice(rs, func(i, j int) bool {
			if rs[i].n != rs[j].n {
				return rs[i].n > rs[j].n
			}
			return rs[i].id < rs[j].id
		})
		out := []map[string]any{}
		for i, r := range rs {
			if i >= n && r.n < rs[n-1].n {
				break
			}
			out = append(out, map[string]any{"customer_id": r.id, "orders": r.n})
		}
		return map[string]any{"top": out}
	}
	mk := func(region string, n int) eval.Case {
		return eval.Case{Name: region, Input: map[string]any{"region": region, "n": n},
			Checks: []eval.Check{eval.Equals(expect(region, n))}}
	}
	const prompt = "Using the orders tool, rank the customers by their number of orders in region {{region}} and return the top {{n}}, most orders first (ties by customer id). Customers tied with the last of the top {{n}} are part of the answer too."
	t := Task{
		Task: eval.Task{
			Name:        "top-n-with-ties",
			Description: "a top N by count that must keep the ties at the cut-off",
			Tags:        []string{"aggregation", "ties", "tools"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(region :string, n :int) -> {top [{customer_id :string, orders :int}]}",
				Tools:     map[string]agent.Tool{"orders": ordersTool},
			},
			Cases: []eval.Case{mk("north", 3), mk("south", 3), mk("west", 4)},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "Using the orders tool, rank the customers by their number of orders") {
				return "", false
			}
			return program(`
(let [ranked (->> (filter (where :region = ctx/region) (tool/orders {}))
                  (map :customer_id)
                  frequencies
                  (map (fn [[id k]] {:customer_id id :orders k}))
                  (sort-by (juxt (comp - :orders) :customer_id)))
      cut (:orders (nth ranked (dec ctx/n)))]
  (return {:top (filter #(>= (:orders %) cut) ranked)}))`), true
		},
		Decoys: []string{
			// the ties at the cut-off dropped
			`(return {:top (take ctx/n (sort-by (juxt (comp - :orders) :customer_id) (map (fn [[id k]] {:customer_id id :orders k}) (frequencies (map :customer_id (filter (where :region = ctx/region) (tool/orders {})))))))})`,
			// every region counted
			`(let [ranked (sort-by (juxt (comp - :orders) :customer_id) (map (fn [[id k]] {:customer_id id :orders k}) (frequencies (map :customer_id (tool/orders {}))))) cut (:orders (nth ranked (dec ctx/n)))] (return {:top (filter #(>= (:orders %) cut) ranked)}))`,
		},
	}
	return t, nil, nil
}
