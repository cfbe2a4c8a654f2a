// Command orchestrator runs a tree of agents offline and prints its trace.
//
// An orchestrator triages the support tickets about a topic. It does not
// read the tickets itself: its programs delegate to
//
//   - tool/ticket-desk, an agent used as a tool (Agent.AsTool), with Go
//     tools over an in-memory ticket store whose rows are heavy (whole chat
//     transcripts) and carry firewalled customer emails;
//   - tool/classify, an LLM tool (NewLLMTool) answered by a smaller model,
//     called once per ticket with pmap;
//   - tool/refund-check, a compiled agent: an LLM wrote its program once,
//     at start-up; it was saved to JSON, loaded back, and now runs with no
//     LLM at all.
//
// A pipeline (agent.Pipeline) then hands the orchestrator's result to a
// drafter agent. The models are scripted stand-ins (llmtest.Script) that
// answer with the programs a capable LLM would write, so the example runs
// without a network or an API key, and prints the same output every time.
//
// Run it from the repository root:
//
//	go run ./examples/orchestrator
//
// With -replies it also prints the models' replies and the feedback they got;
// with -prompt, the orchestrator's system prompt.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

func main() {
	replies := flag.Bool("replies", false, "print the models' replies and the feedback they were sent")
	prompt := flag.Bool("prompt", false, "print the orchestrator's system prompt")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *replies, *prompt); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// ── The data ───────────────────────────────────────────────────────────

type ticket struct {
	ID         int    `json:"id"`
	Subject    string `json:"subject"`
	Status     string `json:"status"`
	OrderID    int    `json:"order_id"`
	Transcript string `json:"transcript"`      // heavy: the whole chat
	Email      string `json:"_customer_email"` // firewalled: "_" prefix
}

type order struct {
	ID        int     `json:"id"`
	Item      string  `json:"item"`
	Amount    float64 `json:"amount"`
	Status    string  `json:"status"`
	DaysSince int     `json:"days_since_delivery"`
	CardToken string  `json:"_card_token"` // firewalled
}

var tickets = func() []ticket {
	rows := []ticket{
		{101, "Refund for a damaged blender", "open", 1001, "", "dana.whitfield@example.com"},
		{102, "Where is my parcel?", "open", 1002, "", "omar.haddad@example.com"},
		{103, "Refund request: wrong size", "open", 1003, "", "li.wei.shop@example.com"},
		{104, "Password reset does not work", "closed", 0, "", "p.okafor@example.com"},
		{105, "Refund still not received", "open", 1005, "", "greta.lind@example.com"},
		{106, "Invoice copy for March", "open", 0, "", "accounts@initech.example"},
		{107, "Refund for a late delivery", "closed", 1007, "", "sam.ortiz@example.com"},
		{108, "Charged twice, please refund", "open", 1008, "", "nadia.k@example.com"},
		{109, "Parcel arrived late, refund the shipping?", "open", 1009, "", "tom.becker@example.com"},
	}
	for i := range rows {
		rows[i].Transcript = transcript(rows[i])
	}
	return rows
}()

// transcript makes up a long chat, the kind of row data that should never
// have to pass through a model's context.
func transcript(t ticket) string {
	return fmt.Sprintf("[T-%[1]d 09:14] customer: %[2]s.\n"+
		"[T-%[1]d 09:15] agent: Thanks for writing in. Could you share your order number?\n"+
		"[T-%[1]d 09:21] customer: It is order %[3]d. I attached photos of the box and the receipt.\n"+
		"[T-%[1]d 11:05] agent: We will get back to you by email as soon as we can.", t.ID, t.Subject, t.OrderID)
}

var orders = map[int]order{
	1001: {1001, "blender", 89.90, "delivered", 12, "tok_9f3a61c2d4e8b7a0"},
	1003: {1003, "rain jacket", 120.00, "delivered", 41, "tok_c0ffee4b2a7d9e13"},
	1005: {1005, "espresso machine", 649.00, "delivered", 20, "tok_5e6f7a8b9c0d1e2f"},
	1008: {1008, "phone case", 34.50, "delivered", 3, "tok_7d2c9b1a0f8e6d5c"},
}

// ── The tools ──────────────────────────────────────────────────────────

