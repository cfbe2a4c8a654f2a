package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite testdata/trace.golden.json")

// tjSecret is the firewalled value of the trace tests' lookup tool.
const tjSecret = "hunter2-correct-horse"

// tjCode is a scripted reply with fixed token counts (the estimated ones
// follow the system prompt's length).
func tjCode(program string) llmtest.Reply {
	r := llmtest.Code(program)
	r.Tokens = llm.Tokens{Input: 100, Output: 20}
	return r
}

// tjMission runs a mission of three turns: a tool call and println, an
// error, and a return that calls an agent tool twice through pmap.
func tjMission(t *testing.T, debug bool) *agent.Step {
	t.Helper()
	child := agent.MustNew(agent.Config{Prompt: "Square {{n}}", Signature: "(n :int) -> :int", Description: "Squares n."})
	childModel := llmtest.NewScript(tjCode(`(return (* ctx/n ctx/n))`), tjCode(`(return (* ctx/n ctx/n))`))
	square, err := child.AsTool(agent.AsToolOptions{LLM: childModel.Func()})
	if err != nil {
		t.Fatal(err)
	}
	lookup := agent.Tool{Description: "Looks a person up.", Func: func(_ context.Context, args *lisp.Map) (any, error) {
		return map[string]any{"name": "Ada", "_secret": tjSecret, "tags": []any{"x", 1.5}}, nil
	}}
	root := agent.MustNew(agent.Config{Prompt: "Look up 7 and square 2 and 3", MaxTurns: 5,
		Tools: map[string]agent.Tool{"lookup": lookup, "square": square}})
	model := llmtest.NewScript(
		tjCode("(println \"looking up\" 7)\n(def who (tool/lookup {:id 7}))\n(println \"secret:\" (:_secret who))\n(:name who)"),
		tjCode(`(+ 1 nil)`),
		tjCode(`(return {:name (:name who) :squares (pmap #(tool/square {:n %}) [2 3]) :leak (:_secret who) :when #"a\"b"})`),
	)
	opts := agent.Options{LLM: model.Func()}
	if debug {
		opts.Trace = agent.TraceConversation
	}
	step, err := root.Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("the mission failed: %v", err)
	}
	if len(step.Trace) != 3 || len(step.Trace[2].ToolCalls) != 2 || step.Trace[2].ToolCalls[0].Child == nil {
		t.Fatalf("unexpected trace: %+v", step.Trace)
	}
	return step
}

