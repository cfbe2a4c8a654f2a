package testcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/load"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/eval/bundled"
	"github.com/ptc-go/ptc/internal/evalrec"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

const testSynopsis = `[AGENT_FILE|SUITE_DIR]... [--model REF]... [--prompt-profile LIST] [--mode LIST] [-n RUNS] [--parallel N]
                [--json] [--junit FILE] [--record DIR | --replay DIR [--replay-mcp]] [--price REF=IN/OUT]...
                [--list] [--quiet]`

const testHelp = `
Measures agents against models: runs every test case of the agents given
(agent files, or folders of them) RUNS times on each model, checks each
answer, and prints a table: per case how many runs passed, per model
pass@1 (the chance one run passes), pass^N (the share of cases whose N runs
all passed), turns and turns that failed, tokens, cost when --price gives
the model's price, and latency. Without an agent file, it runs ptc's
bundled suite (--list lists its tasks); with it, the model "reference"
answers with each task's reference solution, offline, to show the format
(in --mode tools, with the tool calls the solution makes).

Cases: an agent file's cases: names a file of them (or holds them inline as
a | block); without it, NAME.cases.clj beside NAME.md is read. They are
PTC-Lisp data, a vector of maps:
  [{:name "alice" :input {:customer "alice"} :expect {:count 2 :total 130.5} :within 0.01}
   {:name "any" :input {:customer "bob"} :subset {:count 0}}
   {:name "rule" :input {:customer "carol"} :check (fn [r] (> (:total r) 100))}
   {:name "unknown" :input {:customer "zed"} :fails :not_found}]
:input goes over the agent file's context. See docs/evals.md.

Comparing: --model A --model B, --prompt-profile default,compact and --mode program,tools, run
every case on each combination, side by side.

--record DIR saves each run under DIR as a recording (a ptc-trace, with its
model calls: docs/trace-format.md); --replay DIR runs again offline from
them, with no model, each request answered by key (its mission prompt and
turn), so parallel calls replay in any order: what CI runs. Recordings of
older ptc versions (ptc-eval-recording) are still read. For an agent file with mcp:, --record
also saves its MCP tools as the agent saw them and every call's result
(keyed by tool and arguments), and --replay answers the calls from them:
a replay starts no MCP server and opens no connection unless
--replay-mcp asks it to, and a call the recording lacks is a tool error
that fails its run. The recording then holds the tools' results in
clear, firewalled fields included: keep it as you keep that data.
--list reads the agent files and their cases only: it connects to no
server either.

Exit status: 0 every run passed, 1 a run failed, 2 bad usage, agent file
or recording, 130 interrupted.

Flags:
`

// Flags are the flags of ptc test.
type Flags struct {
	models         base.RepeatedString
	profiles       string
	modes          string
	runs, parallel int
	asJSON, Quiet  bool
	list           bool
	junit          string
	record, replay string
	replayMCP      bool // a replay may connect to the agent files' mcp: servers
	prices         base.RepeatedString
}

// referenceModel is the --model of the bundled suite's reference
// solutions.
const referenceModel = "reference"

