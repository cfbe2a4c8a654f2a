package temporal

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// Tests of the promises that hold on every route by which one agent's
// result reaches another, on Temporal as in-process: the firewall and the
// tree's token budgets.

// treeModel answers each mission by the first word of its prompt and the
// turn, every call costing 100 + 20 tokens, and records the requests.
type treeModel struct {
	routes map[string][]string
	mu     sync.Mutex
	reqs   []llm.Request
}

var treeTokens = llm.Tokens{Input: 100, Output: 20}

func (m *treeModel) Func(ctx context.Context, req llm.Request) (llm.Response, error) {
	m.mu.Lock()
	req.Messages = append([]llm.Message(nil), req.Messages...)
	m.reqs = append(m.reqs, req)
	m.mu.Unlock()
	word, _, _ := strings.Cut(req.Prompt, " ")
	programs, ok := m.routes[word]
	if !ok {
		return llm.Response{}, &llm.Error{Class: llm.ClassClientError, Message: "no route for " + req.Prompt}
	}
	p := programs[min(req.Turn, len(programs))-1]
	return llm.Response{Content: "```clojure\n" + p + "\n```", Tokens: treeTokens}, nil
}

func (m *treeModel) calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.reqs)
}

// byMission returns the requests, by mission prompt and turn, as text.
func (m *treeModel) byMission() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]string{}
	for _, r := range m.reqs {
		var sb strings.Builder
		sb.WriteString("SYSTEM\n" + r.System + "\n")
		for _, msg := range r.Messages {
			sb.WriteString(string(msg.Role) + "\n" + msg.Content + "\n")
		}
		out[fmt.Sprintf("%s #%d", r.Prompt, r.Turn)] += sb.String()
	}
	return out
}

// The secrets of the tree's vaults: each a string and a number, which
// scrubbing finds, and a collection of short strings, which only its
// identity (in-process) or its place in the value (across processes)
// hides.
type treeSecrets struct {
	token string
	pin   int64
	row   string
}

var treeVaults = map[string]treeSecrets{
	"leaf":    {"leaf-tok-7Hq2x9", 71111111111, "Zq1"},
	"judge":   {"judge-tok-3Kd8w", 72222222222, "Zq2"},
	"comp":    {"comp-tok-5Lm4v7", 73333333333, "Zq3"},
	"fetcher": {"fetch-tok-9Pn6u", 74444444444, "Zq4"},
	"mid":     {"mid-tok-2Rb5t8s", 75555555555, "Zq5"},
}

func treeVault(name string) agent.Tool {
	s := treeVaults[name]
	return agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) {
		return map[string]any{"_token": s.token, "_pin": s.pin, "_rows": []any{[]any{s.row, "r"}}}, nil
	}}

}

// treeLeaks returns the secrets of the vaults named found in text.
func treeLeaks(text string, names ...string) []string {
	var out []string
	for _, n := range names {
		s := treeVaults[n]
		for _, x := range []string{s.token, fmt.Sprint(s.pin), s.row} {
			if strings.Contains(text, x) {
				out = append(out, x)
			}
		}
	}
	return out
}

// copyOut is a program that copies a vault's firewalled fields under
// public keys.
func copyOut(tool string) string {
	return fmt.Sprintf(`(let [r (tool/%s {})] (return {:token (:_token r) :pin (:_pin r) :rows (:_rows r)}))`, tool)
}

