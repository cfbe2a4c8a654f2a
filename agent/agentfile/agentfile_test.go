package agentfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ptc-go/ptc/lisp"
)

// parseAgent parses an agent file's text named "agent.md" in dir (of an
// fs.FS holding files, name to text), with Load.
func parseAgent(t *testing.T, files map[string]string, text string) (*File, error) {
	t.Helper()
	fsys := fstest.MapFS{"agent.md": {Data: []byte(text)}}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return Load(fsys, "agent.md")
}

func TestAgentFileGood(t *testing.T) {
	const text = `---
# every key
description: Finds things.
signature: (user :string, items [:int]) -> {n :int}
model: openai:gpt-4.1-mini
max-turns: 7
turn-budget: 1_000
mission-timeout: 3m
llm-timeout: 45s
llm-retries: 4
llm-retry-delay: 250ms
memory-limit: 2MiB
float-precision: 3
language: compact
limits:
  timeout: 2s
  max-steps: 1000000
  max-memory: 16MiB
  # a comment inside
  max-depth: 300
  max-loop: -1
  max-output: 1KiB
  max-tool-calls: 5
  max-parallel: 2
system-prefix: |
  You are careful.

    Indented more.
system-suffix: "Answer in \"French\"."
context: {"user": "ada", "items": [1, 2, 3]}
context-signature: '{user :string, items [:int]}'
---

Find the items of {{user}}:
  - only the even ones.

`
	af, err := parseAgent(t, nil, text)
	if err != nil {
		t.Fatal(err)
	}
	c := af.Config
	checks := []struct {
		name      string
		got, want any
	}{
		{"description", c.Description, "Finds things."},
		{"signature", c.Signature, "(user :string, items [:int]) -> {n :int}"},
		{"model", af.Model, "openai:gpt-4.1-mini"},
		{"max-turns", c.MaxTurns, 7},
		{"turn-budget", c.MaxTreeTurns, 1000},
		{"mission-timeout", c.MissionTimeout, 3 * time.Minute},
		{"llm-timeout", c.LLMTimeout, 45 * time.Second},
		{"llm-retries", c.LLMRetry.MaxAttempts, 5},
		{"llm-retry-delay", c.LLMRetry.BaseDelay, 250 * time.Millisecond},
		{"memory-limit", c.MaxAgentMemory, 2 << 20},
		{"float-precision", c.Presentation.FloatPrecision, 3},
		{"language", c.Presentation.Language, "compact"},
		{"timeout", c.Limits.Timeout, 2 * time.Second},
		{"max-steps", c.Limits.MaxSteps, int64(1000000)},
		{"max-memory", c.Limits.MaxMemory, int64(16 << 20)},
		{"max-depth", c.Limits.MaxDepth, 300},
		{"max-loop", c.Limits.MaxLoopIterations, -1},
		{"max-output", c.Limits.MaxOutputBytes, 1024},
		{"max-tool-calls", c.Limits.MaxToolCalls, 5},
		{"max-parallel", c.Limits.MaxParallel, 2},
		{"system-prefix", c.Presentation.Prefix, "You are careful.\n\n  Indented more."},
		{"system-suffix", c.Presentation.Suffix, `Answer in "French".`},
		{"context-signature", af.InputSignature, "{user :string, items [:int]}"},
		{"prompt", c.Prompt, "Find the items of {{user}}:\n  - only the even ones."},
		{"Has llm-timeout", af.Has("llm-timeout"), true},
		{"Has llm-retries", af.Has("llm-retries"), true},
		{"Has prompt", af.Has("prompt"), true},
		{"Has model", af.Has("model"), true},
		{"Has mcp", af.Has("mcp"), false},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %#v, want %#v", ch.name, ch.got, ch.want)
		}
	}
	if _, err := af.NewAgent(c); err != nil {
		t.Fatalf("newAgent: %v", err)
	}
	ctx, err := af.Context()
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(ctx, lisp.PrintOptions{}); got != `{"items" [1 2 3], "user" "ada"}` {
		t.Errorf("context %s", got)
	}
}