// Run runs ptc test with args in env and returns its exit status.
func Run(env *base.Env, args []string, stdout, stderr io.Writer) int {
	var f Flags
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: ptc test %s\n%s", testSynopsis, testHelp)
		fs.PrintDefaults()
	}
	fs.Var(&f.models, "model", "a model `REF` to measure (provider:model, or reference); repeatable to compare (default: $PTC_MODEL, else the agent files' model:)")
	fs.StringVar(&f.profiles, "prompt-profile", "", "language profiles to compare, comma-separated (`LIST` of default, compact); default: each agent's own")
	fs.StringVar(&f.modes, "mode", "", "agent modes to compare, comma-separated (`LIST` of program, tools, text); default: each agent's own")
	fs.IntVar(&f.runs, "n", 1, "`RUNS` of each case per model (pass^N needs more than 1)")
	fs.IntVar(&f.parallel, "parallel", 1, "missions run at `N` at once")
	fs.BoolVar(&f.asJSON, "json", false, "print the report as JSON on stdout")
	fs.StringVar(&f.junit, "junit", "", "write the report as JUnit XML to `FILE`, for CI")
	fs.StringVar(&f.record, "record", "", "save every run's model replies, and MCP tools and their results, under `DIR`")
	fs.StringVar(&f.replay, "replay", "", "run offline with the replies and MCP tool results recorded under `DIR` (no model is called, no MCP server started)")
	fs.BoolVar(&f.replayMCP, "replay-mcp", false, "let a replay connect to the MCP servers of the agent files' mcp: (starting the commands they name) instead of answering their tools from the recording")
	fs.Var(&f.prices, "price", "a model's price, `REF=IN/OUT` in dollars per million input and output tokens; repeatable")
	fs.BoolVar(&f.list, "list", false, "list the tasks and their cases, and run nothing (no MCP server started)")
	fs.BoolVar(&f.Quiet, "quiet", false, "print no progress")
	fs.BoolVar(&f.Quiet, "q", false, "short for --quiet")
	pos, err := base.ParseFlags(fs, args)
	if err != nil {
		return base.FlagError(fs, err, stdout)
	}
	switch {
	case f.runs < 1:
		return base.UsageError(fs, "-n %d: a case runs at least once", f.runs)
	case f.parallel < 1:
		return base.UsageError(fs, "--parallel %d: at least 1", f.parallel)
	case f.record != "" && f.replay != "":
		return base.UsageError(fs, "--record and --replay do not go together: a replay calls no model")
	case f.replayMCP && f.replay == "":
		return base.UsageError(fs, "--replay-mcp goes with --replay (ptc test connects to the agents' MCP servers anyway)")
	}
	prices, err := parsePrices(f.prices)
	if err != nil {
		return base.UsageError(fs, "%v", err)
	}
	t := &Command{Env: env, Flags: &f, stdout: stdout, Stderr: &base.SyncWriter{W: stderr}, fs: fs,
		recorders: map[eval.RunKey]*evalrec.Recorder{}, replayers: map[eval.RunKey]*evalrec.Replayer{}}
	defer t.Close()
	tasks, code := t.tasks(pos)
	if code != base.ExitOK {
		return code
	}
	if f.list {
		printTaskList(stdout, tasks)
		return base.ExitOK
	}
	variants, code := t.variants(tasks, pos, prices)
	if code != base.ExitOK {
		return code
	}
	if code := t.mcpTools(tasks); code != base.ExitOK {
		return code
	}
	return t.run(tasks, variants)
}

// Command is one "ptc test".
type Command struct {
	Env     *base.Env
	Flags   *Flags
	stdout  io.Writer
	Stderr  *base.SyncWriter
	fs      *flag.FlagSet
	suite   *bundled.Suite
	closers []func()
	// models are the agent files' model: references, by task.
	models map[string]string
	// MCP are the MCP configurations of the agent files with mcp:, by
	// task: connected to (mcpTools) only when the runs run.
	MCP map[string]MCPSource
	// recordedMCP: --record saved an agent's MCP tools.
	recordedMCP bool

	// The recording or the replay of each run, which its MCP tools find
	// by the run's key (Wrap and the tools run on the runs' goroutines).
	mu        sync.Mutex
	recorders map[eval.RunKey]*evalrec.Recorder
	replayers map[eval.RunKey]*evalrec.Replayer
}

func (t *Command) Close() {
	for _, c := range t.closers {
		c()
	}
	if t.suite != nil {
		_ = t.suite.Close()
	}
}

