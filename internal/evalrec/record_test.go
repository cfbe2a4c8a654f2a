package evalrec_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/internal/evalrec"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// codeModel answers every request with the program prog.
func codeModel(prog string) llm.Func {
	return func(context.Context, llm.Request) (llm.Response, error) {
		return llm.Response{Content: "```clojure\n" + prog + "\n```"}, nil
	}
}

// toolRuns records a task's model and tool calls per run
// (Recorder.CallTool) and replays them (Replayer.CallTool), the tool
// shared by the runs and each call finding its run by eval.RunKeyFrom, as
// ptc test does.
type toolRuns struct {
	mu        sync.Mutex
	recorders map[eval.RunKey]*evalrec.Recorder
	replayers map[eval.RunKey]*evalrec.Replayer
	files     map[eval.RunKey][]byte
}

func newToolRuns() *toolRuns {
	return &toolRuns{recorders: map[eval.RunKey]*evalrec.Recorder{}, replayers: map[eval.RunKey]*evalrec.Replayer{}, files: map[eval.RunKey][]byte{}}
}

// recording is the tool live (f), each call recorded in its run's
// recording.
func (tr *toolRuns) recording(t *testing.T, name string, f agent.ToolFunc) agent.ToolFunc {
	return func(ctx context.Context, args *lisp.Map) (any, error) {
		k, ok := eval.RunKeyFrom(ctx)
		tr.mu.Lock()
		r := tr.recorders[k]
		tr.mu.Unlock()
		if !ok || r == nil {
			t.Errorf("a tool call with no run key (%v) or no recorder", ok)
			return f(ctx, args)
		}
		return r.CallTool(ctx, name, f, args)
	}
}

// replaying is the tool answered from its run's recording.
func (tr *toolRuns) replaying(name string) agent.ToolFunc {
	return func(ctx context.Context, args *lisp.Map) (any, error) {
		k, _ := eval.RunKeyFrom(ctx)
		tr.mu.Lock()
		p := tr.replayers[k]
		tr.mu.Unlock()
		if p == nil {
			return nil, errors.New("no replayer")
		}
		return p.CallTool(name, args)
	}
}

func (tr *toolRuns) record(k eval.RunKey, m llm.Model) (llm.Model, error) {
	r := evalrec.NewRecorder(m.(llm.Func))
	tr.mu.Lock()
	tr.recorders[k] = r
	tr.mu.Unlock()
	return r.Func(), nil
}

// save writes the recording of a run (eval.Config.Done, one at a time).
func (tr *toolRuns) save(t *testing.T, r *eval.RunResult) {
	tr.mu.Lock()
	rec := tr.recorders[r.RunKey]
	tr.mu.Unlock()
	data, err := rec.Marshal(r.Step, r.Variant)
	if err != nil {
		t.Errorf("%v: %v", r.RunKey, err)
	}
	tr.files[r.RunKey] = data
}

func (tr *toolRuns) replay(k eval.RunKey, _ llm.Model) (llm.Model, error) {
	p, err := evalrec.Read(tr.files[k])
	if err != nil {
		return nil, err
	}
	tr.mu.Lock()
	tr.replayers[k] = p
	tr.mu.Unlock()
	return p.Func(), nil
}

// counter is a tool whose every call gets a new number, with a secret:
// equal calls get different results.
func counter(n *atomic.Int64) agent.ToolFunc {
	return func(_ context.Context, args *lisp.Map) (any, error) {
		id, _ := args.Get(lisp.Keyword("id"))
		if id == int64(13) {
			return nil, errors.New("unlucky: no record 13")
		}
		i := n.Add(1)
		return map[string]any{"id": id, "n": i, "_secret": fmt.Sprintf("s-%v-%d", id, i)}, nil
	}
}

