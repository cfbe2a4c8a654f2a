package evalrec_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/internal/evalrec"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func doubleTasks() []eval.Task {
	return []eval.Task{{
		Name:   "double",
		Config: agent.Config{Prompt: "Double {{n}}", Signature: "(n :int) -> :int"},
		Cases: []eval.Case{
			{Name: "two", Input: map[string]any{"n": 2}, Checks: []eval.Check{eval.Equals(4)}},
			{Name: "three", Input: map[string]any{"n": 3}, Checks: []eval.Check{eval.Equals(6)}},
		},
	}}
}

// doubler answers "Double N" with a program; every answer to n=3 after
// the first (calls counts them) is wrong.
func doubler(calls *atomic.Int64) llm.Func {
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		prog := "(return (* 2 ctx/n))"
		if strings.Contains(req.Prompt, "3") && calls.Add(1) > 1 {
			prog = "(return (+ 2 ctx/n))"
		}
		return llm.Response{Content: "```clojure\n" + prog + "\n```", Tokens: llm.Tokens{Input: 1000, Output: 50}}, nil
	}
}

// offline is a model a replay must never call.
func offline(t *testing.T) llm.Func {
	return func(context.Context, llm.Request) (llm.Response, error) {
		t.Error("the live model was called")
		return llm.Response{}, errors.New("offline")
	}
}

