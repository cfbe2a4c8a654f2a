package agent_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/internal/engine"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// syncRecorder records events; safe for the watchdog's goroutine, which
// reports the end of an abandoned mission.
type syncRecorder struct {
	mu     sync.Mutex
	events []agent.Event
}

func (r *syncRecorder) Observe(_ context.Context, e *agent.Event) {
	r.mu.Lock()
	r.events = append(r.events, *e)
	r.mu.Unlock()
}

func (r *syncRecorder) all() []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agent.Event(nil), r.events...)
}

// panicky is a context value whose conversion panics (lisp.FromGo calls
// MarshalJSON): a host fault outside any callback the loop guards itself.
type panicky struct{}

func (panicky) MarshalJSON() ([]byte, error) { panic("MarshalJSON exploded") }

// ignore makes a model of an LLM callback.
func ignore(f llm.Func) func(*testing.T, context.CancelFunc) llm.Func {
	return func(*testing.T, context.CancelFunc) llm.Func { return f }
}

// blocked is an LLM callback that ignores its context until the test ends.
func blocked(t *testing.T, _ context.CancelFunc) llm.Func {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	return func(context.Context, llm.Request) (llm.Response, error) {
		<-release
		return llm.Response{Content: "```clojure\n(return 1)\n```"}, nil
	}
}

// waitsForCtx is an LLM callback that returns when its context ends.
func waitsForCtx(ctx context.Context, _ llm.Request) (llm.Response, error) {
	<-ctx.Done()
	return llm.Response{}, ctx.Err()
}

// endCase is one way a run can end.
type endCase struct {
	name string
	cfg  agent.Config // Prompt "p" unless set
	// model answers the LLM calls (default: a script of replies); cancel
	// cancels the caller's context.
	model   func(t *testing.T, cancel context.CancelFunc) llm.Func
	replies []llmtest.Reply
	opts    func(*agent.Options)
	// ctx, when set, makes the caller's context (the case needs one of
	// its own: a cancel, a deadline).
	ctx func() (context.Context, context.CancelFunc)
	// run runs the mission (default: (*agent.Agent).Run of the case's agent).
	run func(ctx context.Context, a *agent.Agent, opts agent.Options) (*agent.Step, error)
	// noEvents: the run has no observers (a tool's Func called from Go).
	noEvents bool
	// guardedOnly: the case cannot run on the caller's goroutine.
	guardedOnly bool

	end    agent.EventKind // the root's end event
	reason string          // "" for success
	turns  int             // Usage.Turns of the root
	// nested is how many missions (each with its own trace id) the tree
	// has, the root included; 0 means 1.
	nested int
	check  func(t *testing.T, step *agent.Step, events []agent.Event)
}

// TestEveryRunEnds: however a run ends, no panic escapes, the root emits
// exactly one start and one end event (paired by trace id), the end event
// is of the right kind (run.exception for a host fault, with a stack),
// every nested mission's events pair up too, and the Step has its usage
// and the trace of the turns so far. Each case runs guarded (a context
// that can end: the mission runs on its own goroutine) and unguarded
// (context.Background, no timeouts: the mission runs on the caller's).
func TestEveryRunEnds(t *testing.T) {
	for _, mode := range []string{"guarded", "unguarded"} {
		// Fresh cases for each mode: some count calls.
		for _, c := range endCases(t) {
			if c.guardedOnly && mode != "guarded" {
				continue
			}
			t.Run(mode+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				runEndCase(t, mode, c)
			})
		}
	}
}

