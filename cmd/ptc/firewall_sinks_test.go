package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/tracecmd"
	"github.com/ptc-go/ptc/internal/leaks"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
	"github.com/ptc-go/ptc/mcp"
	"github.com/ptc-go/ptc/otel"
	"github.com/ptc-go/ptc/temporal"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
)

// TestFirewallSinks is the firewall's guarantee outside the mission (docs/
// agents.md, "The guarantee"): every sink a run leaves behind, for a
// person, a log, a file or a client, goes through the firewall, and no
// fragment of 8 bytes or more of a firewalled text, in any of its escaped
// forms (leaks.Find), reaches it, whatever the programs did to move it
// there. The corpus is internal/leaks: every leak channel with every
// secret, the agents-calling-agents tree with each secret at the root, and
// the child called through each of leaks.WrappedVias.
//
// Each mission of the corpus runs four times, each run feeding several
// sinks (the table fwSinks says which run feeds which sink):
//
//   - in Go, with a plain observer (every text field of every event,
//     Fail.Details included), slog (JSON and text handlers, at Debug) and
//     OpenTelemetry (CaptureContent; the SDK's in-memory span exporter and
//     a manual metric reader); its Step then feeds trace.Print, trace.PrintChain,
//     trace.Marshal, a raw trace read back (trace.Unmarshal) and printed,
//     the trace view page, Step.Redaction and the Step's display fields;
//     the models' requests are the LLM requests;
//   - as "ptc run AGENT_FILE --json --trace FILE --record FILE --events
//     FILE" (the context inline in the agent file, the tools given in
//     process), then "ptc trace print", "ptc trace view" and "ptc run
//     --replay" of what it wrote; and as "ptc run AGENT_FILE --trace -"
//     (the value printed, the text trace);
//   - served over MCP (an in-memory transport) with mcp.AddAgent and, as
//     an agent tool, with mcp.AddTools; a channel's programs also run one
//     by one through the code-mode tool (mcp.AddCodeMode);
//   - on Temporal (the SDK's test environment): the progress query, the
//     Step of the workflow's result printed with trace.Print and
//     trace.Marshal, the result's summary (what the Web UI and the memo
//     show) with the workflow's error when the mission failed, and the
//     model's requests. The journal and the result's raw trace are
//     internal (raw, as docs/temporal.md says) and are not scanned. The composed missions run there too: a nested
//     agent is a child workflow, whose firewall its caller's absorbs
//     across workflows.
//
// With -race on two busy cores the whole test takes about 30 s.
func TestFirewallSinks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the firewall sinks test runs the whole leak corpus")
	}
	start := time.Now()
	missions := fwCorpus()
	runs := 0
	for _, fm := range missions {
		t.Run(fm.name, func(t *testing.T) {
			got := map[string][]string{}
			add := func(sink string, texts ...string) { got[sink] = append(got[sink], texts...) }
			fwGoRun(t, fm, add)
			fwCLIRun(t, fm, add)
			fwMCPRun(t, fm, add)
			if fm.temporal {
				fwTemporalRun(t, fm, add)
			}
			runs++
			for _, sink := range fwSinks {
				if sink.temporalOnly && !fm.temporal {
					continue
				}
				texts := got[sink.name]
				if len(texts) == 0 {
					t.Errorf("%s: the sink received nothing: the channel was not exercised through it", sink.name)
					continue
				}
				for _, text := range texts {
					if f := leaks.Find(text, fm.texts...); f != "" {
						t.Errorf("%s leaks %q: …%s…", sink.name, f, leaks.Around(text, f))
						break
					}
				}
			}
			for sink := range got {
				if !fwKnownSink(sink) {
					t.Errorf("texts for %q, a sink the table does not list", sink)
				}
			}
		})
	}
	t.Logf("%d missions through %d sinks in %v", runs, len(fwSinks), time.Since(start).Round(time.Millisecond))
}