// treeOfAgents is root -> mid (an agent tool) -> leaf (an agent tool),
// judge (an LLM tool with a tool), comp (a compiled agent) and gofetch (a
// Go tool that runs an agent with its own model). Each copies its vault's
// secrets under public keys, mid passes its own down to leaf as a public
// argument, and every level shows what it got.
func treeOfAgents(t *testing.T, model llm.Func) *agent.Agent {
	leaf := mustAgent(t, agent.Config{Name: "leaf", Prompt: "LEAF fetch for {{who}}", Description: "Fetches.", MaxTurns: 3,
		Tools: map[string]agent.Tool{"vault": treeVault("leaf")}})
	judge, err := agent.NewLLMTool(agent.Config{
		Prompt:      "JUDGE {{x}}",
		Signature:   "(x :int) -> :any",
		Description: "Judges.",
		Tools:       map[string]agent.Tool{"jvault": treeVault("judge")},
		MaxTurns:    2,
	}, agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	compiler := mustAgent(t, agent.Config{Prompt: "COMP run", Description: "Computes.",
		Tools: map[string]agent.Tool{"cvault": treeVault("comp")}})
	comp, err := compiler.CompileSource(copyOut("cvault"))
	if err != nil {
		t.Fatal(err)
	}
	fetcher := mustAgent(t, agent.Config{Name: "fetcher", Prompt: "FETCH go", MaxTurns: 2, LLM: llm.Func(model),
		Tools: map[string]agent.Tool{"vault": treeVault("fetcher")}})
	gofetch := agent.Tool{Description: "Fetches through Go.", Func: func(ctx context.Context, _ *lisp.Map) (any, error) {
		step, err := fetcher.Run(ctx, agent.Options{})
		if err != nil {
			return nil, err
		}
		return step.Return, nil
	}}
	mid := mustAgent(t, agent.Config{Name: "mid", Prompt: "MID gather", Description: "Gathers.", MaxTurns: 6,
		Tools: map[string]agent.Tool{
			"leaf": must(leaf.AsTool(agent.AsToolOptions{})), "judge": judge, "comp": must(comp.AsTool(agent.AsToolOptions{})),
			"gofetch": gofetch, "mvault": treeVault("mid"),
		}})
	return mustAgent(t, agent.Config{Name: "root", Prompt: "ROOT start", MaxTurns: 5,
		Tools: map[string]agent.Tool{"mid": must(mid.AsTool(agent.AsToolOptions{}))}})
}

func must(t agent.Tool, err error) agent.Tool {
	if err != nil {
		panic(err)
	}
	return t
}

var treeRoutes = map[string][]string{
	"ROOT": {
		`(def m (tool/mid {})) m`,
		`(println m (:l m) (get-in m [:l :rows]) (:c m)) (str (get-in m [:l :token]) (get-in m [:j :pin]) (get-in m [:g :token]))`,
		`(return m)`,
	},
	"MID": {
		`(def own (tool/mvault {})) (def l (tool/leaf {:who (:_token own)})) l`,
		`(def j (tool/judge {:x 1})) (def c (tool/comp {})) (def g (tool/gofetch {})) [j c g]`,
		`(println l j c g) (str (:token l) (:pin j) (:token c) (:token g) (:pin g))`,
		`(return {:l l :j j :c c :g g :own (:_token own) :rows (:_rows own)})`,
	},
	"LEAF": {
		`(def r (tool/vault {})) (println ctx/who) {:t (:_token r) :who ctx/who}`,
		`(return {:token (:_token r) :pin (:_pin r) :rows (:_rows r) :down ctx/who})`,
	},
	"JUDGE": {copyOut("jvault")},
	"FETCH": {copyOut("vault")},
	"COMP":  {`1`},
}

// The same tree of agents, in-process and on Temporal, sends every model
// the very same requests: what a child firewalled (strings, numbers,
// collections under public keys), on every route up (agent tool, LLM
// tool, compiled agent, a Go tool that runs an agent), two levels deep,
// and what a caller firewalled, passed down, stays hidden as in-process.
// The Step of the mission redacts its value as in-process.
func TestFirewallTreeParity(t *testing.T) {
	local := &treeModel{routes: treeRoutes}
	lstep, err := treeOfAgents(t, local.Func).Run(context.Background(), agent.Options{LLM: llm.Func(local.Func)})
	if err != nil {
		t.Fatal(err)
	}
	durable := &treeModel{routes: treeRoutes}
	env := newEnv(t, WorkerOptions{Agents: map[string]*agent.Agent{"root": treeOfAgents(t, durable.Func)},
		Model: llm.Func(durable.Func)})
	dstep, err := runEnv(t, env, input(t, "root", nil))
	if err != nil {
		t.Fatal(err)
	}
	want, got := local.byMission(), durable.byMission()
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) != 11 || len(got) != len(want) {
		t.Errorf("%d requests in-process, %d on Temporal, want 11", len(want), len(got))
	}
	for _, k := range keys {
		if got[k] != want[k] {
			t.Errorf("request %s differs:\n in-process %q\n Temporal   %q", k, want[k], got[k])
		}
	}
	for k, text := range got {
		var hidden []string
		switch {
		case strings.HasPrefix(k, "ROOT"):
			hidden = []string{"leaf", "judge", "comp", "fetcher", "mid"}
		case strings.HasPrefix(k, "MID"):
			hidden = []string{"leaf", "judge", "comp", "fetcher"}
		case strings.HasPrefix(k, "LEAF"):
			hidden = []string{"mid"}
		}
		if leaks := treeLeaks(text, hidden...); len(leaks) > 0 {
			t.Errorf("the model of %s saw %q", k, leaks)
		}
	}
	// The compiled agent's Step is in mid's trace, as in-process.
	children := func(s *agent.Step) string {
		var names []string
		for _, c := range s.Trace[0].ToolCalls[0].Child.Trace[1].ToolCalls {
			names = append(names, fmt.Sprintf("%s:%v", c.Name, c.Child != nil))
		}
		return strings.Join(names, " ")
	}
	if children(dstep) != children(lstep) || children(dstep) != "judge:true comp:true gofetch:false" {
		t.Errorf("mid's second turn's calls: in-process %s, Temporal %s", children(lstep), children(dstep))
	}
	show := func(s *agent.Step) string {
		return lisp.Print(s.Return, lisp.PrintOptions{Redact: s.Redaction()})
	}
	if show(dstep) != show(lstep) || printed(dstep.Return) != printed(lstep.Return) {
		t.Errorf("the Step's value, redacted:\n in-process %s\n Temporal   %s", show(lstep), show(dstep))
	}
	if leaks := treeLeaks(show(dstep), "leaf", "judge", "comp", "fetcher", "mid"); len(leaks) > 0 {
		t.Errorf("the Step's Redaction shows %q", leaks)
	}
}

