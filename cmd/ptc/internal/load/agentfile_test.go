package load

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
	"github.com/ptc-go/ptc/lisp"
)

// The agent file's format is the agentfile package's, tested there; here
// what ptc adds: files read from the operating system, relative to the
// agent file, and the defaults for real models.

// parseAgent parses an agent file's text named "agent.md" in dir.
func parseAgent(t *testing.T, dir, text string) (*AgentFile, error) {
	t.Helper()
	return ParseAgentFile("agent.md", dir, []byte(text))
}

func TestAgentFileContextFromDir(t *testing.T) {
	dir := t.TempDir()
	clitest.WriteFile(t, dir, "data.edn", `{:user "bo" :tags #{:a}}`)
	tests := []struct{ name, text, want string }{
		{"EDN context file", "---\ncontext: data.edn\n---\nP", `{:tags #{:a}, :user "bo"}`},
		{"absolute path", "---\ncontext: " + filepath.Join(dir, "data.edn") + "\n---\nP", `{:tags #{:a}, :user "bo"}`},
		{"inline", "---\ncontext: {:a 1}\n---\nP", "{:a 1}"},
		{"none", "P", "{}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			af, err := parseAgent(t, dir, tt.text)
			if err != nil {
				t.Fatal(err)
			}
			ctx, err := af.LoadContext()
			if err != nil {
				t.Fatal(err)
			}
			if got := lisp.Print(ctx, lisp.PrintOptions{}); got != tt.want {
				t.Errorf("context %s, want %s", got, tt.want)
			}
		})
	}
}

// TestAgentFileContextErrors: a context file that does not read is
// reported at the context: key, with its path, or with its own position.
func TestAgentFileContextErrors(t *testing.T) {
	dir := t.TempDir()
	clitest.WriteFile(t, dir, "cut.json", "{\"items\": [1,\n  2")
	tests := []struct{ name, text, want string }{
		{"missing context file", "---\ncontext: nope.json\n---\nP",
			"agent.md:2:10: context: no file " + filepath.Join(dir, "nope.json")},
		{"a directory", "---\ncontext: .\n---\nP",
			"agent.md:2:10: context: " + dir + ": not a regular file"},
		{"cut JSON", "---\ncontext: cut.json\n---\nP",
			"context " + filepath.Join(dir, "cut.json") + ":2:4 (byte 17): parse_error: unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			af, err := parseAgent(t, dir, tt.text)
			if err != nil {
				t.Fatal(err)
			}
			_, err = af.LoadContext()
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error\n  %v\nwant it to start with\n  %s", err, tt.want)
			}
		})
	}
}

// TestAgentFileMissionTimeout checks mission-timeout: ptc run's default
// for real models where the file does not choose (or writes 0), and none
// (none or -1) reaching the agent as no limit.
func TestAgentFileMissionTimeout(t *testing.T) {
	tests := []struct {
		line string // the front matter's line, "" for none
		want time.Duration
	}{
		{"", DefaultMissionTimeout},
		{"mission-timeout: 0", DefaultMissionTimeout},
		{"mission-timeout: 3m", 3 * time.Minute},
		{"mission-timeout: none", -1},
		{"mission-timeout: -1", -1},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			af, err := parseAgent(t, t.TempDir(), "---\ndescription: d\n"+tt.line+"\n---\nP")
			if err != nil {
				t.Fatal(err)
			}
			a, err := af.NewAgent(af.CLIConfig())
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Config().MissionTimeout; got != tt.want {
				t.Errorf("MissionTimeout = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestAgentFileLLMDefaults: ptc run's LLM timeout and retries for real
// models, where the file does not choose; the file's choice otherwise,
// 0 included.
func TestAgentFileLLMDefaults(t *testing.T) {
	tests := []struct {
		lines       string
		timeout     time.Duration
		maxAttempts int
	}{
		{"", DefaultLLMTimeout, DefaultLLMAttempts},
		{"llm-timeout: 0\nllm-retries: 0\n", 0, 1},
		{"llm-timeout: 45s\nllm-retries: 4\n", 45 * time.Second, 5},
	}
	for _, tt := range tests {
		af, err := parseAgent(t, t.TempDir(), "---\n"+tt.lines+"---\nP")
		if err != nil {
			t.Fatal(err)
		}
		cfg := af.CLIConfig()
		if cfg.LLMTimeout != tt.timeout || cfg.LLMRetry.MaxAttempts != tt.maxAttempts {
			t.Errorf("%q: LLMTimeout %v, MaxAttempts %d; want %v, %d", tt.lines, cfg.LLMTimeout, cfg.LLMRetry.MaxAttempts, tt.timeout, tt.maxAttempts)
		}
	}
}
