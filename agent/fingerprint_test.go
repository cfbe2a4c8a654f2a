package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func fpGoTool(desc string) Tool {
	return Tool{Func: func(context.Context, *lisp.Map) (any, error) { return 1, nil },
		Signature: "(q :string) -> :int", Description: desc}
}

// fpChild is a nested agent with the given prompt.
func fpChild(t testing.TB, prompt string) *Agent {
	t.Helper()
	return MustNew(Config{Prompt: prompt, Signature: "(x :int) -> :int", Description: "child",
		Tools: map[string]Tool{"inner": fpGoTool("inner tool")}})
}

func fpAgentTool(t testing.TB, a *Agent, opts AsToolOptions) Tool {
	t.Helper()
	tl, err := a.AsTool(opts)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func fpLLMTool(t testing.TB, cfg Config, opts AsToolOptions) Tool {
	t.Helper()
	if cfg.Prompt == "" {
		cfg.Prompt = "Is {{text}} urgent?"
	}
	if cfg.Signature == "" {
		cfg.Signature = "(text :string) -> :bool"
	}
	if cfg.Description == "" {
		cfg.Description = "urgency"
	}
	tl, err := NewLLMTool(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func fpCompiledTool(t testing.TB, src string) Tool {
	t.Helper()
	a := MustNew(Config{Prompt: "double {{x}}", Signature: "(x :int) -> :int", Description: "double"})
	c, err := a.CompileSource(src)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := c.AsTool(AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// fpBase is a definition touching every part the fingerprint covers,
// built afresh (new maps, new closures) on each call.
func fpBase(t testing.TB) Config {
	return Config{
		Name:              "mission",
		Prompt:            "Find urgent mail for {{user}}",
		Signature:         "(user :string) -> {count :int}",
		Description:       "finds mail",
		FieldDescriptions: map[string]string{"count": "how many", "user": "who"},
		Tools: map[string]Tool{
			"search":   fpGoTool("search mail"),
			"lookup":   fpGoTool("look up"),
			"child":    fpAgentTool(t, fpChild(t, "Compute {{x}}"), AsToolOptions{LLM: llm.Name("small")}),
			"classify": fpLLMTool(t, Config{}, AsToolOptions{}),
			"double":   fpCompiledTool(t, "(* 2 ctx/x)"),
		},
		ToolCatalog:  map[string]Tool{"other": {Signature: "(a :int) -> :int", Description: "other"}},
		MaxTurns:     4,
		Presentation: prompt.Options{InputDescriptions: map[string]string{"user": "the user", "mails": "the mails"}},
	}
}

func TestFingerprintStable(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 10; i++ { // map iteration differs between builds
		fp := MustNew(fpBase(t)).Fingerprint()
		if !strings.HasPrefix(fp, "sha256:") || len(fp) != len("sha256:")+64 {
			t.Fatalf("fingerprint %q: want sha256: and 64 hex digits", fp)
		}
		seen[fp] = true
	}
	if len(seen) != 1 {
		t.Fatalf("equal definitions gave %d fingerprints: %v", len(seen), seen)
	}
	a := MustNew(fpBase(t))
	if first, again := a.Fingerprint(), a.Fingerprint(); first != again {
		t.Fatal("Fingerprint differs between calls")
	}
}

func TestFingerprintDefaultsFilled(t *testing.T) {
	zero := MustNew(Config{Prompt: "p"}).Fingerprint()
	explicit := MustNew(Config{
		Prompt:         "p",
		MaxTurns:       defaultMaxTurns,
		MaxTreeTurns:   defaultTurnBudget,
		MaxNesting:     defaultMaxDepth,
		MaxAgentMemory: defaultMemoryLimit,
		MissionTimeout: defaultMissionTimeout,
		Limits:         lisp.Limits{Timeout: defaultTurnTimeout, MaxSteps: defaultTurnSteps},
		Presentation: func() prompt.Options {
			p := defaultFormat()
			p.FloatPrecision = defaultFloatPrecision
			return p
		}(),
	}).Fingerprint()
	if zero != explicit {
		t.Fatal("a zero field and its default gave different fingerprints")
	}
}

func TestFingerprintMutations(t *testing.T) {
	muts := []struct {
		name string
		mut  func(t testing.TB, c *Config)
	}{
		{"Name", func(_ testing.TB, c *Config) { c.Name = "other" }},
		{"Prompt", func(_ testing.TB, c *Config) { c.Prompt = "Find mail for {{user}}" }},
		{"Signature", func(_ testing.TB, c *Config) { c.Signature = "(user :string) -> {count :float}" }},
		{"Description", func(_ testing.TB, c *Config) { c.Description = "finds more mail" }},
		{"FieldDescriptions", func(_ testing.TB, c *Config) { c.FieldDescriptions["count"] = "number" }},
		{"ContextDescriptions", func(_ testing.TB, c *Config) { c.Presentation.InputDescriptions["mails"] = "letters" }},
		{"Presentation.Prefix", func(_ testing.TB, c *Config) { c.Presentation.Prefix = "Be brief." }},
		{"Presentation.Suffix", func(_ testing.TB, c *Config) { c.Presentation.Suffix = "Be brief." }},
		{"Presentation.Language", func(_ testing.TB, c *Config) { c.Presentation.Language = "compact" }},
		{"Presentation.LanguageFunc", func(_ testing.TB, c *Config) {
			c.Presentation.LanguageFunc = func(prompt.State) string { return "" }
		}},
		{"Presentation.OutputFormat", func(_ testing.TB, c *Config) { c.Presentation.OutputFormat = "answer in code" }},
		{"Presentation.Transform", func(_ testing.TB, c *Config) { c.Presentation.Transform = func(s string) string { return s } }},
		{"Presentation.Override", func(_ testing.TB, c *Config) { c.Presentation.Override = "all of it" }},
		{"Presentation.SystemMaxChars", func(_ testing.TB, c *Config) { c.Presentation.SystemMaxChars = 9000 }},
		{"Presentation.InputItems", func(_ testing.TB, c *Config) { c.Presentation.InputItems = 7 }},
		{"Presentation.InputChars", func(_ testing.TB, c *Config) { c.Presentation.InputChars = 70 }},
		{"Presentation.FeedbackLimit", func(_ testing.TB, c *Config) { c.Presentation.FeedbackLimit = 3 }},
		{"Presentation.FeedbackMaxChars", func(_ testing.TB, c *Config) { c.Presentation.FeedbackMaxChars = 3 }},
		{"Presentation.HistoryMaxBytes", func(_ testing.TB, c *Config) { c.Presentation.HistoryMaxBytes = 3 }},
		{"Presentation.ResultLimit", func(_ testing.TB, c *Config) { c.Presentation.ResultLimit = 3 }},
		{"Presentation.ResultMaxChars", func(_ testing.TB, c *Config) { c.Presentation.ResultMaxChars = 3 }},
		{"MaxTurns", func(_ testing.TB, c *Config) { c.MaxTurns = 6 }},
		{"MaxTreeTurns", func(_ testing.TB, c *Config) { c.MaxTreeTurns = 30 }},
		{"MaxNesting", func(_ testing.TB, c *Config) { c.MaxNesting = 2 }},
		{"MaxAgentMemory", func(_ testing.TB, c *Config) { c.MaxAgentMemory = 1000 }},
		{"KeepMaps", func(_ testing.TB, c *Config) { c.KeepMaps = true }},
		{"MissionTimeout", func(_ testing.TB, c *Config) { c.MissionTimeout = time.Hour }},
		{"LLMTimeout", func(_ testing.TB, c *Config) { c.LLMTimeout = time.Minute }},
		{"LLMRetry.MaxAttempts", func(_ testing.TB, c *Config) { c.LLMRetry.MaxAttempts = 3 }},
		{"LLMRetry.Backoff", func(_ testing.TB, c *Config) { c.LLMRetry.Backoff = llm.BackoffLinear }},
		{"LLMRetry.BaseDelay", func(_ testing.TB, c *Config) { c.LLMRetry.BaseDelay = time.Second }},
		{"LLMRetry.MaxDelay", func(_ testing.TB, c *Config) { c.LLMRetry.MaxDelay = time.Second }},
		{"LLMRetry.MaxRetryAfter", func(_ testing.TB, c *Config) { c.LLMRetry.MaxRetryAfter = time.Second }},
		{"LLMRetry.Jitter", func(_ testing.TB, c *Config) { c.LLMRetry.Jitter = 0.5 }},
		{"LLMRetry.Retryable", func(_ testing.TB, c *Config) { c.LLMRetry.Retryable = []llm.Class{"timeout"} }},
		{"Limits.Timeout", func(_ testing.TB, c *Config) { c.Limits.Timeout = time.Minute }},
		{"Limits.MaxSteps", func(_ testing.TB, c *Config) { c.Limits.MaxSteps = 10 }},
		{"Limits.MaxDepth", func(_ testing.TB, c *Config) { c.Limits.MaxDepth = 10 }},
		{"Limits.MaxLoopIterations", func(_ testing.TB, c *Config) { c.Limits.MaxLoopIterations = 10 }},
		{"Limits.MaxOutputBytes", func(_ testing.TB, c *Config) { c.Limits.MaxOutputBytes = 10 }},
		{"Limits.MaxToolCalls", func(_ testing.TB, c *Config) { c.Limits.MaxToolCalls = 10 }},
		{"Limits.MaxMemory", func(_ testing.TB, c *Config) { c.Limits.MaxMemory = 10 }},
		{"Limits.MaxParallel", func(_ testing.TB, c *Config) { c.Limits.MaxParallel = 10 }},
		{"Presentation.FloatPrecision", func(_ testing.TB, c *Config) { c.Presentation.FloatPrecision = 4 }},
		{"LLM name", func(_ testing.TB, c *Config) { c.LLM = llm.Name("big") }},
		{"LLM func", func(_ testing.TB, c *Config) {
			c.LLM = llm.Func(func(context.Context, llm.Request) (llm.Response, error) { return llm.Response{}, nil })
		}},
		{"ToolCatalog", func(_ testing.TB, c *Config) { c.ToolCatalog["other"] = Tool{Description: "changed"} }},
		{"tool renamed", func(_ testing.TB, c *Config) { c.Tools["find"] = c.Tools["search"]; delete(c.Tools, "search") }},
		{"tool added", func(_ testing.TB, c *Config) { c.Tools["extra"] = fpGoTool("extra") }},
		{"tool removed", func(_ testing.TB, c *Config) { delete(c.Tools, "lookup") }},
		{"tool signature", func(_ testing.TB, c *Config) {
			tl := c.Tools["search"]
			tl.Signature = "(q :string) -> :string"
			c.Tools["search"] = tl
		}},
		{"tool description", func(_ testing.TB, c *Config) { c.Tools["search"] = fpGoTool("search all mail") }},
		{"tool unlisted", func(_ testing.TB, c *Config) {
			tl := c.Tools["search"]
			tl.Unlisted = true
			c.Tools["search"] = tl
		}},
		{"tool kind", func(t testing.TB, c *Config) {
			// The child agent's contract, served by a Go function instead.
			c.Tools["child"] = Tool{Func: c.Tools["child"].Func, Signature: c.Tools["child"].Signature, Description: "child"}
		}},
		{"nested agent prompt", func(t testing.TB, c *Config) {
			c.Tools["child"] = fpAgentTool(t, fpChild(t, "Compute {{x}} twice"), AsToolOptions{LLM: llm.Name("small")})
		}},
		{"nested agent's tool", func(t testing.TB, c *Config) {
			ch := MustNew(Config{Prompt: "Compute {{x}}", Signature: "(x :int) -> :int", Description: "child",
				Tools: map[string]Tool{"inner2": fpGoTool("inner tool")}})
			c.Tools["child"] = fpAgentTool(t, ch, AsToolOptions{LLM: llm.Name("small")})
		}},
		{"nested agent bound model", func(t testing.TB, c *Config) {
			c.Tools["child"] = fpAgentTool(t, fpChild(t, "Compute {{x}}"), AsToolOptions{LLM: llm.Name("large")})
		}},
		{"nested agent token limit", func(t testing.TB, c *Config) {
			c.Tools["child"] = fpAgentTool(t, fpChild(t, "Compute {{x}}"), AsToolOptions{LLM: llm.Name("small"), TokenLimit: 100})
		}},
		{"LLM tool prompt", func(t testing.TB, c *Config) {
			c.Tools["classify"] = fpLLMTool(t, Config{Prompt: "Urgent? {{text}}"}, AsToolOptions{})
		}},
		{"LLM tool retries", func(t testing.TB, c *Config) {
			c.Tools["classify"] = fpLLMTool(t, Config{MaxTurns: 4}, AsToolOptions{})
		}},
		{"LLM tool model", func(t testing.TB, c *Config) {
			c.Tools["classify"] = fpLLMTool(t, Config{LLM: llm.Name("x")}, AsToolOptions{})
		}},
		{"compiled program", func(t testing.TB, c *Config) { c.Tools["double"] = fpCompiledTool(t, "(+ ctx/x ctx/x)") }},
	}
	base := MustNew(fpBase(t)).Fingerprint()
	byFP := map[string]string{base: "base"}
	for _, m := range muts {
		t.Run(m.name, func(t *testing.T) {
			cfg := fpBase(t)
			m.mut(t, &cfg)
			a, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			fp := a.Fingerprint()
			if other, dup := byFP[fp]; dup {
				t.Fatalf("the fingerprint equals that of %s", other)
			}
			byFP[fp] = m.name
		})
	}
}

// A tool's Go code is not seen: only its name, contract and description.
func TestFingerprintIgnoresGoCode(t *testing.T) {
	base := MustNew(fpBase(t)).Fingerprint()
	cfg := fpBase(t)
	tl := cfg.Tools["search"]
	tl.Func = func(context.Context, *lisp.Map) (any, error) { return 2, nil }
	cfg.Tools["search"] = tl
	if got := MustNew(cfg).Fingerprint(); got != base {
		t.Fatal("a change of a tool's Func alone changed the fingerprint; the doc says it does not")
	}
}

func TestFingerprintDepthGuard(t *testing.T) {
	a := MustNew(Config{Prompt: "leaf", Description: "d"})
	for i := 0; i < maxFingerprintDepth+5; i++ {
		a = MustNew(Config{Prompt: fmt.Sprintf("level %d", i), Description: "d",
			Tools: map[string]Tool{"next": fpAgentTool(t, a, AsToolOptions{})}})
	}
	if fp := a.Fingerprint(); !strings.HasPrefix(fp, "sha256:") {
		t.Fatalf("fingerprint %q", fp)
	}
}

func BenchmarkFingerprint20Tools(b *testing.B) {
	tools := map[string]Tool{}
	for i := 0; i < 20; i++ {
		tools[fmt.Sprintf("tool%d", i)] = fpGoTool(fmt.Sprintf("tool number %d", i))
	}
	cfg := Config{Prompt: "p {{x}}", Signature: "(x :int) -> :int", Tools: tools}
	for b.Loop() {
		// A fresh agent each time: the uncached cost.
		b.StopTimer()
		a := MustNew(cfg)
		b.StartTimer()
		_ = a.Fingerprint()
	}
}
