package bundled

import (
	"context"
	"fmt"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, joinTask) }

// joinTask: a join across two tools, the second called once per distinct
// id (with pmap, as the prompt's language guide suggests).
func joinTask(context.Context) (Task, func() error, error) {
	rows := orders()
	custs := joinCustomers()
	ordersTool := agent.Tool{
		Signature:   "() -> [{id :string, customer_id :string, region :string, status :string, amount :float, placed :string}]",
		Description: "Lists every order.",
		Func:        func(context.Context, *lisp.Map) (any, error) { return rows, nil },
	}
	customerTool := agent.Tool{
		Signature:   "(id :string) -> {id :string, name :string, tier :string, country :string}",
		Description: "Looks one customer up by id.",
		Func: func(_ context.Context, args *lisp.Map) (any, error) {
			id := argString(args, "id")
			c, ok := custs[id]
			if !ok {
				return nil, fmt.Errorf("no customer %q", id)
			}
			return c, nil
		},
	}
	expect := func(status, tier string) map[string]any {
		total, ids := 0.0, map[string]bool{}
		for _, o := range rows {
			if o.Status == status && custs[o.Customer].Tier == tier {
				total += o.Amount
				ids[o.Customer] = true
			}
		}
		return map[string]any{"total": roundTo(total, 2), "customers": sortedKeys(ids)}
	}
	const prompt = "Using the orders and customer tools, find the total amount of the {{status}} orders placed by customers of tier {{tier}}, and the ids of those customers (each once, sorted)."
	mk := func(status, tier string) eval.Case {
		return eval.Case{Name: status + "-" + tier, Input: map[string]any{"status": status, "tier": tier},
			Checks: []eval.Check{eval.Within(expect(status, tier), 0.01)}}
	}
	t := Task{
		Task: eval.Task{
			Name:        "join-orders-customers",
			Description: "a join across two tools: orders, and a customer lookup called per distinct id with pmap",
			Tags:        []string{"join", "pmap", "tools"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(status :string, tier :string) -> {total :float, customers [:string]}",
				Tools:     map[string]agent.Tool{"orders": ordersTool, "customer": customerTool},
			},
			Cases: []eval.Case{mk("paid", "gold"), mk("paid", "bronze"), mk("pending", "silver")},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "Using the orders and customer tools, find the total amount") {
				return "", false
			}
			return program(`
(let [rows (filter (where :status = ctx/status) (tool/orders {}))
      ids (distinct (map :customer_id rows))
      tiers (into {} (pmap (fn [id] [id (:tier (tool/customer {:id id}))]) ids))
      mine (filter #(= ctx/tier (tiers (:customer_id %))) rows)]
  (return {:total (sum-by :amount mine) :customers (sort (distinct (map :customer_id mine)))}))`), true
		},
		Decoys: []string{
			// the tier ignored
			`(let [rows (filter (where :status = ctx/status) (tool/orders {}))] (return {:total (sum-by :amount rows) :customers (sort (distinct (map :customer_id rows)))}))`,
			// the status ignored
			`(let [rows (tool/orders {}) tiers (into {} (pmap (fn [id] [id (:tier (tool/customer {:id id}))]) (distinct (map :customer_id rows)))) mine (filter #(= ctx/tier (tiers (:customer_id %))) rows)] (return {:total (sum-by :amount mine) :customers (sort (distinct (map :customer_id mine)))}))`,
		},
	}
	return t, nil, nil
}
