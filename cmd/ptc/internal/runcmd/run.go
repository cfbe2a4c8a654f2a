package runcmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/load"
	"github.com/ptc-go/ptc/cmd/ptc/internal/otelcli"
	"github.com/ptc-go/ptc/cmd/ptc/internal/tracecmd"
	"github.com/ptc-go/ptc/internal/transcript"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/mcp"
	"github.com/ptc-go/ptc/signature"
)

const runSynopsis = `AGENT_FILE [--model REF] [--mcp FILE] [-c CONTEXT] [--set NAME=VALUE]... [--json]
               [--record FILE | --replay FILE [--replay-mcp]] [--trace FILE|-] [--events FILE] [--unredacted] [--quiet] [limit flags]
       ptc run --replay FILE [AGENT_FILE] [--replay-mcp] [flags]`

const runHelp = `
Runs the agent AGENT_FILE defines with a model: each turn (the program the
model wrote, its value or error, the tokens so far, the time) is printed to
stderr as it happens, and the final value to stdout (PTC-Lisp, or with
--json one JSON object: ok, return, fail, usage, trace_id).

The agent file is Markdown: settings between two --- lines (signature,
max-turns, limits, context...), then the prompt, a template whose
{{placeholders}} come from the context. See docs/cli.md.

Tools: the tools of MCP servers, named in an MCP configuration file (the
mcpServers JSON Claude Desktop and others use) given with --mcp FILE or
the agent file's mcp: key; programs call them as (tool/server.tool {...}).
Without one, the agent's programs work on the context alone.

The model: --model REF, else the agent file's model:, else $PTC_MODEL;
a reference is provider:model (openai:gpt-4.1-mini,
anthropic:claude-sonnet-4-5, gemini:gemini-2.5-flash,
ollama:qwen2.5-coder:7b, openai-compatible:URL#model), its API key read
from the provider's usual variable (OPENAI_API_KEY, ANTHROPIC_API_KEY...).

The context: the agent file's context:, then -c FILE's entries over it,
then each --set NAME=VALUE (VALUE is read as JSON when it is valid JSON,
else it is a string: --set n=3 is the number 3, --set q=hi the string "hi").

--record FILE saves the whole conversation and the outcome; --replay FILE
runs the agent again offline with the recorded replies (no model), and
reports the first request or outcome that differs (exit status 1). A
replay starts no process and opens no connection: an agent with mcp: is
replayed only with --replay-mcp (which starts the servers it names) or
--mcp FILE.

An agent file is a program: its mcp: names commands to run, its context:
a file to read and show the model, its model: where the conversation goes.
Run one from elsewhere after reading it.

--trace FILE writes the mission's trace (every turn, tool call and nested
agent, firewalled values hidden) as JSON to FILE, for "ptc trace print
FILE" and "ptc trace view FILE"; --trace - prints it as text to stderr
at the end instead. --events FILE streams the events as they happen, one
JSON object a line (tail -f FILE follows a long mission).

The firewall: what the agent's fields named with a leading _ hold, and
copies a program made of them, show as <Firewalled> in everything ptc run
prints or writes (the value, --json, the progress, --trace, --record,
--events), as the model was shown them. --unredacted shows them as they
are in the value, --json, --trace and --record: for your own terminal
and files only.

Exit status: 0 the mission returned, 1 it failed (or a replay differs),
2 bad usage or agent file, 130 interrupted (Ctrl-C cancels the mission;
a second Ctrl-C quits at once).
`

// runFlags are the flags of ptc run.
type runFlags struct {
	model, ctxPath, record, replay string
	mcpPath                        string
	replayMCP                      bool // a replay may connect to the agent file's mcp: servers
	sets                           setFlags
	trace                          string // "-": print the text trace
	events                         string // the JSON Lines stream of events
	asJSON, quiet                  bool
	unredacted                     bool // show firewalled data in the outcome, the trace and the transcript
	limits                         *lisp.Limits
}

