package agent_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/internal/leaks"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// Hostile tests of the composition layer: agents called as tools, LLM
// tools and compiled agents, attacked by the programs an LLM writes at
// every level of the tree. Every test is deterministic: scripted models
// route by the mission prompt and the turn, limits are asserted by counts,
// and wall-clock bounds are generous.
//
// All names of this file start with hx (or TestHostile), so as not to
// collide with the other tests of package agent_test.

// ---------------------------------------------------------------------
// Secrets and leak detection
// ---------------------------------------------------------------------

// The secrets, fragments and composed missions are internal/leaks's,
// shared with the firewall-sinks test of cmd/ptc.
var hxSecrets = leaks.TreeSecrets

const (
	hxPinLeaf    = leaks.PinLeaf
	hxCompSecret = leaks.CompSecret
)

// hxGenerous is a per-program timeout no test here needs: counts and the
// MissionTimeout decide.
const hxGenerous = 2 * time.Minute

// hxSafetyNet is the MissionTimeout of the roots of the limit tests: a
// limit that does not hold makes them fail, rather than run for ever.
// (Every such tree ends in milliseconds when the limits hold.)
const hxSafetyNet = time.Minute

// hxStuckTimeout is the MissionTimeout of the trees whose calls block:
// long enough for a busy machine to reach the blocking calls before it
// (the tests check that they were reached), short enough to keep the
// tests quick. What the tests check is the kind of ending, not its time.
const hxStuckTimeout = 2 * time.Second

// hxLeak returns the first fragment of a secret found in text, "" if none.
func hxLeak(text string, secrets []string) string { return leaks.Find(text, secrets...) }

// hxScan checks every text of every request a model received: the system
// prompt, the mission prompt and every message.
func hxScan(t *testing.T, model string, reqs []llm.Request, secrets []string) {
	t.Helper()
	errs := 0
	for i, req := range reqs {
		texts := map[string]string{"system": req.System, "prompt": req.Prompt}
		for j, m := range req.Messages {
			texts[fmt.Sprintf("message %d (%s)", j, m.Role)] = m.Content
		}
		for where, text := range texts {
			if f := hxLeak(text, secrets); f != "" {
				errs++
				if errs <= 5 {
					k := strings.Index(text, f)
					t.Errorf("%s: request %d (turn %d, prompt %.40q), %s leaks %q: ...%s...",
						model, i+1, req.Turn, req.Prompt, where, f, text[max(0, k-200):min(len(text), k+100)])
				}
			}
		}
	}
	if errs > 5 {
		t.Errorf("%s: %d leaking texts in all", model, errs)
	}
}

// hxCheckFail checks the texts of a Fail, which a parent's LLM may read.
func hxCheckFail(t *testing.T, what string, f *agent.Fail, secrets []string) {
	t.Helper()
	if f == nil {
		return
	}
	for _, text := range []string{string(f.Reason), f.Message, f.Op} {
		if l := hxLeak(text, secrets); l != "" {
			t.Errorf("%s: the Fail leaks %q: %q", what, l, text)
		}
	}
}

// ---------------------------------------------------------------------
// Scripted models
// ---------------------------------------------------------------------

// hxRouter is a scripted model for a tree (leaks.Router): each route is a
// mission prompt prefix and the programs of its turns.
type hxRouter = leaks.Router

// hxCount counts the requests whose prompt starts with prefix.
func hxCount(reqs []llm.Request, prefix string) int {
	n := 0
	for _, r := range reqs {
		if strings.HasPrefix(r.Prompt, prefix) {
			n++
		}
	}
	return n
}

// hxSleepy wraps a model: each call first waits d, honouring its context.
func hxSleepy(d time.Duration, next llm.Func) llm.Func {
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return llm.Response{}, ctx.Err()
		}
		return next(ctx, req)
	}
}

// hxStubborn is a model that ignores its context: it blocks until release
// is closed. calls counts its calls.
func hxStubborn(release <-chan struct{}, calls *atomic.Int64) llm.Func {
	return func(context.Context, llm.Request) (llm.Response, error) {
		calls.Add(1)
		<-release
		return llm.Response{Content: "```clojure\n(return 1)\n```"}, nil
	}
}

// ---------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------

// hxTool unwraps AsTool and NewLLMTool, whose configurations here are
// static: an error is a broken test.
func hxTool(tool agent.Tool, err error) agent.Tool {
	if err != nil {
		panic(err)
	}
	return tool
}

