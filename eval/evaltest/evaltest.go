package evaltest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// RecordEnv is the environment variable that switches record mode on:
// PTC_EVAL_RECORD=1 go test -run TestEvals ./...
const RecordEnv = "PTC_EVAL_RECORD"

// DefaultName names Options.Model when Options.Name is "".
const DefaultName = "model"

// Options configure Run. The zero value replays nothing and has no
// model: Run skips. Set Dir to replay a recording, Model to record one.
type Options struct {
	// Dir is the folder of the recording ("testdata/evals"), relative to
	// the test's package. "": none; the model runs live, or the test is
	// skipped.
	Dir string
	// Model is the live model, used to record or to run live, never in
	// replay. Nil (no API key, say): Run replays the recording or skips.
	// To be recorded it must be an llm.Func.
	Model llm.Model
	// Name names Model in the report and the recording (its folder under
	// Dir), as ptc test names a model ("openai:gpt-4.1-mini"). "":
	// DefaultName. A replay takes the names the recording lists.
	Name string
	// Record switches record mode on, as PTC_EVAL_RECORD=1 does: for a
	// test that wires its own switch.
	Record bool
	// Runs is how many times each case runs (pass^N needs N > 1); a
	// replay needs a recording of each. Zero: 1.
	Runs int
	// Parallel is how many missions run at once. Zero: 1.
	Parallel int
}

// mode is what Run does.
type mode int

const (
	modeSkip mode = iota
	modeReplay
	modeRecord
	modeLive
)

// plan is what Run does, decided from the options and the environment.
type plan struct {
	mode     mode
	variants []eval.Variant
	skip     string // why the test is skipped (modeSkip)
}

// newPlan decides the mode: record when asked (env is the value of
// RecordEnv), else replay when Dir holds a recording, else live when
// there is a model, else skip.
func newPlan(opts Options, env string) (plan, error) {
	record := opts.Record
	if env != "" {
		on, err := strconv.ParseBool(env)
		if err != nil {
			return plan{}, fmt.Errorf("%s=%q: want 1 to record, or 0", RecordEnv, env)
		}
		record = record || on
	}
	name := opts.Name
	if name == "" {
		name = DefaultName
	}
	switch {
	case record && opts.Dir == "":
		return plan{}, errors.New("record mode needs Options.Dir, the folder to record in")
	case record && opts.Model == nil:
		return plan{}, errors.New("record mode needs Options.Model, the model to record (it is nil: is its API key set?)")
	case record:
		fn, ok := opts.Model.(llm.Func)
		if !ok {
			return plan{}, fmt.Errorf("cannot record a model of type %T: Options.Model must be an llm.Func", opts.Model)
		}
		return plan{mode: modeRecord, variants: []eval.Variant{{Name: name, Model: fn}}}, nil
	}
	if opts.Dir != "" {
		vs, err := readIndex(opts.Dir)
		switch {
		case err == nil:
			return plan{mode: modeReplay, variants: vs}, nil
		case !errors.Is(err, os.ErrNotExist):
			return plan{}, fmt.Errorf("the recording in %s: %w", opts.Dir, err)
		}
	}
	if opts.Model != nil {
		return plan{mode: modeLive, variants: []eval.Variant{{Name: name, Model: opts.Model}}}, nil
	}
	where := "no recording (Options.Dir is empty)"
	if opts.Dir != "" {
		where = "no recording in " + opts.Dir
	}
	return plan{mode: modeSkip, skip: where + " and no model (Options.Model is nil): " +
		"to record one, give Options.Dir and a live Options.Model and run " + RecordEnv + "=1 go test"}, nil
}

// caseRef is a case of a task, by index.
type caseRef struct{ task, c int }

// session is one Run: the recorders or replayers of its runs, which the
// tools find by their run's key, and what the runs left to report.
type session struct {
	dir  string
	mode mode

	mu        sync.Mutex
	recorders map[eval.RunKey]*eval.Recorder
	replays   map[eval.RunKey]*replayed
	drifted   int // replies given to requests that differed from the recorded ones
	stale     map[eval.RunKey]bool
}