// TestRecordReplay: a recorded run is a ptc-trace recording (the
// mission's trace, its LLM calls) that replays offline with the same
// verdicts, whatever order parallel calls come in; a request the
// recording lacks fails the run.
func TestRecordReplay(t *testing.T) {
	var calls atomic.Int64
	var mu sync.Mutex // Wrap is called from the runs' goroutines
	recs := map[eval.RunKey]*evalrec.Recorder{}
	files := map[eval.RunKey][]byte{}
	cfg := eval.Config{
		Variants: []eval.Variant{{Name: "m", Model: doubler(&calls)}},
		Runs:     2, Parallel: 4,
		Wrap: func(k eval.RunKey, m llm.Model) (llm.Model, error) {
			r := evalrec.NewRecorder(m.(llm.Func))
			mu.Lock()
			recs[k] = r
			mu.Unlock()
			return r.Func(), nil
		},
		Done: func(r *eval.RunResult) {
			mu.Lock()
			rec := recs[r.RunKey]
			mu.Unlock()
			data, err := rec.Marshal(r.Step, r.Variant)
			if err != nil {
				t.Error(err)
			}
			files[r.RunKey] = data
		},
	}
	first, err := eval.Run(context.Background(), doubleTasks(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for k, data := range files {
		rec, err := trace.ReadRecording(data)
		if err != nil || rec.Model != "m" || len(rec.Calls) != 1 || rec.Calls[0].Turn != 1 || len(rec.Calls[0].Messages) != 1 {
			t.Errorf("%v: the recording is not a trace recording of the run: %+v, %v", k, rec, err)
		}
		if _, err := trace.Unmarshal(data); err != nil {
			t.Errorf("%v: not a trace: %v", k, err)
		}
	}
	var replayers []*evalrec.Replayer
	cfg.Variants[0].Model = offline(t)
	cfg.Done = nil
	cfg.Wrap = func(k eval.RunKey, m llm.Model) (llm.Model, error) {
		p, err := evalrec.Read(files[k])
		if err != nil {
			return nil, err
		}
		mu.Lock()
		replayers = append(replayers, p)
		mu.Unlock()
		return p.Func(), nil
	}
	second, err := eval.Run(context.Background(), doubleTasks(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := func(r *eval.Report) map[eval.RunKey]bool {
		out := map[eval.RunKey]bool{}
		for _, res := range r.Results {
			out[res.RunKey] = res.Passed
		}
		return out
	}
	a, b := verdicts(first), verdicts(second)
	if len(a) != 4 || len(b) != 4 {
		t.Fatalf("%d and %d results", len(a), len(b))
	}
	passed := 0
	for k := range a {
		if a[k] != b[k] {
			t.Errorf("%v: %v recorded, %v replayed", k, a[k], b[k])
		}
		if a[k] {
			passed++
		}
	}
	if passed != 3 {
		t.Errorf("%d runs passed, want 3 (the second run of three gets a wrong answer)", passed)
	}
	for _, p := range replayers {
		if d, m := p.Drift(); d != 0 || m != 0 {
			t.Errorf("drift %d, missing %d", d, m)
		}
	}

	// Another prompt: the recording has no reply for it.
	other := doubleTasks()
	other[0].Config.Prompt = "Twice {{n}}"
	third, _ := eval.Run(context.Background(), other, cfg)
	if third.Passed() || !strings.Contains(third.Results[0].Why, "no recorded reply") {
		t.Errorf("replaying another prompt: %+v", third.Results[0])
	}

	for _, bad := range []string{`{}`, `{"format":"ptc-eval-recording","version":2}`, `[`,
		`{"format":"ptc-eval-recording","version":1,"calls":[{"request":"a","seq":5}]}`,
		`{"format":"ptc-trace","version":9,"step":{}}`, `{"format":"ptc-trace","version":1}`} {
		if _, err := evalrec.Read([]byte(bad)); err == nil {
			t.Errorf("Read(%s) accepted it", bad)
		}
	}
	if _, err := evalrec.Read(make([]byte, evalrec.MaxSize+1)); err == nil {
		t.Error("a recording over MaxSize read")
	}
}

// TestReadsLegacyRecording: a ptc-eval-recording of an older ptc (the
// checked-in testdata/double.eval-recording.json, written by the
// eval.Recorder of ptc before recordings were traces) is
// still read, converted on load: its model reply and its tool's result
// replay the run offline, with no drift.
func TestReadsLegacyRecording(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "double.eval-recording.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"format": "ptc-eval-recording"`) {
		t.Fatal("the fixture is not an old recording")
	}
	p, err := evalrec.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	if !p.HasTool("lookup") || p.HasTool("other") {
		t.Error("HasTool does not list the recorded tool")
	}
	task := eval.Task{Name: "double", Config: agent.Config{Prompt: "Double the n of record {{n}}.", Signature: "(n :int) -> :int",
		Tools: map[string]agent.Tool{"lookup": {Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			return p.CallTool("lookup", args)
		}}}},
		Cases: []eval.Case{{Name: "seven", Input: map[string]any{"n": 7}, Checks: []eval.Check{eval.Equals(42)}}}}
	rep, err := eval.Run(context.Background(), []eval.Task{task}, eval.Config{
		Variants: []eval.Variant{{Name: "m", Model: offline(t)}},
		Wrap:     func(eval.RunKey, llm.Model) (llm.Model, error) { return p.Func(), nil }})
	if err != nil || !rep.Passed() {
		t.Fatalf("the replay: %v %+v", err, rep.Results)
	}
	if d, m := p.Drift(); d != 0 || m != 0 || p.MissingTools() != 0 {
		t.Errorf("drift %d, missing %d, missing tools %d", d, m, p.MissingTools())
	}
}

// Where a run's recording lives, as ptc test --record and eval/evaltest
// write it.
func ExamplePath() {
	k := eval.RunKey{Variant: "openai:gpt-4.1-mini", Task: "orders", Case: "big spender", Run: 1}
	fmt.Println(filepath.ToSlash(evalrec.Path("testdata/evals", k)))
	// Output:
	// testdata/evals/openai_gpt-4.1-mini/orders/big_spender.1.json
}

// TestRecordingKeepsTheFirewall: a run's recording is redacted as a trace
// is: a firewalled input the mission returned shows as <Firewalled> in
// the trace, while the recorded tool results keep theirs in clear (a
// replay gives the program what the tool gave it), and the run replays.
func TestRecordingKeepsTheFirewall(t *testing.T) {
	const secret, toolSecret = "in-5ecret-77aa01", "tool-5ecret-42bb02"
	var rec *evalrec.Recorder
	tool := func(ctx context.Context, args *lisp.Map) (any, error) {
		return rec.CallTool(ctx, "token", func(context.Context, *lisp.Map) (any, error) {
			return map[string]any{"_token": toolSecret, "n": 1}, nil
		}, args)
	}
	task := eval.Task{Name: "t", Config: agent.Config{Prompt: "Echo.", Signature: "(_key :string) -> :any",
		Tools: map[string]agent.Tool{"token": {Func: tool}}},
		Cases: []eval.Case{{Name: "c", Input: map[string]any{"_key": secret}}}}
	model := llm.Func(func(context.Context, llm.Request) (llm.Response, error) {
		return llm.Response{Content: "```clojure\n(return {:k ctx/_key :t (:_token (tool/token {}))})\n```"}, nil
	})
	var data []byte
	cfg := eval.Config{Variants: []eval.Variant{{Name: "m", Model: model}},
		Wrap: func(_ eval.RunKey, m llm.Model) (llm.Model, error) {
			rec = evalrec.NewRecorder(m.(llm.Func))
			return rec.Func(), nil
		},
		Done: func(r *eval.RunResult) {
			var err error
			if data, err = rec.Marshal(r.Step, r.Variant); err != nil {
				t.Error(err)
			}
		}}
	if rep, err := eval.Run(context.Background(), []eval.Task{task}, cfg); err != nil || !rep.Passed() {
		t.Fatalf("%v %+v", err, rep.Results[0])
	}
	if strings.Contains(string(data), secret) || !strings.Contains(string(data), `"redacted": true`) {
		t.Errorf("the recording shows the firewalled input:\n%s", data)
	}
	if strings.Count(string(data), toolSecret) != 1 || !strings.Contains(string(data), `"recorded_tool_calls"`) {
		t.Errorf("the recorded tool result is not in clear, or the trace shows it:\n%s", data)
	}
	p, err := evalrec.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Variants[0].Model = offline(t)
	cfg.Wrap = func(eval.RunKey, llm.Model) (llm.Model, error) { return p.Func(), nil }
	cfg.Done = nil
	task.Config.Tools = map[string]agent.Tool{"token": {Func: func(ctx context.Context, args *lisp.Map) (any, error) {
		return p.CallTool("token", args)
	}}}
	rep, err := eval.Run(context.Background(), []eval.Task{task}, cfg)
	if err != nil || !rep.Passed() {
		t.Fatalf("the replay: %v %+v", err, rep.Results[0])
	}
	if got := lisp.Print(rep.Results[0].Step.Return, lisp.PrintOptions{Exact: true}); !strings.Contains(got, toolSecret) || !strings.Contains(got, secret) {
		t.Errorf("the replay returned %s", got)
	}
	if d, m := p.Drift(); d != 0 || m != 0 {
		t.Errorf("drift %d, missing %d", d, m)
	}
}
