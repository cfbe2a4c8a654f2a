package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
	"github.com/ptc-go/ptc/llm"
)

// doubleModel answers "Double N." with a program that doubles, except for
// N = 3, which it gets wrong.
func doubleModel(calls *int) llm.Func {
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		*calls++
		prog := "(return (* 2 ctx/n))"
		if strings.Contains(req.Prompt, "3") {
			prog = "(return 7)"
		}
		return llm.Response{Content: "```clojure\n" + prog + "\n```", Tokens: llm.Tokens{Input: 100, Output: 10}}, nil
	}
}

func testSuiteDir(t *testing.T) string {
	dir := t.TempDir()
	clitest.WriteFile(t, dir, "double.md", "---\nsignature: (n :int) -> :int\nmax-turns: 2\n---\nDouble {{n}}.")
	clitest.WriteFile(t, dir, "double.cases.clj", `[{:name "two" :input {:n 2} :expect 4} {:name "three" :input {:n 3} :expect 6}]`)
	clitest.WriteFile(t, dir, "inline.md", "---\nsignature: (n :int) -> :int\ncases: |\n  [{:name \"five\" :input {:n 5} :check #(= 10 %)}]\n---\nDouble {{n}}.")
	clitest.WriteFile(t, dir, "notes.md", "# Not an agent with cases")
	return dir
}

func TestTestCommand(t *testing.T) {
	dir := testSuiteDir(t)
	var calls int
	env := testEnv(doubleModel(&calls), nil)
	code, out, errOut := ptcIn(t, env, "test", dir, "--model", "m", "-n", "2", "--junit", filepath.Join(dir, "junit.xml"), "--price", "m=1/2")
	if code != base.ExitFail {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
	}
	words := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"double two 2/2", "double three 0/2 ✗", "inline five 2/2", "pass@1 67%", "pass^2 67%", "cost per run $0.0001"} {
		if !strings.Contains(words, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"[1/6] ✓ double · two #1", "✗ double · three", ":expect: want 6, got 7", "4 of 6 runs passed"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the progress lacks %q:\n%s", want, errOut)
		}
	}
	if calls != 6 {
		t.Errorf("%d model calls, want 6", calls)
	}
	junit, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil || !strings.Contains(string(junit), `<testcase name="three" classname="double"`) || !strings.Contains(string(junit), `failures="1"`) {
		t.Errorf("JUnit %v:\n%s", err, junit)
	}

	// --json, two models side by side.
	code, out, _ = ptcIn(t, env, "test", filepath.Join(dir, "inline.md"), "--model", "a", "--model", "b", "--json", "-q")
	var rep struct {
		Variants []struct {
			Name    string  `json:"name"`
			PassAt1 float64 `json:"pass_at_1"`
		} `json:"variants"`
	}
	if err := json.Unmarshal([]byte(out), &rep); code != base.ExitOK || err != nil || len(rep.Variants) != 2 || rep.Variants[1].Name != "b" || rep.Variants[1].PassAt1 != 1 {
		t.Errorf("--json: exit %d, %v:\n%s", code, err, out)
	}

	// Two prompt profiles.
	code, out, _ = ptcIn(t, env, "test", filepath.Join(dir, "inline.md"), "--model", "m", "--prompt-profile", "default,compact", "-q")
	if code != base.ExitOK || !strings.Contains(out, "m/default") || !strings.Contains(out, "m/compact") {
		t.Errorf("profiles: exit %d:\n%s", code, out)
	}

	// Two modes: the model writes programs, so the tool-calling mode,
	// which wants function calls, fails where the program mode passes.
	code, out, _ = ptcIn(t, env, "test", filepath.Join(dir, "inline.md"), "--model", "m", "--mode", "program,tools", "--json", "-q")
	if err := json.Unmarshal([]byte(out), &rep); code != base.ExitFail || err != nil || len(rep.Variants) != 2 ||
		rep.Variants[0].Name != "m/program" || rep.Variants[0].PassAt1 != 1 || rep.Variants[1].Name != "m/tools" || rep.Variants[1].PassAt1 != 0 {
		t.Errorf("modes: exit %d, %v:\n%s", code, err, out)
	}
}

