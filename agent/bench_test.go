package agent_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// rows10k is a context of 10,000 order rows, converted once as a host
// would do for many missions.
func rows10k(tb testing.TB) *lisp.Map {
	rows := make([]any, 10_000)
	for i := range rows {
		rows[i] = map[string]any{"id": i, "customer": fmt.Sprint("c", i%97), "total": float64(i%500) + 0.5,
			"status": []string{"paid", "open", "refunded"}[i%3]}
	}
	return mustFromGo(tb, map[string]any{"orders": rows, "region": "EMEA"}).(*lisp.Map)
}

// turns is the number of turns of loopMission.
const turns = 5

// loopPrograms are the programs of loopMission's turns.
var loopPrograms = []string{
	`(def n (count ctx/orders))`,
	`(println "orders:" n) {:seen n}`,
	`(def k (keys (first ctx/orders)))`,
	`[n (count k)]`,
	`(return {:count n})`,
}

// loopReplies are the replies of a model that sends loopPrograms, each
// with suffix.
func loopReplies(suffix string) []llmtest.Reply {
	rs := make([]llmtest.Reply, len(loopPrograms))
	for i, p := range loopPrograms {
		rs[i] = llmtest.Code(p + suffix)
	}
	return rs
}

// loopMission is the mission of the loop benchmarks: five turns of
// programs that do next to nothing over the context.
func loopMission() ([]llmtest.Reply, agent.Config) {
	return loopReplies(""), agent.Config{Prompt: "Count the orders of {{region}}",
		Signature: "(region :string) -> {count :int}", MaxTurns: turns}
}

// BenchmarkLoopOverhead measures what the agent loop itself costs per turn
// (prompt, extraction, compilation, feedback, memory, trace), with a
// 10,000-row context, a scripted LLM and programs that do next to nothing.
// The figure to read is ns/turn.
//
//   - reused-agent: the agent has seen the context before (its firewall
//     analysis is cached) and its compile cache has the programs, as for
//     a mission that repeats an earlier one;
//   - new-programs: the same agent, but every mission's programs are new
//     texts, compiled for it (the usual case of a live model);
//   - new-agent: every mission has a new agent, which scans the context
//     and compiles every program.
func BenchmarkLoopOverhead(b *testing.B) {
	ctxMap := rows10k(b)
	replies, cfg := loopMission()
	bg := context.Background()
	for _, variant := range []string{"reused-agent", "new-programs", "new-agent"} {
		b.Run(variant, func(b *testing.B) {
			a := agent.MustNew(cfg)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rs := replies
				switch variant {
				case "new-agent":
					a = agent.MustNew(cfg)
				case "new-programs":
					// A comment makes each text new to the cache.
					rs = loopReplies(fmt.Sprintf(" ; mission %d", i))
				}
				s := llmtest.NewScript(rs...)
				step, err := a.Run(bg, agent.Options{LLM: s.Func(), Input: ctxMap})
				if err != nil || step.Usage.Turns != turns {
					b.Fatal(err)
				}
				if want := map[bool]int{true: turns, false: 0}[variant == "reused-agent" && i > 0]; step.Usage.CachedPrograms != want {
					b.Fatalf("%d cached programs, want %d", step.Usage.CachedPrograms, want)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*turns), "ns/turn")
		})
	}
}