func endCases(t *testing.T) []endCase {
	boom := func(...any) { panic("boom") }
	child := func(cfg agent.Config) agent.Tool {
		cfg.Description = "a child"
		if cfg.Prompt == "" {
			cfg.Prompt = "child"
		}
		tool, err := agent.MustNew(cfg).AsTool(agent.AsToolOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tool
	}
	compiled, err := agent.MustNew(agent.Config{Prompt: "c", Description: "doubles",
		Signature: "(n :int) -> :int"}).CompileSource(`(* 2 ctx/n)`)
	if err != nil {
		t.Fatal(err)
	}
	compiledTool, err := compiled.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	broken, err := agent.MustNew(agent.Config{Prompt: "c", Description: "fails"}).CompileSource(`(/ 1 nil)`)
	if err != nil {
		t.Fatal(err)
	}
	brokenTool, err := broken.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	transforms := 0
	cases := []endCase{
		{name: "return", replies: []llmtest.Reply{llmtest.Code("(return 1)")}, end: agent.RunStop, turns: 1},
		{name: "fail by program", replies: []llmtest.Reply{llmtest.Code(`(fail {:reason :nope :message "no"})`)},
			end: agent.RunStop, reason: "nope", turns: 1},
		{name: "max turns", cfg: agent.Config{MaxTurns: 2},
			replies: []llmtest.Reply{llmtest.Code("1"), llmtest.Code("2")},
			end:     agent.RunStop, reason: string(agent.ReasonMaxTurnsExceeded), turns: 2},
		{name: "max depth (engine position)", ctx: func() (context.Context, context.CancelFunc) {
			return engine.WithHooks(context.Background(), &engine.Hooks{Position: &engine.Position{Depth: 2, MaxDepth: 2, TurnsLeft: 5, BudgetSize: 5}}), func() {}
		}, end: agent.RunStop, reason: string(agent.ReasonMaxDepthExceeded)},
		{name: "max depth (nested)", cfg: agent.Config{MaxNesting: 1, Tools: map[string]agent.Tool{"kid": child(agent.Config{})}},
			replies: []llmtest.Reply{llmtest.Code(`(tool/kid {})`), llmtest.Code("(return 2)")},
			end:     agent.RunStop, turns: 2, nested: 2},
		{name: "turn budget", cfg: agent.Config{MaxTreeTurns: 1, MaxTurns: 3},
			replies: []llmtest.Reply{llmtest.Code("1"), llmtest.Code("2")},
			end:     agent.RunStop, reason: string(agent.ReasonTurnBudgetExhausted), turns: 1},
		// The deadlines below leave a busy machine time to reach the first
		// turn (the model then waits for the end), so that the turn is
		// there to count; a tighter one can pass before the turn starts.
		{name: "mission timeout", cfg: agent.Config{MissionTimeout: 400 * time.Millisecond}, model: ignore(waitsForCtx),
			end: agent.RunStop, reason: string(agent.ReasonMissionTimeout), turns: 1},
		{name: "caller cancel", ctx: func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			model: func(_ *testing.T, cancel context.CancelFunc) llm.Func {
				return func(ctx context.Context, _ llm.Request) (llm.Response, error) {
					cancel()
					return llm.Response{}, ctx.Err()
				}
			},
			end: agent.RunStop, reason: string(agent.ReasonCancelled), turns: 1},
		{name: "caller deadline",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 400*time.Millisecond)
			},
			model: ignore(waitsForCtx), end: agent.RunStop, reason: string(agent.ReasonMissionTimeout), turns: 1},
		{name: "llm error after retries", cfg: agent.Config{LLMRetry: llm.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond}},
			replies: []llmtest.Reply{llmtest.Fail(&llm.Error{Class: llm.ClassServerError}), llmtest.Fail(&llm.Error{Class: llm.ClassServerError})},
			end:     agent.RunStop, reason: string(agent.ReasonLLMError), turns: 1,
			check: func(t *testing.T, step *agent.Step, _ []agent.Event) {
				if step.Usage.LLMRequests != 2 {
					t.Errorf("LLMRequests %d, want 2", step.Usage.LLMRequests)
				}
			}},
		{name: "llm config error", opts: func(o *agent.Options) { o.LLM, o.Registry = llm.Name("nope"), llm.Registry{} },
			end: agent.RunStop, reason: string(agent.ReasonLLMNotFound)},
		{name: "budget callback", replies: []llmtest.Reply{{Content: "```clojure\n1\n```", Tokens: llm.Tokens{Input: 10, Output: 5}}},
			opts: func(o *agent.Options) { o.Budget = func(agent.Usage) bool { return false } },
			end:  agent.RunStop, reason: string(agent.ReasonBudgetExceeded), turns: 1,
			check: func(t *testing.T, step *agent.Step, _ []agent.Event) {
				if step.Usage.Tokens.Total() != 15 {
					t.Errorf("tokens %+v, want 15", step.Usage.Tokens)
				}
			}},
		{name: "token limit", replies: []llmtest.Reply{{Content: "```clojure\n1\n```", Tokens: llm.Tokens{Input: 10, Output: 5}}},
			opts: func(o *agent.Options) { o.TokenLimit = 1 },
			end:  agent.RunStop, reason: string(agent.ReasonBudgetExceeded), turns: 1},
		{name: "chained failure", opts: func(o *agent.Options) {
			o.Input = &agent.Step{Fail: &agent.Fail{Reason: "x", Message: "upstream"}}
		}, end: agent.RunStop, reason: string(agent.ReasonChainedFailure)},
		{name: "template error", cfg: agent.Config{Prompt: "{{missing}}"}, end: agent.RunStop, reason: string(agent.ReasonTemplateError)},
		{name: "input validation", cfg: agent.Config{Signature: "(n :int) -> :int"},
			opts: func(o *agent.Options) { o.Input = map[string]any{"n": "many"} },
			end:  agent.RunStop, reason: string(agent.ReasonValidationError)},
		{name: "memory limit", cfg: agent.Config{MaxAgentMemory: 1000},
			replies: []llmtest.Reply{llmtest.Code(`(def big (vec (range 1000)))`), llmtest.Code(`(def big (vec (range 999)))`)},
			end:     agent.RunStop, reason: string(agent.ReasonMemoryLimitExceeded), turns: 2},
		{name: "nil agent", run: func(ctx context.Context, _ *agent.Agent, opts agent.Options) (*agent.Step, error) {
			var a *agent.Agent
			return a.Run(ctx, opts)
		}, end: agent.RunStop, reason: "invalid_config"},
		{name: "single-shot program error", cfg: agent.Config{MaxTurns: 1}, replies: []llmtest.Reply{llmtest.Code("(/ 1 nil)")},
			end: agent.RunStop, reason: string(agent.ReasonEvalError), turns: 1},
		{name: "single-shot no code", cfg: agent.Config{MaxTurns: 1}, replies: []llmtest.Reply{llmtest.Text("no program")},
			end: agent.RunStop, reason: string(agent.ReasonNoCodeFound), turns: 1},

		// Host faults: run.exception, internal_error, the turn so far kept.
		{name: "Transform panics", cfg: agent.Config{Presentation: prompt.Options{Transform: func(string) string { boom(); return "" }}},
			end: agent.RunException, reason: string(agent.ReasonInternalError),
			check: wantOp("Presentation.Transform")},
		{name: "Transform panics on turn 2", cfg: agent.Config{
			Presentation: prompt.Options{ // With a LanguageFunc, the prompt is made on every turn.
				LanguageFunc: func(prompt.State) string { return "" }, Transform: func(p string) string {
					if transforms++; transforms == 2 {
						boom()
					}
					return p
				}},
		},
			replies: []llmtest.Reply{llmtest.Code("1"), llmtest.Code("2")},
			end:     agent.RunException, reason: string(agent.ReasonInternalError), turns: 2,
			check: func(t *testing.T, step *agent.Step, _ []agent.Event) {
				if tr := step.Trace; len(tr) == 2 && (tr[0].Error != "" || !strings.Contains(tr[1].Error, "boom")) {
					t.Errorf("turn errors %q, %q; want turn 2's to tell of the panic", tr[0].Error, tr[1].Error)
				}
			}},
		{name: "LanguageFunc panics", cfg: agent.Config{Presentation: prompt.Options{LanguageFunc: func(prompt.State) string { boom(); return "" }}},
			end: agent.RunException, reason: string(agent.ReasonInternalError), turns: 1, check: wantOp("Presentation.LanguageFunc")},
		{name: "Budget panics", replies: []llmtest.Reply{{Content: "```clojure\n1\n```", Tokens: llm.Tokens{Input: 10, Output: 5}}},
			opts: func(o *agent.Options) { o.Budget = func(agent.Usage) bool { boom(); return true } },
			end:  agent.RunException, reason: string(agent.ReasonInternalError), turns: 1,
			check: func(t *testing.T, step *agent.Step, events []agent.Event) {
				wantOp("Options.Budget")(t, step, events)
				if step.Usage.Tokens.Total() != 15 || step.Usage.LLMRequests != 1 {
					t.Errorf("usage %+v, want the turn's 15 tokens and 1 request", step.Usage)
				}
			}},
		// On the mission's goroutine, runtime.Goexit (t.FailNow in a
		// callback) ends the mission as a panic does; on the caller's, it
		// ends the caller's goroutine, as it would anywhere.
		{name: "Budget calls runtime.Goexit", guardedOnly: true,
			replies: []llmtest.Reply{llmtest.Code("1")},
			opts:    func(o *agent.Options) { o.Budget = func(agent.Usage) bool { runtime.Goexit(); return true } },
			end:     agent.RunException, reason: string(agent.ReasonInternalError), turns: 1, check: wantOp("Options.Budget")},
		{name: "context conversion panics", opts: func(o *agent.Options) { o.Input = map[string]any{"x": panicky{}} },
			end: agent.RunException, reason: string(agent.ReasonInternalError)},
		{name: "observer panics", replies: []llmtest.Reply{llmtest.Code("1"), llmtest.Code("(return 2)")},
			opts: func(o *agent.Options) {
				o.Observers = append(o.Observers, agent.ObserverFunc(func(_ context.Context, e *agent.Event) {
					if e.Kind == agent.TurnStop {
						boom()
					}
				}))
			}, end: agent.RunStop, turns: 2,
			check: func(t *testing.T, step *agent.Step, _ []agent.Event) {
				if !strings.Contains(strings.Join(step.Warnings, "\n"), "panicked on turn.stop") {
					t.Errorf("warnings %q", step.Warnings)
				}
			}},
		{name: "tool panics", cfg: agent.Config{Tools: map[string]agent.Tool{
			"bad": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) { boom(); return nil, nil }}}},
			replies: []llmtest.Reply{llmtest.Code("(tool/bad {})"), llmtest.Code("(return 2)")},
			end:     agent.RunStop, turns: 2,
			check: func(t *testing.T, step *agent.Step, _ []agent.Event) {
				if calls := step.Trace[0].ToolCalls; len(calls) != 1 || !strings.Contains(calls[0].Error, "panicked") {
					t.Errorf("turn 1 tool calls %+v", calls)
				}
			}},
		{name: "tool result conversion panics", cfg: agent.Config{Tools: map[string]agent.Tool{
			"bad": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) { return panicky{}, nil }}}},
			replies: []llmtest.Reply{llmtest.Code("(tool/bad {})"), llmtest.Code("(return 2)")},
			end:     agent.RunStop, turns: 2,
			check: func(t *testing.T, step *agent.Step, _ []agent.Event) {
				if calls := step.Trace[0].ToolCalls; len(calls) != 1 || !strings.Contains(calls[0].Error, "MarshalJSON exploded") {
					t.Errorf("turn 1 tool calls %+v", calls)
				}
			}},
		{name: "LLM callback panics",
			model: ignore(func(context.Context, llm.Request) (llm.Response, error) { panic("boom") }),
			end:   agent.RunStop, reason: string(agent.ReasonLLMError), turns: 1},
		{name: "LLM hook panics", ctx: func() (context.Context, context.CancelFunc) {
			return engine.WithHooks(context.Background(), &engine.Hooks{LLM: func(context.Context, engine.LLMCall) (engine.LLMReply, error) { panic("boom") }}), func() {}
		}, end: agent.RunStop, reason: string(agent.ReasonLLMError), turns: 1},
		{name: "LLM callback abandoned (LLMTimeout)", cfg: agent.Config{LLMTimeout: 20 * time.Millisecond},
			model: blocked, end: agent.RunStop, reason: string(agent.ReasonLLMError), turns: 1},
		{name: "LLM callback abandoned (MissionTimeout)", cfg: agent.Config{MissionTimeout: 400 * time.Millisecond},
			model: blocked, end: agent.RunStop, reason: string(agent.ReasonMissionTimeout), turns: 1},
		{name: "nested agent panics", cfg: agent.Config{Tools: map[string]agent.Tool{"kid": child(agent.Config{
			Presentation: prompt.Options{Transform: func(string) string { boom(); return "" }},
		})}},
			replies: []llmtest.Reply{llmtest.Code(`(tool/kid {})`), llmtest.Code("(return 2)")},
			end:     agent.RunStop, turns: 2, nested: 2,
			check: func(t *testing.T, _ *agent.Step, events []agent.Event) {
				var kinds []agent.EventKind
				for _, e := range events {
					if e.Depth == 1 && (e.Kind == agent.RunStop || e.Kind == agent.RunException) {
						kinds = append(kinds, e.Kind)
					}
				}
				if len(kinds) != 1 || kinds[0] != agent.RunException {
					t.Errorf("the child's end events %v, want one run.exception", kinds)
				}
			}},
		{name: "compiled agent as a tool", cfg: agent.Config{Tools: map[string]agent.Tool{"double": compiledTool}},
			replies: []llmtest.Reply{llmtest.Code(`(return (tool/double {:n 2}))`)},
			end:     agent.RunStop, turns: 1, nested: 2},
		{name: "compiled agent fails as a tool", cfg: agent.Config{Tools: map[string]agent.Tool{"broken": brokenTool}},
			replies: []llmtest.Reply{llmtest.Code(`(tool/broken {})`), llmtest.Code(`(return 0)`)},
			end:     agent.RunStop, turns: 2, nested: 2},
		{name: "compile", cfg: agent.Config{Presentation: prompt.Options{Transform: func(string) string { boom(); return "" }}},
			run: func(ctx context.Context, a *agent.Agent, opts agent.Options) (*agent.Step, error) {
				c, err := a.Compile(ctx, opts)
				if c != nil || err == nil {
					return nil, fmt.Errorf("Compile: %v, %v", c, err)
				}
				var ae *agent.Error
				if !errors.As(err, &ae) {
					return nil, fmt.Errorf("Compile: %v is no *agent.Error", err)
				}
				return ae.Step, err
			}, end: agent.RunException, reason: string(agent.ReasonInternalError)},
		{name: "pipeline", cfg: agent.Config{Presentation: prompt.Options{Transform: func(string) string { boom(); return "" }}},
			run: func(ctx context.Context, a *agent.Agent, opts agent.Options) (*agent.Step, error) {
				steps, err := agent.Pipeline{a, a}.Run(ctx, opts)
				if len(steps) != 2 || steps[1].Fail == nil || steps[1].Fail.Reason != agent.ReasonChainedFailure {
					return nil, fmt.Errorf("pipeline steps %v", steps)
				}
				return steps[0], err
			}, end: agent.RunException, reason: string(agent.ReasonInternalError), nested: 2},
		{name: "agent tool called from Go", cfg: agent.Config{
			Description:  "d",
			Presentation: prompt.Options{Transform: func(string) string { boom(); return "" }},
		},
			run: func(ctx context.Context, a *agent.Agent, opts agent.Options) (*agent.Step, error) {
				tool, err := a.AsTool(agent.AsToolOptions{LLM: opts.LLM})
				if err != nil {
					return nil, err
				}
				_, err = tool.Func(ctx, nil)
				var ae *agent.Error
				if !errors.As(err, &ae) {
					return nil, fmt.Errorf("tool error %v", err)
				}
				return ae.Step, err
			}, noEvents: true, end: agent.RunException, reason: string(agent.ReasonInternalError)},
	}
	return cases
}