func TestAgentFileForms(t *testing.T) {
	dir := map[string]string{"data.edn": `{:user "bo" :tags #{:a}}`}
	tests := []struct {
		name, text string
		prompt     string
		context    string // printed; "" for none
	}{
		{"no front matter", "Just a prompt.\n", "Just a prompt.", ""},
		{"prompt key", "---\nprompt: Count {{n}}.\nsignature: (n :int) -> :int\n---\n", "Count {{n}}.", ""},
		{"prompt block", "---\nprompt: |\n  line one\n  line two\n---\n", "line one\nline two", ""},
		{"CRLF and a byte order mark", "\ufeff---\r\nmax-turns: 2\r\n---\r\nHi.\r\n", "Hi.", ""},
		{"EDN context file", "---\ncontext: data.edn\n---\nP", "P", `{:tags #{:a}, :user "bo"}`},
		{"inline EDN context", "---\ncontext: {:a 1 :b [2]}\n---\nP", "P", "{:a 1, :b [2]}"},
		{"inline context block", "---\ncontext: |\n  {\"a\": 1,\n   \"b\": [2]}\n---\nP", "P", `{"a" 1, "b" [2]}`},
		{"single quotes", "---\ndescription: 'it''s'\n---\nP", "P", ""},
		{"empty value", "---\ndescription:\nmax-turns: 2\n---\nP", "P", ""},
		{"a # inside a value is kept", "---\ndescription: issue #4\n---\nP", "P", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			af, err := parseAgent(t, dir, tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if af.Config.Prompt != tt.prompt {
				t.Errorf("prompt %q, want %q", af.Config.Prompt, tt.prompt)
			}
			ctx, err := af.Context()
			if err != nil {
				t.Fatal(err)
			}
			want := tt.context
			if want == "" {
				want = "{}"
			}
			if got := lisp.Print(ctx, lisp.PrintOptions{}); got != want {
				t.Errorf("context %s, want %s", got, want)
			}
		})
	}
	af, _ := parseAgent(t, dir, "---\ndescription: 'it''s'\n---\nP")
	if af.Config.Description != "it's" {
		t.Errorf("single-quoted description %q", af.Config.Description)
	}
	af, _ = parseAgent(t, dir, "---\ndescription: issue #4\n---\nP")
	if af.Config.Description != "issue #4" {
		t.Errorf("description %q", af.Config.Description)
	}
}