// fwSinks lists the sinks, as docs/agents.md does.
var fwSinks = []struct {
	name         string
	temporalOnly bool
}{
	{name: "LLM requests"},
	{name: "Step display fields"},   // Fail's reason, message, op; warnings; turn errors; children's
	{name: "Step.Redaction values"}, // Return, Memory, the trace's values printed and as JSON
	{name: "event text fields"},     // a plain observer's Event: texts, Err, Fail with Details
	{name: "slog"},                  // trace.NewSlogObserver, JSON and text handlers
	{name: "OpenTelemetry"},         // span names, attributes, events, statuses; metric attributes
	{name: "trace.Print"},           // with and without replies, children, cuts
	{name: "trace.PrintChain"},      //
	{name: "trace.Marshal"},         // a redacted trace
	{name: "raw trace read back"},   // trace.Unmarshal of a raw trace, printed and written redacted
	{name: "trace view page"},       // the HTML page of a redacted trace
	{name: "ptc run output"},        // the value or the failure, --json, the progress, --trace -
	{name: "ptc run --trace FILE"},  //
	{name: "ptc run --record FILE"}, // the transcript
	{name: "ptc run --events FILE"}, // JSON Lines
	{name: "ptc trace print"},       // of the --trace file, with the replies it keeps
	{name: "ptc trace view"},        // the page of the --trace file
	{name: "ptc run --replay"},      // its output, replaying the --record file
	{name: "MCP served agent"},      // AddAgent: the tool list, results, failures
	{name: "MCP served agent tool"}, // AddTools of an agent tool
	{name: "MCP code mode"},         // AddCodeMode: value, output, errors (channels only)
	{name: "Temporal progress", temporalOnly: true},
	{name: "Temporal result Step", temporalOnly: true},
	{name: "Temporal result summary", temporalOnly: true},
}

func fwKnownSink(name string) bool {
	for _, s := range fwSinks {
		if s.name == name {
			return true
		}
	}
	return false
}

// fwMission is a mission of the corpus; build makes its agent and models
// afresh for each run.
type fwMission struct {
	name     string
	texts    []string // its firewalled texts
	programs []string // a leak channel's programs, for code mode
	secret   string   // a leak channel's secret
	temporal bool
	build    func() (*fwBuilt, error)
}

type fwBuilt struct {
	agent   *agent.Agent
	context map[string]any
	model   *llmtest.Script   // answers the agent's missions
	others  []*llmtest.Script // the tree's other models (judge, compiler)
}

func fwCorpus() []fwMission {
	var out []fwMission
	for _, secret := range leaks.Secrets {
		// The derived channels' texts are also what they compute from
		// the secret (docs/agents.md, "Derived values").
		derived := len(leaks.Channels)
		for i, ch := range append(slices.Clone(leaks.Channels), leaks.DerivedChannels...) {
			progs := append([]string(nil), ch.Programs...)
			if ch.Final != "" {
				progs = append(progs, ch.Final)
			}
			texts := leaks.Texts(secret)
			if i >= derived {
				texts = append(texts, leaks.DerivedTexts(secret)...)
			}
			out = append(out, fwMission{
				name: fmt.Sprintf("%s/%d bytes", ch.Name, len(secret)), texts: texts,
				programs: progs, secret: secret, temporal: true,
				build: func() (*fwBuilt, error) {
					a, err := ch.Agent(secret)
					if err != nil {
						return nil, err
					}
					return &fwBuilt{agent: a, context: leaks.Context(secret), model: llmtest.NewScript(ch.Replies()...)}, nil
				},
			})
		}
	}
	for _, secret := range leaks.Secrets {
		out = append(out, fwMission{
			name: fmt.Sprintf("tool mode/%d bytes", len(secret)), texts: leaks.Texts(secret), secret: secret, temporal: true,
			build: func() (*fwBuilt, error) {
				a, err := leaks.ToolModeAgent(secret)
				if err != nil {
					return nil, err
				}
				return &fwBuilt{agent: a, context: leaks.Context(secret), model: llmtest.NewScript(leaks.ToolModeReplies()...)}, nil
			},
		})
	}
	ts := leaks.TreeSecrets
	for i := range ts {
		rootS, midS, leafS, deepS := ts[i], ts[(i+1)%len(ts)], ts[(i+2)%len(ts)], ts[(i+3)%len(ts)]
		out = append(out, fwMission{
			name: fmt.Sprintf("tree/root secret of %d bytes", len(rootS)), texts: leaks.TreeTexts(rootS, midS, leafS, deepS),
			temporal: true,
			build: func() (*fwBuilt, error) {
				tr, err := leaks.NewTree(rootS, midS, leafS, deepS)
				if err != nil {
					return nil, err
				}
				return &fwBuilt{agent: tr.Root, context: tr.Context, model: tr.Model, others: []*llmtest.Script{tr.Judge, tr.Compiler}}, nil
			},
		})
	}
	for i, via := range leaks.WrappedVias {
		secret := ts[i%len(ts)]
		out = append(out, fwMission{
			name: fmt.Sprintf("wrapped %s/%d bytes", via, len(secret)), texts: leaks.TreeTexts(secret),
			temporal: true,
			build: func() (*fwBuilt, error) {
				w, err := leaks.NewWrapped(secret, via)
				if err != nil {
					return nil, err
				}
				return &fwBuilt{agent: w.Root, model: w.Model}, nil
			},
		})
	}
	return out
}

