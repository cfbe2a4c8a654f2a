package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
	"github.com/ptc-go/ptc/signature"
)

// The conveniences of the seeds' Elixir API, as ptc-go offers them
// (docs/deviations.md, rows A10 to A15).

// Must returns the Step of a run that succeeded and panics with the error,
// an *Error holding the Step, when it failed: run! and then!.
func TestMust(t *testing.T) {
	ok := agent.MustNew(agent.Config{Prompt: "P"})
	step := agent.Must(ok.Run(context.Background(), agent.Options{LLM: llmtest.NewScript(llmtest.Code("(return 7)")).Func()}))
	if step.Return != int64(7) {
		t.Errorf("Must gave %v", step.Return)
	}
	defer func() {
		var ae *agent.Error
		err, _ := recover().(error)
		if !errors.As(err, &ae) || ae.Step.Fail.Reason != "not_found" {
			t.Errorf("Must panicked with %v", err)
		}
	}()
	agent.Must(ok.Run(context.Background(), agent.Options{LLM: llmtest.NewScript(llmtest.Code(`(fail {:reason :not_found :message "no"})`)).Func()}))
	t.Error("Must returned on a failed run")
}

// Then refuses a Step that lacks a field the next agent's signature
// requires before that agent's LLM is called (then!'s chain check), and
// says which.
func TestThenChecksRequiredFields(t *testing.T) {
	finder := agent.MustNew(agent.Config{Prompt: "Find", Signature: "{tickets [:int]}"})
	counter := agent.MustNew(agent.Config{Prompt: "Count", Signature: "(ids [:int]) -> :int"})
	script := llmtest.NewScript(llmtest.Code(`(return {:tickets [1 2]})`), llmtest.Code(`(return 2)`))
	found := agent.Must(finder.Run(context.Background(), agent.Options{LLM: script.Func()}))
	step, err := agent.Then(context.Background(), found, counter, agent.Options{LLM: script.Func()})
	if err == nil || step.Fail.Reason != agent.ReasonValidationError || !strings.Contains(step.Fail.Message, "ids: missing required field") {
		t.Fatalf("Then: %v", err)
	}
	if script.Calls() != 1 {
		t.Errorf("the next agent's LLM was called: %d calls", script.Calls())
	}
}

