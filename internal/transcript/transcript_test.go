package transcript

import (
	"context"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

func TestLineDiff(t *testing.T) {
	long := strings.Repeat("x", 300)
	many := strings.Repeat("l\n", 12)
	tests := []struct{ name, want, got, diff string }{
		{"one line in the middle", "a\nb\nc\nd\ne", "a\nb\nX\nd\ne",
			"  … (1 same line)\n  b\n- c\n+ X\n  d\n  … (1 same line)\n(first difference: line 3, column 1)"},
		{"from nothing", "", "new", "+ new"},
		{"to nothing", "old", "", "- old"},
		{"column", "abcdef", "abcXef", "- abcdef\n+ abcXef\n(first difference: line 1, column 4)"},
		{"a long line cut around the difference", long + "A" + long, long + "B" + long,
			"- …" + strings.Repeat("x", 40) + "A" + strings.Repeat("x", 119) + "…\n+ …" + strings.Repeat("x", 40) + "B" + strings.Repeat("x", 119) + "…\n(first difference: line 1, column 301)"},
		{"many lines bounded", "", many[:len(many)-1], strings.Repeat("+ l\n", 8) + "+ … (4 more lines)"},
	}
	for _, tt := range tests {
		if got := LineDiff(tt.want, tt.got); got != tt.diff {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, got, tt.diff)
		}
	}
}

// TestRecorderErrors: a failed call is recorded with its message, class
// and status, as the replay gives it back.
func TestRecorderErrors(t *testing.T) {
	fail := &llm.Error{Class: llm.ClassRateLimit, Status: 429, Message: "slow down"}
	r := &Recorder{Run: context.Background(), Inner: func(context.Context, llm.Request) (llm.Response, error) {
		return llm.Response{}, fail
	}}
	_, err := r.Call(context.Background(), llm.Request{Turn: 1, Messages: []llm.Message{{Role: llm.User, Content: "go"}}})
	if err != fail {
		t.Fatalf("error %v", err)
	}
	c := r.Calls[0]
	if c.Reply.Error != "slow down" || c.Reply.Class != llm.ClassRateLimit || c.Status != 429 || c.Interrupted {
		t.Errorf("recorded %+v", c)
	}
	rp := &Replayer{Rec: &Transcript{Calls: r.Calls}, Stop: func() {}}
	_, err = rp.Call(context.Background(), llm.Request{Turn: 1, Messages: []llm.Message{{Role: llm.User, Content: "go"}}})
	if err == nil || err.Error() != fail.Error() {
		t.Errorf("replayed error %v, want %v", err, fail)
	}
}

const agentText = "---\nmax-turns: 2\ncontext: {:_token \"inline-5ecret\" :n 2}\n---\nCount {{n}}."