func hxNew(t *testing.T, cfg agent.Config) *agent.Agent {
	t.Helper()
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// hxGet walks a value by keyword keys.
func hxGet(v lisp.Value, keys ...string) lisp.Value {
	for _, k := range keys {
		m, ok := v.(*lisp.Map)
		if !ok {
			return nil
		}
		v, _ = m.Get(lisp.Keyword(k))
	}
	return v
}

// hxDump logs a step's trace, cut, when the test failed.
func hxDump(t *testing.T, step *agent.Step) {
	t.Helper()
	if !t.Failed() || step == nil {
		return
	}
	var b bytes.Buffer
	_ = trace.Print(&b, step, trace.Options{NoTimings: true})
	s := b.String()
	if len(s) > 30000 {
		s = s[:30000] + "\n... (cut)"
	}
	t.Logf("trace:\n%s", s)
}

// hxChildren calls visit for every nested Step of step's tree, with its
// depth (1 for the root's children).
func hxChildren(step *agent.Step, depth int, visit func(child *agent.Step, depth int)) {
	if step == nil {
		return
	}
	for _, turn := range step.Trace {
		for _, call := range turn.ToolCalls {
			if call.Child != nil {
				visit(call.Child, depth+1)
				hxChildren(call.Child, depth+1, visit)
			}
		}
	}
}

// hxSettle waits for the goroutines started since before to end, and
// reports those left behind.
func hxSettle(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // generous: a busy machine ends them late
	for {
		n := runtime.NumGoroutine()
		if n <= before {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Errorf("goroutines left behind: %d before the run, %d after:\n%s", before, n, buf)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hxBaseline returns the number of goroutines once the count is stable
// (earlier tests' goroutines may still be ending).
func hxBaseline() int {
	n := runtime.NumGoroutine()
	for i := 0; i < 50; i++ {
		time.Sleep(5 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			return n
		}
		n = m
	}
	return n
}

// hxLevel reads the number after the marker in a prompt ("HXLEVEL 3" -> 3).
func hxLevel(prompt, marker string) int {
	rest, ok := strings.CutPrefix(prompt, marker)
	if !ok {
		return -1
	}
	rest = strings.TrimSpace(rest)
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	n, err := strconv.Atoi(rest[:end])
	if err != nil {
		return -1
	}
	return n
}

// ---------------------------------------------------------------------
// 1. The firewall across three levels
// ---------------------------------------------------------------------

// The tree: root -> mid (an agent tool) -> leaf (an agent tool), with an
// LLM tool (judge, with its own model) at the root and in mid, and a
// compiled agent in mid. Secrets of every shape start at every level: the
// root's context (_secret, cfg._key, _pin), mid's tool (_mtok), the leaf's
// tool (_token, _pin, nested._deep), the compiled agent's tool (_ctok).
// Hostile programs at every level move them up (non-_ keys, failure
// messages, keys, memory names) and down (public arguments, prompt
// placeholders), and print them every way they can.
func TestHostileFirewallTree(t *testing.T) {
	for i := range hxSecrets {
		rootS := hxSecrets[i]
		midS := hxSecrets[(i+1)%len(hxSecrets)]
		leafS := hxSecrets[(i+2)%len(hxSecrets)]
		deepS := hxSecrets[(i+3)%len(hxSecrets)]
		t.Run(fmt.Sprintf("root secret of %d bytes", len(rootS)), func(t *testing.T) {
			hxFirewallTree(t, rootS, midS, leafS, deepS)
		})
	}
}

func hxFirewallTree(t *testing.T, rootS, midS, leafS, deepS string) {
	before := hxBaseline()
	secrets := leaks.TreeTexts(rootS, midS, leafS, deepS)

	tree, err := leaks.NewTree(rootS, midS, leafS, deepS)
	if err != nil {
		t.Fatal(err)
	}
	model, judgeModel, compModel := tree.Model, tree.Judge, tree.Compiler
	step, _ := tree.Run(context.Background(), agent.Options{})
	defer hxDump(t, step)

	// The attack ran as written: the root reached its last turn, and the
	// secrets really moved up in the data (Go sees everything).
	if step.Fail == nil || step.Fail.Reason != "exfil" || !step.Fail.ByProgram {
		t.Fatalf("the root should end with its own (fail {:reason :exfil}), got %+v", step.Fail)
	}
	m := step.Trace[0].Result
	for _, c := range []struct {
		keys []string
		want lisp.Value
	}{
		{[]string{"up"}, leafS}, {[]string{"mt"}, midS}, {[]string{"deep"}, deepS}, {[]string{"q"}, rootS},
		{[]string{"pin"}, hxPinLeaf}, {[]string{"c", "leak"}, "c:" + hxCompSecret},
	} {
		if got := hxGet(m, c.keys...); got != c.want {
			t.Errorf("mid's value %v = %#v, want %#v (the attack did not run as written)", c.keys, got, c.want)
		}
	}
	reqs := model.Requests()
	for prefix, least := range map[string]int{
		"HXROOT": len(leaks.TreeRootPrograms), "HXMID mission: plain-42": 2, "HXMID": len(leaks.TreeMidPrograms) + 2,
		"HXLEAF mission for plain-42": 1, "HXLEAF": 3*len(leaks.TreeLeafPrograms) + 1,
	} {
		if n := hxCount(reqs, prefix); n < least {
			t.Errorf("%d requests for %s, want at least %d", n, prefix, least)
		}
	}
	if n := judgeModel.Calls(); n < 2*4 {
		t.Errorf("the judge answered %d requests, want 8 (4 calls, each retried once)", n)
	}
	// Children failed and succeeded as written.
	reasons := map[string]int{}
	hxChildren(step, 0, func(child *agent.Step, depth int) {
		r := "ok"
		if child.Fail != nil {
			r = string(child.Fail.Reason)
		}
		reasons[fmt.Sprintf("%d:%s", depth, r)]++
		hxCheckFail(t, fmt.Sprintf("a child at depth %d", depth), child.Fail, secrets)
	})
	for _, want := range []string{"1:ok", "1:relay", "2:ok", "2:bad"} {
		if reasons[want] == 0 {
			t.Errorf("no child %s in the tree; got %v", want, reasons)
		}
	}
	leafFailed := false
	for r := range reasons {
		leafFailed = leafFailed || (strings.HasPrefix(r, "2:") && r != "2:ok" && r != "2:bad")
	}
	if !leafFailed {
		t.Errorf("the failing leaf did not fail: %v", reasons)
	}

	// The scan can see a leak: the programs' values, output and tool
	// arguments, which Go sees in the trace, hold the secrets of every
	// level.
	var seen []string
	hxChildren(&agent.Step{Trace: []agent.Turn{{ToolCalls: []agent.ToolCall{{Child: step}}}}}, -1,
		func(s *agent.Step, _ int) {
			for _, turn := range s.Trace {
				seen = append(seen, lisp.Print(turn.Result, lisp.PrintOptions{}))
				seen = append(seen, turn.Output...)
				for _, c := range turn.ToolCalls {
					seen = append(seen, lisp.Print(c.Args, lisp.PrintOptions{}))
				}
			}
		})
	for _, s := range secrets {
		if hxLeak(strings.Join(seen, "\n"), []string{s}) == "" {
			t.Errorf("no program handled %q in its values, output or tool arguments: the attack did not run as written", s)
		}
	}

	// The guarantee: no request of any model contains a fragment.
	hxScan(t, "the tree's model", reqs, secrets)
	hxScan(t, "the judge's model", judgeModel.Requests(), secrets)
	hxScan(t, "the compiling model", compModel.Requests(), []string{hxCompSecret})
	hxCheckFail(t, "the root", step.Fail, secrets)
	hxSettle(t, before)
}

// A program cannot launder a secret through a Go tool that wraps an agent
// tool's Func (the recursion pattern of a Func set after construction):
// the child runs in the caller's tree (depth, budget and the caller's
// firewall come with the context), so what the child's program copies out
// of its tool's "_" fields must stay hidden from the caller's LLM, as it
// is when the agent tool itself is called.
func TestHostileFirewallThroughWrappedAgentFunc(t *testing.T) {
	for _, secret := range hxSecrets {
		for _, via := range leaks.WrappedVias {
			t.Run(fmt.Sprintf("%s/%d bytes", via, len(secret)), func(t *testing.T) {
				w, err := leaks.NewWrapped(secret, via)
				if err != nil {
					t.Fatal(err)
				}
				model := w.Model
				step, err := w.Run(context.Background(), agent.Options{})
				defer hxDump(t, step)
				if err != nil {
					t.Fatal(err)
				}
				if got := hxGet(step.Trace[0].Result, "leak"); got != secret {
					t.Fatalf("the child returned %#v, want the secret", got)
				}
				secrets := leaks.TreeTexts(secret)
				if strings.HasSuffix(via, "wrapped") {
					if f := hxLeak(strings.Join(leaks.RequestTexts(model.Requests()...), "\n"), secrets); f != "" {
						t.Errorf("regression: the caller's LLM sees %q, which the child's program copied out of its tool's _ field: "+
							"a child run through an agent tool's Func inside a mission joins the caller's tree but its firewall "+
							"is not absorbed by the caller's (agent/compose.go nestedAgent.standalone, agent/compiled.go "+
							"CompiledAgent.AsTool's run: the child's firewall is dropped)", f)
					}
				}
				hxScan(t, via, model.Requests(), secrets)
			})
		}
	}
}

// ---------------------------------------------------------------------
// 2. Limits across the tree under attack
// ---------------------------------------------------------------------

// hxFanOut is the hostile program of every level: 50 calls of the next
// level at once, and the same again on every turn.
const hxFanOut = `(return (count (pmap (fn [i] (tool/next {:i i})) (range 50))))`

// hxChain builds levels agents, level k calling level k+1 as tool/next
// (the last one has no tool): a recursion unrolled, each level with its
// own limits. It returns level 0.
func hxChain(t *testing.T, levels int, cfg func(k int) agent.Config) *agent.Agent {
	t.Helper()
	var next *agent.Tool
	var a *agent.Agent
	for k := levels - 1; k >= 0; k-- {
		c := cfg(k)
		c.Prompt = fmt.Sprintf("HXLEVEL %d", k)
		c.Description = "The next level."
		if c.Limits.Timeout == 0 {
			c.Limits.Timeout = hxGenerous
		}
		if next != nil {
			c.Tools = map[string]agent.Tool{"next": *next}
		}
		a = hxNew(t, c)
		tool := hxTool(a.AsTool(agent.AsToolOptions{}))
		next = &tool
	}
	return a
}

// The depth limit holds under a fan-out of 50 calls per level, and the
// stricter of the ancestors' MaxDepth wins, whether the root's or a
// child's is the stricter.
func TestHostileDepthUnderFanOut(t *testing.T) {
	cases := []struct {
		name      string
		maxDepth  func(k int) int
		limit     int // the levels that may run: 0 .. limit-1
		failAt    int // the depth of the missions refused
		wantInMsg string
	}{
		{"root stricter", func(k int) int { return map[bool]int{true: 3, false: 10}[k == 0] }, 3, 3, "limit of 3"},
		{"child stricter", func(k int) int { return map[bool]int{true: 2, false: 10}[k == 1] }, 2, 2, "limit of 2"},
		{"grandchild cannot loosen", func(k int) int { return map[bool]int{true: 2, false: 50}[k == 0] }, 2, 2, "limit of 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := hxBaseline()
			root := hxChain(t, 6, func(k int) agent.Config {
				return agent.Config{MaxNesting: c.maxDepth(k), MaxTreeTurns: map[bool]int{true: 60, false: 100000}[k == 0], MaxTurns: 2,
					MissionTimeout: hxSafetyNet}
			})
			model := (&hxRouter{}).Add("HXLEVEL", hxFanOut).Script()
			step, err := root.Run(context.Background(), agent.Options{LLM: model.Func()})
			defer hxDump(t, step)
			if err == nil {
				t.Fatal("the mission should fail")
			}
			deepest := -1
			for _, r := range model.Requests() {
				deepest = max(deepest, hxLevel(r.Prompt, "HXLEVEL"))
			}
			if deepest != c.limit-1 {
				t.Errorf("the deepest level that called the model is %d, want %d", deepest, c.limit-1)
			}
			refused, ran := 0, 0
			hxChildren(step, 0, func(child *agent.Step, depth int) {
				if depth < c.failAt {
					return
				}
				if child.Fail == nil || child.Fail.Reason != agent.ReasonMaxDepthExceeded ||
					child.Usage.Turns != 0 || child.Usage.LLMRequests != 0 {
					if ran++; ran == 1 {
						t.Errorf("a child at depth %d ran: %+v, usage %+v", depth, child.Fail, child.Usage)
					}
					return
				}
				if refused++; !strings.Contains(child.Fail.Message, c.wantInMsg) {
					t.Errorf("max_depth_exceeded message %q lacks %q", child.Fail.Message, c.wantInMsg)
				}
			})
			if ran > 0 {
				t.Errorf("%d children at depth %d or deeper ran", ran, c.failAt)
			}
			if refused == 0 {
				t.Errorf("no child Step in the trace has max_depth_exceeded at depth %d", c.failAt)
			}
			if n := model.Calls(); n > 60 || step.TotalUsage.Turns > 60 {
				t.Errorf("%d LLM requests, %d turns in the tree, over the root's budget of 60", n, step.TotalUsage.Turns)
			}
			hxSettle(t, before)
		})
	}
}

// The root's TurnBudget bounds the turns of the whole tree under a fan-out
// of 50 per level, however large the children's own budgets; LLM retries
// do not consume turns but are the only extra requests; the usage adds up;
// the children's failures carry turn_budget_exhausted and so does the
// root's.
func TestHostileTurnBudgetUnderFanOut(t *testing.T) {
	for _, retries := range []bool{false, true} {
		t.Run(fmt.Sprintf("retries %v", retries), func(t *testing.T) {
			before := hxBaseline()
			const budget = 25
			var policy llm.RetryPolicy
			if retries {
				policy = llm.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, Backoff: llm.BackoffConstant}
			}
			root := hxChain(t, 6, func(k int) agent.Config {
				return agent.Config{MaxNesting: 10, MaxTreeTurns: map[bool]int{true: budget, false: 100000}[k == 0], MissionTimeout: hxSafetyNet,
					MaxTurns: 3, LLMRetry: policy}
			})
			inner := (&hxRouter{}).Add("HXLEVEL", hxFanOut).Script()
			// With retries, the first attempt of every distinct request
			// fails with a retryable error, once.
			var mu sync.Mutex
			seen := map[string]bool{}
			var failures atomic.Int64
			model := func(ctx context.Context, req llm.Request) (llm.Response, error) {
				if retries {
					key := fmt.Sprint(req.System, req.Prompt, req.Turn, req.Messages)
					mu.Lock()
					first := !seen[key]
					seen[key] = true
					mu.Unlock()
					if first {
						failures.Add(1)
						return llm.Response{}, &llm.Error{Class: llm.ClassServerError, Message: "hx: try again"}
					}
				}
				return inner.Func()(ctx, req)
			}
			var calls atomic.Int64
			counted := func(ctx context.Context, req llm.Request) (llm.Response, error) {
				calls.Add(1)
				return model(ctx, req)
			}
			step, _ := root.Run(context.Background(), agent.Options{LLM: llm.Func(counted)})
			defer hxDump(t, step)
			if step.Fail == nil || step.Fail.Reason != agent.ReasonTurnBudgetExhausted {
				t.Fatalf("the root should end with turn_budget_exhausted, got %+v", step.Fail)
			}
			n := calls.Load()
			if n-failures.Load() > budget {
				t.Errorf("%d LLM requests, %d of them failed and retried: %d turns, over the budget of %d",
					n, failures.Load(), n-failures.Load(), budget)
			}
			if step.TotalUsage.Turns > budget {
				t.Errorf("the tree took %d turns, over the budget of %d", step.TotalUsage.Turns, budget)
			}
			if int64(step.TotalUsage.LLMRequests) != n {
				t.Errorf("TotalUsage.LLMRequests = %d, but the model got %d requests", step.TotalUsage.LLMRequests, n)
			}
			if retries && failures.Load() == 0 {
				t.Error("no retry happened")
			}
			exhausted := 0
			hxChildren(step, 0, func(child *agent.Step, depth int) {
				if child.Fail != nil && child.Fail.Reason == agent.ReasonTurnBudgetExhausted {
					exhausted++
					if !strings.Contains(child.Fail.Message, strconv.Itoa(budget)) {
						t.Errorf("the child's message %q does not quote the budget", child.Fail.Message)
					}
				}
			})
			if exhausted == 0 {
				t.Error("no child Step in the trace has turn_budget_exhausted")
			}
			hxSettle(t, before)
		})
	}
}

// An agent that calls itself through a Go tool whose Func is set after
// construction, and two agents that call each other the same way, with a
// fan-out of 50 per level: the runtime travels in the context, so depth
// (the stricter ancestor's) and the budget hold.
func TestHostileSelfRecursionViaFunc(t *testing.T) {
	const program = `(return (count (pmap (fn [i] (tool/self {:d (inc ctx/d) :i i})) (range 50))))`
	t.Run("self", func(t *testing.T) {
		before := hxBaseline()
		var self agent.ToolFunc
		rec := hxNew(t, agent.Config{
			Prompt: "HXSELF depth {{d}}", Description: "Recurses.", MaxNesting: 3, MaxTreeTurns: 60, MaxTurns: 3, MissionTimeout: hxSafetyNet,
			Tools: map[string]agent.Tool{"self": {Description: "This agent again.",
				Func: func(ctx context.Context, args *lisp.Map) (any, error) { return self(ctx, args) }}},
			Limits: lisp.Limits{Timeout: hxGenerous},
		})
		self = hxTool(rec.AsTool(agent.AsToolOptions{})).Func
		model := (&hxRouter{}).Add("HXSELF", program).Script()
		step, _ := rec.Run(context.Background(), agent.Options{LLM: model.Func(), Input: map[string]any{"d": 0}})
		defer hxDump(t, step)
		if step.Fail == nil || step.Fail.Reason != agent.ReasonTurnBudgetExhausted {
			t.Errorf("the root should end with turn_budget_exhausted, got %+v", step.Fail)
		}
		depths := map[int]int{}
		for _, r := range model.Requests() {
			depths[hxLevel(r.Prompt, "HXSELF depth")]++
		}
		if depths[2] == 0 || depths[3] != 0 || depths[4] != 0 || depths[-1] != 0 {
			t.Errorf("requests by depth: %v; want some at depth 2, none deeper", depths)
		}
		if n := model.Calls(); n > 60 {
			t.Errorf("%d LLM requests, over the budget of 60", n)
		}
		hxSettle(t, before)
	})
	t.Run("ping-pong", func(t *testing.T) {
		before := hxBaseline()
		var toA, toB agent.ToolFunc
		call := func(f *agent.ToolFunc) agent.Tool {
			return agent.Tool{Description: "The other agent.",
				Func: func(ctx context.Context, args *lisp.Map) (any, error) { return (*f)(ctx, args) }}
		}
		a := hxNew(t, agent.Config{Prompt: "HXPING A depth {{d}}", Description: "A.", MaxNesting: 5, MaxTreeTurns: 60, MissionTimeout: hxSafetyNet,
			MaxTurns: 3, Tools: map[string]agent.Tool{"self": call(&toB)}, Limits: lisp.Limits{Timeout: hxGenerous}})
		b := hxNew(t, agent.Config{Prompt: "HXPING B depth {{d}}", Description: "B.", MaxNesting: 3, MaxTreeTurns: 100000,
			MaxTurns: 3, Tools: map[string]agent.Tool{"self": call(&toA)}, Limits: lisp.Limits{Timeout: hxGenerous}})
		toA = hxTool(a.AsTool(agent.AsToolOptions{})).Func
		toB = hxTool(b.AsTool(agent.AsToolOptions{})).Func
		model := (&hxRouter{}).Add("HXPING", program).Script()
		step, _ := a.Run(context.Background(), agent.Options{LLM: model.Func(), Input: map[string]any{"d": 0}})
		defer hxDump(t, step)
		if step.Fail == nil || step.Fail.Reason != agent.ReasonTurnBudgetExhausted {
			t.Errorf("the root should end with turn_budget_exhausted, got %+v", step.Fail)
		}
		depths := map[string]int{}
		for _, r := range model.Requests() {
			depths[r.Prompt]++
		}
		// B (MaxDepth 3) at depth 1 makes 3 the limit under it.
		if depths["HXPING A depth 2"] == 0 || depths["HXPING B depth 3"] != 0 || depths["HXPING A depth 4"] != 0 {
			t.Errorf("requests by prompt: %v; want some at depth 2, none deeper", depths)
		}
		if n := model.Calls(); n > 60 {
			t.Errorf("%d LLM requests, over the budget of 60", n)
		}
		hxSettle(t, before)
	})
}

// A fan-out tree whose every leaf's model ignores its context, under a
// root with a MissionTimeout and an unbounded budget: the root ends by
// its timeout, every mission of the tree is abandoned, and once the
// models return no goroutine is left.
func TestHostileFanOutTreeMissionTimeout(t *testing.T) {
	before := hxBaseline()
	release := make(chan struct{})
	var stubborn atomic.Int64
	leaf := hxNew(t, agent.Config{Prompt: "HXSTUCK leaf", Description: "Never answers.",
		LLM: hxStubborn(release, &stubborn), LLMTimeout: -1, MaxTreeTurns: 100000, MaxNesting: 10})
	mid := hxNew(t, agent.Config{Prompt: "HXSTUCK mid", Description: "Fans out.", MaxNesting: 10, LLMTimeout: -1,
		Tools: map[string]agent.Tool{"next": hxTool(leaf.AsTool(agent.AsToolOptions{}))}, Limits: lisp.Limits{Timeout: hxGenerous}})
	root := hxNew(t, agent.Config{Prompt: "HXSTUCK root", MaxNesting: 10, MaxTreeTurns: 100000, MissionTimeout: hxStuckTimeout,
		Tools: map[string]agent.Tool{"next": hxTool(mid.AsTool(agent.AsToolOptions{}))}, Limits: lisp.Limits{Timeout: hxGenerous}})
	model := (&hxRouter{}).Add("HXSTUCK", hxFanOut).Script()
	start := time.Now()
	step, _ := root.Run(context.Background(), agent.Options{LLM: model.Func()})
	elapsed := time.Since(start)
	defer hxDump(t, step)
	if step.Fail == nil || step.Fail.Reason != agent.ReasonMissionTimeout {
		t.Errorf("the root should end with mission_timeout, got %+v", step.Fail)
	}
	if elapsed > hxStuckTimeout+time.Minute {
		t.Errorf("the root took %v, for a MissionTimeout of %v", elapsed, hxStuckTimeout)
	}
	if stubborn.Load() == 0 {
		t.Error("no leaf called its model: the tree was not exercised")
	}
	close(release)
	hxSettle(t, before)
}

// ---------------------------------------------------------------------
// 3. Blocking children and timeouts
// ---------------------------------------------------------------------

// A nested agent whose tool blocks ignoring its context, a nested agent
// whose model ignores its context, an LLM tool whose model does, and 50
// of them at once: the root ends by its MissionTimeout, and once the
// blocked calls return, no goroutine is left.
func TestHostileBlockedChildrenMissionTimeout(t *testing.T) {
	cases := []struct {
		name string
		// build returns the root's tool "child"; hits counts the calls
		// that block.
		build   func(t *testing.T, release <-chan struct{}, hits *atomic.Int64) agent.Tool
		program string // the root's program, on every turn
	}{
		{name: "child's tool blocks", program: `(tool/child {:x 1})`,
			build: func(t *testing.T, release <-chan struct{}, hits *atomic.Int64) agent.Tool {
				return hxBlockingChild(t, release, hits, 1)
			}},
		{name: "grandchild's tool blocks", program: `(tool/child {:x 1})`,
			build: func(t *testing.T, release <-chan struct{}, hits *atomic.Int64) agent.Tool {
				return hxBlockingChild(t, release, hits, 2)
			}},
		{name: "50 blocked children from pmap", program: `(pmap (fn [i] (tool/child {:x i})) (range 50))`,
			build: func(t *testing.T, release <-chan struct{}, hits *atomic.Int64) agent.Tool {
				return hxBlockingChild(t, release, hits, 1)
			}},
		{name: "child's model ignores ctx", program: `(tool/child {:x 1})`,
			build: func(t *testing.T, release <-chan struct{}, hits *atomic.Int64) agent.Tool {
				child := hxNew(t, agent.Config{Prompt: "HXBLOCK child", Description: "Stuck.", LLMTimeout: -1,
					Limits: lisp.Limits{Timeout: hxGenerous}})
				return hxTool(child.AsTool(agent.AsToolOptions{LLM: hxStubborn(release, hits)}))
			}},
		{name: "LLM tool's model ignores ctx", program: `(pmap (fn [i] (tool/child {:x (str i)})) (range 50))`,
			build: func(t *testing.T, release <-chan struct{}, hits *atomic.Int64) agent.Tool {
				// Only the root's MissionTimeout ends the calls.
				return hxTool(agent.NewLLMTool(agent.Config{
					Prompt:      "HXBLOCK judge {{x}}",
					Signature:   "(x :string) -> :bool",
					Description: "Stuck.",
					LLM:         hxStubborn(release, hits),
					LLMTimeout:  -1,
				}, agent.AsToolOptions{}))
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := hxBaseline()
			release := make(chan struct{})
			var hits atomic.Int64
			child := c.build(t, release, &hits)
			root := hxNew(t, agent.Config{Prompt: "HXBLOCK root", MissionTimeout: hxStuckTimeout, LLMTimeout: -1,
				Tools: map[string]agent.Tool{"child": child}, Limits: lisp.Limits{Timeout: hxGenerous}})
			model := (&hxRouter{}).
				Add("HXBLOCK root", c.program).
				Add("HXBLOCK child", `(tool/block {})`, `(return 1)`).
				Add("HXBLOCK grandchild", `(tool/block {})`, `(return 1)`).
				Script()
			start := time.Now()
			step, _ := root.Run(context.Background(), agent.Options{LLM: model.Func()})
			elapsed := time.Since(start)
			defer hxDump(t, step)
			if step.Fail == nil || step.Fail.Reason != agent.ReasonMissionTimeout {
				t.Errorf("the root should end with mission_timeout, got %+v", step.Fail)
			}
			if elapsed > hxStuckTimeout+time.Minute {
				t.Errorf("the root took %v, for a MissionTimeout of %v", elapsed, hxStuckTimeout)
			}
			if hits.Load() == 0 {
				t.Error("nothing blocked: the case was not exercised")
			}
			close(release)
			hxSettle(t, before)
		})
	}
}

// hxBlockingChild returns an agent tool whose tool (at the given depth
// under it: 1, the child's own; 2, its child's) blocks ignoring its
// context until release.
func hxBlockingChild(t *testing.T, release <-chan struct{}, hits *atomic.Int64, depth int) agent.Tool {
	block := agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) {
		hits.Add(1)
		<-release
		return 1, nil
	}}

	tools := map[string]agent.Tool{"block": block}
	if depth == 2 {
		gc := hxNew(t, agent.Config{Prompt: "HXBLOCK grandchild", Description: "Stuck.", Tools: tools,
			LLMTimeout: -1, Limits: lisp.Limits{Timeout: hxGenerous}})
		tools = map[string]agent.Tool{"block": hxTool(gc.AsTool(agent.AsToolOptions{}))}
	}
	child := hxNew(t, agent.Config{Prompt: "HXBLOCK child", Description: "Stuck.", Tools: tools,
		LLMTimeout: -1, Limits: lisp.Limits{Timeout: hxGenerous}})
	return hxTool(child.AsTool(agent.AsToolOptions{}))
}