// "minimal", the seeds' name of the token-efficient reference, is compact
// wherever a profile is named.
func TestMinimalProfile(t *testing.T) {
	if prompt.Reference("minimal") == "" || prompt.Reference("minimal") != prompt.Reference("compact") {
		t.Error("LanguageReference(minimal) is not compact's")
	}
	if got := prompt.Profiles(); strings.Join(got, ",") != "default,compact" {
		t.Errorf("LanguageProfiles() = %v", got)
	}
	for _, name := range prompt.Profiles() {
		if prompt.Reference(name) == "" {
			t.Errorf("LanguageReference(%q) is empty", name)
		}
	}
	system := func(cfg agent.Config) string {
		t.Helper()
		p, err := agent.MustNew(cfg).Preview(agent.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return p.System
	}
	compact := system(agent.Config{Prompt: "P", Presentation: prompt.Options{Language: "compact"}})
	if compact == system(agent.Config{Prompt: "P"}) {
		t.Fatal("compact and default give the same prompt")
	}
	if got := system(agent.Config{Prompt: "P", Presentation: prompt.Options{Language: "minimal"}}); got != compact {
		t.Error("Language minimal is not compact")
	}
	byFunc := agent.Config{Prompt: "P", Presentation: prompt.Options{LanguageFunc: func(prompt.State) string { return "minimal" }}}
	if got := system(byFunc); got != compact {
		t.Error("a LanguageFunc's minimal is not compact")
	}
	_, err := agent.New(agent.Config{Prompt: "P", Presentation: prompt.Options{Language: "tiny"}})
	if err == nil || !strings.Contains(err.Error(), "minimal") {
		t.Errorf("an unknown profile: %v", err)
	}
	f, err := agentfile.Parse("a.md", []byte("---\nlanguage: minimal\n---\nP"))
	if err != nil || f.Config.Presentation.Language != "minimal" {
		t.Fatalf("agent file: %v", err)
	}
	if got := system(f.Config); got != compact {
		t.Error("an agent file's minimal is not compact")
	}
}

// A LanguageFunc sees the memory's values, the seeds' "current memory
// state"; a firewalled one it copies into its text does not reach the LLM.
func TestLanguageFuncSeesMemoryValues(t *testing.T) {
	const secret = "sk-live-4c0ffee-9d1e"
	var seen []lisp.Value
	cfg := agent.Config{
		Prompt: "P",
		Presentation: prompt.Options{LanguageFunc: func(st prompt.State) string {
			n, _ := st.MemoryValues.Get("n")
			seen = append(seen, n)
			key, _ := st.MemoryValues.Get("_key")
			return "Remember n. The key is " + lisp.Print(key, lisp.PrintOptions{})
		}},
	}
	script := llmtest.NewScript(llmtest.Code(`{:n 3 :_key "`+secret+`"}`), llmtest.Code(`(return memory/n)`))
	step, err := agent.MustNew(cfg).Run(context.Background(), agent.Options{LLM: script.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] != nil || seen[1] != int64(3) || step.Return != int64(3) {
		t.Fatalf("the LanguageFunc saw %v", seen)
	}
	second := script.Requests()[1].System
	if !strings.Contains(second, "Remember n.") || strings.Contains(second, secret) {
		t.Errorf("turn 2's system prompt:\n%s", second)
	}
}

// Under WarnOnly the mismatches are the Step's warnings, the run.stop
// event's (JSON too), and the slog observer logs each at WARN.
func TestWarnOnlyLogsWarnings(t *testing.T) {
	var logged strings.Builder
	var stop []byte
	events := agent.ObserverFunc(func(_ context.Context, e *agent.Event) {
		if e.Kind == agent.RunStop {
			stop, _ = json.Marshal(e)
		}
	})
	slogger := trace.NewSlogObserver(slog.New(slog.NewJSONHandler(&logged, &slog.HandlerOptions{Level: slog.LevelWarn})))
	a := agent.MustNew(agent.Config{Name: "counter", Prompt: "Count", Signature: "{count :int}"})
	step, err := a.Run(context.Background(), agent.Options{Validation: signature.WarnOnly, Observers: []agent.Observer{events, slogger},
		LLM: llmtest.NewScript(llmtest.Code(`(return {:count "many"})`)).Func()})
	if err != nil {
		t.Fatal(err)
	}
	if len(step.Warnings) != 1 || !strings.HasPrefix(step.Warnings[0], "return: count") {
		t.Fatalf("warnings %q", step.Warnings)
	}
	var j struct{ Warnings []string }
	if err := json.Unmarshal(stop, &j); err != nil || len(j.Warnings) != 1 || j.Warnings[0] != step.Warnings[0] {
		t.Errorf("run.stop JSON %s", stop)
	}
	var rec map[string]any
	for _, line := range strings.Split(strings.TrimSpace(logged.String()), "\n") {
		var r map[string]any
		if json.Unmarshal([]byte(line), &r) == nil && r["msg"] == "ptc warning" {
			rec = r
		}
	}
	if rec == nil || rec["level"] != "WARN" || rec["warning"] != step.Warnings[0] || rec["agent"] != "counter" {
		t.Errorf("the log:\n%s", logged.String())
	}
}

// A pipeline's stage is told that its return value feeds the next agent
// and what that agent needs; the last stage and a lone run are not.
func TestPipelineStageToldOfNext(t *testing.T) {
	find := agent.MustNew(agent.Config{Prompt: "Find the tickets", Signature: "{ids [:int]}"})
	count := agent.MustNew(agent.Config{Name: "counter", Prompt: "Count the tickets", Signature: "(ids [:int]) -> :int"})
	script := llmtest.NewScript(llmtest.Code(`(return {:ids [1 2]})`), llmtest.Code(`(return (count ctx/ids))`))
	if _, err := (agent.Pipeline{find, count}).Run(context.Background(), agent.Options{LLM: script.Func()}); err != nil {
		t.Fatal(err)
	}
	reqs := script.Requests()
	const want = "Your return value is the input of the next agent of a pipeline (counter), read as its ctx/; it needs (ids [:int])."
	if !strings.Contains(reqs[0].System, want) {
		t.Errorf("the first stage's prompt lacks %q:\n%s", want, reqs[0].System)
	}
	if strings.Contains(reqs[1].System, "next agent of a pipeline") {
		t.Error("the last stage is told of a next agent")
	}
}