// Run runs ptc run with args in env and returns its exit status (0, 1,
// 2 or base.ExitInterrupted).
func Run(env *base.Env, args []string, stdout, stderr io.Writer) int {
	var f runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: ptc run %s\n%s%s\nFlags:\n", runSynopsis, runHelp, otelcli.Help)
		fs.PrintDefaults()
	}
	fs.StringVar(&f.model, "model", "", "the model `REF`, as provider:model (default: the agent file's model, else $PTC_MODEL)")
	fs.StringVar(&f.ctxPath, "c", "", "context `file`, a JSON or EDN map whose entries go over the agent file's context")
	fs.Var(&f.sets, "set", "set the context entry `NAME=VALUE` (VALUE read as JSON when valid, else a string); repeatable")
	fs.BoolVar(&f.asJSON, "json", false, "print the outcome as one JSON object on stdout: {ok, return, fail, usage, trace_id}")
	fs.StringVar(&f.record, "record", "", "save the recording (the trace, with every request and reply, the context and the agent file) to `FILE`")
	fs.StringVar(&f.replay, "replay", "", "run offline with the replies recorded in `FILE`, and check that the agent still sends the same requests")
	fs.StringVar(&f.mcpPath, "mcp", "", "give the agent the tools of the MCP servers in `FILE` (an mcpServers JSON file; default: the agent file's mcp:)")
	fs.BoolVar(&f.replayMCP, "replay-mcp", false, "let a replay connect to the MCP servers of the agent's mcp: (starting the commands it names); a replay starts none without it")
	fs.StringVar(&f.trace, "trace", "", "write the mission's trace as JSON to `FILE` (see ptc trace); - prints it as text to stderr at the end")
	fs.StringVar(&f.events, "events", "", "stream the mission's events (turns, LLM and tool calls, nested agents) to `FILE` as JSON Lines while it runs")
	fs.BoolVar(&f.unredacted, "unredacted", false, "show firewalled data as it is in the value, --json, --trace and --record (never in the progress or --events): for your own terminal and files only")
	fs.BoolVar(&f.quiet, "quiet", false, "print no progress: only the outcome (and errors)")
	fs.BoolVar(&f.quiet, "q", false, "short for --quiet")
	f.limits = base.LimitFlags(fs)
	// A turn's program has the agent package's default, not the interpreter's.
	fs.Lookup("timeout").Usage = base.TurnTimeoutUsage()
	pos, err := base.ParseFlags(fs, args)
	if err != nil {
		return base.FlagError(fs, err, stdout)
	}
	usageErr := func(format string, a ...any) int {
		msg := fmt.Sprintf(format, a...)
		if f.asJSON {
			printFailJSON(stdout, kindUsageError, msg)
		}
		return base.UsageError(fs, "%s", msg)
	}
	switch {
	case len(pos) == 0 && f.replay == "":
		return usageErr("%s", missingAgentFile(fs))
	case len(pos) > 1:
		return usageErr("takes one AGENT_FILE, got %d arguments", len(pos))
	case f.record != "" && f.replay != "":
		return usageErr("--record and --replay do not go together: a replay calls no model")
	case f.replay != "" && f.model != "":
		return usageErr("--replay answers with the recorded replies: it takes no --model")
	case f.replayMCP && f.replay == "":
		return usageErr("--replay-mcp goes with --replay (ptc run connects to the agent's MCP servers anyway)")
	}
	if f.record != "" {
		// Better to know now than after a mission that cost tokens.
		if st, err := os.Stat(filepath.Dir(f.record)); err != nil || !st.IsDir() {
			return usageErr("--record %s: no directory %s to write it in", f.record, filepath.Dir(f.record))
		}
	}
	if f.trace != "" && f.trace != "-" {
		if err := tracecmd.CheckTracePath(f.trace); err != nil {
			return usageErr("--trace %s: %v", f.trace, err)
		}
	}
	r := &runCmd{env: env, flags: &f, stdout: stdout, stderr: &base.SyncWriter{W: stderr}}
	return r.run(pos)
}

// runCmd is one "ptc run".
type runCmd struct {
	env    *base.Env
	flags  *runFlags
	stdout io.Writer
	stderr *base.SyncWriter
}

