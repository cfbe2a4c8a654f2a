package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// shopAgent has a tool that looks items up (counting its calls) and one
// that always fails.
func shopAgent(t testing.TB, lookups *counter) *agent.Agent {
	return mustAgent(t, agent.Config{
		Prompt:    "Count the items of shop {{shop}}.",
		Signature: "(shop :string) -> :int",
		MaxTurns:  5,
		Tools: map[string]agent.Tool{
			"lookup": {Func: func(ctx context.Context, args *lisp.Map) (any, error) {
				lookups.add(args)
				id, _ := args.Get(lisp.Keyword("id"))
				return map[string]any{"id": id, "name": "item-" + printed(id)}, nil
			}, Signature: "(id :int) -> {id :int, name :string}", Description: "Looks an item up."},
			"broken": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) {
				return nil, errors.New("the database is down")
			}},
		},
	})
}

var shopScript = []string{
	`(tool/broken {})`,
	`(def items (pmap #(tool/lookup {:id %}) ["1" "2" "3"])) (mapv :name items)`,
	`(return (count items))`,
}

func newEnv(t *testing.T, opts WorkerOptions) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := s.NewTestWorkflowEnvironment()
	// The test environment runs a round's local activity inside the
	// workflow's deadlock check (1 s): under -race on a busy machine a
	// round takes longer. A real worker runs it outside.
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: 5 * time.Minute})
	if err := Register(env, opts); err != nil {
		t.Fatal(err)
	}
	return env
}

func runEnv(t *testing.T, env *testsuite.TestWorkflowEnvironment, in missionInput) (*agent.Step, error) {
	t.Helper()
	env.ExecuteWorkflow(WorkflowName, in)
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		// A mission that failed or was cancelled ends its workflow so,
		// with its Result in the error's details.
		res := ResultFromError(err)
		if res == nil {
			t.Fatalf("workflow error without a Result: %v", err)
		}
		return stepResult(res)
	}
	var res Result
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return stepResult(&res)
}

func input(t *testing.T, name string, ctx any) missionInput {
	t.Helper()
	m, err := contextMap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return missionInput{Agent: name, Context: lisp.Print(m, lisp.PrintOptions{Exact: true})}
}

// A mission with tools, an error turn and a pmap: the same requests as
// in-process, each LLM call and tool call made once.
func TestMissionWithTools(t *testing.T) {
	lookups := newCounter()
	a := shopAgent(t, lookups)
	model := newScripted(map[string][]string{"shop": shopScript})
	env := newEnv(t, WorkerOptions{Agents: map[string]*agent.Agent{"shop": a}, Model: llm.Func(model.Func)})
	step, err := runEnv(t, env, input(t, "shop", map[string]any{"shop": "north"}))
	if err != nil {
		t.Fatalf("mission failed: %v", err)
	}
	if printed(step.Return) != "3" {
		t.Fatalf("return %s", printed(step.Return))
	}
	if r := model.repeated(); len(r) > 0 || model.total() != 3 {
		t.Errorf("LLM calls: %d, repeated %v", model.total(), r)
	}
	if r := lookups.repeated(); len(r) > 0 || lookups.total() != 3 {
		t.Errorf("tool calls: %d, repeated %v", lookups.total(), r)
	}
	if step.Usage.Turns != 3 || step.Usage.LLMRequests != 3 || len(step.Trace) != 3 {
		t.Errorf("usage %+v, %d turns traced", step.Usage, len(step.Trace))
	}
	if e := step.Trace[0].Error; !strings.Contains(e, "the database is down") {
		t.Errorf("turn 1 error %q", e)
	}
	if c := step.Trace[1].ToolCalls; len(c) != 3 || len(c[0].Warnings) == 0 {
		t.Errorf("turn 2 tool calls %+v", c)
	}
	// The same agent in-process sends the very same requests.
	local := newScripted(map[string][]string{"shop": shopScript})
	lstep, err := a.Run(context.Background(), agent.Options{LLM: llm.Func(local.Func), Input: map[string]any{"shop": "north"}})
	if err != nil {
		t.Fatal(err)
	}
	if printed(lstep.Return) != printed(step.Return) || len(local.reqs) != len(model.reqs) {
		t.Fatalf("in-process: %s in %d requests", printed(lstep.Return), len(local.reqs))
	}
	for i := range local.reqs {
		l, d := local.reqs[i], model.reqs[i]
		if l.System != d.System || len(l.Messages) != len(d.Messages) {
			t.Fatalf("request %d differs", i+1)
		}
		for k := range l.Messages {
			// pmap's calls are listed in the order they started, which
			// varies from run to run, in-process too: compare the lines.
			if l.Messages[k].Role != d.Messages[k].Role || sortedLines(l.Messages[k].Content) != sortedLines(d.Messages[k].Content) {
				t.Errorf("request %d message %d:\n in-process %q\n Temporal   %q", i+1, k, l.Messages[k].Content, d.Messages[k].Content)
			}
		}
	}
	var p Progress
	v, err := env.QueryWorkflow(queryProgress)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Get(&p); err != nil {
		t.Fatal(err)
	}
	if p.Status != StatusCompleted || p.Turn != 3 || p.LLMCalls != 3 || p.ToolCalls != 4 || !strings.Contains(p.LastProgram, "return") {
		t.Errorf("progress %+v", p)
	}
}