// replayed is the replay of one run: its replayer, and the tools whose
// calls the recording holds.
type replayed struct {
	p     *eval.Replayer
	tools map[string]bool
}

// Run runs the tasks' cases on the model or the recording that opts
// give (see the package doc for the modes), each case a subtest of t
// named TASK/CASE, and returns the report. A case fails its subtest when
// one of its runs failed, with each failed run's reason; the report's
// table, as ptc test prints it, is logged on t. go test -run selects the
// cases that run. A task that does not build or a check that can never
// pass fails t at once. With nothing to replay and no model, Run skips t
// (and does not return).
//
// Each case's subtest is parallel (t.Parallel): it reports its runs when
// t's test function has returned. A task's Go tools (agent.NewTool,
// agent.Typed, agent.Func, a literal with a Func) are recorded in record
// mode and answered from the recording in replay mode, through
// agent.Tool.Wrap (pmap then runs one call at a time,
// agent.Options.Sequential, so that equal calls get their recorded results
// in the same order every time); the tools the recording has no calls of
// run live, as do agents and LLMs called as tools (Agent.AsTool,
// NewLLMTool), whose LLM requests are recorded with the mission's.
func Run(t *testing.T, tasks []eval.Task, opts Options) *eval.Report {
	t.Helper()
	p, err := newPlan(opts, os.Getenv(RecordEnv))
	if err != nil {
		t.Fatalf("evaltest: %v", err)
	}
	if p.mode == modeSkip {
		t.Skipf("evaltest: %s", p.skip)
	}
	if err := checkNames(tasks); err != nil {
		t.Fatalf("evaltest: %v", err)
	}

	// Each case's subtest registers itself, then waits, parallel, for the
	// runs: the cases go test -run selects are those registered.
	var (
		mu       sync.Mutex
		selected = map[caseRef]bool{}
		ready    = make(chan struct{})
		results  = map[caseRef][]*eval.RunResult{}
		s        = &session{dir: opts.Dir, mode: p.mode, recorders: map[eval.RunKey]*eval.Recorder{},
			replays: map[eval.RunKey]*replayed{}, stale: map[eval.RunKey]bool{}}
		ran bool
	)
	defer close(ready)
	for ti := range tasks {
		for ci := range tasks[ti].Cases {
			ref := caseRef{ti, ci}
			t.Run(tasks[ti].Name+"/"+tasks[ti].Cases[ci].Name, func(st *testing.T) {
				mu.Lock()
				selected[ref] = true
				mu.Unlock()
				st.Parallel()
				<-ready
				if !ran {
					st.Skip("evaltest: the evaluation did not run")
				}
				s.reportCase(st, results[ref])
			})
		}
	}
	mu.Lock()
	run := s.tasks(tasks, selected)
	mu.Unlock()
	if len(run) == 0 {
		ran = true
		return &eval.Report{Runs: max(opts.Runs, 1)}
	}

	cfg := eval.Config{Variants: p.variants, Runs: opts.Runs, Parallel: opts.Parallel, Done: s.done}
	switch p.mode {
	case modeRecord:
		if err := writeIndex(opts.Dir, p.variants); err != nil {
			t.Fatalf("evaltest: recording in %s: %v", opts.Dir, err)
		}
		cfg.Wrap = s.record
	case modeReplay:
		cfg.Wrap = s.replay
	}
	rep, err := eval.Run(t.Context(), run, cfg)
	if err != nil {
		t.Fatalf("evaltest: %v", err)
	}
	index := map[[2]string]caseRef{}
	for ti := range tasks {
		for ci := range tasks[ti].Cases {
			index[[2]string{tasks[ti].Name, tasks[ti].Cases[ci].Name}] = caseRef{ti, ci}
		}
	}
	for _, r := range rep.Results {
		ref := index[[2]string{r.Task, r.Case}]
		results[ref] = append(results[ref], r)
	}
	ran = true
	t.Log(s.table(rep))
	return rep
}

