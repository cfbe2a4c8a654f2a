package otel_test

import (
	"context"
	"fmt"
	"sort"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
	"github.com/ptc-go/ptc/otel"
)

// A mission reported to an in-memory exporter: the mission, its turns,
// their LLM calls and tool calls.
func ExampleNewObserver() {
	exporter := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))
	obs, err := otel.NewObserver(otel.Options{TracerProvider: tp})
	if err != nil {
		panic(err)
	}

	finder := agent.MustNew(agent.Config{Name: "finder", Prompt: "Count the urgent emails.", MaxTurns: 3,
		Tools: map[string]agent.Tool{"list-emails": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) {
			return []any{map[string]any{"urgent": true}, map[string]any{"urgent": false}}, nil
		}}}})
	model := llmtest.NewScript(
		llmtest.Code(`(def emails (tool/list-emails {}))`),
		llmtest.Code(`(return (count (filter :urgent emails)))`),
	)
	step, err := finder.Run(context.Background(), agent.Options{
		LLM: llm.Name("haiku"), Registry: llm.Registry{"haiku": model.Func()},
		Observers: []agent.Observer{obs},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("return:", lisp.Print(step.Return, lisp.PrintOptions{}))

	// Print the spans as a tree, each span's children in the order they
	// started.
	spans := exporter.GetSpans()
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].StartTime.Before(spans[j].StartTime) })
	var print func(parent string, depth int)
	print = func(parent string, depth int) {
		for _, s := range spans {
			p := ""
			if s.Parent.IsValid() {
				p = s.Parent.SpanID().String()
			}
			if p == parent {
				fmt.Println(strings.Repeat("  ", depth) + s.Name)
				print(s.SpanContext.SpanID().String(), depth+1)
			}
		}
	}
	print("", 0)
	// Output:
	// return: 1
	// invoke_agent finder
	//   ptc.turn
	//     chat haiku
	//     execute_tool list-emails
	//   ptc.turn
	//     chat haiku
}
