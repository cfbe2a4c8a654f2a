// Command workbench serves the workbench (package workbench, the page of
// "ptc dev") over two agents built in Go: "weather", whose tool is a typed
// Go function (agent.NewTool), and "orders", whose tool is a plain one
// (agent.Tool with a Func over a *lisp.Map). Open the address it prints:
// run either agent from a form, watch its turns arrive, browse the
// history, open a run's trace, replay it offline, compare two runs, run
// the agents' test cases.
//
//	go run ./examples/workbench                                # a scripted model, offline
//	go run ./examples/workbench -model openai:gpt-4.1-mini     # $OPENAI_API_KEY
//
// Without -model (or $PTC_MODEL) the model is a scripted stand-in
// (llmtest.Script) that answers each agent with the program a capable
// model would write, so the page works without a network or an API key;
// the page's model field may still name a real one. Ctrl-C stops it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
	"github.com/ptc-go/ptc/llm/provider"
	"github.com/ptc-go/ptc/workbench"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen on `HOST:PORT` (port 0: a free one)")
	model := flag.String("model", os.Getenv("PTC_MODEL"), "the model of runs, e.g. openai:gpt-4.1-mini (default $PTC_MODEL, else the scripted one)")
	runs := flag.String("runs", filepath.Join(os.TempDir(), "ptc-workbench-example"), "save the runs in `DIR`")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := workbench.Serve(ctx, options(*addr, *model, *runs)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// scriptedName is the name of the offline model.
const scriptedName = "scripted"

// options are the workbench's: the two agents, the model of runs (model,
// else the scripted one), and how the page's model names are opened.
func options(addr, model, runs string) workbench.Options {
	return workbench.Options{
		Addr:   addr,
		Agents: agents(),
		Model:  firstNonEmpty(model, scriptedName),
		Models: func(ctx context.Context, name string) (llm.Func, error) {
			if name == scriptedName {
				return scripted(), nil // a new one per run
			}
			return provider.Open(ctx, name, provider.Options{})
		},
		Runs:  runs,
		Title: "examples/workbench",
	}
}

// forecast is the weather of a city, made up.
type forecast struct {
	TempC float64 `json:"temp_c"`
	Sky   string  `json:"sky"`
}

var forecasts = map[string]forecast{
	"oslo": {4.5, "snow"}, "lisbon": {19, "sun"}, "cairo": {27.5, "sun"}, "london": {9, "rain"},
}

// order is a row of the order store.
type order struct {
	ID     int
	Status string
	Amount float64
}

var orderStore = []order{{1, "paid", 120}, {2, "paid", 80.5}, {3, "refunded", 42}, {4, "paid", 15}, {5, "pending", 60}}

// agents are the workbench's agents.
func agents() []workbench.Agent {
	type city struct {
		City string `json:"city"`
	}
	// A typed tool: its signature comes from the Go types.
	weather := agent.NewTool("Today's forecast for a city.", func(_ context.Context, c city) (forecast, error) {
		f, ok := forecasts[strings.ToLower(c.City)]
		if !ok {
			return forecast{}, fmt.Errorf("no forecast for %s (try Oslo, Lisbon, Cairo, London)", c.City)
		}
		return f, nil
	})
	// A plain tool: a function of the arguments as PTC-Lisp values, its
	// signature written out.
	orders := agent.Tool{
		Signature:   "(status :string) -> [{id :int, amount :float}]",
		Description: "The orders with a status (paid, refunded, pending).",
		Func: func(_ context.Context, args *lisp.Map) (any, error) {
			status, _ := args.Get(lisp.Keyword("status"))
			s, ok := status.(string)
			if !ok {
				return nil, errors.New("status: want a string")
			}
			out := []map[string]any{}
			for _, o := range orderStore {
				if o.Status == s {
					out = append(out, map[string]any{"id": o.ID, "amount": o.Amount})
				}
			}
			return out, nil
		},
	}
	return []workbench.Agent{
		{
			Name: "weather",
			Config: agent.Config{
				Description: "Finds the warmest of some cities.",
				Prompt:      "Find the warmest of these cities: {{cities}}.",
				Signature:   "(cities [:string]) -> {warmest :string, temp_c :float}",
				MaxTurns:    3,
				Tools:       map[string]agent.Tool{"forecast": weather},
			},
			Input: map[string]any{"cities": []any{"Oslo", "Lisbon", "Cairo"}},
			Cases: []eval.Case{
				{Name: "three", Input: map[string]any{"cities": []any{"Oslo", "Lisbon", "Cairo"}},
					Checks: []eval.Check{eval.Subset(map[string]any{"warmest": "Cairo"})}},
				{Name: "north", Input: map[string]any{"cities": []any{"Oslo", "London"}},
					Checks: []eval.Check{eval.Subset(map[string]any{"warmest": "London"})}},
			},
		},
		{
			Name: "orders",
			Config: agent.Config{
				Description: "Counts and totals the orders of a status.",
				Prompt:      "Count the orders with status {{status}} and total their amounts.",
				Signature:   "(status :string) -> {count :int, total :float}",
				MaxTurns:    3,
				Tools:       map[string]agent.Tool{"orders": orders},
			},
			// The _ field is firewalled: programs may use it, the model
			// and the page see <Firewalled>.
			Input: map[string]any{"status": "paid", "_api_key": "sk-example-not-a-real-key"},
			Cases: []eval.Case{
				{Name: "paid", Input: map[string]any{"status": "paid"},
					Checks: []eval.Check{eval.Equals(map[string]any{"count": 3, "total": 215.5})}},
				{Name: "refunded", Input: map[string]any{"status": "refunded"},
					Checks: []eval.Check{eval.Equals(map[string]any{"count": 1, "total": 42.0})}},
			},
		},
	}
}

// scripted is the offline model: it answers each agent with the program
// a capable model would write.
func scripted() llm.Func {
	s := &llmtest.Script{Respond: func(req llm.Request) llmtest.Reply {
		if strings.Contains(req.Prompt, "warmest") {
			return llmtest.Code(`(def fs (pmap #(assoc (tool/forecast {:city %}) :city %) ctx/cities))
(println "forecasts:" fs)
(let [w (first (sort-by :temp_c > fs))]
  (return {:warmest (:city w) :temp_c (:temp_c w)}))`)
		}
		return llmtest.Code(`(def os (tool/orders {:status ctx/status}))
(println "orders:" (count os) "key:" ctx/_api_key)
(return {:count (count os) :total (sum-by :amount os)})`)
	}}
	return s.Func()
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
