package evaltest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/eval/evaltest"
	"github.com/ptc-go/ptc/internal/evalrec"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// The tests that must see a case fail a test run in a child process: the
// test binary itself, run again with childEnv set, runs one of the
// TestChild… tests (which skip otherwise), and the parent reads its
// output and exit status.
const (
	childEnv    = "EVALTEST_CHILD"
	childDirEnv = "EVALTEST_CHILD_DIR"
)

// doubleModel answers "Double N" with the program returning 2N, except
// for N = 3, where it returns 7: the case "three" fails.
func doubleModel() *llmtest.Script {
	s := &llmtest.Script{}
	s.Respond = func(req llm.Request) llmtest.Reply {
		if strings.Contains(req.Prompt, "Double 3") {
			return llmtest.Code("(return 7)")
		}
		return llmtest.Code("(return (* 2 ctx/n))")
	}
	return s
}

// doubleTask is the task of doubleModel: the cases two and three.
func doubleTask() eval.Task {
	return eval.Task{Name: "double", Config: agent.Config{Prompt: "Double {{n}}.", Signature: "(n :int) -> :int"},
		Cases: []eval.Case{
			{Name: "two", Input: map[string]any{"n": 2}, Checks: []eval.Check{eval.Equals(4)}},
			{Name: "three", Input: map[string]any{"n": 3}, Checks: []eval.Check{eval.Equals(6)}},
		}}
}

// priceTask looks a price up with the Go tool price, which counts its
// calls and answers prices[id] + the count (so a live call in a replay
// gives another answer than the recorded one). The model it goes with is
// priceModel.
func priceTask(calls *atomic.Int64, prompt string) eval.Task {
	prices := map[int64]float64{1: 10, 2: 20}
	price := func(_ context.Context, args *lisp.Map) (any, error) {
		n := calls.Add(1)
		id, _ := args.Get(lisp.Keyword("id"))
		p, ok := prices[id.(int64)]
		if !ok {
			return nil, errors.New("no such item")
		}
		return map[string]any{"price": p + float64(n)}, nil
	}
	return eval.Task{Name: "price", Config: agent.Config{Prompt: prompt, Signature: "(sku :string, id :int) -> :float",
		Tools: map[string]agent.Tool{"price": {Func: price, Signature: "(id :int) -> {price :float}"}}},
		Cases: []eval.Case{
			// Recorded live, case one's call is the tool's first (10+1),
			// case two's its second (20+2).
			{Name: "one", Input: map[string]any{"sku": "A", "id": 1}, Checks: []eval.Check{eval.Equals(11.0)}},
			{Name: "two", Input: map[string]any{"sku": "B", "id": 2}, Checks: []eval.Check{eval.Equals(22.0)}},
		}}
}

func priceModel() *llmtest.Script {
	s := llmtest.NewScript()
	r := llmtest.Code("(return (:price (tool/price {:id ctx/id})))")
	s.Default = &r
	return s
}

// runChild runs the test binary again on the tests run selects, with the
// environment env added, and returns its output and whether it failed.
func runChild(t *testing.T, run string, env ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run="+run, "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=1"}, env...)...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running the child: %v", err)
	}
	return string(out), err != nil
}

func isChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestFailingCaseFailsItsSubtest and others in a child process")
	}
}

// TestChildDouble runs doubleTask live, in a child: its case three fails.
func TestChildDouble(t *testing.T) {
	isChild(t)
	evaltest.Run(t, []eval.Task{doubleTask()}, evaltest.Options{Model: doubleModel().Func()})
}