// A program's error is a turn, and a failing tool is never retried as an
// activity.
func TestProgramErrorsAreTurns(t *testing.T) {
	broken := newCounter()
	a := mustAgent(t, agent.Config{Prompt: "Try {{x}}", MaxTurns: 3, Tools: map[string]agent.Tool{
		"broken": agent.Tool{Func: func(_ context.Context, args *lisp.Map) (any, error) {
			broken.add(args)
			return nil, errors.New("always down")
		}},
	}})
	model := newScripted(map[string][]string{"Try": {`(tool/broken {:n 1})`, `(+ 1 "a")`, `(return ctx/fail)`}})
	env := newEnv(t, WorkerOptions{Agents: map[string]*agent.Agent{"try": a}, Model: llm.Func(model.Func)})
	step, err := runEnv(t, env, input(t, "try", map[string]any{"x": 1}))
	if err != nil {
		t.Fatal(err)
	}
	if broken.total() != 1 {
		t.Errorf("the failing tool ran %d times", broken.total())
	}
	if !strings.Contains(printed(step.Return), ":reason") || strings.Contains(printed(step.Return), "tool") {
		t.Errorf("ctx/fail of turn 3: %s", printed(step.Return))
	}
}

// A nested agent runs as a child workflow; pmap's calls run concurrently;
// the tree's turns and usage add up.
func TestNestedAgents(t *testing.T) {
	desk := mustAgent(t, agent.Config{
		Prompt:      "Find tickets about {{topic}}.",
		Signature:   "(topic :string) -> {n :int}",
		Description: "Finds tickets.",
		MaxTurns:    2,
	})
	deskTool, err := desk.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	triage := mustAgent(t, agent.Config{Prompt: "Triage everything.", MaxTurns: 3, MaxTreeTurns: 10,
		Tools: map[string]agent.Tool{"desk": deskTool}})
	model := newScripted(map[string][]string{
		"Triage":  {`(def found (pmap #(tool/desk {:topic %}) ["refund" "delivery"]))`, `(return (mapv :n found))`},
		"tickets": {`(return {:n (count ctx/topic)})`},
	})
	env := newEnv(t, WorkerOptions{Agents: map[string]*agent.Agent{"triage": triage}, Model: llm.Func(model.Func)})
	var mu sync.Mutex
	var order []string
	env.SetOnChildWorkflowStartedListener(func(*workflow.Info, workflow.Context, converter.EncodedValues) {
		mu.Lock()
		order = append(order, "start")
		mu.Unlock()
	})
	env.SetOnChildWorkflowCompletedListener(func(*workflow.Info, converter.EncodedValue, error) {
		mu.Lock()
		order = append(order, "end")
		mu.Unlock()
	})
	step, err := runEnv(t, env, input(t, "triage", nil))
	if err != nil {
		t.Fatal(err)
	}
	if printed(step.Return) != "[6 8]" {
		t.Errorf("return %s", printed(step.Return))
	}
	if r := model.repeated(); len(r) > 0 || model.total() != 4 {
		t.Errorf("LLM calls %d, repeated %v", model.total(), r)
	}
	if step.TotalUsage.Turns != 4 || step.Usage.Turns != 2 {
		t.Errorf("usage %+v total %+v", step.Usage, step.TotalUsage)
	}
	calls := step.Trace[0].ToolCalls
	if len(calls) != 2 || calls[0].Child == nil || calls[0].Child.TraceID == "" || calls[0].Child.TraceID == step.TraceID {
		t.Fatalf("tool calls %+v", calls)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(order) != 4 {
		t.Fatalf("child workflows: %v", order)
	}
	// The pmap's calls are collected within a settle window: on a very
	// slow machine they may come in two rounds, which is correct too.
	t.Logf("child workflows: %v (concurrent: %v)", order, order[1] == "start")
}

// The tree's turn budget holds across child workflows.
func TestNestedBudget(t *testing.T) {
	child := mustAgent(t, agent.Config{Prompt: "Loop on {{x}}.", Description: "Loops.", MaxTurns: 5})
	tool, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := mustAgent(t, agent.Config{Prompt: "Delegate.", MaxTurns: 5, MaxTreeTurns: 3,
		Tools: map[string]agent.Tool{"loop": tool}})
	model := newScripted(map[string][]string{
		"Delegate": {`(tool/loop {:x 1})`, `(return 1)`},
		"Loop on":  {`1`, `2`, `3`, `4`, `5`},
	})
	step, err := runRoot(t, root, llm.Func(model.Func), 0)
	if err == nil || step.Fail.Reason != agent.ReasonTurnBudgetExhausted {
		t.Fatalf("step %+v err %v", step.Fail, err)
	}
	if model.total() != 3 {
		t.Errorf("%d LLM calls for a budget of 3 turns", model.total())
	}
}

// Nested missions started together by pmap split the turns left between
// them, so that the tree stays within its budget: in one process they
// would share them as they go; on Temporal each runs on its own.
func TestNestedBudgetFanOut(t *testing.T) {
	child := mustAgent(t, agent.Config{Prompt: "Loop on {{x}}.", Description: "Loops.", MaxTurns: 5})
	tool, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := mustAgent(t, agent.Config{Prompt: "Delegate.", MaxTurns: 5, MaxTreeTurns: 5,
		Tools: map[string]agent.Tool{"loop": tool}})
	model := newScripted(map[string][]string{
		"Delegate": {`(pmap #(tool/loop {:x %}) [1 2 3])`, `(return 1)`},
		"Loop on":  {`1`, `2`, `3`, `4`, `5`},
	})
	step, err := runRoot(t, root, llm.Func(model.Func), 0)
	if err == nil {
		t.Fatalf("the mission succeeded: %s", printed(step.Return))
	}
	// One turn of the root, then the 4 left split 2, 1, 1 between the
	// children: 5 LLM calls in all, never 1 + 3 × 4.
	if model.total() > 5 {
		t.Errorf("%d LLM calls for a budget of 5 turns", model.total())
	}
	if step.TotalUsage.Turns > 5 {
		t.Errorf("the tree used %d turns of a budget of 5", step.TotalUsage.Turns)
	}
}

func TestBudgetPart(t *testing.T) {
	for _, tc := range []struct {
		turns, n int
		want     []int
	}{
		{4, 3, []int{2, 1, 1}}, {6, 3, []int{2, 2, 2}}, {2, 3, []int{1, 1, 0}}, {0, 2, []int{0, 0}},
	} {
		sum := 0
		for i, w := range tc.want {
			got := budgetPart(tc.turns, tc.n, i)
			sum += got
			if got != w {
				t.Errorf("budgetPart(%d, %d, %d) = %d, want %d", tc.turns, tc.n, i, got, w)
			}
		}
		if sum != tc.turns {
			t.Errorf("the parts of %d sum to %d", tc.turns, sum)
		}
	}
}

// LLM infrastructure errors are retried by the activity per the agent's
// policy; an error the policy does not retry fails the mission at once.
func TestLLMRetries(t *testing.T) {
	a := mustAgent(t, agent.Config{Prompt: "Answer {{q}}", MaxTurns: 2,
		LLMRetry: llm.RetryPolicy{MaxAttempts: 3, BaseDelay: 1}})
	model := newScripted(map[string][]string{"Answer": {`(return 42)`}})
	model.fail = func(req llm.Request, n int) error {
		if n < 3 {
			return &llm.Error{Class: llm.ClassServerError, Message: "overloaded"}
		}
		return nil
	}
	env := newEnv(t, WorkerOptions{Agents: map[string]*agent.Agent{"a": a}, Model: llm.Func(model.Func)})
	step, err := runEnv(t, env, input(t, "a", map[string]any{"q": "x"}))
	if err != nil {
		t.Fatal(err)
	}
	if printed(step.Return) != "42" || model.tries["Answer x#1"] != 3 {
		t.Errorf("return %s after %d attempts", printed(step.Return), model.tries["Answer x#1"])
	}

	model = newScripted(map[string][]string{"Answer": {`(return 42)`}})
	model.fail = func(llm.Request, int) error { return &llm.Error{Class: llm.ClassAuth, Message: "bad key"} }
	env = newEnv(t, WorkerOptions{Agents: map[string]*agent.Agent{"a": a}, Model: llm.Func(model.Func)})
	step, err = runEnv(t, env, input(t, "a", map[string]any{"q": "x"}))
	if err == nil || step.Fail.Reason != agent.ReasonLLMError || model.tries["Answer x#1"] != 1 {
		t.Fatalf("fail %+v after %d attempts", step.Fail, model.tries["Answer x#1"])
	}
	if !strings.Contains(step.Fail.Message, "bad key") {
		t.Errorf("message %q", step.Fail.Message)
	}
}

// Cancelling the workflow ends the mission with the reason cancelled.
func TestCancel(t *testing.T) {
	var env *testsuite.TestWorkflowEnvironment
	a := mustAgent(t, agent.Config{Prompt: "Wait {{x}}", MaxTurns: 5, Tools: map[string]agent.Tool{
		"stop": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) {
			env.CancelWorkflow()
			return 1, nil
		}},
	}})
	model := newScripted(map[string][]string{"Wait": {`(tool/stop {})`, `(return 1)`}})
	env = newEnv(t, WorkerOptions{Agents: map[string]*agent.Agent{"a": a}, Model: llm.Func(model.Func)})
	step, err := runEnv(t, env, input(t, "a", map[string]any{"x": 1}))
	var ae *agent.Error
	if !errors.As(err, &ae) || step.Fail.Reason != agent.ReasonCancelled {
		t.Fatalf("step %+v err %v", step, err)
	}
	if model.total() != 1 {
		t.Errorf("%d LLM calls after the cancellation", model.total())
	}
}