func ticketTools() map[string]agent.Tool {
	type searchArgs struct {
		Text string `json:"text"`
	}
	return map[string]agent.Tool{
		"search-tickets": agent.NewTool("Full-text search of the support tickets (subject and transcript).", func(ctx context.Context, a searchArgs) ([]ticket, error) {
			var out []ticket
			q := strings.ToLower(a.Text)
			for _, t := range tickets {
				if strings.Contains(strings.ToLower(t.Subject+" "+t.Transcript), q) {
					out = append(out, t)
				}
			}
			return out, nil
		}),
	}
}

func orderTools() map[string]agent.Tool {
	type orderArgs struct {
		ID int `json:"id"`
	}
	return map[string]agent.Tool{
		"order": agent.NewTool("Look an order up by id.", func(ctx context.Context, a orderArgs) (order, error) {
			o, ok := orders[a.ID]
			if !ok {
				return order{}, fmt.Errorf("no order %d", a.ID)
			}
			return o, nil
		}),
	}
}

// ── The scripted models ────────────────────────────────────────────────

// The "smart" model writes the programs of every agent that inherits it:
// the orchestrator, the ticket desk (which has no model of its own), the
// mission that compiles refund-check, and the drafter. It tells them apart
// by the mission prompt, and answers turn by turn.
var smartTurns = map[string][]string{
	"Triage": {
		// Turn 1: delegate the search, then label every ticket at once.
		`(def found (tool/ticket-desk {:topic ctx/topic}))
(println "desk:" (update found :tickets count))
(def labeled (mapv merge (:tickets found)
                   (pmap #(tool/classify {:subject (:subject %)}) (:tickets found))))
(mapv (juxt :id :category :urgent) labeled)`,
		// Turn 2: check the refunds, and hand the emails on to Go.
		`(def refunds (filter (where :category = "refund") labeled))
(def checks (pmap #(tool/refund-check {:order_id (:order_id %)}) refunds))
(return {:urgent (mapv :id (filter :urgent labeled))
         :refunds (mapv (fn [t c] (assoc (select-keys c [:refundable :amount :reason]) :ticket (:id t)))
                        refunds checks)
         :_notify (:_emails found)})`,
	},
	"Find the open": {
		`(def rows (tool/search-tickets {:text ctx/topic}))
(def open-rows (filter (where :status = "open") rows))
(println (count rows) "tickets mention" ctx/topic "and" (count open-rows) "are open")
(println "fields:" (keys (first rows)))`,
		`(return {:tickets (mapv #(select-keys % [:id :subject :order_id]) open-rows)
         :_emails (mapv :_customer_email open-rows)})`,
	},
	"Decide whether order": {
		// Compiling: look at the sample first; then one program that reads
		// everything from ctx and the tools, the one that is kept.
		`(tool/order {:id ctx/order_id})`,
		`(let [o (tool/order {:id ctx/order_id})
      in-window (and (= (:status o) "delivered") (<= (:days_since_delivery o) 30))]
  (return {:order_id (:id o)
           :amount (:amount o)
           :refundable (and in-window (<= (:amount o) 500))
           :reason (cond (not in-window) "outside the 30-day window"
                         (> (:amount o) 500) "over 500, a manager must approve"
                         :else "within policy")}))`,
	},
	"Draft": {
		`{:replies (mapv (fn [r] {:ticket (:ticket r)
                          :text (if (:refundable r)
                                  (format "Your refund of %.2f is on its way." (:amount r))
                                  (str "We cannot refund this automatically: " (:reason r) "."))})
                ctx/refunds)}`,
	},
}

func smartModel() *llmtest.Script {
	return &llmtest.Script{Respond: func(req llm.Request) llmtest.Reply {
		for prefix, turns := range smartTurns {
			if strings.HasPrefix(req.Prompt, prefix) && req.Turn <= len(turns) {
				return llmtest.Code(turns[req.Turn-1])
			}
		}
		return llmtest.Text("I have nothing more to say.")
	}}
}

// The "small" model answers the classify tool: one label per call. Its
// rules stand in for the judgment of a real model.
func smallModel() *llmtest.Script {
	return &llmtest.Script{Respond: func(req llm.Request) llmtest.Reply {
		_, subject, _ := strings.Cut(req.Prompt, "Subject:")
		s := strings.ToLower(subject)
		category := "other"
		switch {
		case strings.Contains(s, "parcel") || strings.Contains(s, "delivery"):
			category = "delivery"
		case strings.Contains(s, "refund") || strings.Contains(s, "charged"):
			category = "refund"
		}
		urgent := strings.Contains(s, "twice") || strings.Contains(s, "still") || strings.Contains(s, "damaged")
		return llmtest.Code(fmt.Sprintf("{:category %q :urgent %t}", category, urgent))
	}}
}