// TestFailingCaseFailsItsSubtest: a failing case fails its subtest, with
// the reason of its failed run, and so the test; the case that passed
// passes; the report's table is logged. go test -run selects the cases
// that run, and a test whose cases all pass passes.
func TestFailingCaseFailsItsSubtest(t *testing.T) {
	out, failed := runChild(t, "^TestChildDouble$")
	if !failed {
		t.Fatalf("the child test passed:\n%s", out)
	}
	for _, want := range []string{
		"--- FAIL: TestChildDouble/double/three",
		"--- PASS: TestChildDouble/double/two",
		"--- FAIL: TestChildDouble ",
		"model, run 1: :expect: want 6, got 7",
		"pass@1                         50%", // the table
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	for _, row := range []string{`double +two +1/1\n`, `double +three +0/1 ✗\n`} {
		if !regexp.MustCompile(row).MatchString(out) {
			t.Errorf("the table lacks the row %s:\n%s", row, out)
		}
	}

	out, failed = runChild(t, "^TestChildDouble$/^double$/^two$")
	if failed || !strings.Contains(out, "--- PASS: TestChildDouble/double/two") || strings.Contains(out, "three") {
		t.Errorf("-run selecting case two: failed %v, want it alone run and passing:\n%s", failed, out)
	}
}

// TestRecordReplay: record mode runs the model and the Go tool live and
// writes a recording laid out as ptc test --record lays it out, each run
// a ptc-trace recording; replay
// mode answers every request and every tool call from it, calling neither
// (the live tool would give another answer), and its runs pass as the
// recorded ones did.
func TestRecordReplay(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "evals")
	var calls atomic.Int64
	model := priceModel()
	task := priceTask(&calls, "Look up the price of item {{sku}}.")
	var recorded *eval.Report
	t.Run("record", func(t *testing.T) {
		recorded = evaltest.Run(t, []eval.Task{task}, evaltest.Options{Dir: dir, Model: model.Func(), Name: "scripted:price", Record: true})
	})
	if recorded == nil || !recorded.Passed() || len(recorded.Results) != 2 {
		t.Fatalf("the recorded runs did not all pass: %+v", recorded)
	}
	if calls.Load() != 2 || model.Calls() != 2 {
		t.Fatalf("recording: %d tool calls and %d model calls, want 2 and 2", calls.Load(), model.Calls())
	}
	for _, c := range []string{"one", "two"} {
		path := evalrec.Path(dir, eval.RunKey{Variant: "scripted:price", Task: "price", Case: c, Run: 1})
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(path, filepath.Join("scripted_price", "price", c+".1.json")) ||
			!strings.Contains(string(data), `"format": "ptc-trace"`) ||
			!strings.Contains(string(data), `"tool": "price"`) || !strings.Contains(string(data), "tool/price") {
			t.Errorf("%s does not hold the run's model reply and tool call:\n%s", path, data)
		}
	}

	var replayed *eval.Report
	t.Run("replay", func(t *testing.T) {
		replayed = evaltest.Run(t, []eval.Task{task}, evaltest.Options{Dir: dir}) // no model: offline
	})
	if replayed == nil || !replayed.Passed() || len(replayed.Results) != 2 || replayed.Variants[0].Name != "scripted:price" {
		t.Fatalf("the replay: %+v", replayed)
	}
	if calls.Load() != 2 || model.Calls() != 2 {
		t.Errorf("the replay called the tool (%d calls) or the model (%d calls)", calls.Load()-2, model.Calls()-2)
	}

	// Given a model, a replay still calls none.
	t.Run("replay with a model", func(t *testing.T) {
		evaltest.Run(t, []eval.Task{task}, evaltest.Options{Dir: dir, Model: model.Func()})
	})
	if calls.Load() != 2 || model.Calls() != 2 {
		t.Errorf("the replay with a model called the tool or the model")
	}
}

// TestChildDrift replays, in a child, the recording made by
// TestReplayDrift with the task's prompt changed.
func TestChildDrift(t *testing.T) {
	isChild(t)
	var calls atomic.Int64
	task := priceTask(&calls, "Find the price of item {{sku}}.") // changed since the recording
	evaltest.Run(t, []eval.Task{task}, evaltest.Options{Dir: os.Getenv(childDirEnv)})
	if calls.Load() != 0 {
		t.Errorf("the drifted replay called the tool %d times", calls.Load())
	}
}

// TestChildToolDrift replays with the recorded prompt, but the tool's
// calls changed (another id, which the prompt does not show): the call
// the recording lacks fails.
func TestChildToolDrift(t *testing.T) {
	isChild(t)
	var calls atomic.Int64
	task := priceTask(&calls, "Look up the price of item {{sku}}.")
	task.Cases[0].Input = map[string]any{"sku": "A", "id": 2}
	evaltest.Run(t, []eval.Task{task}, evaltest.Options{Dir: os.Getenv(childDirEnv)})
}

