// Package demo is the mission the runnable examples share: an in-memory
// order store, Go tools over it with firewalled fields (card tokens,
// emails), and the agent that finds the top customers. examples/agent runs
// it with a scripted model, examples/live with a real one.
package demo

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
)

// Config is the agent of the mission; its context is {"n": 3}.
func Config() agent.Config {
	return agent.Config{
		Prompt:    "Find the {{n}} customers with the highest revenue from paid orders.",
		Signature: "(n :int) -> {top [{name :string, revenue :float, orders :int}], _customer_ids [:int]}",
		Tools:     Tools(),
		MaxTurns:  6,
	}
}

// Context is the mission's input.
func Context() map[string]any { return map[string]any{"n": 3} }

// Top is the mission's result as Go decodes it, firewalled ids included.
type Top struct {
	Top []struct {
		Name    string  `json:"name"`
		Revenue float64 `json:"revenue"`
		Orders  int     `json:"orders"`
	} `json:"top"`
	IDs []int `json:"_customer_ids"`
}

// PrintTop decodes the mission's value and prints the top customers, a
// line each, with the firewalled ids that Go sees and the model does not.
func PrintTop(w io.Writer, step *agent.Step) error {
	var out Top
	if err := step.Decode(&out); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for i, t := range out.Top {
		id := 0
		if i < len(out.IDs) {
			id = out.IDs[i]
		}
		fmt.Fprintf(w, "%d. %-8s %8.2f from %d orders (customer %d)\n", i+1, t.Name, t.Revenue, t.Orders, id)
	}
	return nil
}

// FirewalledSeen lists the firewalled strings (card tokens, emails) that
// reached the model in requests, out of how many: none should.
func FirewalledSeen(requests []llm.Request) (seen []string, total int) {
	secrets := map[string]bool{}
	for _, o := range Orders() {
		secrets[o.CardToken] = true
	}
	for _, c := range customers {
		secrets[c.Email] = true
	}
	for _, req := range requests {
		texts := []string{req.System}
		for _, m := range req.Messages {
			texts = append(texts, m.Content)
		}
		for _, t := range texts {
			for s := range secrets {
				if strings.Contains(t, s) {
					seen = append(seen, s)
				}
			}
		}
	}
	sort.Strings(seen)
	return seen, len(secrets)
}

// Order is a row of the store behind the tools.
type Order struct {
	ID         int     `json:"id"`
	CustomerID int     `json:"customer_id"`
	Amount     float64 `json:"amount"`
	Status     string  `json:"status"`
	CardToken  string  `json:"_card_token"` // firewalled: "_" prefix
}

// Customer is a customer of the store.
type Customer struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	Tier  string `json:"tier"`
	Email string `json:"_email"` // firewalled
}

var customers = []Customer{
	{1, "Acme", "gold", "ops@acme.example"},
	{2, "Globex", "silver", "it@globex.example"},
	{3, "Initech", "gold", "bill@initech.example"},
	{4, "Hooli", "bronze", "gavin@hooli.example"},
	{5, "Umbrella", "silver", "hq@umbrella.example"},
}

// Orders returns the store's 40 orders.
func Orders() []Order {
	var out []Order
	statuses := []string{"paid", "paid", "refunded", "paid", "pending"}
	for i := 1; i <= 40; i++ {
		out = append(out, Order{
			ID:         i,
			CustomerID: 1 + (i*7)%5,
			Amount:     float64((i*37)%200) + 19.5,
			Status:     statuses[i%len(statuses)],
			CardToken:  fmt.Sprintf("tok_%08x", i*2654435761),
		})
	}
	return out
}

// Tools are ordinary Go functions; agent.NewTool derives each signature from
// the Go types.
func Tools() map[string]agent.Tool {
	type listArgs struct {
		Status string `json:"status"`
	}
	type customerArgs struct {
		ID int `json:"id"`
	}
	return map[string]agent.Tool{
		"list-orders": agent.NewTool("List the orders, optionally only those with a status (paid, refunded, pending).", func(ctx context.Context, a listArgs) ([]Order, error) {
			var out []Order
			for _, o := range Orders() {
				if a.Status == "" || o.Status == a.Status {
					out = append(out, o)
				}
			}
			return out, nil
		}),
		"customer": agent.NewTool("Look a customer up by id.", func(ctx context.Context, a customerArgs) (Customer, error) {
			for _, c := range customers {
				if c.ID == a.ID {
					return c, nil
				}
			}
			return Customer{}, fmt.Errorf("no customer with id %d", a.ID)
		}),
	}
}
