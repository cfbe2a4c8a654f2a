package temporal_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"os"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
	"github.com/ptc-go/ptc/temporal"
)

// A worker process registers the agents with their tools and models; any
// process starts missions by the agent's name and waits for their Step.
func Example() {
	// The same agent.Config that runs in-process with Agent.Run.
	counter := agent.MustNew(agent.Config{
		Prompt:    "How many orders has customer {{id}}?",
		Signature: "(id :int) -> :int",
		Tools: map[string]agent.Tool{"orders": agent.Tool{Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			return []int{101, 102, 103}, nil
		}}},
	})
	model := llmtest.NewScript(llmtest.Code(`(def o (tool/orders {:customer ctx/id}))`), llmtest.Code(`(return (count o))`))

	c, err := client.Dial(client.Options{HostPort: "127.0.0.1:7233"})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	// On each worker (run as many as the load needs).
	w, err := temporal.NewWorker(c, "missions", temporal.WorkerOptions{
		Agents: map[string]*agent.Agent{"order-counter": counter},
		Model:  model.Func(),
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Start(); err != nil {
		log.Fatal(err)
	}
	defer w.Stop()

	// Anywhere: start a mission, follow it, wait for its Step.
	ctx := context.Background()
	m, err := temporal.Start(ctx, c, "order-counter", temporal.StartOptions{
		TaskQueue: "missions",
		ID:        "count-orders-42",
		Input:     map[string]any{"id": 42},
	})
	if err != nil {
		log.Fatal(err)
	}
	if p, err := m.Progress(ctx); err == nil {
		fmt.Println("turn", p.Turn, "of", p.Agent)
	}
	step, err := m.Result(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(lisp.Print(step.Return, lisp.PrintOptions{}))
}

// Register puts the mission workflow on the SDK's test environment, to
// test agents on Temporal in-process, without a server.
func ExampleRegister() {
	greeter := agent.MustNew(agent.Config{Prompt: "Greet {{name}}.", Signature: "(name :string) -> :string", MaxTurns: 2})
	model := llmtest.NewScript(llmtest.Code(`(return (str "Hello, " ctx/name))`))

	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(tlog.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := suite.NewTestWorkflowEnvironment()
	if err := temporal.Register(env, temporal.WorkerOptions{
		Agents: map[string]*agent.Agent{"greeter": greeter},
		Model:  model.Func(),
	}); err != nil {
		log.Fatal(err)
	}
	// The workflow's input is JSON (docs/temporal.md, "The workflow"): the
	// agent's registered name and the context's exact printed form.
	env.ExecuteWorkflow(temporal.WorkflowName, map[string]any{
		"Agent":   "greeter",
		"Context": lisp.Print(lisp.NewMap(lisp.Keyword("name"), "Ada"), lisp.PrintOptions{Exact: true}),
	})
	// A mission that returned completes its workflow with its Result; one
	// that failed or was cancelled ends it with an error that carries it.
	var res temporal.Result
	if err := env.GetWorkflowError(); err != nil {
		res = *temporal.ResultFromError(err)
	} else if err := env.GetWorkflowResult(&res); err != nil {
		log.Fatal(err)
	}
	step, err := res.Step()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(step.Return, step.Usage.Turns)
	// Output: Hello, Ada 1
}

// ReplayHistory replays a mission's exported history (`temporal workflow
// show --workflow-id ID --output json`) with this package's workflow
// code, under the workflow id it records: here a run of a mission whose
// nested agents ran as child workflows.
func ExampleReplayHistory() {
	f, err := os.Open("testdata/tree_v2_run.json")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	hist, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	if err != nil {
		log.Fatal(err)
	}
	err = temporal.ReplayHistory(hist, temporal.ReplayOptions{})
	fmt.Println("replays:", err == nil)
	// Output: replays: true
}