// ── The agents ─────────────────────────────────────────────────────────

// compileRefundCheck has the LLM work the refund policy out once, on a
// sample order, and keeps the program that ended its mission; it saves the
// compiled agent to JSON (a file to review and commit, in real life), loads
// it back bound to the Go tools it needs, and makes it a tool.
func compileRefundCheck(ctx context.Context, w io.Writer, opts agent.Options) (agent.Tool, error) {
	policy := agent.MustNew(agent.Config{
		Prompt: "Decide whether order {{order_id}} can be refunded: delivered within 30 days, " +
			"and at most 500 (more needs a manager).",
		Signature:   "(order_id :int) -> {order_id :int, amount :float, refundable :bool, reason :string}",
		Description: "Applies the refund policy to an order. No LLM: a fixed program.",
		Tools:       orderTools(),
	})
	opts.Input = map[string]any{"order_id": 1001} // the sample
	compiled, err := policy.Compile(ctx, opts)
	if err != nil {
		return agent.Tool{}, err
	}
	saved, err := json.Marshal(compiled)
	if err != nil {
		return agent.Tool{}, err
	}
	loaded, err := agent.LoadCompiled(saved, orderTools())
	if err != nil {
		return agent.Tool{}, err
	}
	fmt.Fprintf(w, "Compiled refund-check in %d turns with model %q: %d lines of PTC-Lisp, saved as JSON and loaded back.\n\n",
		loaded.CompileStep().Usage.Turns, loaded.CompiledBy(), strings.Count(loaded.Source(), "\n")+1)
	return loaded.AsTool(agent.AsToolOptions{}) // the description is the agent's
}