func (r *runCmd) usageErr(err error) int {
	r.stderr.Printf("ptc run: %v\n", err)
	if r.flags.asJSON {
		printFailJSON(r.stdout, errKind(err, kindUsageError), err.Error())
	}
	return base.ExitUsage
}

// kindUsageError is the kind of a run that could not start: a bad flag or
// input (exit status 2).
const kindUsageError = "usage_error"

// printFailJSON prints, for --json, the outcome of a run that failed
// before its mission: stdout holds one JSON object whatever happens, its
// fail.reason the error's kind.
func printFailJSON(w io.Writer, reason, msg string) {
	b, _ := json.Marshal(transcript.Outcome{Return: json.RawMessage("null"), Fail: &transcript.OutcomeFail{Reason: reason, Message: msg}})
	fmt.Fprintln(w, string(b))
}

// errKind is the kind of an error: an interpreter error's kind, a Config's
// or a model's reason, parse_error for data that does not read, io_error
// for a file; fallback otherwise.
func errKind(err error, fallback string) string {
	var le *lisp.Error
	var ce *agent.Fail
	var de *base.DataError
	var me *llm.Error
	var pe *os.PathError
	var mcpErr *mcp.Error
	switch {
	case errors.As(err, &mcpErr): // before its causes: a server that does not start is an mcp_error
		return "mcp_error"
	case errors.As(err, &le):
		return string(le.Kind)
	case errors.As(err, &ce) && ce.Reason != "":
		return string(ce.Reason)
	case errors.As(err, &de):
		return string(lisp.ParseError)
	case errors.As(err, &me):
		if me.Reason != "" {
			return me.Reason
		}
		return string(agent.ReasonLLMError)
	case errors.As(err, &pe):
		return base.KindIOError
	}
	return fallback
}