// TestRecordReplayTools: a run's tool calls replay from its recording —
// results (firewalled fields included) and errors, equal calls in the
// order they were made, each run its own — without calling the tool; a
// call the recording lacks is ErrNotRecorded; pmap's parallel equal
// calls replay deterministically when the replay runs them in order
// (agent.Options.Sequential).
func TestRecordReplayTools(t *testing.T) {
	const prog = `(let [a (tool/lookup {:id 1}) b (tool/lookup {:id 1}) c (tool/lookup {:id 2})
      e (try (tool/lookup {:id 13}) (catch Exception e (ex-message e)))
      p (pmap #(:n (tool/lookup {:id %})) [7 7 7 7])]
  (return {:ns [(:n a) (:n b) (:n c)] :secret (str (:_secret b)) :e e :p p :sorted (sort p)}))`
	var live atomic.Int64
	tr := newToolRuns()
	task := eval.Task{Name: "t", Config: agent.Config{Prompt: "Look up {{k}}.", Signature: "(k :int) -> :any",
		Tools: map[string]agent.Tool{"lookup": {Func: tr.recording(t, "lookup", counter(&live))}}},
		Cases: []eval.Case{{Name: "a", Input: map[string]any{"k": 1}}, {Name: "b", Input: map[string]any{"k": 2}}}}
	cfg := eval.Config{Variants: []eval.Variant{{Name: "m", Model: codeModel(prog)}}, Runs: 2, Parallel: 4, Wrap: tr.record}
	var recorded sync.Map
	cfg.Done = func(r *eval.RunResult) {
		tr.save(t, r)
		if r.Step.Fail != nil {
			t.Errorf("%v failed: %v", r.RunKey, r.Step.Fail)
			return
		}
		recorded.Store(r.RunKey, lisp.Print(r.Step.Return.(*lisp.Map).Dissoc(lisp.Keyword("p")), lisp.PrintOptions{Exact: true}))
	}
	if _, err := eval.Run(context.Background(), []eval.Task{task}, cfg); err != nil {
		t.Fatal(err)
	}
	if calls := live.Load(); calls != 4*7 {
		t.Fatalf("%d live calls recorded, want 28", calls)
	}
	// The recording holds the firewalled field, in clear.
	for k, f := range tr.files {
		if !strings.Contains(string(f), `\"_secret\" \"s-1-`) || !strings.Contains(string(f), "unlucky: no record 13") {
			t.Errorf("%v: the recording lacks a result or an error:\n%s", k, f)
		}
	}

	// The replay: the same tool, answered from the recordings, in order.
	replayed := func() map[eval.RunKey]string {
		tr.replayers = map[eval.RunKey]*evalrec.Replayer{}
		task.Config.Tools = map[string]agent.Tool{"lookup": {Func: tr.replaying("lookup")}}
		task.Options.Sequential = true
		out := map[eval.RunKey]string{}
		cfg := eval.Config{Variants: []eval.Variant{{Name: "m", Model: codeModel("(fail \"the live model\")")}}, Runs: 2, Parallel: 4, Wrap: tr.replay,
			Done: func(r *eval.RunResult) {
				if !r.Passed {
					t.Errorf("replayed %v failed: %s", r.RunKey, r.Why)
				}
				out[r.RunKey] = lisp.Print(r.Step.Return, lisp.PrintOptions{Exact: true})
			}}
		if _, err := eval.Run(context.Background(), []eval.Task{task}, cfg); err != nil {
			t.Fatal(err)
		}
		return out
	}
	first, second := replayed(), replayed()
	if live.Load() != 28 {
		t.Errorf("the replay called the tool: %d calls", live.Load())
	}
	if len(first) != 4 {
		t.Fatalf("%d runs replayed", len(first))
	}
	for k, got := range first {
		want, _ := recorded.Load(k)
		// Each run gets its own results: the same value as recorded
		// (which of pmap's equal calls got which result may differ, the
		// results are the same).
		v, _ := lisp.Read(got, lisp.ReadOptions{})
		if lisp.Print(v.(*lisp.Map).Dissoc(lisp.Keyword("p")), lisp.PrintOptions{Exact: true}) != want {
			t.Errorf("%v: replayed %s, recorded %s", k, got, want)
		}
		// Replayed in order, they replay alike every time.
		if second[k] != got {
			t.Errorf("%v: two replays differ: %s, %s", k, got, second[k])
		}
		if !strings.Contains(got, `:e "tool lookup failed: unlucky: no record 13"`) {
			t.Errorf("%v: the recorded error did not replay: %s", k, got)
		}
	}
	for _, p := range tr.replayers {
		if n := p.MissingTools(); n != 0 {
			t.Errorf("%d tool calls missing", n)
		}
	}

	// A call the recording lacks, and one more equal call than recorded.
	k := eval.RunKey{Variant: "m", Task: "t", Case: "a", Run: 1}
	p, err := evalrec.Read(tr.files[k])
	if err != nil {
		t.Fatal(err)
	}
	args := func(id int64) *lisp.Map { return lisp.NewMap().Assoc(lisp.Keyword("id"), id) }
	if _, err := p.CallTool("lookup", args(3)); !errors.Is(err, evalrec.ErrNotRecorded) {
		t.Errorf("an unrecorded call: %v", err)
	}
	for i := range 3 {
		_, err := p.CallTool("lookup", args(1))
		if (i < 2) != (err == nil) {
			t.Errorf("call %d of {:id 1}: %v", i+1, err)
		}
	}
	if _, err := p.CallTool("other", args(1)); !errors.Is(err, evalrec.ErrNotRecorded) {
		t.Errorf("another tool: %v", err)
	}
	if n := p.MissingTools(); n != 3 {
		t.Errorf("MissingTools() = %d, want 3", n)
	}
}

