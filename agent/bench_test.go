package agent_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// rows10k is a context of 10,000 order rows, converted once as a host
// would do for many missions.
func rows10k() *lisp.Map {
	rows := make([]any, 10_000)
	for i := range rows {
		rows[i] = map[string]any{"id": i, "customer": fmt.Sprint("c", i%97), "total": float64(i%500) + 0.5,
			"status": []string{"paid", "open", "refunded"}[i%3]}
	}
	return lisp.MustFromGo(map[string]any{"orders": rows, "region": "EMEA"}).(*lisp.Map)
}

// BenchmarkLoopOverhead measures what the agent loop itself costs per turn
// (prompt, extraction, compilation, feedback, memory, trace), with a
// 10,000-row context, a scripted LLM and programs that do next to nothing.
// The figure to read is ns/turn.
func BenchmarkLoopOverhead(b *testing.B) {
	ctxMap := rows10k()
	const turns = 5
	replies := []llmtest.Reply{
		llmtest.Code(`(def n (count ctx/orders))`),
		llmtest.Code(`(println "orders:" n) {:seen n}`),
		llmtest.Code(`(def k (keys (first ctx/orders)))`),
		llmtest.Code(`[n (count k)]`),
		llmtest.Code(`(return {:count n})`),
	}
	cfg := agent.Config{Prompt: "Count the orders of {{region}}", Signature: "(region :string) -> {count :int}", MaxTurns: turns}
	bg := context.Background()
	// "reused agent": the agent has seen the context before (its firewall
	// analysis is cached); "new agent": every mission scans the context.
	for _, fresh := range []bool{false, true} {
		name := "reused-agent"
		if fresh {
			name = "new-agent"
		}
		b.Run(name, func(b *testing.B) {
			a := agent.MustNew(cfg)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if fresh {
					a = agent.MustNew(cfg)
				}
				s := llmtest.NewScript(replies...)
				step, err := a.Run(bg, agent.Options{LLM: s.Func(), Context: ctxMap})
				if err != nil || step.Usage.Turns != turns {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*turns), "ns/turn")
		})
	}
}
