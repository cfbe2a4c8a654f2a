package bundled

import (
	"context"
	"sort"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, revenueTask) }

// revenueTask: aggregation over a tool's rows (group, sum, pick the top).
func revenueTask(context.Context) (Task, func() error, error) {
	rows := orders()
	ordersTool := agent.Tool{
		Signature:   "() -> [{id :string, customer_id :string, region :string, status :string, amount :float, placed :string}]",
		Description: "Lists every order.",
		Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			return rows, nil
		},
	}
	expect := func(status string) map[string]any {
		sums := map[string]float64{}
		for _, o := range rows {
			if o.Status == status {
				sums[o.Region] += o.Amount
			}
		}
		var by []map[string]any
		top, best := "", -1.0
		keys := make([]string, 0, len(sums))
		for r := range sums {
			keys = append(keys, r)
		}
		sort.Strings(keys)
		for _, r := range keys {
			by = append(by, map[string]any{"region": r, "revenue": roundTo(sums[r], 2)})
			if sums[r] > best {
				top, best = r, sums[r]
			}
		}
		return map[string]any{"by_region": by, "top": top}
	}
	const prompt = "Using the orders tool, compute the revenue (the sum of amount) of the orders whose status is {{status}}, per region, sorted by region, and name the region with the most revenue."
	t := Task{
		Task: eval.Task{
			Name:        "revenue-by-region",
			Description: "aggregation over a tool's rows: filter, group, sum, sort, pick the top",
			Tags:        []string{"aggregation", "tools"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(status :string) -> {by_region [{region :string, revenue :float}], top :string}",
				Tools:     map[string]agent.Tool{"orders": ordersTool},
			},
			Cases: []eval.Case{
				{Name: "paid", Input: map[string]any{"status": "paid"}, Checks: []eval.Check{eval.Within(expect("paid"), 0.01)}},
				{Name: "refunded", Input: map[string]any{"status": "refunded"}, Checks: []eval.Check{eval.Within(expect("refunded"), 0.01)}},
			},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "Using the orders tool, compute the revenue") {
				return "", false
			}
			return program(`
(let [rows (filter (where :status = ctx/status) (tool/orders {}))
      by (->> (group-by :region rows)
              (map (fn [[r xs]] {:region r :revenue (sum-by :amount xs)}))
              (sort-by :region))]
  (return {:by_region by :top (:region (max-by :revenue by))}))`), true
		},
		Decoys: []string{
			// every status counted
			`(let [by (->> (group-by :region (tool/orders {})) (map (fn [[r xs]] {:region r :revenue (sum-by :amount xs)})) (sort-by :region))] (return {:by_region by :top (:region (max-by :revenue by))}))`,
			`(return {:by_region [] :top "north"})`,
		},
	}
	return t, nil, nil
}