// Tool arguments are keyed canonically: the order of a map's keys, and
// keywords for strings, do not matter, as they do not to an MCP server.
func TestRecordedToolArgsCanonical(t *testing.T) {
	r := evalrec.NewRecorder(codeModel("1"))
	echo := func(_ context.Context, args *lisp.Map) (any, error) { return args, nil }
	m1, _ := lisp.Read(`{:b [1 {:y 2 :x "v"}] :a :k}`, lisp.ReadOptions{Format: lisp.ReadEDN})
	m2, _ := lisp.Read(`{:a "k" :b [1 {:x :v :y 2}]}`, lisp.ReadOptions{Format: lisp.ReadEDN})
	if _, err := r.CallTool(context.Background(), "t", echo, m1.(*lisp.Map)); err != nil {
		t.Fatal(err)
	}
	data, err := r.Marshal(&agent.Step{Return: int64(1)}, "m")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"args": "{\"a\":\"k\",\"b\":[1,{\"x\":\"v\",\"y\":2}]}"`) {
		t.Errorf("the arguments are not in canonical form:\n%s", data)
	}
	p, err := evalrec.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := p.CallTool("t", m2.(*lisp.Map)); err != nil || lisp.Print(v, lisp.PrintOptions{Exact: true}) != lisp.Print(m1, lisp.PrintOptions{Exact: true}) {
		t.Errorf("equal arguments written otherwise: %v, %v", v, err)
	}
}

// A recording's tool calls come from elsewhere: a malformed one is an
// error, never a panic or a wrong answer, in a trace recording or an old
// ptc-eval-recording.
func TestReadRecordingToolsHostile(t *testing.T) {
	for _, head := range []string{`{"format":"ptc-eval-recording","version":1,"calls":[],"tool_calls":`,
		`{"format":"ptc-trace","version":1,"step":{"ok":true},"recorded_tool_calls":`} {
		readHostile(t, head)
	}
}

func readHostile(t *testing.T, head string) {
	for _, tc := range []struct{ calls, want string }{
		{`[{"tool":"t","args":"{}","seq":0,"value":"{:a"}]`, "does not read"},
		{`[{"tool":"t","args":"{}","seq":0}]`, "does not read"},
		{`[{"tool":"t","args":"{}","seq":0,"value":"` + strings.Repeat("[", 20000) + `"}]`, "does not read"},
		{`[{"tool":"t","args":"{}","seq":0,"value":"1"},{"tool":"t","args":"{}","seq":0,"value":"2"}]`, "not a recorded order"},
		{`[{"tool":"t","args":"{}","seq":-1,"value":"1"}]`, "not a recorded order"},
		{`[{"tool":"","args":"{}","seq":0,"value":"1"}]`, "names no tool"},
		{`{"tool":"t"}`, "cannot unmarshal"},
	} {
		_, err := evalrec.Read([]byte(head + tc.calls + "}"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.60s: %v, want %q", tc.calls, err, tc.want)
		}
	}
	// A call the recording lost (its run ended before it did) leaves a
	// gap: the others still replay, in order.
	p, err := evalrec.Read([]byte(head + `[{"tool":"t","args":"{}","seq":2,"value":"2"},{"tool":"t","args":"{}","seq":0,"value":"0"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"0", "2"} {
		if v, err := p.CallTool("t", nil); err != nil || lisp.Print(v, lisp.PrintOptions{Exact: true}) != want {
			t.Errorf("got %v, %v; want %s", v, err, want)
		}
	}
}
