package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/internal/doctest"
	"github.com/ptc-go/ptc/internal/shared"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the figures of the docs' blocks marked <!-- output of: ptc … -->")

// refreshBlock brings the figures of a marked block up to date from the
// output of its command (doctest.Refresh).
func refreshBlock(t *testing.T, b doctest.Block, got []string) {
	t.Helper()
	d, err := doctest.Parse(b.File)
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range d.Blocks {
		if db.Line != b.Line {
			continue
		}
		fresh, err := doctest.Refresh(db.Lines, got)
		if err != nil {
			t.Fatalf("%s:%d: %v", b.File, b.Line, err)
		}
		if err := d.Replace(db, fresh); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("%s:%d: the block is gone", b.File, b.Line)
}

// isPTCCommand reports whether a doc line is a ptc command: "ptc …" or
// "go run ./cmd/ptc …" (the README's form, for a checkout).
func isPTCCommand(line string) bool {
	l := strings.TrimSpace(line)
	return l == "ptc" || strings.HasPrefix(l, "ptc ") || strings.HasPrefix(l, "go run ./cmd/ptc ")
}

// whyNotRun says why a documented command is not run offline: it needs a
// model, MCP servers, a browser or a terminal, or serves until stopped.
// "" means the test runs it.
func whyNotRun(args []string) string {
	sub := ""
	if len(args) > 1 {
		sub = args[1]
	}
	has := func(flag string) bool {
		for _, a := range args {
			if a == flag || strings.HasPrefix(a, flag+"=") {
				return true
			}
		}
		return false
	}
	switch {
	case sub == "dev" || sub == "repl":
		return "interactive: a server or a terminal"
	case sub == "mcp" && len(args) > 2 && args[2] == "serve":
		return "serves MCP until stopped"
	case has("--mcp") || (sub == "mcp" && has("--config")):
		return "needs MCP servers"
	case has("--model") || has("--record"):
		return "needs a model"
	case sub == "trace" && len(args) > 2 && args[2] == "view":
		return "opens a browser"
	}
	return ""
}

// docsWorkDir makes the folder the documented commands run in: the names
// the docs use for illustration (agent.md and its recording run.json,
// agents/ with recorded evals in testdata/evals, prog.ptc over big.json)
// exist there, examples/ is the repository's, and ../shared is the shared
// folder when the checkout has one.
func docsWorkDir(t *testing.T) (work string, hasShared bool) {
	t.Helper()
	root := t.TempDir()
	work = filepath.Join(root, "work")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(work, "agents"), 0o755))
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	must(err)
	must(os.Symlink(filepath.Join(repo, "examples"), filepath.Join(work, "examples")))
	if d, ok := shared.Dir(); ok {
		abs, err := filepath.Abs(d)
		must(err)
		must(os.Symlink(abs, filepath.Join(root, "shared")))
		hasShared = true
	}
	copyFile := func(from, to string) {
		t.Helper()
		b, err := os.ReadFile(from)
		must(err)
		must(os.WriteFile(filepath.Join(work, to), b, 0o644))
	}
	copyFile(ordersAgent, "agent.md")
	copyFile("testdata/agents/orders.json", "orders.json")
	copyFile(ordersTranscript, "run.json")
	for _, f := range []string{"digest.md", "digest.cases.clj", "articles.json"} {
		copyFile(filepath.Join(repo, "examples", "agents", f), filepath.Join("agents", f))
	}
	var rows strings.Builder
	rows.WriteString(`{"rows": [`)
	for i := range 1000 {
		if i > 0 {
			rows.WriteString(",")
		}
		fmt.Fprintf(&rows, `{"id": %d, "amount": %d.5}`, i, i%97)
	}
	rows.WriteString("]}")
	must(os.WriteFile(filepath.Join(work, "big.json"), []byte(rows.String()), 0o644))
	must(os.WriteFile(filepath.Join(work, "prog.ptc"), []byte("(->> ctx/rows (filter #(> (:amount %) 50)) (map :amount) (reduce +))\n"), 0o644))

	// testdata/evals: agents/'s cases recorded once with a model that
	// answers like a good one, as `ptc test agents/ --model REF --record
	// testdata/evals` records them.
	digest := llmtest.Code(`(return {:count (count ctx/articles)
         :sources (vec (sort (distinct (map :source ctx/articles))))
         :digest "Go 1.26 makes the new garbage collector the default and adds an experimental SIMD package. Teams running it in production report shorter pauses. The go fix command now rewrites code to newer idioms."})`)
	model := func(context.Context, llm.Request) (llm.Response, error) {
		return llm.Response{Content: digest.Content}, nil
	}
	t.Chdir(work)
	var out, errOut bytes.Buffer
	if code := dispatch(testEnv(model, nil), []string{"test", "agents/", "--model", "script:digest", "-q", "--record", "testdata/evals"},
		strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("recording the evals of agents/: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	return work, hasShared
}

// TestDocsExamples runs the ptc commands README.md and docs/*.md show that
// need no model, MCP server, browser or terminal, and checks each: a
// command shown with its output ("$ ptc …" and the lines after it) prints
// exactly that (durations aside; ptc bench's figures aside), a block marked
// "<!-- output of: ptc … -->" is part of its command's output (-update-docs
// rewrites its figures), and a command shown without output succeeds. A model is never reached: the environment has
// no keys and its models fail.
func TestDocsExamples(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	files, err := doctest.Files(root)
	if err != nil {
		t.Fatal(err)
	}
	var cmds []doctest.Command
	for _, f := range files {
		d, err := doctest.Parse(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range d.Blocks {
			cmds = append(cmds, doctest.Commands(b, isPTCCommand)...)
			// A block marked "<!-- output of: ptc … -->" shows part of
			// that command's output.
			if isPTCCommand(b.Marker) {
				cmds = append(cmds, doctest.Command{Block: b, Line: b.Line, Text: b.Marker, Output: append([]string{doctest.Gap}, b.Lines...)})
			}
		}
		cmds = append(cmds, doctest.InlineCommands(d, func(s string) bool { return strings.HasPrefix(s, "go run ./cmd/ptc ") })...)
	}
	_, hasShared := docsWorkDir(t)

	offline := testEnv(func(context.Context, llm.Request) (llm.Response, error) {
		return llm.Response{}, errors.New("a documented offline command called a model")
	}, nil)
	ran, notRun := 0, map[string]int{}
	for _, c := range cmds {
		where := fmt.Sprintf("%s:%d", filepath.Base(c.Block.File), c.Line)
		args, err := doctest.Split(strings.Replace(c.Text, "go run ./cmd/ptc", "ptc", 1))
		if errors.Is(err, doctest.ErrUnsupported) {
			notRun["shell syntax"]++
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", where, err)
			continue
		}
		if why := whyNotRun(args); why != "" {
			notRun[why]++
			continue
		}
		if !hasShared && strings.Contains(c.Text, "../shared/") {
			notRun["needs ../shared"]++
			continue
		}
		ran++
		var out, errOut bytes.Buffer
		code := dispatch(offline, args[1:], strings.NewReader(""), &out, &errOut)
		got := out.String() + errOut.String()
		t.Logf("%s: %s → exit %d, %d lines (doc shows %d)", where, strings.ReplaceAll(c.Text, "\n", "⏎"), code, strings.Count(got, "\n"), len(c.Output))
		switch {
		case c.Output != nil:
			mask := doctest.MaskDurations
			if args[1] == "bench" {
				mask = func(s string) string { return doctest.MaskNumbers(doctest.MaskDurations(s)) }
			}
			// A transcript shows all of what the command printed.
			shown := append([]string(nil), c.Output...)
			lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
			if *updateDocs && c.Block.Marker != "" {
				refreshBlock(t, c.Block, lines)
				continue
			}
			if err := doctest.Match(shown, lines, mask); err != nil || len(shown) > 0 && !strings.Contains(strings.Join(shown, "\n"), doctest.Gap) && len(lines) != len(shown) {
				t.Errorf("%s: `%s` printed what the doc does not show (exit %d):\n%v\ndoc shows:\n%s\noutput:\n%s",
					where, c.Text, code, err, strings.Join(shown, "\n"), got)
			}
		case code != 0:
			t.Errorf("%s: `%s` failed with exit %d:\n%s", where, c.Text, code, got)
		}
	}
	t.Logf("%d documented commands run; not run: %v", ran, notRun)
	if ran < 10 {
		t.Errorf("only %d documented commands ran offline: the docs lost their examples, or this test lost them", ran)
	}
}
