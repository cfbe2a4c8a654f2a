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
// With -replies it also prints the model's replies and the feedback it got;
// with -prompt, the system prompt the model received.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/internal/demo"
	"github.com/ptc-go/ptc/llm/llmtest"
)

func main() {
	replies := flag.Bool("replies", false, "print the model's replies and the feedback it was sent")
	prompt := flag.Bool("prompt", false, "print the system prompt, then run the mission")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *replies, *prompt); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
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

func run(ctx context.Context, w io.Writer, replies, showPrompt bool) error {
	a, err := agent.New(demo.Config())
	if err != nil {
		return err
	}
	model := script()
	opts := agent.Options{LLM: model.Func(), Input: demo.Context()}
	if replies {
		opts.Trace = agent.TraceConversation // each turn's feedback, for the trace's replies
	}
	if showPrompt {
		p, err := a.Preview(opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s\n\n", p.System)
	}
	step, err := a.Run(ctx, opts)
	if perr := trace.Print(w, step, trace.Options{Replies: replies}); perr != nil {
		return perr
	}
	if err != nil {
		return err
	}

	// Go gets the whole value, firewalled ids included.
	if err := demo.PrintTop(w, step); err != nil {
		return err
	}
	seen, total := demo.FirewalledSeen(model.Requests())
	fmt.Fprintf(w, "system prompt ≈ %d tokens; firewalled strings the model saw: %d of %d\n",
		step.SystemPromptTokens(), len(seen), total)
	return nil
}
