package bundled

import (
	"context"
	"sort"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, delegateTask) }

// delegateTask: composition with an agent as a tool. The parent asks a
// child agent, once per customer, for a summary of that customer's paid
// orders, then ranks the customers; only the child sees the orders.
func delegateTask(context.Context) (Task, func() error, error) {
	rows := orders()
	ordersTool := agent.Tool{
		Signature:   "(customer_id :string) -> [{id :string, customer_id :string, region :string, status :string, amount :float, placed :string}]",
		Description: "Lists the orders of one customer.",
		Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			id := argString(args, "customer_id")
			out := []order{}
			for _, o := range rows {
				if o.Customer == id {
					out = append(out, o)
				}
			}
			return out, nil
		},
	}
	const childPrompt = "Summarise the orders of customer {{customer_id}} with the orders tool: how many of them are paid, and the sum of the amounts of the paid ones."
	child, err := agent.New(agent.Config{
		Prompt:      childPrompt,
		Description: "Summarises one customer's paid orders: their count and total amount.",
		Signature:   "(customer_id :string) -> {customer_id :string, paid_count :int, paid_total :float}",
		Tools:       map[string]agent.Tool{"orders": ordersTool},
		MaxTurns:    3,
	})
	if err != nil {
		return Task{}, nil, err
	}
	summary, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		return Task{}, nil, err
	}
	type total struct {
		id    string
		total float64
	}
	expect := func(customers []string, n int) []map[string]any {
		var ts []total
		for _, c := range customers {
			t := total{id: c}
			for _, o := range rows {
				if o.Customer == c && o.Status == "paid" {
					t.total += o.Amount
				}
			}
			ts = append(ts, t)
		}
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].total > ts[j].total })
		var out []map[string]any
		for _, t := range ts[:n] {
			out = append(out, map[string]any{"customer_id": t.id, "paid_total": roundTo(t.total, 2)})
		}
		return out
	}
	const prompt = "Rank the customers {{customers}} by the total of their paid orders, highest first, and return the first {{n}} with their totals. The customer_summary tool summarises one customer's orders."
	first := []string{"C001", "C002", "C003", "C004", "C005", "C006", "C007", "C008"}
	second := []string{"C011", "C012", "C013", "C014", "C015", "C016", "C017", "C018", "C019", "C020"}
	t := Task{
		Task: eval.Task{
			Name:        "delegate-customer-summary",
			Description: "composition: an agent as a tool, one child mission per customer (pmap), the parent ranks their answers",
			Tags:        []string{"composition", "pmap", "aggregation"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(customers [:string], n :int) -> [{customer_id :string, paid_total :float}]",
				Tools:     map[string]agent.Tool{"customer_summary": summary},
			},
			Cases: []eval.Case{
				{Name: "top-3", Input: map[string]any{"customers": first, "n": 3}, Checks: []eval.Check{eval.Within(expect(first, 3), 0.01)}},
				{Name: "top-5", Input: map[string]any{"customers": second, "n": 5}, Checks: []eval.Check{eval.Within(expect(second, 5), 0.01)}},
			},
		},
		Solve: func(req llm.Request) (string, bool) {
			switch {
			case hasPrompt(req, "Summarise the orders of customer "):
				return program(`
(let [paid (filter (where :status = "paid") (tool/orders {:customer_id ctx/customer_id}))]
  (return {:customer_id ctx/customer_id :paid_count (count paid) :paid_total (sum-by :amount paid)}))`), true
			case hasPrompt(req, "Rank the customers "):
				return program(`
(let [sums (pmap #(tool/customer_summary {:customer_id %}) ctx/customers)]
  (return (->> sums
               (sort-by :paid_total >)
               (take ctx/n)
               (mapv #(select-keys % [:customer_id :paid_total])))))`), true
			}
			return "", false
		},
		Decoys: []string{
			// ranked by the number of paid orders
			`(return (->> (pmap #(tool/customer_summary {:customer_id %}) ctx/customers) (sort-by :paid_count >) (take ctx/n) (mapv #(select-keys % [:customer_id :paid_total]))))`,
			// lowest first
			`(return (->> (pmap #(tool/customer_summary {:customer_id %}) ctx/customers) (sort-by :paid_total) (take ctx/n) (mapv #(select-keys % [:customer_id :paid_total]))))`,
		},
	}
	return t, nil, nil
}