func wantOp(op string) func(*testing.T, *agent.Step, []agent.Event) {
	return func(t *testing.T, step *agent.Step, _ []agent.Event) {
		t.Helper()
		if step.Fail.Op != op {
			t.Errorf("Fail.Op %q, want %q (%s)", step.Fail.Op, op, step.Fail.Message)
		}
		// The stack shows the host's code.
		if stack, _ := step.Fail.Details["stack"].(string); !strings.Contains(stack, "ends_test.go") {
			t.Errorf("the stack does not show the callback:\n%s", stack)
		}
	}
}

func runEndCase(t *testing.T, mode string, c endCase) {
	cfg := c.cfg
	if cfg.Prompt == "" {
		cfg.Prompt = "p"
	}
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if c.ctx != nil {
		ctx, cancel = c.ctx()
	} else if mode == "guarded" {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	if cfg.LLMTimeout == 0 {
		cfg.LLMTimeout = 5 * time.Minute // a context of its own: guarded
		if mode == "unguarded" {
			cfg.LLMTimeout = -1
		}
	}
	var model llm.Func
	if c.model != nil {
		model = c.model(t, cancel)
	} else {
		model = llmtest.NewScript(c.replies...).Func()
	}
	rec := &syncRecorder{}
	opts := agent.Options{LLM: model, Observers: []agent.Observer{rec}}
	if c.opts != nil {
		c.opts(&opts)
	}
	var step *agent.Step
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("a panic escaped: %v", r)
			}
		}()
		switch {
		case c.run != nil:
			var a *agent.Agent
			if c.name != "nil agent" {
				a = agent.MustNew(cfg)
			}
			step, err = c.run(ctx, a, opts)
		default:
			step, err = agent.MustNew(cfg).Run(ctx, opts)
		}
	}()
	if step == nil {
		t.Fatalf("no Step (err %v)", err)
	}
	reason := ""
	if step.Fail != nil {
		reason = string(step.Fail.Reason)
	}
	if reason != c.reason {
		t.Errorf("reason %q, want %q (%v)", reason, c.reason, step.Fail)
	}
	if (err != nil) != (c.reason != "") {
		t.Errorf("err %v", err)
	}
	if step.Usage.Turns != c.turns {
		t.Errorf("Usage.Turns %d, want %d", step.Usage.Turns, c.turns)
	}
	if len(step.Trace) != c.turns {
		t.Errorf("%d turns in the trace, want %d", len(step.Trace), c.turns)
	}
	if step.Memory == nil {
		t.Error("no Memory")
	}
	if step.TraceID == "" {
		t.Error("no TraceID")
	}
	if c.end == agent.RunException {
		if stack, _ := step.Fail.Details["stack"].(string); !strings.Contains(stack, "goroutine") {
			t.Errorf("no stack in Fail.Details: %v", step.Fail.Details)
		}
	}

	if c.check != nil {
		c.check(t, step, rec.all())
	}
	if c.noEvents {
		return
	}
	// The events: one start and one end per mission, paired by trace id;
	// the root's end is of the right kind and reports the Step's usage.
	events := rec.all()
	starts, ends := map[string]int{}, map[string]int{}
	turnStarts, turnStops := map[string]int{}, map[string]int{}
	calls := map[uint64]int{} // LLM and tool calls: +1 at the start, -1 at the end
	var rootEnd *agent.Event
	for i, e := range events {
		switch e.Kind {
		case agent.LLMStart, agent.ToolStart:
			calls[e.CallID]++
		case agent.LLMStop, agent.LLMException, agent.ToolStop, agent.ToolException:
			calls[e.CallID]--
		case agent.RunStart:
			starts[e.TraceID]++
		case agent.RunStop, agent.RunException:
			ends[e.TraceID]++
			if e.TraceID == step.TraceID {
				rootEnd = &events[i]
			}
		case agent.TurnStart:
			turnStarts[e.TraceID]++
		case agent.TurnStop:
			turnStops[e.TraceID]++
		}
	}
	want := max(c.nested, 1)
	if len(starts) != want || len(ends) != want {
		t.Errorf("%d missions started and %d ended, want %d: %s", len(starts), len(ends), want, kinds(events))
	}
	for id, n := range starts {
		if n != 1 || ends[id] != 1 {
			t.Errorf("mission %s: %d starts, %d ends: %s", id, n, ends[id], kinds(events))
		}
		if turnStarts[id] != turnStops[id] {
			t.Errorf("mission %s: %d turn.start, %d turn.stop", id, turnStarts[id], turnStops[id])
		}
	}
	for id, n := range calls {
		// An abandoned LLM call never reports its end: its callback never
		// returned.
		if n != 0 && !strings.Contains(c.name, "abandoned") {
			t.Errorf("call %d: %d more starts than ends: %s", id, n, kinds(events))
		}
	}
	if rootEnd == nil {
		t.Fatalf("no end event for the root %s: %s", step.TraceID, kinds(events))
	}
	if rootEnd.Kind != c.end {
		t.Errorf("end event %s, want %s", rootEnd.Kind, c.end)
	}
	if rootEnd.Usage.Turns != step.Usage.Turns || rootEnd.Usage.Tokens != step.Usage.Tokens {
		t.Errorf("end event usage %+v, Step's %+v", rootEnd.Usage, step.Usage)
	}
	var endFail *agent.Fail
	errors.As(rootEnd.Err, &endFail)
	if (endFail == nil) != (step.Fail == nil) || (endFail != nil && endFail.Reason != step.Fail.Reason) {
		t.Errorf("end event fail %v, Step's %v", rootEnd.Err, step.Fail)
	}
}