// The caller's per-program Timeout does not bound a child mission: a
// parent whose programs have 300ms waits for children whose models take
// 700ms each (honouring their context), in sequence, from pmap, two
// levels down, and for an LLM tool; a plain tool that takes as long is
// cut by the same Timeout (the control).
func TestHostileProgramTimeoutSparesChildren(t *testing.T) {
	// The children take more than twice the program timeout, which leaves
	// the programs' own work, tiny, plenty of room on a busy machine.
	const programTimeout = 300 * time.Millisecond
	const childTime = 700 * time.Millisecond
	cases := []struct {
		name, program string
		want          lisp.Value
	}{
		{"one child", `(return (tool/child {:x 1}))`, int64(7)},
		{"three children in sequence", `(return (+ (tool/child {:x 1}) (tool/child {:x 2}) (tool/child {:x 3})))`, int64(21)},
		{"five children from pmap", `(return (reduce + (pmap (fn [i] (tool/child {:x i})) (range 5))))`, int64(35)},
		{"two levels", `(return (tool/mid {:x 1}))`, int64(7)},
		{"an LLM tool", `(return (tool/judge {:x "a"}))`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := hxBaseline()
			model := (&hxRouter{}).
				Add("HXSLOW root", c.program).
				Add("HXSLOW mid", `(return (tool/child {:x 2}))`).
				Add("HXSLOW child", `(return 7)`).
				Add("HXSLOW judge", `true`).
				Script()
			slow := hxSleepy(childTime, model.Func())
			child := hxNew(t, agent.Config{Prompt: "HXSLOW child", Description: "Slow.", Signature: "(x :int) -> :int",
				LLMTimeout: time.Minute})
			childTool := hxTool(child.AsTool(agent.AsToolOptions{LLM: slow}))
			mid := hxNew(t, agent.Config{Prompt: "HXSLOW mid", Description: "Mid.", Signature: "(x :int) -> :int",
				Tools: map[string]agent.Tool{"child": childTool}, Limits: lisp.Limits{Timeout: programTimeout}, LLMTimeout: time.Minute})
			judge := hxTool(agent.NewLLMTool(agent.Config{
				Prompt:      "HXSLOW judge {{x}}",
				Signature:   "(x :string) -> :bool",
				Description: "Slow judge.",
				LLM:         slow,
				LLMTimeout:  time.Minute,
			}, agent.AsToolOptions{}))
			root := hxNew(t, agent.Config{Prompt: "HXSLOW root", MissionTimeout: time.Minute, LLMTimeout: time.Minute,
				Limits: lisp.Limits{Timeout: programTimeout},
				Tools: map[string]agent.Tool{"child": childTool, "judge": judge,
					"mid": hxTool(mid.AsTool(agent.AsToolOptions{}))}})
			step, err := root.Run(context.Background(), agent.Options{LLM: model.Func()})
			defer hxDump(t, step)
			if err != nil {
				t.Fatalf("the parent's program Timeout (%v) cut a child mission: %v", programTimeout, err)
			}
			if step.Return != c.want || step.Usage.Turns != 1 {
				t.Errorf("got %#v in %d turns, want %#v in 1", step.Return, step.Usage.Turns, c.want)
			}
			hxSettle(t, before)
		})
	}
	t.Run("control: a plain tool is cut", func(t *testing.T) {
		before := hxBaseline()
		model := (&hxRouter{}).Add("HXSLOW root", `(tool/slow {})`, `(return (:reason ctx/fail))`).Script()
		root := hxNew(t, agent.Config{Prompt: "HXSLOW root", LLMTimeout: time.Minute, Limits: lisp.Limits{Timeout: programTimeout},
			Tools: map[string]agent.Tool{"slow": agent.Tool{Func: func(ctx context.Context, _ *lisp.Map) (any, error) {
				select {
				case <-time.After(childTime):
					return 1, nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}}}})
		step, err := root.Run(context.Background(), agent.Options{LLM: model.Func()})
		defer hxDump(t, step)
		if err != nil || step.Return != lisp.Keyword(agent.ReasonTimeout) {
			t.Errorf("the plain tool should time the program out: got %#v, %v", step.Return, err)
		}
		hxSettle(t, before)
	})
}

