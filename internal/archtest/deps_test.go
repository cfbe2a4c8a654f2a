package archtest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ptc-go/ptc"

// core are the packages whose dependencies must stay in the standard
// library: a user who embeds the interpreter or the agents, or serves
// them on the workbench, pulls in no third-party code. (The workbench
// must not reach into cmd/ either: a public package cannot import ptc's
// own.)
var core = []string{
	module + "/lisp/...",
	module + "/signature",
	module + "/template",
	module + "/agent",
	module + "/agent/agentfile",
	module + "/internal/engine",
	module + "/internal/firewall",
	module + "/agent/trace",
	module + "/eval",
	module + "/eval/evaltest",
	module + "/llm",
	module + "/llm/llmtest",
	module + "/llm/adapter/...",
	module + "/llm/internal/...",
	module + "/internal/evalrec",
	module + "/internal/gostruct",
	module + "/internal/hostio",
	module + "/internal/textutil",
	module + "/internal/traceview",
	module + "/internal/typedtool",
	module + "/internal/typeinfer",
	module + "/internal/transcript",
	module + "/workbench",
}

// edges are the module's packages the core must never import.
var edges = []string{module + "/llm/openai", module + "/llm/anthropic", module + "/llm/gemini",
	module + "/llm/provider", module + "/cmd/", module + "/examples/"}

func TestCoreImportsOnlyTheStandardLibrary(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not available: cannot list dependencies")
	}
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}"}, core...)
	cmd := exec.Command(goTool, args...)
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, std, _ := strings.Cut(line, " ")
		n++
		if std == "true" {
			continue
		}
		if !strings.HasPrefix(path, module+"/") {
			t.Errorf("a core package depends on %s, outside the standard library", path)
			continue
		}
		for _, e := range edges {
			if strings.HasPrefix(path, e) {
				t.Errorf("a core package depends on %s, an integration at the edge", path)
			}
		}
	}
	if n < 20 {
		t.Fatalf("go list listed only %d packages:\n%s", n, out)
	}
}

// The firewall is the agents' security component: it stands below agent,
// on lisp alone (and the standard-library-only helpers lisp uses:
// internal/textutil, internal/gostruct), so
// that it can be read and tested on its own.
func TestFirewallImportsOnlyLisp(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not available: cannot list dependencies")
	}
	cmd := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", module+"/internal/firewall")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, std, _ := strings.Cut(line, " ")
		if std != "true" && path != module+"/internal/firewall" && path != module+"/internal/textutil" && path != module+"/internal/gostruct" && !strings.HasPrefix(path, module+"/lisp") {
			t.Errorf("the firewall depends on %s", path)
		}
	}
}

// Each provider adapter's build tag leaves the adapter and its SDK out of
// ptc (docs/cli.md, "Binary size"); without the tags they are in.
func TestAdapterBuildTags(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not available: cannot list dependencies")
	}
	deps := func(tags string) string {
		cmd := exec.Command(goTool, "list", "-deps", "-tags", tags, module+"/cmd/ptc")
		cmd.Dir = "../.."
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list -tags %q: %v\n%s", tags, err, out)
		}
		return "\n" + string(out)
	}
	adapters := []struct{ tag, adapter, sdk string }{
		{"ptc_noopenai", module + "/llm/openai\n", "\ngithub.com/openai/openai-go/v3\n"},
		{"ptc_noanthropic", module + "/llm/anthropic\n", "\ngithub.com/anthropics/anthropic-sdk-go\n"},
		{"ptc_nogemini", module + "/llm/gemini\n", "\ngoogle.golang.org/genai\n"},
		{"ptc_nootel", "go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp\n", "\ngo.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp\n"},
	}
	all := deps("")
	for _, a := range adapters {
		if !strings.Contains(all, "\n"+a.adapter) || !strings.Contains(all, a.sdk) {
			t.Errorf("the default build lacks %s or its SDK", strings.TrimSpace(a.adapter))
		}
		without := deps(a.tag)
		if strings.Contains(without, "\n"+a.adapter) || strings.Contains(without, a.sdk) {
			t.Errorf("-tags %s still builds %s or its SDK in", a.tag, strings.TrimSpace(a.adapter))
		}
	}
}

// The packages of the command line stand in layers (docs/architecture.md,
// "The command line"): base under everything, load and otelcli on it, the
// commands' packages on those; a command imports another command's
// package only for what that one owns (ptc run writes traces through
// tracecmd; ptc dev reads test cases and traces through testcmd and
// tracecmd).
func TestCLILayers(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not available: cannot list dependencies")
	}
	const cli = module + "/cmd/ptc/internal/"
	cmd := exec.Command(goTool, "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./cmd/ptc/internal/...")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	shared := []string{"base", "load", "otelcli"}
	allowed := map[string][]string{
		"base":    nil,
		"clitest": nil,
		"load":    {"base"},
		"otelcli": {"base", "load"},
		"runcmd":  {"base", "load", "otelcli", "tracecmd"},
		"devcmd":  {"base", "load", "otelcli", "testcmd", "tracecmd"}, // the cases ptc test reads, the traces it writes
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], cli)
		ok, listed := allowed[pkg]
		if !listed {
			if !strings.HasSuffix(pkg, "cmd") {
				t.Errorf("%s is neither a command's package (NAMEcmd) nor listed here", fields[0])
				continue
			}
			ok = shared
		}
		n++
		for _, imp := range fields[1:] {
			dep, isCLI := strings.CutPrefix(imp, cli)
			if !isCLI {
				continue
			}
			if !slices.Contains(ok, dep) {
				t.Errorf("%s imports %s", pkg, dep)
			}
		}
	}
	if n < 10 {
		t.Fatalf("go list listed only %d packages of the command line:\n%s", n, out)
	}
}

// TestPtcLeavesPrometheusOut: the default ptc links no Prometheus client
// (docs/cli.md, "Binary size"); -tags ptc_prometheus brings it back.
func TestPtcLeavesPrometheusOut(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not available: cannot list dependencies")
	}
	for _, tc := range []struct {
		tags string
		want bool
	}{{"", false}, {"ptc_prometheus", true}} {
		cmd := exec.Command(goTool, "list", "-deps", "-tags", tc.tags, "./cmd/ptc")
		cmd.Dir = "../.."
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		got := strings.Contains(string(out), "github.com/prometheus/client_golang/")
		if got != tc.want {
			t.Errorf("tags %q: Prometheus client linked = %v, want %v", tc.tags, got, tc.want)
		}
	}
}