// A recorded evaluation replays offline with the same verdicts, and with
// no --model.
func TestTestRecordReplay(t *testing.T) {
	dir := testSuiteDir(t)
	rec := filepath.Join(t.TempDir(), "rec")
	var calls int
	code, first, _ := ptcIn(t, testEnv(doubleModel(&calls), nil), "test", dir, "--model", "m", "--record", rec, "-q")
	if code != base.ExitFail || calls != 3 {
		t.Fatalf("record: exit %d, %d calls", code, calls)
	}
	if _, err := os.Stat(filepath.Join(rec, "m", "double", "three.1.json")); err != nil {
		t.Fatal(err)
	}
	offline := testEnv(func(context.Context, llm.Request) (llm.Response, error) {
		t.Error("a replay called the model")
		return llm.Response{}, nil
	}, nil)
	code, second, errOut := ptcIn(t, offline, "test", dir, "--replay", rec, "-q")
	strip := func(s string) string { // latency varies
		s, _, _ = strings.Cut(s, "latency")
		return s
	}
	if code != base.ExitFail || strip(first) != strip(second) {
		t.Errorf("replay: exit %d, stderr %s\nrecorded:\n%s\nreplayed:\n%s", code, errOut, first, second)
	}
	// A changed prompt has no recorded reply.
	clitest.WriteFile(t, dir, "inline.md", "---\nsignature: (n :int) -> :int\ncases: |\n  [{:name \"five\" :input {:n 5} :check #(= 10 %)}]\n---\nTwice {{n}}.")
	code, _, errOut = ptcIn(t, offline, "test", dir, "--replay", rec, "-q")
	if code != base.ExitFail || !strings.Contains(errOut, "had no recorded reply") {
		t.Errorf("a changed agent: exit %d, %s", code, errOut)
	}
}

// The bundled suite runs offline with its reference solutions.
func TestTestBundled(t *testing.T) {
	env := testEnv(nil, nil)
	code, out, errOut := ptcIn(t, env, "test", "--list")
	if code != base.ExitOK || !strings.Contains(out, "revenue-by-region [aggregation, tools]") {
		t.Errorf("--list: exit %d:\n%s%s", code, out, errOut)
	}
	code, out, errOut = ptcIn(t, env, "test", "-q")
	if code != base.ExitOK || !strings.Contains(out, "reference") || !strings.Contains(strings.Join(strings.Fields(out), " "), "pass@1 100%") {
		t.Errorf("the bundled suite: exit %d:\n%s%s", code, out, errOut)
	}
}