// TestReplayDrift: a request the recording has no reply for (the prompt
// changed) fails its run, and the failure says to record again and how;
// so does a tool call it has no result for.
func TestReplayDrift(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "evals")
	var calls atomic.Int64
	task := priceTask(&calls, "Look up the price of item {{sku}}.")
	t.Run("record", func(t *testing.T) {
		evaltest.Run(t, []eval.Task{task}, evaltest.Options{Dir: dir, Model: priceModel().Func(), Record: true})
	})

	out, failed := runChild(t, "^TestChildDrift$", childDirEnv+"="+dir)
	if !failed {
		t.Fatalf("the drifted replay passed:\n%s", out)
	}
	for _, want := range []string{
		"--- FAIL: TestChildDrift/price/one",
		"--- FAIL: TestChildDrift/price/two",
		"1 model request had no recorded reply: the agent changed since " + dir + " was recorded (record it again)",
		"record it again: PTC_EVAL_RECORD=1 go test -run '^TestChildDrift$/^price$/^one$'",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "the drifted replay called the tool") {
		t.Errorf("the drifted replay called the tool:\n%s", out)
	}

	out, failed = runChild(t, "^TestChildToolDrift$", childDirEnv+"="+dir)
	if !failed {
		t.Fatalf("the replay with a changed tool call passed:\n%s", out)
	}
	for _, want := range []string{
		"--- FAIL: TestChildToolDrift/price/one",
		"--- PASS: TestChildToolDrift/price/two",
		"1 tool call had no recorded result",
		"record it again: PTC_EVAL_RECORD=1 go test -run '^TestChildToolDrift$/^price$/^one$'",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

// TestChildCase runs a case that has no recording, in a child.
func TestChildMissingRun(t *testing.T) {
	isChild(t)
	var calls atomic.Int64
	task := priceTask(&calls, "Look up the price of item {{sku}}.")
	task.Cases = append(task.Cases, eval.Case{Name: "new", Input: map[string]any{"sku": "C", "id": 1}})
	evaltest.Run(t, []eval.Task{task}, evaltest.Options{Dir: os.Getenv(childDirEnv)})
}

// TestReplayMissingRun: a case added since the recording fails, saying
// to record it; the recorded ones pass.
func TestReplayMissingRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "evals")
	var calls atomic.Int64
	t.Run("record", func(t *testing.T) {
		evaltest.Run(t, []eval.Task{priceTask(&calls, "Look up the price of item {{sku}}.")},
			evaltest.Options{Dir: dir, Model: priceModel().Func(), Record: true})
	})
	out, failed := runChild(t, "^TestChildMissingRun$", childDirEnv+"="+dir)
	for _, want := range []string{
		"--- FAIL: TestChildMissingRun/price/new",
		"--- PASS: TestChildMissingRun/price/one",
		"no recording of this run",
		"record it again: PTC_EVAL_RECORD=1 go test -run '^TestChildMissingRun$/^price$/^new$'",
	} {
		if !failed || !strings.Contains(out, want) {
			t.Errorf("failed %v; the output lacks %q:\n%s", failed, want, out)
		}
	}
}

// TestChildSkip runs with no recording and no model, in a child.
func TestChildSkip(t *testing.T) {
	isChild(t)
	evaltest.Run(t, []eval.Task{doubleTask()}, evaltest.Options{Dir: os.Getenv(childDirEnv)})
	t.Error("Run returned")
}

// TestSkipWithoutRecording: with no recording and no model, Run skips the
// test and says how to record; it runs no case.
func TestSkipWithoutRecording(t *testing.T) {
	dir := t.TempDir()
	out, failed := runChild(t, "^TestChildSkip$", childDirEnv+"="+dir)
	want := "evaltest: no recording in " + dir + " and no model (Options.Model is nil): to record one, give Options.Dir and a live Options.Model and run PTC_EVAL_RECORD=1 go test"
	if failed || !strings.Contains(out, "--- SKIP: TestChildSkip") || !strings.Contains(out, want) || strings.Contains(out, "double/") {
		t.Errorf("failed %v; want a skip saying %q:\n%s", failed, want, out)
	}

	// In process: the test is skipped.
	var skipped bool
	t.Run("skip", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		evaltest.Run(t, []eval.Task{doubleTask()}, evaltest.Options{Dir: dir})
	})
	if !skipped {
		t.Error("not skipped")
	}
}

// TestChildRecordEnv records, in a child, because PTC_EVAL_RECORD=1.
func TestChildRecordEnv(t *testing.T) {
	isChild(t)
	var calls atomic.Int64
	evaltest.Run(t, []eval.Task{priceTask(&calls, "Look up the price of item {{sku}}.")},
		evaltest.Options{Dir: os.Getenv(childDirEnv), Model: priceModel().Func()})
}

