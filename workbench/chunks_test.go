package workbench

import (
	"context"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
)

// A reply being written is kept as its latest chunk per call, for the
// streams, never in the run's events; the call's end drops it.
func TestLiveRunChunks(t *testing.T) {
	r := &liveRun{wake: make(chan struct{})}
	ctx := context.Background()
	r.Observe(ctx, &agent.Event{Kind: agent.LLMStart, CallID: 7})
	for _, text := range []string{"Check", "Checking the"} {
		r.Observe(ctx, &agent.Event{Kind: agent.LLMChunk, CallID: 7, Reply: &llm.Response{Content: text}})
	}
	if len(r.events) != 1 || len(r.chunks) != 1 || !strings.Contains(string(r.chunks[7].json), `"Checking the"`) {
		t.Fatalf("%d events, chunks %v", len(r.events), r.chunks)
	}
	r.Observe(ctx, &agent.Event{Kind: agent.LLMStop, CallID: 7, Reply: &llm.Response{Content: "Checking the forecast."}})
	if len(r.events) != 2 || len(r.chunks) != 0 {
		t.Fatalf("after llm.stop: %d events, %d chunks", len(r.events), len(r.chunks))
	}
	for _, e := range r.events {
		if strings.Contains(string(e), "llm.chunk") {
			t.Errorf("a chunk was kept: %s", e)
		}
	}
}