// TestExecuteNeverPanics: a compiled agent's Execute ends a host fault
// (an input whose conversion panics) with internal_error, and a tool's
// panic with the tool's error.
func TestExecuteNeverPanics(t *testing.T) {
	a := agent.MustNew(agent.Config{Prompt: "c", Tools: map[string]agent.Tool{
		"bad": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) { panic("boom") }}}})
	c, err := a.CompileSource(`(tool/bad {:x ctx/x})`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		input  any
		reason string
	}{
		{"tool panics", map[string]any{"x": 1}, string(agent.ReasonToolError)},
		{"input conversion panics", map[string]any{"x": panicky{}}, string(agent.ReasonInternalError)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var step *agent.Step
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("a panic escaped: %v", r)
					}
				}()
				step, err = c.Execute(context.Background(), tc.input)
			}()
			if err == nil || step.Fail == nil || string(step.Fail.Reason) != tc.reason {
				t.Fatalf("step %+v, err %v; want %s", step, err, tc.reason)
			}
			if step.TraceID == "" || step.Memory == nil {
				t.Errorf("step %+v", step)
			}
		})
	}
}

// TestPreviewPromptNeverPanics: a panicking prompt hook is an error of
// PreviewPrompt.
func TestPreviewPromptNeverPanics(t *testing.T) {
	a := agent.MustNew(agent.Config{
		Prompt:       "p",
		Presentation: prompt.Options{Transform: func(string) string { panic("boom") }},
	})
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("a panic escaped: %v", r)
			}
		}()
		_, err = a.Preview(agent.Options{})
	}()
	var f *agent.Fail
	if !errors.As(err, &f) || f.Reason != agent.ReasonInternalError || f.Op != "Presentation.Transform" {
		t.Errorf("err %v", err)
	}
}