func tjPrint(t *testing.T, s *agent.Step, opts Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Print(&buf, s, opts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestTraceJSONRoundTrip: a raw trace read back prints as the live Step
// does, with every option; a redacted one reads back and writes the same
// JSON again.
func TestTraceJSONRoundTrip(t *testing.T) {
	step := tjMission(t, true)
	data, err := Marshal(step, JSONOptions{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{}, {Replies: true, Full: true}, {Unredacted: true, Replies: true}, {NoTimings: true}, {NoChildren: true}} {
		want, got := tjPrint(t, step, opts), tjPrint(t, back, opts)
		if got != want {
			t.Errorf("%+v: the trace read back prints\n%s\nthe live step\n%s", opts, got, want)
		}
	}
	for _, want := range []string{"┌─ Turn 3", "→ square {:n 2}", "Error: ", "looking up 7"} {
		if out := tjPrint(t, back, Options{}); !strings.Contains(out, want) {
			t.Errorf("the trace lacks %q:\n%s", want, out)
		}
	}
	// The Step's fields.
	if back.TraceID != step.TraceID || back.Usage != step.Usage || back.TotalUsage != step.TotalUsage ||
		back.SystemPrompt != step.SystemPrompt || back.SystemPrompt == "" {
		t.Errorf("step fields: %+v", back)
	}
	c := back.Trace[2].ToolCalls[0]
	live := step.Trace[2].ToolCalls[0]
	if c.Child == nil || c.Child.TraceID != live.Child.TraceID || !c.Start.Equal(live.Start) || c.Duration != live.Duration {
		t.Errorf("tool call %+v", c)
	}
	if mem := back.Trace[0].Memory; mem == nil || lisp.Print(mustGet(mem, "who"), lisp.PrintOptions{}) != lisp.Print(mustGet(step.Trace[0].Memory, "who"), lisp.PrintOptions{}) {
		t.Errorf("memory %v", mem)
	}
	if back.Trace[0].Response == "" || back.Trace[0].Response != step.Trace[0].Response {
		t.Errorf("response %q", back.Trace[0].Response)
	}

	// Redacted: reading and writing again gives the same document.
	red, err := Marshal(step, JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back, err = Unmarshal(red)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Marshal(back, JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(red, again) {
		t.Errorf("a redacted trace written again differs:\n%s\n%s", red, again)
	}
	if got := lisp.Print(back.Return, lisp.PrintOptions{}); !strings.Contains(got, `:leak "<Firewalled>"`) {
		t.Errorf("redacted return read back: %s", got)
	}
}

func mustGet(ns *lisp.Namespace, name string) lisp.Value {
	v, _ := ns.Get(name)
	return v
}

// TestTraceJSONFirewall: a firewalled value, and the texts that copy it,
// stay out of the JSON unless it is raw.
func TestTraceJSONFirewall(t *testing.T) {
	step := tjMission(t, true)
	data, err := Marshal(step, JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(tjSecret)) || bytes.Contains(data, []byte("hunter2")) {
		t.Errorf("the redacted trace holds the secret:\n%s", data)
	}
	if !bytes.Contains(data, []byte(agent.Firewalled)) && !bytes.Contains(data, []byte(`\u003cFirewalled\u003e`)) {
		t.Errorf("the redacted trace has no placeholder:\n%s", data)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["redacted"] != true {
		t.Errorf("redacted: %v", doc["redacted"])
	}
	raw, err := Marshal(step, JSONOptions{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(tjSecret)) {
		t.Errorf("the raw trace lacks the secret")
	}
	// A raw trace lists its firewalled texts, so that the Step read back
	// hides them again when it is shown.
	var rawDoc struct {
		Firewall *struct{ Strings []string } `json:"firewall"`
	}
	if err := json.Unmarshal(raw, &rawDoc); err != nil || rawDoc.Firewall == nil || !slices.Contains(rawDoc.Firewall.Strings, tjSecret) {
		t.Errorf("the raw trace's firewall: %+v (%v)", rawDoc.Firewall, err)
	}
	back, err := Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	if out := tjPrint(t, back, Options{Full: true, Replies: true}); strings.Contains(out, "hunter2") {
		t.Errorf("the Step read back from a raw trace shows the secret:\n%s", out)
	}
	if out := tjPrint(t, back, Options{Full: true, Unredacted: true}); !strings.Contains(out, tjSecret) {
		t.Errorf("the Step read back from a raw trace has lost the secret:\n%s", out)
	}
}

// TestTraceJSONScrubsCopies: copies of firewalled text that a program made
// with str under a public key, or as a number, are hidden in the values of
// a redacted trace as the LLM was shown them, in both forms, and the trace
// still reads back.
func TestTraceJSONScrubsCopies(t *testing.T) {
	const key, pin = "CTXSECRET-alpha-1234", 90817263544
	model := llmtest.NewScript(
		tjCode(`{:leak (str "L" ctx/_key) :n ctx/_pin :kw (keyword ctx/_key)}`),
		tjCode(`(return {:leak (str "L" ctx/_key) :n ctx/_pin :keys {(str "k" ctx/_key) 1}})`))
	step, err := agent.MustNew(agent.Config{Prompt: "p"}).Run(context.Background(), agent.Options{LLM: model.Func(),
		Input: map[string]any{"_key": key, "_pin": pin}})
	if err != nil {
		t.Fatal(err)
	}
	if shown := model.Requests()[1].Messages[2].Content; !strings.Contains(shown, `:leak <Firewalled>`) {
		t.Fatalf("the model was shown the copy: %s", shown)
	}
	data, err := Marshal(step, JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{key, "CTXSECRET", "90817263544"} {
		if bytes.Contains(data, []byte(s)) {
			t.Errorf("the redacted trace holds %q:\n%s", s, data)
		}
	}
	// The copies are computed from the key: hidden whole (the scrub is
	// the second line of defence).
	for _, want := range []string{`:leak <Firewalled>`, `"leak":"<Firewalled>"`, `"n":"<Firewalled>"`, `:kw <Firewalled>`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the redacted trace lacks %s:\n%s", want, data)
		}
	}
	back, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(back.Return, lisp.PrintOptions{}); !strings.Contains(got, `:leak "<Firewalled>"`) {
		t.Errorf("read back: %s", got)
	}
}

// TestTraceJSONVersion: a trace of a newer version, or not a trace, is
// refused with a message that says so.
func TestTraceJSONVersion(t *testing.T) {
	step := tjMission(t, false)
	data, err := Marshal(step, JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	newer := bytes.Replace(data, []byte(`"version":1`), []byte(`"version":2`), 1)
	if bytes.Equal(newer, data) {
		t.Fatal("no version field in the trace")
	}
	if _, err := Unmarshal(newer); err == nil || !strings.Contains(err.Error(), "version 2, newer than this program reads (1)") {
		t.Errorf("version 2: %v", err)
	}
	for doc, want := range map[string]string{
		`{"format":"other","version":1,"step":{}}`: `not a ptc trace: format "other"`,
		`{"version":1,"step":{}}`:                  "not a ptc trace: format none",
		`{"format":"ptc-trace","step":{}}`:         "without a valid version",
		`{"format":"ptc-trace","version":1}`:       "has no step",
		`[1, 2]`:                                   "not a ptc trace",
		`{"format":"ptc-trace","version":1,"step":{"turns":[{"duration_ms":"x"}]}}`: "reading the trace",
	} {
		if _, err := Unmarshal([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", doc, err, want)
		}
	}
}

// TestTraceJSONValues: the trace reader reads printed forms with
// lisp.Read (tested there), the placeholder as the string Firewalled,
// and keeps the forms it cannot read.
func TestTraceJSONValues(t *testing.T) {
	const src, want = `{:_k <Firewalled>, :h #object[host]}`, `{:_k "<Firewalled>", :h #object[host]}`
	if v, err := readPrinted(src); err != nil || lisp.Print(v, lisp.PrintOptions{}) != want {
		t.Errorf("%s reads back as %s (%v)", src, lisp.Print(v, lisp.PrintOptions{}), err)
	}
	// An unreadable printed form falls back to the JSON form, then to the text.
	if v := readValue(&traceValue{Lisp: "#seq[range]", JSON: json.RawMessage(`[1,2]`)}); lisp.Print(v, lisp.PrintOptions{}) != "[1 2]" {
		t.Errorf("JSON fallback: %s", lisp.Print(v, lisp.PrintOptions{}))
	}
	if v := readValue(&traceValue{Lisp: "#seq[range]"}); v != "#seq[range]" {
		t.Errorf("text fallback: %v", v)
	}
	// Deep values round trip; too large ones are refused.
	deepV := lisp.Value(int64(1))
	for range 500 {
		deepV = lisp.NewVector([]lisp.Value{deepV})
	}
	s := &agent.Step{Return: deepV, TraceID: "t"}
	data, err := Marshal(s, JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(data)
	if err != nil || lisp.Print(back.Return, lisp.PrintOptions{}) != lisp.Print(deepV, lisp.PrintOptions{}) {
		t.Errorf("deep value: %v", err)
	}
	shared := lisp.Value("0123456789")
	for range 40 {
		shared = lisp.NewVector([]lisp.Value{shared, shared})
	}
	if _, err := Marshal(&agent.Step{Return: shared}, JSONOptions{MaxBytes: 1 << 20}); err == nil || !strings.Contains(err.Error(), "MaxBytes") {
		t.Errorf("a huge shared value: %v", err)
	}
	// A step that is its own child is refused, not walked forever.
	loop := &agent.Step{Trace: []agent.Turn{{}}}
	loop.Trace[0].ToolCalls = []agent.ToolCall{{Name: "self", Child: loop}}
	if _, err := Marshal(loop, JSONOptions{}); err == nil {
		t.Error("a cyclic step was written")
	}
	if _, err := Marshal(nil, JSONOptions{}); err == nil {
		t.Error("a nil step was written")
	}
}

// TestTraceJSONGolden compares the format with testdata/trace.golden.json
// (go test -update rewrites it), times, durations, trace ids and prompt
// texts masked.
func TestTraceJSONGolden(t *testing.T) {
	step := tjMission(t, true)
	data, err := Marshal(step, JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var doc traceDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	tjMask(doc.Step)
	got, err := encodeTrace(&doc, "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "trace.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the trace differs from %s (go test -update to accept):\n%s", path, got)
	}
}

// tjMask replaces what varies from run to run (ids, times, durations, the
// texts of prompts), and sorts the tool calls of pmap, which start in any
// order.
func tjMask(s *traceStep) {
	s.TraceID = "<id>"
	if s.ParentTraceID != "" {
		s.ParentTraceID = "<parent id>"
	}
	if s.SystemPrompt != "" {
		s.SystemPrompt = "<system prompt>"
	}
	for _, u := range []*traceUsage{&s.Usage, &s.TotalUsage} {
		u.DurationMS, u.SystemPromptTokens, u.MemoryBytes = 0, 0, 0
	}
	for i := range s.Turns {
		t := &s.Turns[i]
		t.DurationMS, t.LLMDurationMS = 0, 0
		if t.Feedback != "" {
			t.Feedback = "<feedback>"
		}
		for j := range t.ToolCalls {
			c := &t.ToolCalls[j]
			c.Start, c.DurationMS = "<time>", 0
			if c.Child != nil {
				tjMask(c.Child)
				// Which of pmap's missions finds its program in the
				// compile cache depends on which started first; the
				// caller's TotalUsage counts the hits the same way.
				c.Child.Usage.CachedPrograms, c.Child.TotalUsage.CachedPrograms = 0, 0
				for k := range c.Child.Turns {
					c.Child.Turns[k].Cached = false
				}
			}
		}
		sort.SliceStable(t.ToolCalls, func(i, j int) bool {
			a, b := t.ToolCalls[i].Args, t.ToolCalls[j].Args
			return a != nil && b != nil && a.Lisp < b.Lisp
		})
	}
}

// FuzzUnmarshalTrace: any input is read or refused without a panic, and a
// trace that reads is written and printed.
func FuzzUnmarshalTrace(f *testing.F) {
	seed, err := Marshal(&agent.Step{TraceID: "t", Return: lisp.NewVector([]lisp.Value{int64(1), "x"}),
		Trace: []agent.Turn{{Program: "(+ 1 2)", Result: int64(3),
			ToolCalls: []agent.ToolCall{{Name: "t", Args: lisp.NewMap(lisp.Keyword("a"), int64(1)), Child: &agent.Step{TraceID: "c"}}}}}}, JSONOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"format":"ptc-trace","version":1,"step":{"ok":false,"turns":[{"number":1,"result":{"lisp":"{:a"}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		step, err := Unmarshal(data)
		if err != nil {
			return
		}
		if _, err := Marshal(step, JSONOptions{}); err != nil {
			t.Fatalf("a trace that reads does not write: %v", err)
		}
		_ = Print(io.Discard, step, Options{Replies: true})
	})
}

// TestUnmarshalPlaceholder: in a redacted trace the placeholder is a
// hidden value and prints as it was written; in a raw trace without a
// firewall the same text is a string the mission returned, and prints as
// one.
func TestUnmarshalPlaceholder(t *testing.T) {
	for _, tc := range []struct {
		raw  bool
		want string
	}{
		{raw: false, want: "Returned: <Firewalled>\n"},
		{raw: true, want: "Returned: \"<Firewalled>\"\n"},
	} {
		data, err := Marshal(&agent.Step{TraceID: "t", Return: agent.Firewalled}, JSONOptions{Raw: tc.raw})
		if err != nil {
			t.Fatal(err)
		}
		back, err := Unmarshal(data)
		if err != nil {
			t.Fatal(err)
		}
		if got := tjPrint(t, back, Options{NoTimings: true}); !strings.HasPrefix(got, tc.want) {
			t.Errorf("raw %v: prints %q, want it to start with %q", tc.raw, got, tc.want)
		}
	}
}