func TestTestUsageErrors(t *testing.T) {
	dir := testSuiteDir(t)
	env := testEnv(doubleModel(new(int)), nil)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "0"}, "ptc test: -n 0: a case runs at least once (ptc test -h for help)"},
		{[]string{"--record", "a", "--replay", "b"}, "--record and --replay do not go together"},
		{[]string{dir, "--model", "m", "--prompt-profile", "terse"}, `unknown profile "terse"`},
		{[]string{dir, "--model", "m", "--mode", "json"}, `--mode: unknown mode "json"`},
		{[]string{filepath.Join(dir, "notes.md"), "--model", "m"}, "has no cases: give it a cases: key"},
		{[]string{dir, "--model", "reference"}, "--model reference answers the bundled suite only"},
		{[]string{dir}, "no --model, and the agent files name 0 models"},
		{[]string{"--price", "m=1"}, "want REF=IN/OUT"},
		{[]string{filepath.Join(dir, "none")}, "no such file"},
	} {
		code, _, errOut := ptcIn(t, env, append([]string{"test"}, tc.args...)...)
		if code != base.ExitUsage || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestTestCasesFileTooLarge: a cases file over its bound is reported as
// too large, with the bound, whether it sits beside the agent file or its
// cases: key names it; not as "has no cases".
func TestTestCasesFileTooLarge(t *testing.T) {
	dir := t.TempDir()
	clitest.WriteFile(t, dir, "big.md", "---\nsignature: (n :int) -> :int\n---\nDouble {{n}}.")
	clitest.WriteFile(t, dir, "named.md", "---\nsignature: (n :int) -> :int\ncases: big.cases.clj\n---\nDouble {{n}}.")
	big := filepath.Join(dir, "big.cases.clj")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 4<<20+1); err != nil { // sparse: no 4 MiB written
		t.Fatal(err)
	}
	env := testEnv(doubleModel(new(int)), nil)
	for _, name := range []string{"big.md", "named.md"} {
		code, _, errOut := ptcIn(t, env, "test", filepath.Join(dir, name), "--model", "m")
		if code != base.ExitUsage || strings.Contains(errOut, "no cases") || !strings.Contains(errOut, "larger than 4 MiB, the bound of a cases file") {
			t.Errorf("%s: exit %d, stderr %q", name, code, errOut)
		}
	}
	code, _, errOut := ptcIn(t, env, "test", filepath.Join(dir, "big.md"), "--model", "m")
	if want := "big.cases.clj is too large: larger than 4 MiB"; code != base.ExitUsage || !strings.Contains(errOut, want) {
		t.Errorf("beside the agent file: exit %d, stderr %q, want %q", code, errOut, want)
	}
}

// The example's cases pass with a model that writes a sound digest, and
// fail with one that counts wrong.
func TestTestExampleCases(t *testing.T) {
	answer := func(count string) llm.Func {
		return func(ctx context.Context, req llm.Request) (llm.Response, error) {
			prog := `(return {:count ` + count + ` :sources (sort (distinct (map :source ctx/articles)))
  :digest "The Go toolchain gets faster builds, a new release brings better generics, and tooling improves across the board for developers."})`
			return llm.Response{Content: "```clojure\n" + prog + "\n```"}, nil
		}
	}
	code, out, errOut := ptcIn(t, testEnv(answer("(count ctx/articles)"), nil), "test", "../../examples/agents", "--model", "m", "-q")
	if code != base.ExitOK {
		t.Errorf("a sound digest: exit %d:\n%s%s", code, out, errOut)
	}
	code, out, _ = ptcIn(t, testEnv(answer("3"), nil), "test", "../../examples/agents", "--model", "m", "-q")
	if code != base.ExitFail || !strings.Contains(out, "0/1 ✗") {
		t.Errorf("a wrong count: exit %d:\n%s", code, out)
	}
}

// bundledRecording is the recorded evaluation of the bundled suite (its
// reference solutions) that CI replays: go test -run
// TestBundledRecording -update records it again after the suite or the
// prompts change.
const bundledRecording = "testdata/evals"

// legacyRunRecording is a run of bundledRecording kept in the
// ptc-eval-recording format of older ptc versions (a delegating task:
// its agents' calls replay by key), which -update keeps as it is.
const legacyRunRecording = bundledRecording + "/reference/delegate-customer-summary/top-3.1.json"