func fwBuild(t *testing.T, fm fwMission) *fwBuilt {
	t.Helper()
	b, err := fm.build()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fwGoRun runs the mission in Go with observers and feeds its Step to the
// Go sinks.
func fwGoRun(t *testing.T, fm fwMission, add func(string, ...string)) {
	b := fwBuild(t, fm)
	var slogJSON, slogText bytes.Buffer
	debug := &slog.HandlerOptions{Level: slog.LevelDebug}
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	obs, err := otel.NewObserver(otel.Options{TracerProvider: tp, MeterProvider: mp, CaptureContent: true})
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	var mu sync.Mutex
	plain := agent.ObserverFunc(func(_ context.Context, e *agent.Event) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, fwEventText(e))
	})
	step, _ := b.agent.Run(context.Background(), agent.Options{LLM: b.model.Func(), Input: b.context,
		Trace: agent.TraceConversation, Observers: []agent.Observer{plain, obs,
			trace.NewSlogObserver(slog.New(slog.NewJSONHandler(&slogJSON, debug))),
			trace.NewSlogObserver(slog.New(slog.NewTextHandler(&slogText, debug)))}})
	if step == nil || len(step.Trace) == 0 {
		t.Fatalf("the mission did not run: %+v", step)
	}

	for _, m := range append([]*llmtest.Script{b.model}, b.others...) {
		add("LLM requests", leaks.RequestTexts(m.Requests()...)...)
	}
	add("Step display fields", fwDisplayFields(step)...)
	red := step.Redaction()
	values := []lisp.Value{step.Return}
	if step.Memory != nil {
		for _, name := range step.Memory.Names() {
			v, _ := step.Memory.Get(name)
			values = append(values, v)
		}
	}
	for _, tr := range step.Trace {
		values = append(values, tr.Result)
		for _, c := range tr.ToolCalls {
			values = append(values, c.Args, c.Result)
		}
	}
	for _, v := range values {
		data, _ := lisp.ToJSON(v, red)
		add("Step.Redaction values", lisp.Print(v, lisp.PrintOptions{Redact: red}), string(data))
	}
	add("event text fields", events...)
	add("slog", slogJSON.String(), slogText.String())
	add("OpenTelemetry", fwOTelTexts(t, exp, reader)...)

	for _, opts := range []trace.Options{{}, {Replies: true, Full: true}, {NoChildren: true, NoTimings: true}} {
		var buf bytes.Buffer
		if err := trace.Print(&buf, step, opts); err != nil {
			t.Fatal(err)
		}
		add("trace.Print", buf.String())
	}
	var chain bytes.Buffer
	if err := trace.PrintChain(&chain, []*agent.Step{step}, trace.Options{Replies: true}); err != nil {
		t.Fatal(err)
	}
	add("trace.PrintChain", chain.String())
	redacted, err := trace.Marshal(step, trace.JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	add("trace.Marshal", string(redacted))
	raw, err := trace.Marshal(step, trace.JSONOptions{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	if leaks.Find(string(raw), fm.texts...) == "" {
		t.Errorf("the raw trace holds no firewalled text: the mission did not handle its secrets")
	}
	back, err := trace.Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	add("raw trace read back", fwStepTexts(t, back)...)
	var page bytes.Buffer
	if err := tracecmd.WriteHTML(&page, redacted, "trace.json"); err != nil {
		t.Fatal(err)
	}
	add("trace view page", page.String())
}

// fwStepTexts is what trace.Print and trace.Marshal show of a Step.
func fwStepTexts(t *testing.T, step *agent.Step) []string {
	var buf bytes.Buffer
	if err := trace.Print(&buf, step, trace.Options{Replies: true, Full: true}); err != nil {
		t.Fatal(err)
	}
	data, err := trace.Marshal(step, trace.JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return []string{buf.String(), string(data)}
}

// fwDisplayFields are the texts of a Step meant for display, the nested
// agents' included.
func fwDisplayFields(step *agent.Step) []string {
	var out []string
	var walk func(s *agent.Step, depth int)
	walk = func(s *agent.Step, depth int) {
		if s == nil || depth > 50 {
			return
		}
		if f := s.Fail; f != nil {
			out = append(out, string(f.Reason), f.Message, f.Op, f.Error())
		}
		out = append(out, s.Warnings...)
		out = append(out, s.SystemPrompt)
		for _, tr := range s.Trace {
			out = append(out, tr.Error, tr.Feedback)
			for _, c := range tr.ToolCalls {
				out = append(out, c.Warnings...)
				walk(c.Child, depth+1)
			}
		}
		for _, m := range s.Messages {
			out = append(out, m.Content)
		}
	}
	walk(step, 0)
	return out
}

// fwEventText is every text an observer that is not Raw gets of e.
func fwEventText(e *agent.Event) string {
	var sb strings.Builder
	fmt.Fprintln(&sb, e.Kind, e.Agent, e.Tool)
	for _, s := range []string{e.Program, e.ArgsText, e.ResultText} {
		sb.WriteString(s)
		sb.WriteByte('\n')
	}
	// The request and the reply, every field (Messages, Prompt, Content...).
	for _, v := range []any{e.Request, e.Reply} {
		data, _ := json.Marshal(v)
		sb.Write(data)
		sb.WriteByte('\n')
	}
	sb.WriteString(strings.Join(e.Output, "\n"))
	if e.Err != nil {
		fmt.Fprintln(&sb, e.Err.Error())
	}
	var f *agent.Fail
	if errors.As(e.Err, &f) && f != nil {
		fmt.Fprintln(&sb, f.Reason, f.Message, f.Op, f.Details)
		data, _ := json.Marshal(f.Details)
		sb.Write(data)
	}
	if e.Args() != nil || e.Result() != nil || e.Step() != nil {
		sb.WriteString("raw values given to a plain observer")
		fmt.Fprintf(&sb, "%v %v", lisp.Print(e.Args(), lisp.PrintOptions{}), lisp.Print(e.Result(), lisp.PrintOptions{}))
	}
	return sb.String()
}

// fwOTelTexts is everything the spans and metrics hold as text.
func fwOTelTexts(t *testing.T, exp *tracetest.InMemoryExporter, reader *sdkmetric.ManualReader) []string {
	var out []string
	attrs := func(kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			out = append(out, string(kv.Key)+"="+kv.Value.String())
		}
	}
	spans := exp.GetSpans()
	if len(spans) == 0 {
		t.Error("OpenTelemetry: no span")
	}
	for _, s := range spans {
		out = append(out, s.Name, s.Status.Description)
		attrs(s.Attributes)
		for _, ev := range s.Events {
			out = append(out, ev.Name)
			attrs(ev.Attributes)
		}
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					attrs(p.Attributes.ToSlice())
				}
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					attrs(p.Attributes.ToSlice())
				}
			}
		}
	}
	return out
}