// An agent the worker does not have fails the workflow, without retries.
func TestUnknownAgent(t *testing.T) {
	a := mustAgent(t, agent.Config{Prompt: "x"})
	env := newEnv(t, WorkerOptions{Agents: map[string]*agent.Agent{"a": a}, Model: llm.Func(newScripted(nil).Func)})
	env.ExecuteWorkflow(WorkflowName, missionInput{Agent: "b"})
	if err := env.GetWorkflowError(); err == nil || !strings.Contains(err.Error(), `no agent "b"`) {
		t.Fatalf("error %v", err)
	}
}

// A mission past the tree's deadline ends with mission_timeout.
func TestMissionTimeout(t *testing.T) {
	a := mustAgent(t, agent.Config{Prompt: "Slow {{x}}", MaxTurns: 5})
	model := newScripted(map[string][]string{"Slow": {`1`, `2`, `3`, `4`, `5`}})
	env := newEnv(t, WorkerOptions{Agents: map[string]*agent.Agent{"a": a}, Model: llm.Func(model.Func)})
	in := input(t, "a", map[string]any{"x": 1})
	in.Deadline = env.Now().Add(-time.Second) // a nested agent whose tree's deadline passed
	step, err := runEnv(t, env, in)
	if err == nil || step.Fail.Reason != agent.ReasonMissionTimeout {
		t.Fatalf("step %+v err %v", step, err)
	}
	if model.total() > 1 {
		t.Errorf("%d LLM calls past the deadline", model.total())
	}
}

