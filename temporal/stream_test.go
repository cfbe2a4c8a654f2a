package temporal

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
)

// A model that streams is stopped at the reply's program in the workers'
// LLM activity, as in process: what it would write after the program is
// not generated, and the journal keeps the reply as it stopped.
func TestLLMActivityStopsAtProgram(t *testing.T) {
	c, _ := devServer(t)
	queue := testQueue("stream-stop")
	reply := "```clojure\n(return {:n 7})\n```\n" + strings.Repeat("And here is why. ", 50)
	var mu sync.Mutex
	var written, stopped int
	model := func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if req.Stream == nil {
			t.Error("the LLM activity did not ask for a streamed reply")
			return llm.Response{Content: reply}, nil
		}
		var sent strings.Builder
		for i := 0; i < len(reply); i += 8 {
			piece := reply[i:min(i+8, len(reply))]
			sent.WriteString(piece)
			mu.Lock()
			written++
			mu.Unlock()
			if !req.Stream(piece) {
				mu.Lock()
				stopped++
				mu.Unlock()
				break
			}
		}
		return llm.Response{Content: sent.String()}, nil
	}
	startWorker(t, c, queue, WorkerOptions{Model: llm.Func(model), Agents: map[string]*agent.Agent{
		"seven": mustAgent(t, agent.Config{Prompt: "Seven.", Signature: "{n :int}"})}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m, err := Start(ctx, c, "seven", StartOptions{TaskQueue: queue})
	if err != nil {
		t.Fatal(err)
	}
	step, err := m.Result(ctx)
	if err != nil || printed(step.Return) != "{:n 7}" {
		t.Fatalf("step %v, err %v", step, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if stopped != 1 || written*8 > len("```clojure\n(return {:n 7})\n```\n")+16 {
		t.Errorf("the model wrote %d pieces of 8 bytes (stopped %d times)", written, stopped)
	}
	if r := step.Trace[0].Response; strings.Contains(r, "here is why") {
		t.Errorf("the journal kept the reply past its program: %q", r)
	}
}
