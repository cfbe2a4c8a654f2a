package otel

import (
	"context"
	"fmt"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// discard is a span processor that drops the spans: the SDK's cost of
// recording them, without an exporter's.
type discard struct{}

func (discard) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (discard) OnEnd(sdktrace.ReadOnlySpan)                     {}
func (discard) Shutdown(context.Context) error                  { return nil }
func (discard) ForceFlush(context.Context) error                { return nil }

// BenchmarkObserverTurn measures the cost of the adapter per turn of a
// scripted mission (benchTurns turns, each an LLM call and a tool call):
// bare runs the mission without observers, empty with an observer that
// does nothing (the agent's own cost of reporting events), noop with the adapter on the
// OpenTelemetry no-op providers (the globals' default), sdk on the SDK's
// tracer provider (spans recorded, then dropped) and a meter provider read
// by hand, content the same with CaptureContent. Compare the ns/turn.
func BenchmarkObserverTurn(b *testing.B) {
	const benchTurns = 5
	model := llmtest.NewScript()
	model.Respond = func(req llm.Request) llmtest.Reply {
		if req.Turn < benchTurns {
			return llmtest.Code(fmt.Sprintf(`(def x%d (tool/get {:i %d}))`, req.Turn, req.Turn))
		}
		return llmtest.Code(`(return x1)`)
	}
	a := agent.MustNew(agent.Config{Name: "bench", Prompt: "Fetch.", MaxTurns: benchTurns,
		Tools: map[string]agent.Tool{"get": agent.Tool{Func: func(_ context.Context, args *lisp.Map) (any, error) {
			return map[string]any{"items": []any{1, 2, 3}, "_secret": "s3cr3t-value"}, nil
		}}}})
	sdkObserver := func(b *testing.B, capture bool) agent.Observer {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(discard{}))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		obs, err := NewObserver(Options{TracerProvider: tp, MeterProvider: mp, CaptureContent: capture})
		if err != nil {
			b.Fatal(err)
		}
		return obs
	}
	noop, err := NewObserver(Options{})
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name string
		obs  func(b *testing.B) agent.Observer
	}{
		{"bare", func(*testing.B) agent.Observer { return nil }},
		{"empty", func(*testing.B) agent.Observer { return agent.ObserverFunc(func(context.Context, *agent.Event) {}) }},
		{"noop", func(*testing.B) agent.Observer { return noop }},
		{"sdk", func(b *testing.B) agent.Observer { return sdkObserver(b, false) }},
		{"content", func(b *testing.B) agent.Observer { return sdkObserver(b, true) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			opts := agent.Options{LLM: model.Func(), Trace: agent.TraceOff}
			if o := c.obs(b); o != nil {
				opts.Observers = []agent.Observer{o}
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := a.Run(context.Background(), opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchTurns), "ns/turn")
		})
	}
}

// BenchmarkObserve measures the adapter alone on hand-built events: one
// turn (turn, LLM call, tool call: six events, three spans) of a mission,
// on the SDK's tracer provider (spans dropped) and a manual reader.
func BenchmarkObserve(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(discard{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	obs, err := NewObserver(Options{TracerProvider: tp, MeterProvider: mp})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	obs.Observe(ctx, &agent.Event{Kind: agent.RunStart, Time: at, Agent: "bench", TraceID: "t"})
	events := []agent.Event{
		{Kind: agent.TurnStart},
		{Kind: agent.LLMStart, CallID: 1, Attempt: 1},
		{Kind: agent.LLMStop, CallID: 1, Attempt: 1, Reply: &llm.Response{RequestModel: "haiku"}, Usage: agent.Usage{LLMRequests: 1, Tokens: llm.Tokens{Input: 900, Output: 30}}, Duration: time.Millisecond},
		{Kind: agent.ToolStart, CallID: 2, Tool: "get", ArgsText: "{:i 1}"},
		{Kind: agent.ToolStop, CallID: 2, Tool: "get", ResultText: "[1 2 3]", Duration: time.Millisecond},
		{Kind: agent.TurnStop},
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		for i := range events {
			e := events[i]
			e.Time, e.Agent, e.TraceID, e.Turn = at, "bench", "t", n
			obs.Observe(ctx, &e)
		}
	}
	obs.Observe(ctx, &agent.Event{Kind: agent.RunStop, Time: at, Agent: "bench", TraceID: "t"})
}