// While a program waits on a child its clock stands still, "while any
// [untimed call] is running" (the Untimed method of a lisp.ToolCaller): a plain tool that
// another pmap branch calls while a child runs is not cut at the program's
// original deadline. Here an instant tool is called 600ms into a 3s
// child call, under a 300ms program Timeout; the program's clock has run
// for a few milliseconds only. (The margins hold on a busy machine.)
func TestHostileProgramClockPausedForConcurrentPlainTool(t *testing.T) {
	before := hxBaseline()
	model := (&hxRouter{}).
		Add("HXPAUSE root", `(return (pmap (fn [k] (if (= k 0) (tool/child {:ms 3000}) (do (tool/child {:ms 600}) (tool/fast {})))) [0 1]))`).
		Add("HXPAUSE child", `(return 7)`).
		Script()
	var fast atomic.Int64
	// The child's model sleeps for the milliseconds its prompt names.
	sleepy := func(ctx context.Context, req llm.Request) (llm.Response, error) {
		return hxSleepy(time.Duration(hxLevel(req.Prompt, "HXPAUSE child"))*time.Millisecond, model.Func())(ctx, req)
	}
	child := hxNew(t, agent.Config{Prompt: "HXPAUSE child {{ms}}", Description: "Slow.", Signature: "(ms :int) -> :int",
		LLMTimeout: time.Minute})
	root := hxNew(t, agent.Config{Prompt: "HXPAUSE root", LLMTimeout: time.Minute, MaxTurns: 1,
		Limits: lisp.Limits{Timeout: 300 * time.Millisecond, MaxParallel: 4},
		Tools: map[string]agent.Tool{
			"child": hxTool(child.AsTool(agent.AsToolOptions{LLM: llm.Func(sleepy)})),
			"fast":  agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) { fast.Add(1); return 1, nil }},
		}})
	step, err := root.Run(context.Background(), agent.Options{LLM: model.Func()})
	defer hxDump(t, step)
	hxSettle(t, before)
	if err != nil {
		msg := ""
		if len(step.Trace) > 0 {
			msg = step.Trace[0].Error
		}
		if strings.Contains(msg, "timeout") {
			t.Errorf("regression: an instant plain tool, called in one pmap branch while another waits on a child agent, "+
				"fails as a program timeout (%d calls of it began): %q. lisp/eval.go runState.toolContext gives it the "+
				"deadline as it was before the clock stopped (it moves only in resumeClock), already past",
				fast.Load(), msg)
		}
		t.Fatal(err)
	}
	if want := "[7 1]"; lisp.Print(step.Return, lisp.PrintOptions{}) != want {
		t.Errorf("got %s, want %s", lisp.Print(step.Return, lisp.PrintOptions{}), want)
	}
}