// The recorded evaluation of the bundled suite replays offline with every
// run passing and every request answered: its ptc-trace recordings and
// the one run kept in the older format, read for compatibility.
func TestBundledRecording(t *testing.T) {
	env := testEnv(nil, nil)
	legacy, err := os.ReadFile(legacyRunRecording)
	if err != nil || !bytes.HasPrefix(legacy, []byte(`{"format":"ptc-eval-recording","version":1,`)) {
		t.Fatalf("%s is not an old recording: %v\n%.200s", legacyRunRecording, err, legacy)
	}
	if *update {
		_ = os.RemoveAll(bundledRecording)
		if code, out, errOut := ptcIn(t, env, "test", "--record", bundledRecording, "-q"); code != base.ExitOK {
			t.Fatalf("recording: exit %d\n%s%s", code, out, errOut)
		}
		if err := os.WriteFile(legacyRunRecording, legacy, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if data, err := os.ReadFile(bundledRecording + "/reference/delegate-customer-summary/top-5.1.json"); err != nil ||
		!bytes.Contains(data, []byte(`"format": "ptc-trace"`)) {
		t.Errorf("the recording of ptc test is not a ptc-trace recording: %v\n%.200s", err, data)
	}
	code, out, errOut := ptcIn(t, env, "test", "--replay", bundledRecording, "-q", "--json")
	if code != base.ExitOK || strings.Contains(errOut, "no recorded reply") {
		t.Fatalf("replay: exit %d\n%s%s", code, out, errOut)
	}
	var rep struct {
		Results []struct{ Passed bool } `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Results) < 40 {
		t.Errorf("%d runs replayed (%v), want the whole suite", len(rep.Results), err)
	}
}

// TestTestKeepsTheFirewall: ptc test's failure reasons — on stderr, in
// --json and in --junit — never show a firewalled value: a _ field of the
// agent file's context or of a case's input, nor copies of its text,
// whichever kind of check failed (issue 41).
func TestTestKeepsTheFirewall(t *testing.T) {
	dir := t.TempDir()
	const fileSecret, inputSecret = "file-5ecret-1a2b3c", "input-5ecret-9f8e7d"
	clitest.WriteFile(t, dir, "leak.md", "---\nsignature: (n :int) -> :any\ncontext: {:_token \""+fileSecret+"\"}\n---\nEcho {{n}}.")
	clitest.WriteFile(t, dir, "leak.cases.clj", `[{:name "expect" :input {:n 1} :expect {:n 2}}
 {:name "subset" :input {:n 1 :_pin "`+inputSecret+`"} :subset {:pin "x"}}
 {:name "check" :input {:n 1} :check #(= 2 (:n %))}
 {:name "fails" :input {:n 1} :fails true}]`)
	leak := func(ctx context.Context, req llm.Request) (llm.Response, error) {
		prog := `(return {:n ctx/n :_token ctx/_token :token-copy (str "t=" ctx/_token) :pin (str ctx/_pin)})`
		return llm.Response{Content: "```clojure\n" + prog + "\n```"}, nil
	}
	junitPath := filepath.Join(dir, "junit.xml")
	code, out, errOut := ptcIn(t, testEnv(leak, nil), "test", filepath.Join(dir, "leak.md"), "--model", "m", "--json", "--junit", junitPath)
	if code != base.ExitFail {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
	}
	junit, err := os.ReadFile(junitPath)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"stdout (--json)": out, "stderr": errOut, "JUnit": string(junit)} {
		for _, s := range []string{"5ecret-1a2b3c", "5ecret-9f8e7d"} {
			if strings.Contains(text, s) {
				t.Errorf("%s shows a firewalled value (%s):\n%s", name, s, text)
			}
		}
	}
	if !strings.Contains(errOut, "Firewalled") || strings.Count(out, `"why"`) != 4 {
		t.Errorf("each case should fail with a reason that shows where values were hidden:\n%s\n%s", errOut, out)
	}
	// Each output names where the value differs, not the whole value.
	const expectWhy, subsetWhy = ":expect: at [:n] want 2, got 1", `:subset: at [:pin] want "x", got <Firewalled>`
	var rep struct {
		Results []struct{ Case, Why string } `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	whys := map[string]string{}
	for _, r := range rep.Results {
		whys[r.Case] = r.Why
	}
	if whys["expect"] != expectWhy || whys["subset"] != subsetWhy {
		t.Errorf("--json reasons %q, want %q and %q", whys, expectWhy, subsetWhy)
	}
	var suites struct {
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure string `xml:"failure"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(junit, &suites); err != nil {
		t.Fatal(err)
	}
	for _, c := range suites.Cases {
		if want := map[string]string{"expect": expectWhy, "subset": subsetWhy}[c.Name]; want != "" && c.Failure != "run 1: "+want {
			t.Errorf("JUnit case %s: %q, want %q", c.Name, c.Failure, "run 1: "+want)
		}
	}
	for _, want := range []string{expectWhy, subsetWhy} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}
