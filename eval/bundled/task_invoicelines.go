package bundled

import (
	"context"
	"fmt"
	"sort"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, invoiceLinesTask) }

type invoice struct {
	Number string  `json:"number"`
	Client string  `json:"client"`
	Amount float64 `json:"amount"`
	Due    string  `json:"due"`
	Paid   bool    `json:"paid"`
}

func invoicesData() []invoice {
	s := lcg(8)
	clients := []string{"acme", "globex", "initech"}
	out := make([]invoice, 45)
	for i := range out {
		amount := float64(1000+s.intn(900000)) / 100
		if i%5 == 0 {
			amount = float64(100 + s.intn(900)) // whole amounts: "%.2f" still writes .00
		}
		out[i] = invoice{
			Number: "INV-" + pad(1+(i*29)%97, 4),
			Client: pick(&s, clients),
			Amount: amount,
			Due:    "2024-" + pad(1+s.intn(12), 2) + "-" + pad(1+s.intn(28), 2),
			Paid:   s.intn(3) == 0,
		}
	}
	return out
}

// invoiceLinesTask: a report line per row, formatted exactly.
func invoiceLinesTask(context.Context) (Task, func() error, error) {
	rows := invoicesData()
	tool := agent.Tool{
		Signature:   "(client :string) -> [{number :string, client :string, amount :float, due :string, paid :bool}]",
		Description: "Lists a client's invoices.",
		Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			c := argString(args, "client")
			out := []invoice{}
			for _, in := range rows {
				if in.Client == c {
					out = append(out, in)
				}
			}
			return out, nil
		},
	}
	expect := func(client string) []string {
		var sel []invoice
		for _, in := range rows {
			if in.Client == client && !in.Paid {
				sel = append(sel, in)
			}
		}
		sort.Slice(sel, func(i, j int) bool {
			return sel[i].Due < sel[j].Due || sel[i].Due == sel[j].Due && sel[i].Number < sel[j].Number
		})
		out := []string{}
		for _, in := range sel {
			out = append(out, fmt.Sprintf("%s | due %s | %.2f EUR", in.Number, in.Due, in.Amount))
		}
		return out
	}
	const prompt = "Write the reminder lines for the unpaid invoices of client {{client}}: one string per invoice, exactly like \"INV-0042 | due 2024-03-05 | 1234.50 EUR\" (the amount with two decimals), ordered by due date, then number."
	t := Task{
		Task: eval.Task{
			Name:        "invoice-lines",
			Description: "string formatting of a report line per row: fixed layout, two decimals, a stated order",
			Tags:        []string{"text", "formatting"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(client :string) -> [:string]",
				Tools:     map[string]agent.Tool{"invoices": tool},
			},
			Cases: []eval.Case{
				{Name: "acme", Input: map[string]any{"client": "acme"}, Checks: []eval.Check{eval.Equals(expect("acme"))}},
				{Name: "initech", Input: map[string]any{"client": "initech"}, Checks: []eval.Check{eval.Equals(expect("initech"))}},
			},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "Write the reminder lines for the unpaid invoices") {
				return "", false
			}
			return program(`
(return (->> (tool/invoices {:client ctx/client})
             (remove :paid)
             (sort-by (juxt :due :number))
             (mapv #(format "%s | due %s | %.2f EUR" (:number %) (:due %) (:amount %)))))`), true
		},
		Decoys: []string{
			// the amount as str prints it
			`(return (->> (tool/invoices {:client ctx/client}) (remove :paid) (sort-by (juxt :due :number)) (mapv #(str (:number %) " | due " (:due %) " | " (:amount %) " EUR"))))`,
			// ordered by number
			`(return (->> (tool/invoices {:client ctx/client}) (remove :paid) (sort-by :number) (mapv #(format "%s | due %s | %.2f EUR" (:number %) (:due %) (:amount %)))))`,
		},
	}
	return t, nil, nil
}