// tasks loads the tasks: the bundled suite, or the agent files and
// folders given.
func (t *Command) tasks(pos []string) ([]eval.Task, int) {
	if len(pos) == 0 {
		s, err := bundled.Open(t.Env.Ctx)
		if err != nil {
			t.Stderr.Printf("ptc test: the bundled suite: %v\n", err)
			return nil, base.ExitFail
		}
		t.suite = s
		return s.EvalTasks(), base.ExitOK
	}
	var files []string
	for _, p := range pos {
		st, err := os.Stat(p)
		if err != nil {
			return nil, base.UsageError(t.fs, "%v", err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		found, _ := filepath.Glob(filepath.Join(p, "*.md"))
		sort.Strings(found)
		var withCases int
		for _, name := range found {
			af, _, err := load.ReadAgentFile(name)
			if err != nil || !HasCases(af) {
				continue // a suite folder may hold other Markdown
			}
			files = append(files, name)
			withCases++
		}
		if withCases == 0 {
			return nil, base.UsageError(t.fs, "%s holds no agent file with cases", p)
		}
	}
	t.models, t.MCP = map[string]string{}, map[string]MCPSource{}
	var tasks []eval.Task
	names := map[string]bool{}
	for _, path := range files {
		task, model, mcpPath, err := t.FileTask(path)
		if err != nil {
			t.Stderr.Printf("ptc test: %v\n", err)
			return nil, base.ExitUsage
		}
		if names[task.Name] {
			task.Name = strings.TrimSuffix(path, filepath.Ext(path))
		}
		names[task.Name] = true
		t.models[task.Name] = model
		if mcpPath != "" {
			t.MCP[task.Name] = MCPSource{Agent: path, Config: mcpPath}
		}
		tasks = append(tasks, task)
	}
	return tasks, base.ExitOK
}

// HasCases reports whether an agent file has cases: its cases: key or the
// file beside it.
func HasCases(af *load.AgentFile) bool {
	if af.Has("cases") {
		return true
	}
	_, err := os.Stat(CasesBeside(af.Name))
	return err == nil
}

func CasesBeside(agentPath string) string {
	return strings.TrimSuffix(agentPath, filepath.Ext(agentPath)) + agentfile.CasesSuffix
}

// FileTask makes the task of an agent file: its agent, its cases with
// their inputs over the file's context; and returns its model: and the MCP
// configuration its mcp: names, whose tools mcpTools gives it.
func (t *Command) FileTask(path string) (eval.Task, string, string, error) {
	af, _, err := load.ReadAgentFile(path)
	if err != nil {
		return eval.Task{}, "", "", err
	}
	cases, err := LoadCases(af, path)
	if err != nil {
		return eval.Task{}, "", "", err
	}
	given, err := af.LoadContext()
	if err != nil {
		return eval.Task{}, "", "", err
	}
	for i := range cases {
		in, _ := cases[i].Input.(*lisp.Map)
		if in == nil {
			in = lisp.NewMap()
		}
		cases[i].Input = base.MergeContext(given, in)
	}
	cfg := af.CLIConfig()
	t.Env.AddTools(&cfg)
	name := load.AgentName(path)
	task := eval.Task{Name: name, Description: af.Config.Description, Config: cfg, Cases: cases,
		Options: agent.Options{InputSignature: af.InputSignature}}
	return task, af.Model, af.MCPPath(), nil
}

// LoadCases reads the cases of the agent file at path: its cases: key
// (a file or inline), else the file beside it.
func LoadCases(af *load.AgentFile, path string) ([]eval.Case, error) {
	var cases []eval.Case
	var err error
	switch {
	case af.CasesFile() != "":
		name := af.Path(af.CasesFile())
		data, err := base.ReadBounded(name, kindCases)
		if err != nil {
			return nil, &agentfile.Error{File: af.Name, Pos: af.Pos("cases"), Msg: "cases: " + err.Error(), Err: err}
		}
		cases, err = eval.ParseCases(name, string(data))
		if err != nil {
			return nil, err
		}
	case af.Has("cases"):
		if cases, err = af.Cases(); err != nil {
			return nil, err
		}
	default:
		name := CasesBeside(path)
		data, err := base.ReadBounded(name, kindCases)
		var tl *base.TooLargeError
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("%s has no cases: give it a cases: key, or write them in %s (see ptc test -h)", path, name)
		case errors.As(err, &tl):
			return nil, fmt.Errorf("%s: its cases file %s is too large: %v", path, name, tl)
		case err != nil:
			return nil, fmt.Errorf("%s: its cases file: %w", path, base.FileError(name, err))
		}
		if cases, err = eval.ParseCases(name, string(data)); err != nil {
			return nil, err
		}
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: its cases are an empty vector", path)
	}
	return cases, nil
}

// variants are the models and profiles to measure.
func (t *Command) variants(tasks []eval.Task, pos []string, prices map[string]eval.Price) ([]eval.Variant, int) {
	f := t.Flags
	refs := []string(f.models)
	if f.replay != "" && len(refs) == 0 {
		idx, err := readRecordIndex(f.replay)
		if err != nil {
			return nil, base.UsageError(t.fs, "--replay %s: %v", f.replay, err)
		}
		return idx, base.ExitOK
	}
	if len(refs) == 0 {
		switch m := t.Env.Getenv("PTC_MODEL"); {
		case m != "":
			refs = []string{m}
		case len(pos) == 0:
			refs = []string{referenceModel}
		default:
			seen := map[string]bool{}
			for _, m := range t.models {
				if m != "" && !seen[m] {
					seen[m] = true
					refs = append(refs, m)
				}
			}
			sort.Strings(refs)
			if len(refs) != 1 {
				return nil, base.UsageError(t.fs, "no --model, and the agent files name %d models: say which with --model (repeat it to compare)", len(refs))
			}
		}
	}
	profiles := []string{""}
	if f.profiles != "" {
		profiles = nil
		for _, p := range strings.Split(f.profiles, ",") {
			p = strings.TrimSpace(p)
			if prompt.Reference(p) == "" {
				return nil, base.UsageError(t.fs, "--prompt-profile: unknown profile %q (the profiles are %s)", p, strings.Join(prompt.Profiles(), ", "))
			}
			profiles = append(profiles, p)
		}
	}
	modes := []string{""}
	if f.modes != "" {
		modes = nil
		for _, m := range strings.Split(f.modes, ",") {
			m = strings.TrimSpace(m)
			if m != "program" && m != "tools" && m != "text" {
				return nil, base.UsageError(t.fs, "--mode: unknown mode %q (the modes are program, tools, text)", m)
			}
			modes = append(modes, m)
		}
	}
	var out []eval.Variant
	for _, ref := range refs {
		var model llm.Model
		switch {
		case f.replay != "":
			model = llm.Func(noModel)
		case ref == referenceModel:
			if t.suite == nil {
				return nil, base.UsageError(t.fs, "--model reference answers the bundled suite only (run ptc test without agent files)")
			}
			model = t.suite.Reference()
		default:
			fn, err := t.Env.OpenModel(t.Env.Ctx, ref)
			if err != nil {
				t.Stderr.Printf("ptc test: --model %s: %v\n", ref, err)
				return nil, base.ExitUsage
			}
			model = fn
		}
		for _, p := range profiles {
			for _, mode := range modes {
				v := eval.Variant{Name: ref, Model: model, Profile: p, Mode: mode}
				if p != "" && len(profiles) > 1 {
					v.Name += "/" + p
				}
				if mode != "" && len(modes) > 1 {
					v.Name += "/" + mode
				}
				if pr, ok := prices[ref]; ok {
					v.Price = &pr
				}
				out = append(out, v)
			}
		}
	}
	return out, base.ExitOK
}

// run runs the evaluation and prints its report.
func (t *Command) run(tasks []eval.Task, variants []eval.Variant) int {
	f := t.Flags
	ctx, cancel := context.WithCancel(t.Env.Ctx)
	defer cancel()
	var interrupted atomic.Bool
	if t.Env.Interrupts {
		stop := base.OnInterrupt(func() {
			interrupted.Store(true)
			t.Stderr.Printf("\ninterrupted: cancelling the runs (Ctrl-C again to quit at once)\n")
			cancel()
		})
		defer stop()
	}
	total := 0
	for _, task := range tasks {
		total += len(task.Cases)
	}
	total *= len(variants) * f.runs
	cfg := eval.Config{Variants: variants, Runs: f.runs, Parallel: f.parallel}
	var recErrs []string
	var done, passed int
	var missing atomic.Int64
	if f.record != "" {
		if err := os.MkdirAll(f.record, 0o755); err != nil {
			t.Stderr.Printf("ptc test: --record: %v\n", err)
			return base.ExitUsage
		}
		if err := writeRecordIndex(f.record, variants); err != nil {
			t.Stderr.Printf("ptc test: --record: %v\n", err)
			return base.ExitUsage
		}
		cfg.Wrap = func(k eval.RunKey, m llm.Model) (llm.Model, error) {
			fn, ok := m.(llm.Func)
			if !ok {
				return nil, fmt.Errorf("cannot record model %T", m)
			}
			r := evalrec.NewRecorder(fn)
			t.mu.Lock()
			t.recorders[k] = r
			t.mu.Unlock()
			return r.Func(), nil
		}
		if t.recordedMCP {
			t.Stderr.Printf("note: %s keeps the MCP tools' results in clear, firewalled fields included: keep it as you keep that data\n", f.record)
		}
	}
	if f.replay != "" {
		cfg.Wrap = func(k eval.RunKey, _ llm.Model) (llm.Model, error) {
			data, err := base.ReadBounded(evalrec.Path(f.replay, k), base.KindTranscript)
			if err != nil {
				return nil, fmt.Errorf("no recording of this run: %v", err)
			}
			p, err := evalrec.Read(data)
			if err != nil {
				return nil, err
			}
			t.mu.Lock()
			t.replayers[k] = p
			t.mu.Unlock()
			fn := p.Func()
			return llm.Func(func(ctx context.Context, req llm.Request) (llm.Response, error) {
				resp, err := fn(ctx, req)
				if errors.Is(err, evalrec.ErrNotRecorded) {
					missing.Add(1)
				}
				return resp, err
			}), nil
		}
	}
	start := time.Now()
	var missingTools int
	cfg.Done = func(r *eval.RunResult) {
		if f.record != "" {
			// The run's recording: a ptc-trace recording of its mission.
			t.mu.Lock()
			rec := t.recorders[r.RunKey]
			delete(t.recorders, r.RunKey)
			t.mu.Unlock()
			if rec != nil {
				if err := writeRecording(evalrec.Path(f.record, r.RunKey), rec, r); err != nil {
					recErrs = append(recErrs, fmt.Sprintf("the recording of %s · %s #%d: %v", r.Task, r.Case, r.Run, err))
				}
			}
		}
		if f.replay != "" {
			// A tool call the recording lacks fails its run, whatever the
			// agent made of the error.
			t.mu.Lock()
			p := t.replayers[r.RunKey]
			delete(t.replayers, r.RunKey)
			t.mu.Unlock()
			n := 0
			if p != nil {
				n = p.MissingTools()
			}
			if n > 0 {
				missingTools += n
				why := fmt.Sprintf("%s %v", base.Plural(n, "tool call"), mcpNotRecorded(f.replay))
				if r.Why != "" {
					why += "; " + r.Why
				}
				r.Passed, r.Why = false, why
			}
		}
		done++
		if r.Passed {
			passed++
		}
		if f.Quiet {
			return
		}
		mark, why := "✓", ""
		if !r.Passed {
			mark, why = "✗", " — "+base.OneLine(base.TermLine(r.Why), 160)
		}
		run := ""
		if f.runs > 1 {
			run = fmt.Sprintf(" #%d", r.Run)
		}
		variant := ""
		if len(variants) > 1 {
			variant = " · " + r.Variant
		}
		t.Stderr.Printf("[%d/%d] %s %s · %s%s%s (%s, %s)%s\n", done, total, mark, r.Task, r.Case, run, variant,
			base.Plural(r.Turns, "turn"), base.RoundElapsed(r.Duration), why)
	}
	rep, err := eval.Run(ctx, tasks, cfg)
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Stderr.Printf("ptc test: %v\n", err)
		return base.ExitUsage
	}
	if !f.Quiet {
		t.Stderr.Printf("%d of %d runs passed in %s\n", passed, done, base.RoundElapsed(time.Since(start)))
	}
	if m := missing.Load(); m > 0 {
		t.Stderr.Printf("warning: %d requests had no recorded reply: the agents changed since %s was recorded (record it again)\n", m, f.replay)
	}
	if missingTools > 0 {
		t.Stderr.Printf("warning: %d tool calls had no recorded result: the agents or their tools changed since %s was recorded (record it again)\n", missingTools, f.replay)
	}
	if f.asJSON {
		if err := rep.WriteJSON(t.stdout); err != nil {
			t.Stderr.Printf("ptc test: %v\n", err)
			return base.ExitFail
		}
	} else if err := rep.WriteTable(t.stdout, eval.TableOptions{}); err != nil {
		t.Stderr.Printf("ptc test: %v\n", err)
		return base.ExitFail
	}
	if f.junit != "" {
		file, err := os.Create(f.junit)
		if err == nil {
			err = rep.WriteJUnit(file)
			if cerr := file.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			t.Stderr.Printf("ptc test: --junit: %v\n", err)
			return base.ExitFail
		}
	}
	for _, e := range recErrs {
		t.Stderr.Printf("ptc test: --record: %s\n", e)
	}
	switch {
	case interrupted.Load():
		return base.ExitInterrupted
	case !rep.Passed() || len(recErrs) > 0:
		return base.ExitFail
	}
	return base.ExitOK
}