// MaxDepth holds across child workflows: a child past it fails, a tool
// error its caller's program sees.
func TestNestedDepth(t *testing.T) {
	child := mustAgent(t, agent.Config{Prompt: "Deep {{x}}.", Description: "Goes deep.", MaxTurns: 2})
	tool, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := mustAgent(t, agent.Config{Prompt: "Top.", MaxTurns: 3, MaxNesting: 1,
		Tools: map[string]agent.Tool{"deep": tool}})
	model := newScripted(map[string][]string{
		"Top":  {`(tool/deep {:x 1})`, `(return (get-in ctx/fail [:details :child :reason]))`},
		"Deep": {`(return 1)`},
	})
	step, err := runRoot(t, root, llm.Func(model.Func), 0)
	if err != nil {
		t.Fatal(err)
	}
	if printed(step.Return) != ":max_depth_exceeded" || model.total() != 2 {
		t.Fatalf("return %s after %d LLM calls", printed(step.Return), model.total())
	}
}

func sortedLines(s string) string {
	lines := strings.Split(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// A compiled agent is a tool like any other: one activity, no LLM.
func TestCompiledAgentTool(t *testing.T) {
	prices := newCounter()
	pricer := mustAgent(t, agent.Config{Prompt: "Price {{id}}.", Signature: "(id :int) -> :int", Description: "Prices an item.",
		Tools: map[string]agent.Tool{"price": agent.Tool{Func: func(_ context.Context, args *lisp.Map) (any, error) {
			prices.add(args)
			return 5, nil
		}}}})
	compiled, err := pricer.CompileSource(`(return (* 2 (tool/price {:id ctx/id})))`)
	if err != nil {
		t.Fatal(err)
	}
	tool, err := compiled.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := mustAgent(t, agent.Config{Prompt: "Total.", MaxTurns: 3, Tools: map[string]agent.Tool{"pricer": tool}})
	model := newScripted(map[string][]string{"Total": {`(def ps (pmap #(tool/pricer {:id %}) [1 2 3]))`, `(return (reduce + ps))`}})
	step, err := runRoot(t, root, llm.Func(model.Func), 0)
	if err != nil {
		t.Fatal(err)
	}
	if printed(step.Return) != "30" || prices.total() != 3 || len(prices.repeated()) > 0 || model.total() != 2 {
		t.Fatalf("return %s, %d price calls, %d LLM calls", printed(step.Return), prices.total(), model.total())
	}
}

// An LLM tool runs as a child workflow on the model bound to it, by name
// in the worker's registry.
func TestLLMToolBoundModel(t *testing.T) {
	classify, err := agent.NewLLMTool(agent.Config{
		Prompt:      "Label {{subject}}.",
		Signature:   "(subject :string) -> :keyword",
		Description: "Labels a subject.",
		LLM:         llm.Name("small"),
	}, agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := mustAgent(t, agent.Config{Prompt: "Sort mail.", MaxTurns: 2, Tools: map[string]agent.Tool{"classify": classify}})
	big := newScripted(map[string][]string{"Sort": {`(return (tool/classify {:subject "refund please"}))`}})
	small := newScripted(map[string][]string{"Label": {`:refund`}})
	env := newEnv(t, WorkerOptions{Agents: map[string]*agent.Agent{"root": root}, Model: llm.Func(big.Func),
		Registry: llm.Registry{"small": small.Func}})
	step, err := runEnv(t, env, input(t, "root", nil))
	if err != nil {
		t.Fatal(err)
	}
	if printed(step.Return) != ":refund" || big.total() != 1 || small.total() != 1 {
		t.Fatalf("return %s; %d calls of the default model, %d of small", printed(step.Return), big.total(), small.total())
	}
	if step.TotalUsage.Turns != 2 {
		t.Errorf("total usage %+v", step.TotalUsage)
	}
}

// A program that reads the clock makes its tool call with other arguments
// when it runs again: the recorded result is used, with a warning, and the
// tool is not called again.
func TestProgramTimeIsNotDurable(t *testing.T) {
	stamps := newCounter()
	a := mustAgent(t, agent.Config{Prompt: "Stamp {{x}}.", MaxTurns: 3, Tools: map[string]agent.Tool{
		"stamp": agent.Tool{Func: func(_ context.Context, args *lisp.Map) (any, error) {
			stamps.add(args)
			time.Sleep(5 * time.Millisecond)
			return 1, nil
		}},
	}})
	model := newScripted(map[string][]string{"Stamp": {`(tool/stamp {:at (System/currentTimeMillis)})`, `(return 1)`}})
	env := newEnv(t, WorkerOptions{Agents: map[string]*agent.Agent{"a": a}, Model: llm.Func(model.Func)})
	step, err := runEnv(t, env, input(t, "a", map[string]any{"x": 1}))
	if err != nil {
		t.Fatal(err)
	}
	if stamps.total() != 1 || model.total() != 2 {
		t.Fatalf("%d tool calls, %d LLM calls", stamps.total(), model.total())
	}
	found := false
	for _, w := range step.Warnings {
		found = found || strings.Contains(w, "called stamp") && strings.Contains(w, "the recorded result was used")
	}
	if !found {
		t.Errorf("warnings %q", step.Warnings)
	}
}

func TestInvalidOptions(t *testing.T) {
	if _, err := Start(context.Background(), nil, "a", StartOptions{}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("Start: %v", err)
	}
	if err := Register(nil, WorkerOptions{}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("Register without agents: %v", err)
	}
	if err := Register(nil, WorkerOptions{Agents: map[string]*agent.Agent{"a": nil}}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("Register with a nil agent: %v", err)
	}
}

// The plain-data run options travel with the mission: the LLM options and
// caching reach every LLM request, nested agents' included (as in-process),
// and the token limit ends the mission as in-process.
func TestRunOptions(t *testing.T) {
	desk := mustAgent(t, agent.Config{Prompt: "Answer tickets about {{topic}}.", Description: "Answers tickets.", MaxTurns: 2})
	deskTool, err := desk.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	triage := mustAgent(t, agent.Config{Prompt: "Triage everything.", MaxTurns: 3,
		Tools: map[string]agent.Tool{"desk": deskTool}})
	model := newScripted(map[string][]string{
		"Triage":  {`(def n (tool/desk {:topic "refund"}))`, `(return n)`},
		"tickets": {`(return 7)`},
	})
	env := newEnv(t, WorkerOptions{Agents: map[string]*agent.Agent{"triage": triage}, Model: llm.Func(model.Func)})
	in := input(t, "triage", nil)
	in.Run.RunOptions = RunOptions{LLMOptions: map[string]any{"temperature": 0.25}, Cache: true}
	step, err := runEnv(t, env, in)
	if err != nil || printed(step.Return) != "7" {
		t.Fatalf("step %v, err %v", step, err)
	}
	model.mu.Lock()
	reqs := append([]llm.Request(nil), model.reqs...)
	model.mu.Unlock()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, r := range reqs {
		if r.Options["temperature"] != 0.25 || !r.Cache {
			t.Errorf("request for %q: options %v, cache %v", r.Prompt, r.Options, r.Cache)
		}
	}

	// Each request costs 15 tokens: a limit of 20 ends the mission after
	// its second LLM call.
	model = newScripted(map[string][]string{"Triage": {`1`, `2`, `(return 3)`}})
	env = newEnv(t, WorkerOptions{Agents: map[string]*agent.Agent{"triage": triage}, Model: llm.Func(model.Func)})
	in = input(t, "triage", nil)
	in.Run.RunOptions = RunOptions{TokenLimit: 20}
	step, err = runEnv(t, env, in)
	if err == nil || step.Fail.Reason != agent.ReasonBudgetExceeded || model.total() != 2 {
		t.Errorf("fail %+v after %d LLM calls, err %v", step.Fail, model.total(), err)
	}
}

// RunOptions travel in a mission's input as older histories wrote them:
// ReturnPartialOnBudget as OnBudgetExceeded 1, InputSignature as
// ContextSignature; an input read back gives the same options.
func TestRunOptionsWire(t *testing.T) {
	cases := []struct {
		name string
		run  RunOptions
		wire string
	}{
		{"zero", RunOptions{}, `{}`},
		{"partial", RunOptions{ReturnPartialOnBudget: true, TokenLimit: 9},
			`{"TokenLimit":9,"OnBudgetExceeded":1}`},
		{"signature", RunOptions{InputSignature: "{n :int}"}, `{"ContextSignature":"{n :int}"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(missionInput{Agent: "a", Run: runWire{c.run}})
			if err != nil {
				t.Fatal(err)
			}
			var raw struct{ Run json.RawMessage }
			if err := json.Unmarshal(b, &raw); err != nil || string(raw.Run) != c.wire {
				t.Fatalf("Run on the wire %s (err %v), want %s", raw.Run, err, c.wire)
			}
			var back missionInput
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if back.Run.options().ReturnPartialOnBudget != c.run.ReturnPartialOnBudget ||
				back.Run.TokenLimit != c.run.TokenLimit || back.Run.InputSignature != c.run.InputSignature {
				t.Errorf("read back %+v, want %+v", back.Run.RunOptions, c.run)
			}
		})
	}
}