// fwAgentFile writes the mission as an agent file for ptc run: its
// settings, its context inline.
func fwAgentFile(t *testing.T, dir string, b *fwBuilt) string {
	cfg := b.agent.Config()
	var sb strings.Builder
	sb.WriteString("---\n")
	if cfg.Signature != "" {
		fmt.Fprintf(&sb, "signature: %s\n", cfg.Signature)
	}
	if cfg.Mode != "" {
		fmt.Fprintf(&sb, "mode: %s\n", cfg.Mode)
	}
	fmt.Fprintf(&sb, "max-turns: %d\n", cfg.MaxTurns)
	if cfg.MaxTreeTurns > 0 {
		fmt.Fprintf(&sb, "turn-budget: %d\n", cfg.MaxTreeTurns)
	}
	sb.WriteString("limits:\n  timeout: 5m\n")
	if b.context != nil {
		data, err := json.Marshal(b.context)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sb, "context: %s\n", data)
	}
	sb.WriteString("---\n")
	sb.WriteString(cfg.Prompt)
	sb.WriteString("\n")
	path := filepath.Join(dir, "agent.md")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fwCLIRun runs the mission with ptc run, and reads what it wrote with
// ptc trace and ptc run --replay.
func fwCLIRun(t *testing.T, fm fwMission, add func(string, ...string)) {
	dir := t.TempDir()
	b := fwBuild(t, fm)
	agentFile := fwAgentFile(t, dir, b)
	trace, record, events := filepath.Join(dir, "trace.json"), filepath.Join(dir, "run.json"), filepath.Join(dir, "events.jsonl")
	env := testEnv(b.model.Func(), nil)
	env.Tools = b.agent.Config().Tools
	code, out, errOut := ptcIn(t, env, "run", agentFile, "--model", "test:scripted", "--json",
		"--trace", trace, "--record", record, "--events", events)
	if code == base.ExitUsage || !strings.Contains(errOut, "turn 1/") {
		t.Fatalf("ptc run: exit %d\n%s", code, errOut)
	}
	add("ptc run output", out, errOut)
	for sink, path := range map[string]string{"ptc run --trace FILE": trace, "ptc run --record FILE": record, "ptc run --events FILE": events} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		add(sink, string(data))
	}
	_, out, errOut = ptcIn(t, env, "trace", "print", "--replies", "--full", trace)
	add("ptc trace print", out, errOut)
	page := filepath.Join(dir, "page.html")
	if code, _, errOut := ptcIn(t, env, "trace", "view", trace, "-o", page); code != base.ExitOK {
		t.Fatalf("ptc trace view: exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	add("ptc trace view", string(data))
	_, out, errOut = ptcIn(t, env, "run", "--replay", record, agentFile, "--json")
	add("ptc run --replay", out, errOut)
	_, out, errOut = ptcIn(t, env, "run", "--replay", record, agentFile, "--trace", "-")
	add("ptc run --replay", out, errOut)

	// The value printed, and the text trace at the end.
	b = fwBuild(t, fm)
	env = testEnv(b.model.Func(), nil)
	env.Tools = b.agent.Config().Tools
	_, out, errOut = ptcIn(t, env, "run", agentFile, "--model", "test:scripted", "--trace", "-")
	add("ptc run output", out, errOut)
}

// fwMCPRun serves the mission over MCP: the agent, the agent as a tool,
// and a channel's programs through the code-mode tool.
func fwMCPRun(t *testing.T, fm fwMission, add func(string, ...string)) {
	b, b2 := fwBuild(t, fm), fwBuild(t, fm)
	svc := mcp.NewService(mcp.ServiceOptions{})
	cfg := b.agent.Config()
	cfg.Description = "The mission."
	if err := svc.AddAgent("mission", agent.MustNew(cfg), agent.Options{LLM: b.model.Func()}); err != nil {
		t.Fatal(err)
	}
	asTool, err := b2.agent.AsTool(agent.AsToolOptions{LLM: b2.model.Func(), Description: "The mission, as a tool."})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.AddTools(map[string]agent.Tool{"mission_tool": asTool}); err != nil {
		t.Fatal(err)
	}
	if fm.programs != nil {
		if err := svc.AddCodeMode(leaks.Tools(fm.secret), mcp.CodeModeOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cs := fwMCPConnect(t, svc)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed, _ := json.Marshal(list)
	call := func(sink, name string, args any) {
		res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		add(sink, string(data), string(listed))
	}
	args := b.context
	if args == nil {
		args = map[string]any{}
	}
	call("MCP served agent", "mission", args)
	call("MCP served agent tool", "mission_tool", args)
	for _, p := range fm.programs {
		call("MCP code mode", "run_program", map[string]any{"program": p, "context": leaks.Context(fm.secret)})
	}
	if fm.programs == nil {
		add("MCP code mode", "(not a leak channel: no programs of its own)")
	}
}

func fwMCPConnect(t *testing.T, svc *mcp.Service) *mcpsdk.ClientSession {
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcpsdk.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx, st) }()
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "sinks", Version: "v0.0.1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		<-done
	})
	return cs
}