// printTaskList lists the tasks and their cases.
func printTaskList(w io.Writer, tasks []eval.Task) {
	for _, t := range tasks {
		tags := ""
		if len(t.Tags) > 0 {
			tags = " [" + strings.Join(t.Tags, ", ") + "]"
		}
		fmt.Fprintf(w, "%s%s\n", t.Name, tags)
		if t.Description != "" {
			fmt.Fprintf(w, "    %s\n", t.Description)
		}
		for _, c := range t.Cases {
			fmt.Fprintf(w, "    - %s\n", c.Name)
		}
	}
}

// parsePrices reads --price REF=IN/OUT flags.
func parsePrices(flags []string) (map[string]eval.Price, error) {
	out := map[string]eval.Price{}
	for _, p := range flags {
		ref, rates, ok := strings.Cut(p, "=")
		in, outRate, ok2 := strings.Cut(rates, "/")
		a, err1 := strconv.ParseFloat(in, 64)
		b, err2 := strconv.ParseFloat(outRate, 64)
		if !ok || !ok2 || ref == "" || err1 != nil || err2 != nil || a < 0 || b < 0 {
			return nil, fmt.Errorf("--price %q: want REF=IN/OUT, dollars per million tokens (openai:gpt-4.1-mini=0.4/1.6)", p)
		}
		out[ref] = eval.Price{Input: a, Output: b}
	}
	return out, nil
}

