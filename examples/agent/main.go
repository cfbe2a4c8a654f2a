// Command agent runs a complete multi-turn SubAgent mission offline and
// prints its trace.
//
// The tools are real Go functions over an in-memory order store; the model
// is a scripted stand-in (llmtest.Script) that answers each turn with the
// program a capable LLM would write, mistakes included, so the example
// shows the whole loop without a network or an API key: exploration with
// println, a tool-name typo corrected from the error feedback, parallel
// tool calls with pmap, a (return ...) rejected by the signature and fixed,
// and firewalled fields that Go receives but the model never sees.
//
// Run it from the repository root:
//
//	go run ./examples/agent
//
// With -raw it also prints the model's replies and the feedback it got;
// with -prompt, the system prompt the model received.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm/llmtest"
	"github.com/ptc-go/ptc/signature"
)

func main() {
	raw := flag.Bool("raw", false, "print the model's replies and the feedback it was sent")
	prompt := flag.Bool("prompt", false, "print the system prompt")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *raw, *prompt); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// The store behind the tools.
type order struct {
	ID         int     `json:"id"`
	CustomerID int     `json:"customer_id"`
	Amount     float64 `json:"amount"`
	Status     string  `json:"status"`
	CardToken  string  `json:"_card_token"` // firewalled: "_" prefix
}

type customer struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	Tier  string `json:"tier"`
	Email string `json:"_email"` // firewalled
}

var customers = []customer{
	{1, "Acme", "gold", "ops@acme.example"},
	{2, "Globex", "silver", "it@globex.example"},
	{3, "Initech", "gold", "bill@initech.example"},
	{4, "Hooli", "bronze", "gavin@hooli.example"},
	{5, "Umbrella", "silver", "hq@umbrella.example"},
}

func orders() []order {
	var out []order
	statuses := []string{"paid", "paid", "refunded", "paid", "pending"}
	for i := 1; i <= 40; i++ {
		out = append(out, order{
			ID:         i,
			CustomerID: 1 + (i*7)%5,
			Amount:     float64((i*37)%200) + 19.5,
			Status:     statuses[i%len(statuses)],
			CardToken:  fmt.Sprintf("tok_%08x", i*2654435761),
		})
	}
	return out
}

// tools are ordinary Go functions; agent.Typed derives each signature from
// the Go types.
func tools() map[string]agent.Tool {
	type listArgs struct {
		Status string `json:"status"`
	}
	type customerArgs struct {
		ID int `json:"id"`
	}
	return map[string]agent.Tool{
		"list-orders": agent.Typed(signature.MustTypedFunc(func(ctx context.Context, a listArgs) ([]order, error) {
			var out []order
			for _, o := range orders() {
				if a.Status == "" || o.Status == a.Status {
					out = append(out, o)
				}
			}
			return out, nil
		}, signature.WithDescription("List the orders, optionally only those with a status (paid, refunded, pending)."))),
		"customer": agent.Typed(signature.MustTypedFunc(func(ctx context.Context, a customerArgs) (customer, error) {
			for _, c := range customers {
				if c.ID == a.ID {
					return c, nil
				}
			}
			return customer{}, fmt.Errorf("no customer with id %d", a.ID)
		}, signature.WithDescription("Look a customer up by id."))),
	}
}

// script is what the model answers, turn by turn.
func script() *llmtest.Script {
	return llmtest.NewScript(
		// Turn 1: look at the data first.
		llmtest.Code(`(def paid (tool/list-orders {:status "paid"}))
(println "paid orders:" (count paid))
(println "a row:" (first paid))`),
		// Turn 2: a typo in a tool name; the error names the right tool.
		llmtest.Code(`(tool/customers {:id 1})`),
		// Turn 3: aggregate, then look the top three up in parallel.
		llmtest.Code(`(def top (->> paid
                (group-by :customer_id)
                (map (fn [[id os]] {:id id :revenue (sum-by :amount os) :orders (count os)}))
                (sort-by :revenue >)
                (take 3)))
(def names (pmap #(:name (tool/customer {:id (:id %)})) top))
(println names)
top`),
		// Turn 4: a return that forgets a field; the signature catches it.
		llmtest.Code(`(return {:top (mapv (fn [t n] {:name n :revenue (:revenue t)}) top names)
         :_customer_ids (mapv :id top)})`),
		// Turn 5: fixed.
		llmtest.Code(`(return {:top (mapv (fn [t n] {:name n :revenue (:revenue t) :orders (:orders t)}) top names)
         :_customer_ids (mapv :id top)})`),
	)
}

func run(ctx context.Context, w io.Writer, raw, showPrompt bool) error {
	a, err := agent.New(agent.Config{
		Prompt:    "Find the {{n}} customers with the highest revenue from paid orders.",
		Signature: "(n :int) -> {top [{name :string, revenue :float, orders :int}], _customer_ids [:int]}",
		Tools:     tools(),
		MaxTurns:  6,
	})
	if err != nil {
		return err
	}
	model := script()
	opts := agent.Options{LLM: model.Func(), Context: map[string]any{"n": 3}, Debug: raw}
	if showPrompt {
		p, err := agent.PreviewPrompt(a, opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s\n\n", p.System)
	}
	step, err := a.Run(ctx, opts)
	if perr := agent.PrintTrace(w, step, agent.TraceOptions{Raw: raw}); perr != nil {
		return perr
	}
	if err != nil {
		return err
	}

	// Go gets the whole value, firewalled ids included.
	var out struct {
		Top []struct {
			Name    string  `json:"name"`
			Revenue float64 `json:"revenue"`
			Orders  int     `json:"orders"`
		} `json:"top"`
		IDs []int `json:"_customer_ids"`
	}
	if err := step.Decode(&out); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for i, t := range out.Top {
		fmt.Fprintf(w, "%d. %-8s %8.2f from %d orders (customer %d)\n", i+1, t.Name, t.Revenue, t.Orders, out.IDs[i])
	}
	seen, total := firewalledSeen(model)
	fmt.Fprintf(w, "system prompt ≈ %d tokens; firewalled strings the model saw: %d of %d\n",
		step.Usage.SystemPromptTokens, len(seen), total)
	return nil
}

// firewalledSeen lists the firewalled strings (card tokens, emails) that
// reached the model, out of how many: none should.
func firewalledSeen(model *llmtest.Script) (seen []string, total int) {
	secrets := map[string]bool{}
	for _, o := range orders() {
		secrets[o.CardToken] = true
	}
	for _, c := range customers {
		secrets[c.Email] = true
	}
	for _, req := range model.Requests() {
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