// BenchmarkNestedAgentCall measures what calling an agent as a tool costs
// on top of the child's own turn: a parent's single turn calls a one-turn
// child. The figure to read is ns/op (two missions, two turns).
func BenchmarkNestedAgentCall(b *testing.B) {
	child := agent.MustNew(agent.Config{Prompt: "Double {{n}}", Signature: "(n :int) -> :int", Description: "Doubles n."})
	tool, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		b.Fatal(err)
	}
	parent := agent.MustNew(agent.Config{Prompt: "Use the child", Tools: map[string]agent.Tool{"double": tool}})
	s := &llmtest.Script{Respond: func(req llm.Request) llmtest.Reply {
		if req.Prompt == "Use the child" {
			return llmtest.Code(`(return (tool/double {:n 21}))`)
		}
		return llmtest.Code(`(return (* 2 ctx/n))`)
	}}
	bg := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		step, err := parent.Run(bg, agent.Options{LLM: s.Func(), Trace: agent.TraceOff})
		if err != nil || step.Return != int64(42) {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompiledExecute measures one execution of a compiled agent over
// a 10,000-row context: input validation, the program, output validation.
func BenchmarkCompiledExecute(b *testing.B) {
	a := agent.MustNew(agent.Config{Prompt: "Total the paid orders", Signature: "(orders [:map]) -> {total :float}"})
	s := llmtest.NewScript(llmtest.Code(`(return {:total (sum-by :total (filter #(= "paid" (:status %)) ctx/orders))})`))
	ctxMap := rows10k(b)
	compiled, err := a.Compile(context.Background(), agent.Options{LLM: s.Func(), Input: ctxMap})
	if err != nil {
		b.Fatal(err)
	}
	bg := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := compiled.Execute(bg, ctxMap); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkObservedLoop is BenchmarkLoopOverhead's reused agent with
// observers: one that does nothing (the cost of building and delivering
// the events) and the slog observer writing JSON to io.Discard at Debug
// (every event formatted). Compare ns/turn with BenchmarkLoopOverhead.
func BenchmarkObservedLoop(b *testing.B) {
	ctxMap := rows10k(b)
	replies, cfg := loopMission()
	a := agent.MustNew(cfg)
	bg := context.Background()
	for _, tc := range []struct {
		name string
		obs  agent.Observer
	}{
		{"noop", agent.ObserverFunc(func(context.Context, *agent.Event) {})},
		{"slog-json-debug", trace.NewSlogObserver(slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelDebug})))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var events int
			count := agent.ObserverFunc(func(context.Context, *agent.Event) { events++ })
			b.ReportAllocs()
			for b.Loop() {
				s := llmtest.NewScript(replies...)
				step, err := a.Run(bg, agent.Options{LLM: s.Func(), Input: ctxMap, Observers: []agent.Observer{tc.obs, count}})
				if err != nil || step.Usage.Turns != turns {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*turns), "ns/turn")
			b.ReportMetric(float64(events)/float64(b.N), "events/op")
		})
	}
}

// BenchmarkSlogEvent is the slog observer's cost per event (a tool.stop
// with its texts), JSON to io.Discard.
func BenchmarkSlogEvent(b *testing.B) {
	o := trace.NewSlogObserver(slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelDebug})))
	e := &agent.Event{Kind: agent.ToolStop, Time: time.Now(), Agent: "researcher", TraceID: "706c88b85947cda1d26646281874b471",
		Turn: 2, CallID: 7, Tool: "search", Duration: 1500 * time.Microsecond,
		ArgsText: `{:query "open invoices" :limit 10}`, ResultText: `[{:id 1 :total 120.5} {:id 2 :total 80.0} ...]`}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		o.Observe(ctx, e)
	}
}

// ordersContext is the context of the shared workloads W2–W4 (10,000
// orders {id, amount, status, customer}), with a firewalled field when
// labelled: then every program runs twice more, in the shadow runs that
// find what it computed from firewalled data (docs/agents.md, "Derived
// values").
func ordersContext(tb testing.TB, labelled bool) *lisp.Map {
	rows := make([]any, 10_000)
	for i := range rows {
		rows[i] = map[string]any{"id": i, "amount": i * 37 % 500, "status": []string{"open", "closed", "pending"}[i%3],
			"customer": fmt.Sprint("c", i%100)}
	}
	ctx := map[string]any{"orders": rows}
	if labelled {
		ctx["_token"] = "tok-3f9a1c7e-private"
	}
	return mustFromGo(tb, ctx).(*lisp.Map)
}

// BenchmarkFirewalledTurn measures a two-turn mission whose first turn runs
// a shared workload (W2 filter and sum, W3 group and sort, W4 reduce and
// assoc) over the orders, without and with a firewalled field in the
// context: the cost of the shadow runs. The agent is reused (its compile
// cache holds the programs, its firewall analysis the context).
func BenchmarkFirewalledTurn(b *testing.B) {
	workloads := []struct{ name, program string }{
		{"W2", `(->> ctx/orders (filter (where :amount > 100)) (sum-by :amount))`},
		{"W3", `(->> ctx/orders (group-by :customer) (map (fn [[k v]] {:customer k :total (sum-by :amount v) :n (count v)})) (sort-by :total >) (take 5))`},
		{"W4", `(reduce (fn [acc o] (assoc acc (:id o) (:amount o))) {} ctx/orders)`},
	}
	bg := context.Background()
	for _, w := range workloads {
		for _, labelled := range []bool{false, true} {
			name := w.name + "/public"
			if labelled {
				name = w.name + "/labelled"
			}
			b.Run(name, func(b *testing.B) {
				ctxMap := ordersContext(b, labelled)
				a := agent.MustNew(agent.Config{Prompt: "Sum the orders", MaxTurns: 3})
				replies := []llmtest.Reply{llmtest.Code(w.program), llmtest.Code(`(return 1)`)}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					step, err := a.Run(bg, agent.Options{LLM: llmtest.NewScript(replies...).Func(), Input: ctxMap})
					if err != nil || step.Usage.Turns != 2 {
						b.Fatal(err, step.Fail)
					}
				}
			})
		}
	}
}