func run(ctx context.Context, w io.Writer, replies, showPrompt bool) error {
	smart, small := smartModel(), smallModel()
	// Models by name: the registry is given once, to the root of each
	// run, and every nested agent inherits it.
	opts := agent.Options{
		LLM:      llm.Name("smart"),
		Registry: llm.Registry{"smart": smart.Func(), "small": small.Func()},
	}
	if replies {
		opts.Trace = agent.TraceConversation // each turn's feedback, for the trace's replies
	}

	refundCheck, err := compileRefundCheck(ctx, w, opts)
	if err != nil {
		return err
	}

	// The ticket desk, an agent with its own tools. It has no model of
	// its own: it inherits its caller's.
	desk := agent.MustNew(agent.Config{
		Prompt:      "Find the open support tickets about {{topic}}.",
		Signature:   "(topic :string) -> {tickets [{id :int, subject :string, order_id :int}], _emails [:string]}",
		Description: "Finds the open support tickets about a topic: their ids, subjects and orders.",
		Tools:       ticketTools(),
	})
	deskTool, err := desk.AsTool(agent.AsToolOptions{})
	if err != nil {
		return err
	}

	// An LLM tool, bound to the small model: one call, one answer.
	classify, err := agent.NewLLMTool(agent.Config{
		Prompt: "Label this support ticket: refund, delivery or other, " +
			"and urgent when the customer is losing money or patience.\nSubject: {{subject}}",
		Signature:   "(subject :string) -> {category :string, urgent :bool}",
		Description: "Labels a ticket from its subject.",
		LLM:         llm.Name("small"),
	}, agent.AsToolOptions{})
	if err != nil {
		return err
	}

	// The orchestrator, and the drafter after it in a pipeline.
	orchestrator := agent.MustNew(agent.Config{
		Prompt: "Triage the open support tickets about {{topic}}: label them, " +
			"check the refunds, and say which ones are urgent.",
		Signature: "(topic :string) -> {urgent [:int], " +
			"refunds [{ticket :int, refundable :bool, amount :float, reason :string}], _notify [:string]}",
		Tools: map[string]agent.Tool{"ticket-desk": deskTool, "classify": classify, "refund-check": refundCheck},
	})
	drafter := agent.MustNew(agent.Config{
		Prompt:    "Draft a one-line reply for each refund decision.",
		Signature: "{replies [{ticket :int, text :string}]}",
		MaxTurns:  1, // single-shot: the program's value is the answer
	})
	opts.Input = map[string]any{"topic": "refund"}
	if showPrompt {
		p, err := orchestrator.Preview(opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s\n\n", p.System)
	}

	steps, err := agent.Pipeline{orchestrator, drafter}.Run(ctx, opts)
	for _, s := range steps {
		sortParallelCalls(s)
	}
	if perr := trace.PrintChain(w, steps, trace.Options{Replies: replies, NoTimings: true}); perr != nil {
		return perr
	}
	if err != nil {
		return err
	}

	// What it cost: Usage is a mission's own, TotalUsage its whole tree's.
	fmt.Fprintln(w)
	usage := func(u agent.Usage) string {
		return fmt.Sprintf("turns %d, LLM requests %d, tokens %5d", u.Turns, u.LLMRequests, u.TotalTokens())
	}
	for i, name := range []string{"orchestrator", "drafter"} {
		fmt.Fprintf(w, "%-13s Usage:      %s\n", name, usage(steps[i].Usage))
		fmt.Fprintf(w, "%-13s TotalUsage: %s\n", "", usage(steps[i].TotalUsage))
	}

	// Go gets every value, firewalled fields included.
	var triage struct {
		Notify []string `json:"_notify"`
	}
	var drafts struct {
		Replies []struct {
			Ticket int    `json:"ticket"`
			Text   string `json:"text"`
		} `json:"replies"`
	}
	if err := errors.Join(steps[0].Decode(&triage), steps[1].Decode(&drafts)); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, r := range drafts.Replies {
		fmt.Fprintf(w, "reply to ticket %d: %s\n", r.Ticket, r.Text)
	}
	fmt.Fprintf(w, "customers to notify (Go sees the emails, no model did): %d, first %s\n",
		len(triage.Notify), triage.Notify[0])

	orchestratorSaw(w, smart)
	return nil
}

// orchestratorSaw prints what the orchestrator's model was sent, and
// checks it for the tickets' transcripts and for firewalled values. The
// smart model also answered the ticket desk, the compilation and the
// drafter: the orchestrator's requests are those of its mission prompt.
func orchestratorSaw(w io.Writer, smart *llmtest.Script) {
	var reqs []llm.Request
	var texts []string
	for _, req := range smart.Requests() {
		if strings.HasPrefix(req.Prompt, "Triage") {
			reqs = append(reqs, req)
			texts = append(texts, req.System)
			for _, m := range req.Messages {
				texts = append(texts, m.Content)
			}
		}
	}
	all := strings.Join(texts, "\n")
	heavy := 0
	for _, t := range tickets {
		for _, line := range strings.Split(t.Transcript, "\n") {
			if strings.Contains(all, line) {
				heavy++
				break
			}
		}
	}
	seen, secrets := 0, 0 // the values of every "_" field of the stores
	for _, t := range tickets {
		secrets++
		if strings.Contains(all, t.Email) {
			seen++
		}
	}
	for _, o := range orders {
		secrets++
		if strings.Contains(all, o.CardToken) {
			seen++
		}
	}
	fmt.Fprintf(w, "\nWhat the orchestrator's model saw: %d requests, %d characters in all. After turn 1 it was sent:\n", len(reqs), len(all))
	msgs := reqs[len(reqs)-1].Messages
	for _, line := range strings.Split(msgs[len(msgs)-1].Content, "\n") {
		fmt.Fprintln(w, strings.TrimRight("  | "+line, " "))
	}
	fmt.Fprintf(w, "ticket transcripts it saw: %d of %d; firewalled values it saw: %d of %d\n",
		heavy, len(tickets), seen, secrets)
}

// sortParallelCalls orders the calls pmap made at once, which start in
// any order, by their arguments, so that the trace prints the same way
// every run. It walks the whole tree through ToolCall.Child.
func sortParallelCalls(s *agent.Step) {
	if s == nil {
		return
	}
	for i := range s.Trace {
		calls := s.Trace[i].ToolCalls
		for start := 0; start < len(calls); {
			end := start + 1
			for end < len(calls) && calls[end].Name == calls[start].Name {
				end++
			}
			run := calls[start:end]
			sort.SliceStable(run, func(a, b int) bool {
				return lisp.Print(run[a].Args, lisp.PrintOptions{}) < lisp.Print(run[b].Args, lisp.PrintOptions{})
			})
			start = end
		}
		for _, c := range calls {
			sortParallelCalls(c.Child)
		}
	}
}