// checkNames checks that the subtests' names tell the cases apart.
func checkNames(tasks []eval.Task) error {
	for _, task := range tasks {
		seen := map[string]bool{}
		for i, c := range task.Cases {
			switch {
			case strings.TrimSpace(c.Name) == "":
				return fmt.Errorf("task %s: case %d has no name", task.Name, i+1)
			case seen[c.Name]:
				return fmt.Errorf("task %s: two cases are named %q", task.Name, c.Name)
			}
			seen[c.Name] = true
		}
	}
	return nil
}

// tasks are the tasks to run: the selected cases, the tools recorded or
// replayed as the mode asks. The caller's tasks are not changed.
func (s *session) tasks(tasks []eval.Task, selected map[caseRef]bool) []eval.Task {
	var out []eval.Task
	for ti, task := range tasks {
		var cases []eval.Case
		for ci, c := range task.Cases {
			if selected[caseRef{ti, ci}] {
				cases = append(cases, c)
			}
		}
		if len(cases) == 0 {
			continue
		}
		task.Cases = cases
		if s.mode == modeRecord || s.mode == modeReplay {
			tools := make(map[string]agent.Tool, len(task.Config.Tools))
			for name, tool := range task.Config.Tools {
				tools[name] = tool.Wrap(func(call agent.ToolFunc) agent.ToolFunc { return s.tool(name, call) })
			}
			task.Config.Tools = tools
			if s.mode == modeReplay && len(tools) > 0 {
				task.Options.Sequential = true
			}
		}
		out = append(out, task)
	}
	return out
}

// tool is a task's tool, recorded in its run's recording (record mode) or
// answered from it (replay mode) when the recording holds calls of it.
func (s *session) tool(name string, f agent.ToolFunc) agent.ToolFunc {
	return func(ctx context.Context, args *lisp.Map) (any, error) {
		k, ok := eval.RunKeyFrom(ctx)
		s.mu.Lock()
		rec, rp := s.recorders[k], s.replays[k]
		s.mu.Unlock()
		switch {
		case !ok:
			return f(ctx, args)
		case rec != nil:
			return rec.CallTool(ctx, name, f, args)
		case rp != nil && rp.tools[name]:
			v, err := rp.p.CallTool(name, args)
			if errors.Is(err, eval.ErrToolNotRecorded) {
				// Not the arguments: they may hold what the firewall
				// hides from the model, which reads this.
				return nil, fmt.Errorf("not recorded: the agent or its tools changed since %s was recorded (record it again)", s.dir)
			}
			return v, err
		}
		return f(ctx, args)
	}
}

// record is eval.Config.Wrap in record mode.
func (s *session) record(k eval.RunKey, m llm.Model) (llm.Model, error) {
	fn, ok := m.(llm.Func)
	if !ok {
		return nil, fmt.Errorf("cannot record a model of type %T", m)
	}
	r := eval.NewRecorder(k, fn)
	s.mu.Lock()
	s.recorders[k] = r
	s.mu.Unlock()
	return r.Func(), nil
}

// replay is eval.Config.Wrap in replay mode.
func (s *session) replay(k eval.RunKey, _ llm.Model) (llm.Model, error) {
	path := eval.RecordingPath(s.dir, k)
	data, err := readBounded(path)
	if err != nil {
		s.mu.Lock()
		s.stale[k] = true
		s.mu.Unlock()
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no recording of this run (%s): record it again", filepath.ToSlash(path))
		}
		return nil, fmt.Errorf("its recording: %v", err)
	}
	p, err := eval.ReadRecording(data)
	if err != nil {
		return nil, fmt.Errorf("its recording %s: %v", filepath.ToSlash(path), err)
	}
	var rec eval.Recording
	_ = json.Unmarshal(data, &rec) // it read, above
	rp := &replayed{p: p, tools: map[string]bool{}}
	for _, c := range rec.ToolCalls {
		rp.tools[c.Tool] = true
	}
	s.mu.Lock()
	s.replays[k] = rp
	s.mu.Unlock()
	return p.Func(), nil
}

