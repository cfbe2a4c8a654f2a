package agent_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func lookupFunc(context.Context, *lisp.Map) (any, error) { return 1, nil }

// fingerprintConfig is a Config with every field the fingerprint covers
// set, and a nested agent whose prompt is childPrompt.
func fingerprintConfig(t testing.TB, childPrompt string) agent.Config {
	child, err := agent.New(agent.Config{Prompt: childPrompt, Description: "Answers.", Signature: "(q :string) -> :int"})
	if err != nil {
		t.Fatal(err)
	}
	ask, err := child.AsTool(agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return agent.Config{
		Name: "triage", Prompt: "Triage {{ticket}}.", Signature: "(ticket :string) -> {priority :int}",
		Description: "Triages.", MaxTurns: 4, TurnBudget: 10, MaxDepth: 2, MissionTimeout: time.Minute,
		LLMTimeout: 10 * time.Second, LLM: llm.Name("sonnet"),
		Tools: map[string]agent.Tool{
			"lookup": {Func: lookupFunc, Signature: "(id :int) -> :map", Description: "Looks up."},
			"ask":    ask,
		},
		FieldDescriptions: map[string]string{"priority": "1 to 5"},
	}
}

func mustFingerprint(t testing.TB, cfg agent.Config) string {
	t.Helper()
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a.Fingerprint()
}

// Equal definitions have equal fingerprints; every declared field changes
// it, each change differently; Go code does not.
func TestFingerprint(t *testing.T) {
	base := mustFingerprint(t, fingerprintConfig(t, "Answer {{q}}."))
	if len(base) != 32 {
		t.Fatalf("fingerprint %q: want 32 hex digits", base)
	}
	for range 5 { // map order does not matter
		if fp := mustFingerprint(t, fingerprintConfig(t, "Answer {{q}}.")); fp != base {
			t.Fatalf("the same definition: %s, then %s", base, fp)
		}
	}
	mutations := []struct {
		name   string
		mutate func(c *agent.Config)
	}{
		{"name", func(c *agent.Config) { c.Name = "triage2" }},
		{"prompt", func(c *agent.Config) { c.Prompt = "Triage {{ticket}} now." }},
		{"signature", func(c *agent.Config) { c.Signature = "(ticket :string) -> {priority :float}" }},
		{"description", func(c *agent.Config) { c.Description = "Sorts." }},
		{"field description", func(c *agent.Config) { c.FieldDescriptions = map[string]string{"priority": "1 to 3"} }},
		{"context description", func(c *agent.Config) { c.ContextDescriptions = map[string]string{"ticket": "an id"} }},
		{"max turns", func(c *agent.Config) { c.MaxTurns = 5 }},
		{"turn budget", func(c *agent.Config) { c.TurnBudget = 11 }},
		{"max depth", func(c *agent.Config) { c.MaxDepth = 3 }},
		{"mission timeout", func(c *agent.Config) { c.MissionTimeout = 2 * time.Minute }},
		{"LLM timeout", func(c *agent.Config) { c.LLMTimeout = 20 * time.Second }},
		{"retry", func(c *agent.Config) { c.LLMRetry.MaxAttempts = 3 }},
		{"program limits", func(c *agent.Config) { c.Limits.MaxToolCalls = 7 }},
		{"memory limit", func(c *agent.Config) { c.MemoryLimit = 1000 }},
		{"prompt limit", func(c *agent.Config) { c.PromptLimit.MaxChars = 1000 }},
		{"format", func(c *agent.Config) { c.Format.ResultLimit = 3 }},
		{"float precision", func(c *agent.Config) { c.FloatPrecision = 4 }},
		{"map results", func(c *agent.Config) { c.MapResults = agent.KeepMaps }},
		{"model", func(c *agent.Config) { c.LLM = llm.Name("haiku") }},
		{"model as a function", func(c *agent.Config) {
			c.LLM = llm.Func(func(context.Context, llm.Request) (llm.Response, error) { return llm.Response{}, nil })
		}},
		{"system prefix", func(c *agent.Config) { c.SystemPrompt.Prefix = "Be brief." }},
		{"system suffix", func(c *agent.Config) { c.SystemPrompt.Suffix = "Be brief." }},
		{"language", func(c *agent.Config) { c.SystemPrompt.Language = "compact" }},
		{"output format", func(c *agent.Config) { c.SystemPrompt.OutputFormat = "Code only." }},
		{"transform present", func(c *agent.Config) { c.SystemPrompt.Transform = func(p string) string { return p } }},
		{"catalog", func(c *agent.Config) {
			c.ToolCatalog = map[string]agent.CatalogEntry{"archive": {Signature: "() -> :int", Description: "Old."}}
		}},
		{"tool renamed", func(c *agent.Config) { c.Tools["find"] = c.Tools["lookup"]; delete(c.Tools, "lookup") }},
		{"tool signature", func(c *agent.Config) {
			tool := c.Tools["lookup"]
			tool.Signature = "(id :string) -> :map"
			c.Tools["lookup"] = tool
		}},
		{"tool description", func(c *agent.Config) {
			tool := c.Tools["lookup"]
			tool.Description = "Finds."
			c.Tools["lookup"] = tool
		}},
		{"tool unlisted", func(c *agent.Config) { tool := c.Tools["lookup"]; tool.Unlisted = true; c.Tools["lookup"] = tool }},
		{"tool added", func(c *agent.Config) { c.Tools["more"] = agent.Tool{Func: lookupFunc} }},
		{"nested agent's prompt", func(c *agent.Config) { c.Tools["ask"] = fingerprintConfig(t, "Reply to {{q}}.").Tools["ask"] }},
	}
	seen := map[string]string{base: "the base"}
	for _, m := range mutations {
		c := fingerprintConfig(t, "Answer {{q}}.")
		m.mutate(&c)
		fp := mustFingerprint(t, c)
		if other, ok := seen[fp]; ok {
			t.Errorf("%s: the fingerprint is the same as for %s", m.name, other)
		}
		seen[fp] = m.name
	}

	// Go code is not seen: another Func under the same declarations.
	c := fingerprintConfig(t, "Answer {{q}}.")
	tool := c.Tools["lookup"]
	tool.Func = func(context.Context, *lisp.Map) (any, error) { return 2, nil }
	c.Tools["lookup"] = tool
	if fp := mustFingerprint(t, c); fp != base {
		t.Errorf("a tool's Func alone changed the fingerprint")
	}
}

func BenchmarkFingerprint(b *testing.B) {
	tools := map[string]agent.Tool{}
	for i := range 20 {
		tools[fmt.Sprintf("tool%02d", i)] = agent.Tool{Func: lookupFunc, Signature: "(id :int) -> {id :int, name :string}",
			Description: "Looks something up."}
	}
	cfg := agent.Config{Prompt: "Do {{x}}.", Tools: tools}
	for b.Loop() {
		a, err := agent.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		_ = a.Fingerprint()
	}
}