// kindCases bounds a cases file, kindRecordIndex a recording's index.
var (
	kindCases       = base.FileKind{Name: "a cases file", Limit: 4 << 20} // eval.ParseCases's bound
	kindRecordIndex = base.FileKind{Name: "a recording's index", Limit: 1 << 20}
)

// noModel stands for the model of a replay: every reply comes from the
// recording (evalrec.Replayer), so it is never called.
func noModel(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, errors.New("a replay calls no model")
}

// writeRecordIndex writes the index of a recording (the variants), so
// that --replay needs no --model.
func writeRecordIndex(dir string, vs []eval.Variant) error { return evalrec.WriteIndex(dir, vs) }

// readRecordIndex reads the variants of a recording.
func readRecordIndex(dir string) ([]eval.Variant, error) {
	data, err := base.ReadBounded(filepath.Join(dir, "index.json"), kindRecordIndex)
	if err != nil {
		return nil, err
	}
	vs, err := evalrec.ParseIndex(data)
	if err != nil {
		return nil, fmt.Errorf("index.json %v", err)
	}
	return vs, nil
}

// writeRecording writes the recording of the run r at path: a ptc-trace
// recording (docs/trace-format.md).
func writeRecording(path string, rec *evalrec.Recorder, r *eval.RunResult) error {
	if r.Step == nil {
		return errors.New("the run has no mission to record")
	}
	data, err := rec.Marshal(r.Step, r.Variant)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