// done is eval.Config.Done: a replayed run that had a request or a tool
// call the recording could not answer fails, a recorded run is written.
// eval.Run calls it one run at a time.
func (s *session) done(r *eval.RunResult) {
	s.mu.Lock()
	rec, rp := s.recorders[r.RunKey], s.replays[r.RunKey]
	delete(s.recorders, r.RunKey)
	delete(s.replays, r.RunKey)
	s.mu.Unlock()
	fail := func(why string) {
		if r.Why != "" {
			why += "; " + r.Why
		}
		r.Passed, r.Why = false, why
	}
	if rec != nil {
		if err := writeRecording(eval.RecordingPath(s.dir, r.RunKey), rec); err != nil {
			fail("recording it: " + err.Error())
		}
	}
	if rp != nil {
		drifted, missing := rp.p.Drift()
		tools := rp.p.MissingTools()
		s.mu.Lock()
		s.drifted += drifted
		if missing+tools > 0 {
			s.stale[r.RunKey] = true
		}
		s.mu.Unlock()
		var parts []string
		if missing > 0 {
			parts = append(parts, plural(missing, "model request")+" had no recorded reply")
		}
		if tools > 0 {
			parts = append(parts, plural(tools, "tool call")+" had no recorded result")
		}
		if len(parts) > 0 {
			fail(strings.Join(parts, ", ") + ": the agent changed since " + s.dir + " was recorded (record it again)")
		}
	}
}

// reportCase fails the subtest of a case when one of its runs failed.
func (s *session) reportCase(t *testing.T, runs []*eval.RunResult) {
	if len(runs) == 0 {
		t.Error("evaltest: the case did not run (the test's context ended)")
		return
	}
	stale := false
	for _, r := range runs {
		if r.Passed {
			t.Logf("%s, run %d: passed (%s)", r.Variant, r.Run, plural(r.Turns, "turn"))
			continue
		}
		why := r.Why
		if r.Reason != "" && !strings.Contains(why, r.Reason) {
			why += " (mission failed: " + r.Reason + ")"
		}
		t.Errorf("%s, run %d: %s", r.Variant, r.Run, why)
		s.mu.Lock()
		stale = stale || s.stale[r.RunKey]
		s.mu.Unlock()
	}
	if stale {
		t.Errorf("record it again: %s=1 go test -run '%s' (with Options.Model set to a live model)", RecordEnv, runPattern(t.Name()))
	}
}

// runPattern is the -run pattern that selects the test name alone.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// table is the report as Run logs it: the mode, then ptc test's table.
func (s *session) table(rep *eval.Report) string {
	var b strings.Builder
	switch s.mode {
	case modeReplay:
		fmt.Fprintf(&b, "\nreplayed from %s (offline; %s=1 records it again)\n", s.dir, RecordEnv)
	case modeRecord:
		fmt.Fprintf(&b, "\nrecorded in %s\n", s.dir)
	default:
		fmt.Fprintf(&b, "\nlive (not recorded: %s=1 and Options.Dir record it)\n", RecordEnv)
	}
	_ = rep.WriteTable(&b, eval.TableOptions{NoTimings: s.mode == modeReplay})
	s.mu.Lock()
	drifted := s.drifted
	s.mu.Unlock()
	if drifted > 0 {
		what := "1 recorded reply answered a request that differs"
		if drifted > 1 {
			what = fmt.Sprintf("%d recorded replies answered requests that differ", drifted)
		}
		fmt.Fprintf(&b, "note: %s from the recorded one (a prompt changed since): record it again to replay the prompts of today\n", what)
	}
	return b.String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// readBounded reads a file of a recording, at most eval.MaxRecordingSize
// bytes (and one more, for ReadRecording to refuse).
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, eval.MaxRecordingSize+1))
}
