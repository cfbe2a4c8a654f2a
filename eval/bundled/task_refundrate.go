package bundled

import (
	"context"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, refundRateTask) }

// refundRateTask: a percentage per group, rounded to one decimal.
func refundRateTask(context.Context) (Task, func() error, error) {
	rows := orders()
	tool := agent.Tool{
		Signature:   "() -> [{id :string, customer_id :string, region :string, status :string, amount :float, placed :string}]",
		Description: "Lists every order.",
		Func:        func(ctx context.Context, args *lisp.Map) (any, error) { return rows, nil },
	}
	// by amount: the refunded amount's share of the amount of the orders
	// placed from the month given on.
	expect := func(from string) []map[string]any {
		total, refunded := map[string]float64{}, map[string]float64{}
		for _, o := range rows {
			if o.Placed < from {
				continue
			}
			total[o.Region] += o.Amount
			if o.Status == "refunded" {
				refunded[o.Region] += o.Amount
			}
		}
		var out []map[string]any
		for _, r := range sortedKeys(total) {
			out = append(out, map[string]any{"region": r, "refund_pct": roundTo(100*refunded[r]/total[r], 1)})
		}
		return out
	}
	const prompt = "For the orders placed on or after {{from}}, what percentage of each region's order amount was refunded? Return, sorted by region, the region and the percentage (0 to 100) rounded to one decimal."
	t := Task{
		Task: eval.Task{
			Name:        "refund-rate",
			Description: "a ratio per group as a percentage, rounded to one decimal",
			Tags:        []string{"aggregation", "numbers"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(from :string) -> [{region :string, refund_pct :float}]",
				Tools:     map[string]agent.Tool{"orders": tool},
			},
			Cases: []eval.Case{
				// Within 0.001: the rounding to one decimal is checked.
				{Name: "whole-year", Input: map[string]any{"from": "2024-01-01"}, Checks: []eval.Check{eval.Within(expect("2024-01-01"), 0.001)}},
				{Name: "second-half", Input: map[string]any{"from": "2024-07-01"}, Checks: []eval.Check{eval.Within(expect("2024-07-01"), 0.001)}},
			},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "For the orders placed on or after ") {
				return "", false
			}
			return program(`
(let [rows (filter #(>= (compare (:placed %) ctx/from) 0) (tool/orders {}))]
  (return (->> (group-by :region rows)
               (map (fn [[r xs]]
                      {:region r
                       :refund_pct (/ (Math/round (* 1000.0 (/ (sum-by :amount (filter (where :status = "refunded") xs)) (sum-by :amount xs)))) 10.0)}))
               (sort-by :region))))`), true
		},
		Decoys: []string{
			// a share of the orders' count, not of their amount
			`(let [rows (filter #(>= (compare (:placed %) ctx/from) 0) (tool/orders {}))] (return (sort-by :region (map (fn [[r xs]] {:region r :refund_pct (/ (Math/round (* 1000.0 (/ (count (filter (where :status = "refunded") xs)) (count xs)))) 10.0)}) (group-by :region rows)))))`,
			// not rounded
			`(let [rows (filter #(>= (compare (:placed %) ctx/from) 0) (tool/orders {}))] (return (sort-by :region (map (fn [[r xs]] {:region r :refund_pct (* 100.0 (/ (sum-by :amount (filter (where :status = "refunded") xs)) (sum-by :amount xs)))}) (group-by :region rows)))))`,
			// a fraction, not a percentage
			`(let [rows (filter #(>= (compare (:placed %) ctx/from) 0) (tool/orders {}))] (return (sort-by :region (map (fn [[r xs]] {:region r :refund_pct (/ (Math/round (* 10.0 (/ (sum-by :amount (filter (where :status = "refunded") xs)) (sum-by :amount xs)))) 10.0)}) (group-by :region rows)))))`,
		},
	}
	return t, nil, nil
}