// record runs the agent on the scripted replies, recorded, and returns
// the recording read back.
func record(t *testing.T, prompt string, src *AgentSource, replies ...llmtest.Reply) *Transcript {
	t.Helper()
	ctxMap, err := lisp.Read(`{:_token "given-5ecret" :n 2}`, lisp.ReadOptions{Format: lisp.ReadEDN})
	if err != nil {
		t.Fatal(err)
	}
	r := &Recorder{Inner: llmtest.NewScript(replies...).Func(), Run: context.Background()}
	step := run(t, prompt, ctxMap.(*lisp.Map), r.Call)
	tr, err := r.Transcript(src, "script:test", ctxMap.(*lisp.Map), Shown{Step: step}, "v0.0.0-test")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func run(t *testing.T, prompt string, ctx *lisp.Map, model llm.Func) *agent.Step {
	t.Helper()
	a, err := agent.New(agent.Config{Prompt: prompt, Signature: "(n :int) -> {count :int}", MaxTurns: 3})
	if err != nil {
		t.Fatal(err)
	}
	step, _ := a.Run(context.Background(), agent.Options{LLM: model, Input: ctx, Trace: agent.TraceOn})
	return step
}

// TestRecordReplay: a recording read back replays the mission: the same
// agent matches it, one whose request differs stops at the first
// difference, and the recording shows the firewalled values as
// <Firewalled> only.
func TestRecordReplay(t *testing.T) {
	replies := []llmtest.Reply{llmtest.Code(`(println ctx/n)`), llmtest.Code(`(return {:count ctx/n})`)}
	tr := record(t, "Count {{n}}.", &AgentSource{File: "count.md", Text: []byte(agentText)}, replies...)
	if strings.Contains(string(tr.Doc), "5ecret") {
		t.Errorf("the recording holds a firewalled value:\n%s", tr.Doc)
	}
	if !tr.Redacted || len(tr.Calls) != 2 || tr.Outcome == nil || !tr.Outcome.OK || tr.Outcome.ReturnEDN != "{:count 2}" ||
		len(tr.Outcome.Turns) != 2 || tr.Model != "script:test" || tr.PTC != "v0.0.0-test" {
		t.Fatalf("recording %+v, outcome %+v", tr, tr.Outcome)
	}
	back, err := ReadRecording(tr.Doc)
	if err != nil {
		t.Fatal(err)
	}
	ctxMap, err := back.ContextMap()
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(ctxMap, lisp.PrintOptions{}); got != `{:_token "`+agent.Firewalled+`", :n 2}` {
		t.Errorf("recorded context %s", got)
	}

	tests := []struct {
		name, prompt string
		what         string // "" for a match
	}{
		{"same", "Count {{n}}.", ""},
		{"another prompt", "Count {{n}} please.", "message 1, the mission prompt"},
	}
	for _, tt := range tests {
		rp := &Replayer{Rec: back, Stop: func() {}}
		step := run(t, tt.prompt, ctxMap, rp.Call)
		mm := rp.Finish(step)
		switch {
		case tt.what == "" && mm != nil:
			t.Errorf("%s: mismatch %s", tt.name, mm.Report())
		case tt.what != "" && (mm == nil || mm.What != tt.what || mm.Call != 1 || mm.Diff == ""):
			t.Errorf("%s: mismatch %+v, want %q at call 1", tt.name, mm, tt.what)
		case tt.what != "" && (step.Fail == nil || step.Fail.Reason != ReasonReplayMismatch):
			t.Errorf("%s: the mission ended with %+v", tt.name, step.Fail)
		case tt.what != "" && !strings.HasPrefix(mm.Report(), "replay mismatch: turn 1 (LLM call 1), message 1"):
			t.Errorf("%s: report %q", tt.name, mm.Report())
		}
	}
}

// TestReplayOutcome: a replay whose outcome differs from the recorded one
// is a mismatch of the outcome, with a diff.
func TestReplayOutcome(t *testing.T) {
	tr := record(t, "Count {{n}}.", nil, llmtest.Code(`(return {:count ctx/n})`))
	tr.Outcome.ReturnEDN = "{:count 3}"
	rp := &Replayer{Rec: tr, Stop: func() {}}
	ctxMap, err := tr.ContextMap()
	if err != nil {
		t.Fatal(err)
	}
	mm := rp.Finish(run(t, "Count {{n}}.", ctxMap, rp.Call))
	if mm == nil || mm.What != "the outcome" || mm.Expected != "returned {:count 3}" || mm.Got != "returned {:count 2}" ||
		!strings.Contains(mm.Diff, "(first difference: line 1, column 18)") {
		t.Errorf("mismatch %+v", mm)
	}
}

// TestRecordedAgent: the agent a recording names, as given, its inline
// context's _ fields hidden and its hash that of the file; none without
// a source.
func TestRecordedAgent(t *testing.T) {
	reply := llmtest.Code(`(return {:count ctx/n})`)
	tr := record(t, "Count {{n}}.", &AgentSource{File: "dir/count.md", Text: []byte(agentText)}, reply)
	want := "---\nmax-turns: 2\ncontext: {:_token \"" + agent.Firewalled + "\", :n 2}\n---\nCount {{n}}."
	if !tr.HasAgent || tr.Agent.File != "dir/count.md" || tr.Agent.Text != want || len(tr.Agent.SHA256) != 64 {
		t.Errorf("agent %+v, want text %q", tr.Agent, want)
	}
	back, err := ReadRecording(tr.Doc)
	if err != nil || !back.HasAgent || back.Agent != tr.Agent {
		t.Errorf("read back: %+v, %v", back, err)
	}
	none := record(t, "Count {{n}}.", nil, reply)
	if none.HasAgent || none.Agent.File != "" || none.Agent.Text != "" {
		t.Errorf("no source, agent %+v", none.Agent)
	}
}

func TestRedactInlineContext(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"inline", "---\ncontext: {:_k 1 :n 2}\n---\nGo.", "---\ncontext: {:_k \"" + agent.Firewalled + "\", :n 2}\n---\nGo."},
		{"block", "---\ncontext: |\n  {:a {:_pin 4242}\n   :b 1}\nmax-turns: 1\n---\nGo.",
			"---\ncontext: {:a {:_pin \"" + agent.Firewalled + "\"}, :b 1}\nmax-turns: 1\n---\nGo."},
		{"no _ field", "---\ncontext: {:n 2}\n---\nGo.", "---\ncontext: {:n 2}\n---\nGo."},
		{"no context", "---\nmax-turns: 1\n---\nGo.", "---\nmax-turns: 1\n---\nGo."},
		{"does not parse", "---\ncontext: {:_k\n---\nGo.", "---\ncontext: {:_k\n---\nGo."},
	}
	for _, tt := range tests {
		if got := string(redactInlineContext("a.md", []byte(tt.text))); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestContextMap: a recorded context that does not read, or is not a
// map, is an error that quotes at most maxQuote characters of it.
func TestContextMap(t *testing.T) {
	tests := []struct {
		name string
		tr   Transcript
		want string
	}{
		{"none", Transcript{}, ""},
		{"not a map", Transcript{Context: []byte(`[1]`)}, "the recorded context is a vector, not a map"},
		{"bad EDN", Transcript{ContextEDN: "{:a " + strings.Repeat("\"x\" ", 500)}, "the recorded context: "},
	}
	for _, tt := range tests {
		m, err := tt.tr.ContextMap()
		switch {
		case tt.want == "" && (err != nil || m == nil || m.Len() != 0):
			t.Errorf("%s: %v, %v", tt.name, m, err)
		case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want) || len([]rune(err.Error())) > len(tt.want)+maxQuote):
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestSystemDiff: a system prompt that differs from the recorded one is a
// note, not a mismatch.
func TestSystemDiff(t *testing.T) {
	tr := &Transcript{System: "one\ntwo", Calls: []trace.LLMCall{{Messages: []llm.Message{{Role: llm.User, Content: "go"}},
		Reply: trace.LLMReply{Content: "ok"}}}}
	rp := &Replayer{Rec: tr, Stop: func() {}}
	resp, err := rp.Call(context.Background(), llm.Request{Turn: 1, System: "one\nthree", Messages: []llm.Message{{Role: llm.User, Content: "go"}}})
	if err != nil || resp.Content != "ok" {
		t.Fatalf("reply %+v, %v", resp, err)
	}
	if got, want := rp.SystemDiff(), `line 2: recorded "two", now "three"`; got != want {
		t.Errorf("system diff %q, want %q", got, want)
	}
}