func (r *runCmd) run(pos []string) int {
	f := r.flags
	var rec *transcript.Transcript
	if f.replay != "" {
		var err error
		if rec, err = LoadTranscript(f.replay); err != nil {
			return r.usageErr(err)
		}
	}

	// The agent.
	var af *load.AgentFile
	var agentText []byte
	var err error
	if len(pos) == 1 {
		af, agentText, err = load.ReadAgentFile(pos[0])
	} else {
		agentText = []byte(rec.Agent.Text)
		af, err = load.ParseAgentFile(rec.Agent.File+" (recorded in "+f.replay+")", filepath.Dir(f.replay), agentText)
	}
	if err != nil {
		return r.usageErr(err)
	}
	cfg := af.CLIConfig()
	// The agent's name, in its spans (gen_ai.agent.name), events and
	// traces: the agent file's, orders for orders.md.
	if len(pos) == 1 {
		cfg.Name = load.AgentName(pos[0])
	} else {
		cfg.Name = load.AgentName(rec.Agent.File)
	}
	base.OverrideLimits(&cfg.Limits, *f.limits)
	// A replay starts no process and opens no connection of its own
	// accord: the agent text may come from the transcript, and its mcp:
	// names commands to run. --mcp FILE, or --replay-mcp for the agent's
	// mcp:, asks for them.
	if rec != nil && f.mcpPath == "" && af.Has("mcp") && !f.replayMCP {
		return r.usageErr(&agentfile.Error{File: af.Name, Pos: af.Pos("mcp"), Msg: fmt.Sprintf(
			"mcp: a replay starts no MCP server unless asked: pass --replay-mcp to connect to the servers of %s "+
				"(it starts the commands that file names), or --mcp FILE", af.MCPPath())})
	}
	if mc, err := load.AgentMCPConfig(r.env, af, f.mcpPath); err != nil {
		return r.usageErr(err)
	} else if mc != nil {
		ts, err := load.ConnectMCP(r.env.Ctx, mc, r.stderr, f.quiet)
		if err != nil {
			r.stderr.Printf("ptc run: %v\n", err)
			if f.asJSON {
				printFailJSON(r.stdout, errKind(err, "mcp_error"), err.Error())
			}
			return base.ExitFail
		}
		defer ts.Close()
		cfg.Tools = ts.Tools(0)
	}
	r.env.AddTools(&cfg)
	if rec != nil {
		ReplayRetries(&cfg)
	}
	a, err := af.NewAgent(cfg)
	if err != nil {
		return r.usageErr(err)
	}

	// The context: the recorded one for a replay, else the agent file's;
	// then -c and --set over it.
	var ctxMap *lisp.Map
	if rec != nil {
		ctxMap, err = contextMap(rec)
	} else {
		ctxMap, err = af.LoadContext()
	}
	if err != nil {
		return r.usageErr(err)
	}
	if f.ctxPath != "" {
		extra, err := load.ReadContext(f.ctxPath)
		if err != nil {
			return r.usageErr(err)
		}
		ctxMap = base.MergeContext(ctxMap, extra)
	}
	sets, err := f.sets.values()
	if err != nil {
		return r.usageErr(err)
	}
	ctxMap = base.MergeContext(ctxMap, sets)
	if err := CheckInput(a, ctxMap, "-c FILE, --set NAME=VALUE or the agent file's context:"); err != nil {
		return r.usageErr(err)
	}

	// The model: the recorded replies, or a provider's.
	ctx, cancel := context.WithCancel(r.env.Ctx)
	defer cancel()
	var model llm.Func
	var rp *transcript.Replayer
	ref := ""
	if rec != nil {
		rp = &transcript.Replayer{Rec: rec, Stop: cancel}
		model, ref = rp.Call, rec.Model
	} else {
		ref = base.FirstNonEmpty(f.model, af.Model, r.env.Getenv("PTC_MODEL"))
		if ref == "" {
			return r.usageErr(errors.New("no model: pass --model REF (as openai:gpt-4.1-mini) or set PTC_MODEL"))
		}
		if model, err = r.env.OpenModel(ctx, ref); err != nil {
			return r.usageErr(err)
		}
	}
	var recd *transcript.Recorder
	if f.record != "" {
		recd = &transcript.Recorder{Inner: model, Run: ctx}
		model = recd.Call
	}
	var events missionEvents = quietEvents{}
	if !f.quiet {
		events = newProgress(r.stderr, a.Config().MaxTurns)
		if rec != nil {
			name := af.Name
			if len(pos) == 0 {
				name = rec.Agent.File + " as recorded"
			}
			r.stderr.Printf("replaying %s: %s, recorded with %s (%s)\n", f.replay, name, ref, base.Plural(len(rec.Calls), "LLM call"))
		} else {
			r.stderr.Printf("running %s with %s\n", af.Name, ref)
		}
	}

	opts := agent.Options{LLM: model, Input: ctxMap, InputSignature: af.InputSignature, Trace: agent.TraceOn,
		Observers: []agent.Observer{&progressObserver{ev: events}}}
	var stream *trace.JSONLObserver
	if f.events != "" {
		file, err := os.Create(f.events)
		if err != nil {
			return r.usageErr(fmt.Errorf("--events: %v", err))
		}
		defer file.Close()
		stream = trace.NewJSONLObserver(file)
		opts.Observers = append(opts.Observers, stream)
	}
	var interrupted atomic.Bool
	if r.env.Interrupts {
		stop := base.OnInterrupt(func() {
			interrupted.Store(true)
			r.stderr.Printf("\ninterrupted: cancelling the mission (Ctrl-C again to quit at once)\n")
			cancel()
		})
		defer stop()
	}

	tel, err := otelcli.Start(ctx, r.env, r.stderr)
	if err != nil {
		return r.usageErr(err)
	}
	opts.Observers = append(opts.Observers, tel.Observers()...)

	step, _ := a.Run(ctx, opts)
	if err := tel.Shutdown(); err != nil {
		r.stderr.Printf("ptc run: exporting to OpenTelemetry: %v\n", err)
	}
	sh := transcript.Shown{Step: step, Raw: f.unredacted}
	events.missionEnded(step)

	code := base.ExitOK
	if step.Fail != nil {
		code = base.ExitFail
		if step.Fail.Reason == agent.ReasonCancelled && (interrupted.Load() || r.env.Ctx.Err() != nil) {
			code = base.ExitInterrupted
		}
	}
	if recd != nil {
		t, err := recd.Transcript(&transcript.AgentSource{File: filepath.Base(af.Name), Text: agentText}, ref, ctxMap, sh, r.env.Version().String())
		if err == nil {
			err = SaveTranscript(t, f.record)
		}
		if err != nil {
			r.stderr.Printf("ptc run: saving the transcript: %v\n", err)
			code = max(code, base.ExitFail)
		} else if !f.quiet {
			r.stderr.Printf("transcript saved to %s (%s)\n", f.record, base.Plural(len(t.Calls), "LLM call"))
		}
	}
	var mismatch *transcript.Mismatch
	if rp != nil {
		mismatch = rp.Finish(step)
		r.replayNotes(rp, rec, agentText, mismatch)
		if mismatch != nil {
			code = base.ExitFail
		}
	}
	if stream != nil && stream.Err() != nil {
		r.stderr.Printf("ptc run: writing the events: %v\n", stream.Err())
		code = max(code, base.ExitFail)
	}
	switch f.trace {
	case "":
	case "-":
		_ = trace.Print(r.stderr, step, trace.Options{Unredacted: f.unredacted})
	default:
		if err := tracecmd.WriteTraceFile(f.trace, step, f.unredacted); err != nil {
			r.stderr.Printf("ptc run: saving the trace: %v\n", err)
			code = max(code, base.ExitFail)
		} else if !f.quiet {
			r.stderr.Printf("trace saved to %s (ptc trace view %s shows it)\n", f.trace, f.trace)
		}
	}
	return r.printOutcome(sh, a, code, rp, mismatch)
}