// fwTemporalRun runs the mission as a workflow on the SDK's test
// environment.
func fwTemporalRun(t *testing.T, fm fwMission, add func(string, ...string)) {
	b := fwBuild(t, fm)
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(tlog.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := suite.NewTestWorkflowEnvironment()
	// The test environment runs a round's local activity inside the
	// workflow's deadlock check (1 s): under -race on a busy machine a
	// round takes longer. A real worker runs it outside.
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: 5 * time.Minute})
	if err := temporal.Register(env, temporal.WorkerOptions{Agents: map[string]*agent.Agent{"mission": b.agent},
		Model: b.model.Func()}); err != nil {
		t.Fatal(err)
	}
	ctx, err := lisp.FromGo(b.context)
	if err != nil {
		t.Fatal(err)
	}
	env.ExecuteWorkflow(temporal.WorkflowName, map[string]any{"Agent": "mission", "Context": lisp.Print(ctx, lisp.PrintOptions{Exact: true})})
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	v, err := env.QueryWorkflow("ptc.progress") // Mission.Progress's query (docs/temporal.md)
	if err != nil {
		t.Fatal(err)
	}
	var p temporal.Progress
	if err := v.Get(&p); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(p)
	add("Temporal progress", string(data))
	for _, m := range append([]*llmtest.Script{b.model}, b.others...) {
		add("LLM requests", leaks.RequestTexts(m.Requests()...)...)
	}
	// A failed mission fails its workflow, its Result in the error.
	var res temporal.Result
	if err := env.GetWorkflowError(); err != nil {
		r := temporal.ResultFromError(err)
		if r == nil {
			t.Fatalf("the workflow failed without a Result: %v", err)
		}
		// What the workflow's failure shows (the Web UI, logs) is a sink too.
		add("Temporal result summary", err.Error())
		res = *r
	} else if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	summary, _ := json.Marshal(temporal.Result{Agent: res.Agent, Status: res.Status, Reason: res.Reason,
		Message: res.Message, Turns: res.Turns})
	add("Temporal result summary", string(summary))
	step, err := trace.Unmarshal(res.Trace)
	if err != nil {
		t.Fatal(err)
	}
	add("Temporal result Step", fwStepTexts(t, step)...)
}