// TestAgentFileErrors: every error names the file, the line and column,
// and the key or what is wrong.
func TestAgentFileErrors(t *testing.T) {
	tests := []struct {
		name, text string
		want       string // the whole message's start: "agent.md:L:C: ..."
	}{
		{"unknown key", "---\nmax-turns: 2\nmax-turn: 3\n---\nP", `agent.md:3:1: unknown key "max-turn" (did you mean max-turns?)`},
		{"unknown key with underscores", "---\nmax_turns: 3\n---\nP", `agent.md:2:1: unknown key "max_turns" (did you mean max-turns?)`},
		{"unknown key far from any", "---\nwhatever: 3\n---\nP", `agent.md:2:1: unknown key "whatever" (the keys are description, prompt,`},
		{"unknown limit", "---\nlimits:\n  timeout: 1s\n  max-step: 5\n---\nP", `agent.md:4:3: unknown limit "max-step" (did you mean max-steps?)`},
		{"not a number", "---\nmax-turns: five\n---\nP", `agent.md:2:12: max-turns: want a whole number, 1 or more, got "five"`},
		{"zero turns", "---\nmax-turns: 0\n---\nP", `agent.md:2:12: max-turns: want a whole number, 1 or more, got "0"`},
		{"duration without a unit", "---\nmission-timeout: 30\n---\nP", `agent.md:2:18: mission-timeout: 30 has no unit`},
		{"bad duration", "---\nllm-timeout: soon\n---\nP", `agent.md:2:14: llm-timeout: not a duration`},
		{"bad size", "---\nmemory-limit: lots\n---\nP", `agent.md:2:15: memory-limit: not a size`},
		{"bad limit", "---\nlimits:\n  max-memory: big\n---\nP", `agent.md:3:15: limits: max-memory: not a size`},
		{"float precision 0", "---\nfloat-precision: 0\n---\nP", `agent.md:2:18: float-precision: 0 is not available`},
		{"bad language", "---\nlanguage: terse\n---\nP", `agent.md:2:11: language: want default or compact`},
		{"bad mode", "---\nmode: json\n---\nP", `agent.md:2:7: mode: want program, tools or text, got "json"`},
		{"twice", "---\nmax-turns: 2\nmax-turns: 3\n---\nP", `agent.md:3:1: max-turns is set twice (first at 2:1)`},
		{"no colon", "---\nmax-turns 2\n---\nP", `agent.md:2:1: expected key: value, but the line has no colon`},
		{"not a key", "---\nexport TOKEN=abc: 2\n---\nP", `agent.md:2:1: expected key: value, but what comes before the colon is not a key`},
		{"nested too deep", "---\nlimits:\n  timeout:\n    deeper: 1\n---\nP", `agent.md:4:5: limits: timeout takes a value, not nested keys`},
		{"indented key", "---\n  max-turns: 2\n---\nP", `agent.md:2:1: unexpected indentation`},
		{"tab indentation", "---\nlimits:\n\ttimeout: 1s\n---\nP", `agent.md:3:1: indent with spaces, not tabs`},
		{"nested keys under a scalar key", "---\ndescription:\n  a: b\n---\nP", `agent.md:3:3: description takes a value, not nested keys`},
		{"value and indented lines", "---\ndescription: x\n  more\n---\nP", `agent.md:3:1: unexpected indentation: description already has a value`},
		{"value and indented lines after a blank line", "---\ndescription: x\n\n  more\n---\nP", `agent.md:4:1: unexpected indentation: description already has a value`},
		{"limits with a value", "---\nlimits: 5\n---\nP", `agent.md:2:9: limits: write each limit on its own indented line`},
		{"empty block", "---\nsystem-prefix: |\nmax-turns: 2\n---\nP", `agent.md:2:16: system-prefix: | starts a block, but no indented lines follow`},
		{"bad quoted string", "---\ndescription: \"open\n---\nP", `agent.md:2:14: description: a quoted value is a JSON string`},
		{"bad single quotes", "---\ndescription: 'it's'\n---\nP", `agent.md:2:14: description: a value in single quotes ends with '`},
		{"unclosed front matter", "---\nmax-turns: 2\nP", `agent.md:1:1: the front matter opened here has no closing --- line`},
		{"no prompt", "---\nmax-turns: 2\n---\n\n  \n", `agent.md: no prompt`},
		{"two prompts", "---\nprompt: A\n---\nB", `agent.md:2:1: the prompt is both the prompt key and the text after the front matter`},
		{"empty context", "---\ncontext:\n---\nP", `agent.md:2:9: context: wants a file name or inline data`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseAgent(t, nil, tt.text)
			if err == nil {
				t.Fatal("no error")
			}
			var fe *Error
			if !errors.As(err, &fe) {
				t.Errorf("error %T, want *Error", err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error\n  %s\nwant it to start with\n  %s", err, tt.want)
			}
		})
	}
}

// TestAgentFileDefinitionErrors: what agent.New or the context rejects is
// placed in the file too.
func TestAgentFileDefinitionErrors(t *testing.T) {
	var dir map[string]string
	tests := []struct {
		name, text, want string
	}{
		{"bad signature", "---\nsignature: (x :integer) -> :int\n---\nP {{x}}",
			"agent.md:2:15: signature: unknown type `:integer` (did you mean :int?)"},
		{"placeholder not in the signature", "---\nsignature: (x :int) -> :int\n---\nFirst line.\nUse {{y}} here.",
			"agent.md:5:5: prompt (the text after the front matter): placeholder {{y}} not found in signature"},
		{"bad template", "---\n---\nUse {{#items}} without end.",
			"agent.md:3:5: prompt (the text after the front matter): unclosed section"},
		{"bad context signature", "---\ncontext-signature: {a :nope}\n---\nP",
			"agent.md:2:23: context-signature: unknown type `:nope` (types are"},
		{"bad inline JSON", "---\ncontext: {\"a\": [1, 2}\n---\nP",
			"agent.md:2:21: context: parse_error: invalid character '}' after array element"},
		{"bad inline JSON in a block", "---\ncontext: |\n  {\"a\": 1,\n   \"b\": }\n---\nP",
			"agent.md:4:9: context: parse_error: invalid character '}' looking for beginning of value"},
		{"bad inline EDN", "---\ncontext: {:a [1 2}\n---\nP",
			"agent.md:2:18: context: parse_error: mismatched '}'"},
		{"inline context not a map", "---\ncontext: {:a 1} {:b 2}\n---\nP",
			"agent.md:2:10: context: "},
		{"missing context file", "---\ncontext: nope.json\n---\nP",
			"agent.md:2:10: context: no file nope.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			af, err := parseAgent(t, dir, tt.text)
			if err == nil {
				_, err = af.NewAgent(af.Config)
			}
			if err == nil {
				_, err = af.Context()
			}
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error\n  %s\nwant it to start with\n  %s", err, tt.want)
			}
		})
	}
}