// treeLooper is an agent that never returns: each turn costs 120 tokens.
func treeLooper(t *testing.T, name string) *agent.Agent {
	return mustAgent(t, agent.Config{Name: name, Prompt: "LOOP forever", Description: "Loops.", MaxTurns: 50})
}

// A mission's TokenLimit bounds its tree on Temporal as in-process: the
// tokens left travel with the Position to the child workflows and to the
// agents a Go tool runs, a child over them fails, and its caller, charged
// with the child's tokens, fails naming it. With 120 tokens a call and a
// limit of 500: the root's call, then the child's four (the fourth goes
// over the 380 left), 600 tokens.
func TestTreeTokenLimit(t *testing.T) {
	for _, tc := range []struct {
		name, program string
		named         bool // the root's Fail names the child
	}{
		{"agent tool", `(tool/child {})`, true},
		{"LLM tool", `(mapv #(tool/judge {:x %}) (range 10))`, true},
		{"Go tool", `(tool/gochild {})`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := &treeModel{routes: map[string][]string{"ROOT": {tc.program, `(return 1)`}, "LOOP": {`1`}, "JUDGE": {`ctx/x`}}}
			looper := treeLooper(t, "looper")
			owned := mustAgent(t, agent.Config{Name: "looper", Prompt: "LOOP forever", MaxTurns: 50, LLM: llm.Func(model.Func)})
			judge, err := agent.NewLLMTool(agent.Config{
				Prompt:      "JUDGE {{x}}",
				Signature:   "(x :int) -> :int",
				Description: "Judges.",
				MaxTurns:    1,
			}, agent.AsToolOptions{})
			if err != nil {
				t.Fatal(err)
			}
			gochild := agent.Tool{Description: "Runs an agent.", Func: func(ctx context.Context, _ *lisp.Map) (any, error) {
				step, err := owned.Run(ctx, agent.Options{})
				if err != nil {
					return nil, err
				}
				return step.Return, nil
			}}
			root := mustAgent(t, agent.Config{Name: "root", Prompt: "ROOT go", MaxTurns: 50, MaxTreeTurns: 200,
				Tools: map[string]agent.Tool{"child": must(looper.AsTool(agent.AsToolOptions{})), "judge": judge, "gochild": gochild}})
			step, err := runRoot(t, root, llm.Func(model.Func), 500)
			if err == nil || step.Fail.Reason != agent.ReasonBudgetExceeded {
				t.Fatalf("step %+v, err %v", step.Fail, err)
			}
			if n := model.calls(); n != 5 {
				t.Errorf("%d LLM calls, want 5", n)
			}
			if got := step.TotalUsage.Tokens.Total(); got != 600 {
				t.Errorf("the tree used %d tokens, want 600", got)
			}
			d := step.Fail.Details
			if fmt.Sprint(d["token_limit"], d["tokens"]) != "500 600" {
				t.Errorf("details %v", d)
			}
			if tc.named && (d["agent"] != map[bool]string{true: "looper", false: "judge"}[tc.name == "agent tool"] || fmt.Sprint(d["depth"]) != "1" || !strings.Contains(step.Fail.Message, "(depth 1)")) {
				t.Errorf("the Fail does not name the child: %+v", step.Fail)
			}
		})
	}
}

