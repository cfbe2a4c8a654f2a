package bundled

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, urgencyTask) }

// ticket is a row of the tickets tool.
type ticket struct {
	ID      string `json:"id"`
	Product string `json:"product"`
	Text    string `json:"text"`
}

// urgencyTickets are the support tickets: each text says its urgency in
// words only an LLM (here the reference's rule) judges.
func urgencyTickets() []ticket {
	s := lcg(27)
	products := []string{"billing", "search", "mobile"}
	bodies := []string{
		"the whole site is down for our team",
		"checkout shows an outage banner since this morning",
		"pages are slow to load after the update",
		"an error appears when saving a draft",
		"please add a dark theme",
		"how do i change my avatar",
		"the export button is hard to find",
	}
	out := make([]ticket, 36)
	for i := range out {
		id := "T-" + pad(100+i*3, 4)
		out[i] = ticket{ID: id, Product: pick(&s, products), Text: "Ticket " + id + ": " + pick(&s, bodies)}
	}
	return out
}

// urgencyOf is the judgement the LLM tool is asked for.
func urgencyOf(text string) string {
	switch {
	case strings.Contains(text, "down"), strings.Contains(text, "outage"):
		return "high"
	case strings.Contains(text, "slow"), strings.Contains(text, "error"):
		return "medium"
	}
	return "low"
}

// ticketText finds a ticket's text in an LLM tool's request: in its
// prompt or its system prompt, wherever the tool puts its input.
var ticketText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Ticket T-\d{4}: [a-z ,]+`) })

const urgencyToolPrompt = "Judge the urgency of this support ticket as high (the service is unusable), medium (it works badly) or low (a question or a wish): {{text}}"

// urgencyTask: composition with an LLM tool. A judgement per ticket, made
// by one LLM call each (pmap), aggregated by the program.
func urgencyTask(context.Context) (Task, func() error, error) {
	tickets := urgencyTickets()
	ticketsTool := agent.Tool{
		Signature:   "(product :string) -> [{id :string, product :string, text :string}]",
		Description: "Lists the open support tickets of a product.",
		Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			p := argString(args, "product")
			out := []ticket{}
			for _, t := range tickets {
				if t.Product == p {
					out = append(out, t)
				}
			}
			return out, nil
		},
	}
	classify, err := agent.NewLLMTool(agent.Config{
		Prompt:      urgencyToolPrompt,
		Signature:   "(text :string) -> {urgency :string}",
		Description: "Judges one ticket's urgency: high, medium or low.",
	}, agent.AsToolOptions{})
	if err != nil {
		return Task{}, nil, err
	}
	expect := func(product string) map[string]any {
		counts := map[string]any{"high": 0, "medium": 0, "low": 0}
		high := []string{}
		for _, t := range tickets {
			if t.Product != product {
				continue
			}
			u := urgencyOf(t.Text)
			counts[u] = counts[u].(int) + 1
			if u == "high" {
				high = append(high, t.ID)
			}
		}
		sort.Strings(high)
		return map[string]any{"counts": counts, "high_ids": high}
	}
	const prompt = "Triage the open tickets of product {{product}}: judge the urgency of each ticket with the classify tool, then return how many tickets have each urgency and the ids of the high ones, sorted."
	t := Task{
		Task: eval.Task{
			Name:        "ticket-urgency",
			Description: "composition: an LLM tool judges each ticket (pmap), the program counts and lists",
			Tags:        []string{"composition", "llm-tool", "pmap"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(product :string) -> {counts {high :int, medium :int, low :int}, high_ids [:string]}",
				Tools:     map[string]agent.Tool{"tickets": ticketsTool, "classify": classify},
			},
			Cases: []eval.Case{
				{Name: "billing", Input: map[string]any{"product": "billing"}, Checks: []eval.Check{eval.Equals(expect("billing"))}},
				{Name: "mobile", Input: map[string]any{"product": "mobile"}, Checks: []eval.Check{eval.Equals(expect("mobile"))}},
			},
		},
		Solve: func(req llm.Request) (string, bool) {
			if hasPrompt(req, "Triage the open tickets of product ") {
				return program(`
(let [ts (tool/tickets {:product ctx/product})
      judged (pmap (fn [t] (assoc t :urgency (:urgency (tool/classify {:text (:text t)})))) ts)
      counts (frequencies (map :urgency judged))]
  (return {:counts {:high (get counts "high" 0) :medium (get counts "medium" 0) :low (get counts "low" 0)}
           :high_ids (sort (map :id (filter (where :urgency = "high") judged)))}))`), true
			}
			return solveUrgency(req)
		},
		Decoys: []string{
			// keyword matching in the program instead of the judgement
			`(let [ts (tool/tickets {:product ctx/product}) high (filter #(includes? (:text %) "down") ts)] (return {:counts {:high (count high) :medium 0 :low (- (count ts) (count high))} :high_ids (sort (map :id high))}))`,
			// every ticket judged high
			`(let [ts (tool/tickets {:product ctx/product})] (return {:counts {:high (count ts) :medium 0 :low 0} :high_ids (sort (map :id ts))}))`,
		},
	}
	return t, nil, nil
}

// solveUrgency answers the classify tool's call, recognised by its
// question, which may be in the system prompt or the first message; the
// ticket's text may be in either too.
func solveUrgency(req llm.Request) (string, bool) {
	head := urgencyToolPrompt[:40]
	if !strings.Contains(req.Prompt, head) && !strings.Contains(req.System, head) {
		return "", false
	}
	text := ticketText().FindString(req.Prompt)
	if text == "" {
		text = ticketText().FindString(req.System)
	}
	if text == "" {
		// The text is only in the tool's context: judge it there, by the
		// same rule.
		return program(`(let [t (str ctx/text)]
  {:urgency (cond (re-find #"down|outage" t) "high" (re-find #"slow|error" t) "medium" :else "low")})`), true
	}
	return program(`{:urgency "` + urgencyOf(text) + `"}`), true
}