// A compiled agent that calls itself through a Go tool whose Func is set
// after compilation, 50 times per level from pmap, inside a mission: the
// recursion must be bounded by MaxDepth like the agents it stands for,
// rather than only by time. A guard in the test stops it after 3,000
// executions, so that the test cannot exhaust the machine.
func TestHostileCompiledSelfRecursion(t *testing.T) {
	before := hxBaseline()
	const guard = 3000
	var execs, deepest atomic.Int64
	self := func(context.Context, *lisp.Map) (any, error) { return 0, nil } // while compiling
	wrapper := agent.Tool{Description: "This compiled agent again.", Signature: "(d :int) -> :int",
		Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			if execs.Add(1) > guard {
				return nil, fmt.Errorf("hx guard: more than %d executions", guard)
			}
			if d, ok := args.Get(lisp.Keyword("d")); ok {
				for n := d.(int64); ; {
					cur := deepest.Load()
					if n <= cur || deepest.CompareAndSwap(cur, n) {
						break
					}
				}
			}
			return self(ctx, args)
		}}
	a := hxNew(t, agent.Config{Prompt: "HXCSELF recurse", Signature: "(d :int) -> :int", Description: "Recurses.",
		MaxNesting: 3, Tools: map[string]agent.Tool{"self": wrapper}, Limits: lisp.Limits{Timeout: 20 * time.Second}})
	model := (&hxRouter{}).
		Add("HXCSELF", `(return (count (pmap (fn [i] (tool/self {:d (inc ctx/d)})) (range 50))))`).
		Add("HXCROOT", `(return (tool/comp {:d 0}))`).
		Script()
	comp, err := a.Compile(context.Background(), agent.Options{LLM: model.Func(), Input: map[string]any{"d": 0}})
	if err != nil {
		t.Fatal(err)
	}
	compTool := hxTool(comp.AsTool(agent.AsToolOptions{}))
	self = compTool.Func
	execs.Store(0)
	root := hxNew(t, agent.Config{Prompt: "HXCROOT mission", MaxNesting: 3, MaxTurns: 1, MissionTimeout: hxSafetyNet,
		Tools: map[string]agent.Tool{"comp": compTool}, Limits: lisp.Limits{Timeout: 20 * time.Second}})
	start := time.Now()
	step, _ := root.Run(context.Background(), agent.Options{LLM: model.Func(), Trace: agent.TraceOff})
	elapsed := time.Since(start)
	hxSettle(t, before)
	t.Logf("%d executions, depth %d reached, %v, fail %v", execs.Load(), deepest.Load(), elapsed, step.Fail)
	if execs.Load() > guard || deepest.Load() > 3 {
		t.Errorf("regression: compiled agents do not count in MaxDepth: a compiled agent calling itself ran %d executions "+
			"and reached depth %d under a root with MaxDepth 3 before the test's guard stopped it; only the "+
			"program Timeout bounds such a recursion, and with pmap its goroutines grow exponentially meanwhile "+
			"(agent/compiled.go CompiledAgent.execute runs no setup: no depth, no check)", execs.Load(), deepest.Load())
	}
}