// A child's own tighter limit (AsToolOptions.TokenLimit) travels with it
// to its child workflow: it ends the child alone.
func TestTreeChildTokenLimit(t *testing.T) {
	model := &treeModel{routes: map[string][]string{
		"ROOT": {`(tool/child {})`, `(return (get-in ctx/fail [:details :child :reason]))`}, "LOOP": {`1`}}}
	root := mustAgent(t, agent.Config{Name: "root", Prompt: "ROOT go", MaxTurns: 5,
		Tools: map[string]agent.Tool{"child": must(treeLooper(t, "looper").AsTool(agent.AsToolOptions{TokenLimit: 200}))}})
	step, err := runRoot(t, root, llm.Func(model.Func), 10000)
	if err != nil || printed(step.Return) != ":budget_callback_exceeded" {
		t.Fatalf("return %s, err %v", printed(step.Return), err)
	}
	if n := model.calls(); n != 4 || step.TotalUsage.Tokens.Total() != 480 {
		t.Errorf("%d LLM calls, %d tokens; want 4 and 480", n, step.TotalUsage.Tokens.Total())
	}
}

// Children started together split the tokens left, as they split the
// turns left: 380 tokens over 3 children, 127, 127 and 126; each goes
// over its part with its second call.
func TestTreeTokenLimitFanOut(t *testing.T) {
	model := &treeModel{routes: map[string][]string{"ROOT": {`(pmap (fn [i] (tool/child {:i i})) [1 2 3])`}, "LOOP": {`1`}}}
	root := mustAgent(t, agent.Config{Name: "root", Prompt: "ROOT go", MaxTurns: 5, MaxTreeTurns: 200,
		Tools: map[string]agent.Tool{"child": must(treeLooper(t, "looper").AsTool(agent.AsToolOptions{}))}})
	step, err := runRoot(t, root, llm.Func(model.Func), 500)
	if err == nil || step.Fail.Reason != agent.ReasonBudgetExceeded {
		t.Fatalf("step %+v, err %v", step.Fail, err)
	}
	// 5 calls reach the limit; each of the 2 other children may finish
	// one in flight, as in-process.
	if n := model.calls(); n < 5 || n > 7 || step.TotalUsage.Tokens.Total() != 120*n || len(step.Trace[0].ToolCalls) != 3 {
		t.Errorf("%d LLM calls for a limit of 500 tokens; %d tokens counted; %d tool calls traced", n,
			step.TotalUsage.Tokens.Total(), len(step.Trace[0].ToolCalls))
		for k := range model.byMission() {
			t.Log(k)
		}
		for _, c := range step.Trace[0].ToolCalls {
			t.Logf("%+v", c.Child.Fail)
		}
	}
}