// TestMessagesWithLanguageFunc: the system message of
// Step.Messages is the last one sent, also when a LanguageFunc builds the
// prompt on every turn.
func TestMessagesWithLanguageFunc(t *testing.T) {
	s := llmtest.NewScript(llmtest.Code("1"), llmtest.Code("(return 2)"))
	a := agent.MustNew(agent.Config{
		Prompt:       "p",
		Presentation: prompt.Options{LanguageFunc: func(st prompt.State) string { return fmt.Sprintf("Language of turn %d.", st.Turn) }},
	})
	step, err := a.Run(context.Background(), agent.Options{LLM: s.Func(), Trace: agent.TraceConversation})
	if err != nil {
		t.Fatal(err)
	}
	last := s.Requests()[1].System
	if len(step.Messages) == 0 || step.Messages[0].Role != llm.System || step.Messages[0].Content != last {
		t.Fatalf("Messages[0] %+v, want the system prompt of turn 2", step.Messages[:min(1, len(step.Messages))])
	}
	if !strings.Contains(last, "Language of turn 2.") {
		t.Errorf("turn 2's system prompt lacks its language: %q", last)
	}
}

// meeting shows that calls run at once without a sleep whose length a
// busy machine defeats: each call waits until n calls are in at once (or
// a minute passes, when they run one after the other).
type meeting struct {
	mu       sync.Mutex
	n        int
	in, peak int
	met      chan struct{}
}

func newMeeting(n int) *meeting { return &meeting{n: n, met: make(chan struct{})} }

// enter waits for the meeting; the caller calls leave when it is done.
func (m *meeting) enter() (leave func()) {
	m.mu.Lock()
	m.in++
	m.peak = max(m.peak, m.in)
	if m.in == m.n {
		select {
		case <-m.met:
		default:
			close(m.met)
		}
	}
	m.mu.Unlock()
	select {
	case <-m.met:
	case <-time.After(time.Minute):
	}
	return func() {
		m.mu.Lock()
		m.in--
		m.mu.Unlock()
	}
}

// maxAtOnce is the most calls that were in at once.
func (m *meeting) maxAtOnce() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.peak
}