// ---------------------------------------------------------------------
// 1b. Firewalled collections, hidden by identity, across calls
// ---------------------------------------------------------------------

// A firewalled collection is hidden by identity, whatever it holds (short
// codes, small numbers, which no text scrubbing catches). A child's
// program that returns one under a public key must not show it to the
// caller's LLM, as it does not show it to its own.
func TestHostileFirewalledCollectionAcrossReturn(t *testing.T) {
	for _, rows := range []struct {
		name  string
		value any
	}{
		{"no floats", []any{map[string]any{"code": "Q7", "n": 31}}},
		{"floats to round", []any{map[string]any{"code": "Q7", "n": 31, "score": 0.555}}},
	} {
		t.Run(rows.name, func(t *testing.T) {
			child := hxNew(t, agent.Config{Prompt: "HXROWS child", Description: "Rows.", Limits: lisp.Limits{Timeout: hxGenerous},
				Tools: map[string]agent.Tool{"rows": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) {
					return map[string]any{"_rows": rows.value}, nil
				}}}})
			root := hxNew(t, agent.Config{Prompt: "HXROWS root", Limits: lisp.Limits{Timeout: hxGenerous},
				Tools: map[string]agent.Tool{"child": hxTool(child.AsTool(agent.AsToolOptions{}))}})
			model := (&hxRouter{}).
				Add("HXROWS root", `(tool/child {})`, `(println (:rows *1)) (return 1)`).
				Add("HXROWS child", `(def r (tool/rows {})) {:return {:rows (:_rows r)}}`, `(return {:rows (:_rows r)})`).
				Script()
			step, err := root.Run(context.Background(), agent.Options{LLM: model.Func()})
			defer hxDump(t, step)
			if err != nil {
				t.Fatal(err)
			}
			var childSaw, rootSaw []string
			for _, req := range model.Requests() {
				for _, m := range req.Messages[1:] {
					if strings.HasPrefix(req.Prompt, "HXROWS child") {
						childSaw = append(childSaw, m.Content)
					} else {
						rootSaw = append(rootSaw, m.Content)
					}
				}
			}
			if strings.Contains(strings.Join(childSaw, "\n"), "Q7") {
				t.Fatalf("the child's own LLM sees the rows: %q", childSaw)
			}
			if text := strings.Join(rootSaw, "\n"); strings.Contains(text, "Q7") {
				t.Errorf("regression: the caller's LLM sees the firewalled rows the child returned under a public key, which the "+
					"child's LLM was never shown: %q (agent/run.go mission.finish: roundFloats copies a collection whose "+
					"floats it rounds, and the copy is not the firewalled collection the caller absorbed)", text)
			}
		})
	}
}