// TestAgentFileContextFileError: a context file named by the agent file
// that does not read is reported with its own position.
func TestAgentFileContextFileError(t *testing.T) {
	af, err := parseAgent(t, map[string]string{"cut.json": "{\"items\": [1,\n  2"}, "---\ncontext: cut.json\n---\nP")
	if err != nil {
		t.Fatal(err)
	}
	_, err = af.Context()
	want := "agent.md:2:10: context: cut.json:2:4 (byte 17): parse_error: unexpected end of JSON input"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}

func TestSuggestKey(t *testing.T) {
	for key, want := range map[string]string{
		"signatur":  " (did you mean signature?)",
		"Max-Turns": " (did you mean max-turns?)",
		"contxt":    " (did you mean context?)",
	} {
		if got := suggestKey(agentKeys, key); got != want {
			t.Errorf("suggestKey(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestAgentFileMissionTimeout checks mission-timeout: 0 (or no key)
// leaves the agent's default, none and -1 reach the agent as no limit.
func TestAgentFileMissionTimeout(t *testing.T) {
	tests := []struct {
		line string // the front matter's line, "" for none
		want time.Duration
	}{
		{"", 0},
		{"mission-timeout: 0", 0},
		{"mission-timeout: 3m", 3 * time.Minute},
		{"mission-timeout: none", -1},
		{"mission-timeout: -1", -1},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			af, err := parseAgent(t, nil, "---\ndescription: d\n"+tt.line+"\n---\nP")
			if err != nil {
				t.Fatal(err)
			}
			if got := af.Config.MissionTimeout; got != tt.want {
				t.Errorf("MissionTimeout = %v, want %v", got, tt.want)
			}
			if _, err := af.NewAgent(af.Config); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestExampleAgentFile: the example agent file and its context load from
// the operating system's files.
func TestExampleAgentFile(t *testing.T) {
	f, err := Load(os.DirFS(filepath.Join("..", "..", "examples", "agents")), "digest.md")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.NewAgent(f.Config); err != nil {
		t.Fatal(err)
	}
	ctx, err := f.Context()
	if err != nil || ctx.Len() != 2 {
		t.Fatalf("context: %v", err)
	}
}

// FormatSize writes what ParseSize reads back.
func TestFormatSize(t *testing.T) {
	for _, n := range []int64{0, 1, 1500, 1 << 10, 3 << 20, 1 << 30, 5<<30 + 1} {
		s := FormatSize(n)
		back, err := ParseSize(strings.ReplaceAll(strings.TrimSuffix(s, " bytes"), " ", ""))
		if err != nil || back != n {
			t.Errorf("%d wrote %q, read back %d (%v)", n, s, back, err)
		}
	}
	if got := FormatSize(1 << 20); got != "1 MiB" {
		t.Errorf("1 MiB wrote %q", got)
	}
}

// mode: sets Config.Mode.
func TestAgentFileMode(t *testing.T) {
	f, err := Parse("agent.md", []byte("---\nmode: text\nsignature: \"{n :int}\"\n---\nCount."))
	if err != nil {
		t.Fatal(err)
	}
	if f.Config.Mode != "text" {
		t.Errorf("Mode %q", f.Config.Mode)
	}
}