// replayNotes tells how a replay compares with its recording.
func (r *runCmd) replayNotes(rp *transcript.Replayer, rec *transcript.Transcript, agentText []byte, mismatch *transcript.Mismatch) {
	if sum := sha256.Sum256(agentText); hex.EncodeToString(sum[:]) != rec.Agent.SHA256 && !r.flags.quiet {
		r.stderr.Printf("note: the agent file differs from the recorded one (%s)\n", rec.Agent.File)
	}
	if mismatch != nil {
		r.stderr.Printf("%s", mismatch.Report())
		return
	}
	if r.flags.quiet {
		return
	}
	if d := rp.SystemDiff(); d != "" {
		r.stderr.Printf("note: the system prompt differs from the recorded one (%s); the replay compares the conversation\n", d)
	}
	r.stderr.Printf("replay matches the recording (%s)\n", base.Plural(len(rec.Calls), "LLM call"))
}

// printOutcome prints the value (or the failure) and returns the exit
// status.
func (r *runCmd) printOutcome(sh transcript.Shown, a *agent.Agent, code int, rp *transcript.Replayer, mismatch *transcript.Mismatch) int {
	step := sh.Step
	if r.flags.asJSON {
		out := struct {
			transcript.Outcome
			Replay *ReplayJSON `json:"replay,omitempty"`
		}{Outcome: transcript.OutcomeOf(step, sh)}
		if rp != nil {
			out.Replay = &ReplayJSON{Matches: mismatch == nil, Mismatch: mismatch}
		}
		b, err := json.Marshal(out)
		if err != nil {
			r.stderr.Printf("ptc run: %v\n", err)
			printFailJSON(r.stdout, string(lisp.InternalError), "the outcome does not marshal: "+err.Error())
			return base.ExitFail
		}
		fmt.Fprintln(r.stdout, string(b))
		return code
	}
	// The coercions of the input and what warn_only let through.
	for _, w := range step.Warnings {
		r.stderr.Printf("warning: %s\n", sh.Text(w))
	}
	switch {
	case step.Fail == nil:
		bound := base.PrintBound(a.Config().Limits)
		pctx, cancel := base.PrintContext(context.Background(), a.Config().Limits)
		out, err := sh.ValueContext(pctx, step.Return, lisp.PrintOptions{MaxChars: bound + 1})
		cancel()
		if err != nil {
			r.stderr.Printf("ptc run: %v\n", err)
			return base.ExitFail
		}
		if len(out) > bound {
			r.stderr.Printf("ptc run: %v\n", base.ValueTooLarge(bound))
			return base.ExitFail
		}
		fmt.Fprintln(r.stdout, out)
	case mismatch != nil && step.Fail.Reason == transcript.ReasonReplayMismatch:
		// The report said it all.
	case code == base.ExitInterrupted:
		r.stderr.Printf("interrupted: the mission was cancelled after %s\n", base.Plural(step.Usage.Turns, "turn"))
	default:
		r.stderr.Printf("fail: %s\n", sh.Text(step.Fail.Error()))
		if h := FailHint(step.Fail); h != "" {
			r.stderr.Printf("hint: %s\n", h)
		}
	}
	return code
}