// TestRecordEnv: PTC_EVAL_RECORD=1 switches record mode on; without it,
// the same test replays what was recorded.
func TestRecordEnv(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "evals")
	out, failed := runChild(t, "^TestChildRecordEnv$", childDirEnv+"="+dir, "PTC_EVAL_RECORD=1")
	if failed || !strings.Contains(out, "recorded in "+dir) {
		t.Fatalf("failed %v:\n%s", failed, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "model", "price", "one.1.json")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "latency p50 / p95") {
		t.Errorf("the recording's report lacks the latency:\n%s", out)
	}
	out, failed = runChild(t, "^TestChildRecordEnv$", childDirEnv+"="+dir)
	if failed || !strings.Contains(out, "replayed from "+dir) || strings.Contains(out, "latency") {
		t.Errorf("failed %v; want a replay, no latency in its report:\n%s", failed, out)
	}

	// -run selects what is recorded; the others' recordings stay.
	two := filepath.Join(dir, "model", "price", "two.1.json")
	before, err := os.ReadFile(two)
	if err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(dir, "model", "price", "one.1.json")
	if err := os.Remove(one); err != nil {
		t.Fatal(err)
	}
	out, failed = runChild(t, "^TestChildRecordEnv$/^price$/^one$", childDirEnv+"="+dir, "PTC_EVAL_RECORD=1")
	after, err := os.ReadFile(two)
	if failed || err != nil || string(after) != string(before) || strings.Contains(out, "price/two") {
		t.Errorf("recording case one alone: failed %v, case two's recording %v:\n%s", failed, err, out)
	}
	if _, err := os.Stat(one); err != nil {
		t.Errorf("case one not recorded again: %v", err)
	}
	out, failed = runChild(t, "^TestChildRecordEnv$", childDirEnv+"="+dir, "PTC_EVAL_RECORD=maybe")
	if !failed || !strings.Contains(out, `evaltest: PTC_EVAL_RECORD="maybe": want 1 to record, or 0`) {
		t.Errorf("failed %v:\n%s", failed, out)
	}
}

// TestCasesFromLisp: cases written in PTC-Lisp (eval.ParseCases) run as
// those written in Go.
func TestCasesFromLisp(t *testing.T) {
	cases, err := eval.ParseCases("double.cases.clj", `[{:name "two" :input {:n 2} :expect 4}
 {:name "ten" :input {:n 10} :check (fn [r] (= r 20))}]`)
	if err != nil {
		t.Fatal(err)
	}
	task := doubleTask()
	task.Cases = cases
	var rep *eval.Report
	t.Run("lisp", func(t *testing.T) {
		rep = evaltest.Run(t, []eval.Task{task}, evaltest.Options{Model: doubleModel().Func()})
	})
	if rep == nil || !rep.Passed() || len(rep.Results) != 2 {
		t.Errorf("%+v", rep)
	}
}

// TestTypedToolsRecorded: a tool made with agent.NewTool
// (no Func of its own) is recorded, and answered from the recording in a
// replay, as a Func tool is.
func TestTypedToolsRecorded(t *testing.T) {
	var calls atomic.Int64
	typed := agent.NewTool("", func(_ context.Context, in struct {
		ID int `json:"id"`
	}) (map[string]any, error) {
		calls.Add(1)
		return map[string]any{"price": 10.0 * float64(in.ID)}, nil
	})
	task := eval.Task{Name: "typed", Config: agent.Config{Prompt: "Look up the price of item {{sku}}.", Signature: "(sku :string, id :int) -> :float",
		Tools: map[string]agent.Tool{"price": typed}},
		Cases: []eval.Case{{Name: "one", Input: map[string]any{"sku": "A", "id": 1}, Checks: []eval.Check{eval.Equals(10.0)}}}}
	dir := filepath.Join(t.TempDir(), "evals")
	var reps []*eval.Report
	for _, opts := range []evaltest.Options{{Dir: dir, Model: priceModel().Func(), Record: true}, {Dir: dir}} {
		t.Run("run", func(t *testing.T) { reps = append(reps, evaltest.Run(t, []eval.Task{task}, opts)) })
	}
	if len(reps) != 2 || !reps[0].Passed() || !reps[1].Passed() || calls.Load() != 1 {
		t.Errorf("recorded and replayed: %d live calls, want 1, the recording's (%+v)", calls.Load(), reps)
	}
	data, _ := os.ReadFile(evalrec.Path(dir, eval.RunKey{Variant: "model", Task: "typed", Case: "one", Run: 1}))
	if !strings.Contains(string(data), "tool_calls") {
		t.Errorf("the typed tool's call was not recorded:\n%s", data)
	}
}

// TestChildBadCheck runs, in a child, a case whose check does not
// compile.
func TestChildBadCheck(t *testing.T) {
	isChild(t)
	task := doubleTask()
	task.Cases[1].Checks = []eval.Check{eval.Satisfies("(fn [r")}
	evaltest.Run(t, []eval.Task{task}, evaltest.Options{Model: doubleModel().Func()})
	t.Error("Run returned")
}

// TestBadTaskFailsAtOnce: a check that can never pass fails the test at
// once, running no case; the cases' subtests say they did not run.
func TestBadTaskFailsAtOnce(t *testing.T) {
	out, failed := runChild(t, "^TestChildBadCheck$")
	for _, want := range []string{"evaltest: eval: double, three:", "--- SKIP: TestChildBadCheck/double/two", "the evaluation did not run"} {
		if !failed || !strings.Contains(out, want) || strings.Contains(out, "Run returned") {
			t.Errorf("failed %v; the output lacks %q:\n%s", failed, want, out)
		}
	}
}