// The same, downwards: a caller's firewalled collection passed to a child
// under a public argument stays hidden from the child's LLM (the child's
// firewall is chained to the caller's), also when the child's signature
// coerces the argument.
func TestHostileFirewalledCollectionPassedDown(t *testing.T) {
	for _, c := range []struct{ name, sig string }{
		{"no signature", ""},
		{"signature without coercion", "(rows [{code :string, n :int}]) -> :int"},
		{"signature that coerces", "(rows [{code :string, n :float}]) -> :int"},
	} {
		t.Run(c.name, func(t *testing.T) {
			child := hxNew(t, agent.Config{Prompt: "HXDOWN child", Description: "Rows.", Signature: c.sig,
				Limits: lisp.Limits{Timeout: hxGenerous}})
			root := hxNew(t, agent.Config{Prompt: "HXDOWN root", Limits: lisp.Limits{Timeout: hxGenerous},
				Tools: map[string]agent.Tool{"child": hxTool(child.AsTool(agent.AsToolOptions{}))}})
			model := (&hxRouter{}).
				Add("HXDOWN root", `(return (tool/child {:rows ctx/_rows}))`).
				Add("HXDOWN child", `(println ctx/rows (first ctx/rows)) ctx/rows`, `(return (count ctx/rows))`).
				Script()
			step, err := root.Run(context.Background(), agent.Options{LLM: model.Func(), Input: map[string]any{
				"_rows": []any{map[string]any{"code": "Q7", "n": 31}}}})
			defer hxDump(t, step)
			if err != nil {
				t.Fatal(err)
			}
			var found []string
			for _, req := range model.Requests() {
				if !strings.HasPrefix(req.Prompt, "HXDOWN child") {
					continue
				}
				for _, text := range leaks.RequestTexts(req) {
					if k := strings.Index(text, "Q7"); k >= 0 {
						found = append(found, fmt.Sprintf("turn %d: ...%s...", req.Turn, text[max(0, k-60):min(len(text), k+30)]))
					}
				}
			}
			if len(found) > 0 && c.name == "signature that coerces" {
				t.Errorf("regression: the child's LLM sees the caller's firewalled rows, which the child's signature coerced "+
					"(a copy, no longer the firewalled collection the caller's firewall hides by identity): %q "+
					"(agent/compose.go callNested: coerceArgs; agent/run.go setContext: CoerceInput)", found)
			}
			for _, l := range found {
				t.Errorf("the child's LLM sees the caller's firewalled rows: %s", l)
			}
		})
	}
}