// FailHint says what to try after a model call that could not succeed
// whatever the program did.
func FailHint(f *agent.Fail) string {
	if f.Reason != agent.ReasonLLMError {
		return ""
	}
	switch class, _ := f.Details["class"].(string); llm.Class(class) {
	case llm.ClassNetwork:
		return "nothing answered at the model's address: is the server running (for Ollama: ollama serve), or is its URL right (see ptc models)?"
	case llm.ClassAuth:
		return "the provider refused the API key: check the key's variable (see ptc models) and the key's access to this model"
	case llm.ClassContextLength:
		return "the conversation outgrew the model's context: lower the agent's max-turns or its result limits, or pick a model with a longer context"
	}
	return ""
}

// ReplayJSON is how --json reports a replay.
type ReplayJSON struct {
	Matches  bool                 `json:"matches"`
	Mismatch *transcript.Mismatch `json:"mismatch,omitempty"`
}

// setFlags are the --set NAME=VALUE flags.
type setFlags []string

func (s *setFlags) String() string { return strings.Join(*s, " ") }

func (s *setFlags) Set(v string) error {
	name, _, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(name) == "" {
		return errors.New("want NAME=VALUE")
	}
	*s = append(*s, v)
	return nil
}

// values reads the entries: a VALUE that is valid JSON is read as JSON,
// any other is a string.
func (s setFlags) values() (*lisp.Map, error) {
	m := lisp.NewMap()
	for _, kv := range s {
		name, val, _ := strings.Cut(kv, "=")
		var v lisp.Value = val
		if json.Valid([]byte(val)) {
			x, err := lisp.Read(val, lisp.ReadOptions{Format: lisp.ReadJSON})
			if err != nil {
				return nil, fmt.Errorf("--set %s: %v", name, err)
			}
			v = x
		}
		m = base.MergeContext(m, lisp.NewMap(strings.TrimSpace(name), v))
	}
	return m, nil
}

// missingAgentFile says that ptc run has no AGENT_FILE and, when a flag
// that names a file to write took an existing file (ptc run --trace
// agent.md), that the flag took it as its value.
func missingAgentFile(fs *flag.FlagSet) string {
	msg := "missing AGENT_FILE (or --replay FILE)"
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "trace", "events", "record":
		default:
			return
		}
		v := fl.Value.String()
		if st, err := os.Stat(v); v != "-" && err == nil && st.Mode().IsRegular() {
			msg = fmt.Sprintf("missing AGENT_FILE: --%s took %q as its FILE (flags with a value take the next argument)", fl.Name, base.ClipText(v, 60))
		}
	})
	return msg
}

// ReplayRetries makes a replay retry as the recorded run did, without
// the waits.
func ReplayRetries(cfg *agent.Config) {
	if p := &cfg.LLMRetry; p.MaxAttempts > 1 {
		p.BaseDelay, p.MaxDelay, p.Jitter = time.Nanosecond, time.Nanosecond, -1
	}
}

// CheckInput checks that the context gives the agent the input its
// signature wants; how says how to give it.
func CheckInput(a *agent.Agent, ctxMap *lisp.Map, how string) error {
	if sig := a.Signature(); sig != nil && len(sig.Params) > 0 {
		if _, _, err := sig.CoerceInput(ctxMap, signature.Enabled); err != nil {
			return fmt.Errorf("the context does not give the agent its input: %v\n  (the signature wants %s; give it with %s)",
				err, sig.InputType(), how)
		}
	}
	return nil
}
