package modelscmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/llm/provider"
)

// Row is one provider as "ptc models" reports it: the variables it
// reads and which of them the environment sets (never their values).
type Row struct {
	Provider string   `json:"provider"`
	Example  string   `json:"example"`
	Adapter  string   `json:"adapter"`
	KeyEnv   []string `json:"key_env"` // [] when none is needed
	KeySet   string   `json:"key_set"` // the variable the key comes from ("": none set)
	URLEnv   string   `json:"url_env"`
	URL      string   `json:"url"` // the server's address, if known before the SDK
	Local    bool     `json:"local"`
	Ready    bool     `json:"ready"` // a reference to it would open (a key, or none needed)
}

// exampleModels are the references the table shows.
func exampleModels() map[string]string {
	return map[string]string{
		"anthropic":         "anthropic:claude-sonnet-4-5",
		"gemini":            "gemini:gemini-2.5-flash",
		"groq":              "groq:llama-3.3-70b-versatile",
		"llamacpp":          "llamacpp:MODEL",
		"lmstudio":          "lmstudio:MODEL",
		"ollama":            "ollama:qwen2.5-coder:7b",
		"openai":            "openai:gpt-4.1-mini",
		"openai-compatible": "openai-compatible:URL#MODEL",
		"openrouter":        "openrouter:anthropic/claude-sonnet-4.5",
		"together":          "together:Qwen/Qwen2.5-Coder-32B-Instruct",
	}
}

func modelsRows(env *base.Env) []Row {
	examples := exampleModels()
	var rows []Row
	for _, p := range provider.Providers() {
		r := Row{Provider: p.Name, Example: examples[p.Name], Adapter: "llm/" + p.Adapter,
			KeyEnv: p.KeyEnv, URLEnv: p.URLEnv, URL: p.DefaultURL, Local: p.Local}
		if r.KeyEnv == nil {
			r.KeyEnv = []string{} // --json lists every field, as docs/cli.md says
		}
		if r.Example == "" {
			r.Example = p.Name + ":MODEL"
		}
		for _, k := range p.KeyEnv {
			if env.Getenv(k) != "" {
				r.KeySet = k
				break
			}
		}
		if p.URLEnv != "" {
			if u := env.Getenv(p.URLEnv); u != "" {
				r.URL = u
			}
		}
		// An OpenAI-compatible server's key is optional.
		r.Ready = p.Local || r.KeySet != "" || p.Name == "openai-compatible"
		rows = append(rows, r)
	}
	return rows
}

// Run runs ptc models with args in env and returns its exit status.
func Run(env *base.Env, args []string, stdout, stderr io.Writer) int {
	fs := base.NewFlagSet("models", stderr, "[--json]")
	asJSON := fs.Bool("json", false, "print the table as JSON")
	if status, ok := base.ParseNoArgs(fs, args, stdout); !ok {
		return status
	}
	rows := modelsRows(env)
	if *asJSON {
		b, _ := json.Marshal(rows)
		fmt.Fprintln(stdout, string(b))
		return base.ExitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PROVIDER\tREFERENCE\tKEY\tSERVER")
	for _, r := range rows {
		key := "none needed"
		switch {
		case r.KeySet != "":
			key = "✓ " + r.KeySet
		case r.Provider == "openai-compatible":
			key = "optional: " + strings.Join(r.KeyEnv, " or ")
		case len(r.KeyEnv) > 0:
			key = "✗ set " + strings.Join(r.KeyEnv, " or ")
		}
		server := r.URL
		if server == "" {
			server = "the SDK's default"
		}
		if r.Provider == "openai-compatible" {
			server = "the URL in the reference"
		}
		if r.URLEnv != "" {
			server += " ($" + r.URLEnv + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Provider, r.Example, key, server)
	}
	tw.Flush()
	model := env.Getenv("PTC_MODEL")
	if model == "" {
		model = "not set"
	}
	fmt.Fprintf(stdout, "\nPTC_MODEL (the default --model of ptc run): %s\n", model)
	fmt.Fprintln(stdout, "Local servers get no key; keys are read from the environment only (docs/models.md).")
	return base.ExitOK
}
