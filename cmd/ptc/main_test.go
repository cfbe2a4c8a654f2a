package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
	"github.com/ptc-go/ptc/internal/shared"
)

// ptc runs the command with args and stdin and returns its exit status and
// output.
func ptc(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestTopLevel(t *testing.T) {
	commands := []string{"ptc eval", "ptc repl", "ptc conform", "ptc bench"}
	tests := []struct {
		name       string
		args       []string
		code       int
		usageOnOut bool
		errWords   []string
	}{
		{"no arguments", nil, 2, false, []string{"ptc: missing COMMAND (ptc -h for help)\n"}},
		{"unknown command", []string{"frob"}, 2, false, []string{"ptc: unknown command \"frob\" (ptc -h for help)\n"}},
		{"help", []string{"help"}, 0, true, nil},
		{"-h", []string{"-h"}, 0, true, nil},
		{"--help", []string{"--help"}, 0, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := ptc(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			usage := errOut
			if tt.usageOnOut {
				usage = out
				if errOut != "" {
					t.Errorf("stderr %q, want empty", errOut)
				}
			} else if out != "" {
				t.Errorf("stdout %q, want empty", out)
			}
			for _, c := range commands {
				if tt.code == 0 && !strings.Contains(usage, c) {
					t.Errorf("usage lacks %q:\n%s", c, usage)
				}
			}
			for _, w := range tt.errWords {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
}

func TestEval(t *testing.T) {
	dir := t.TempDir()
	prog := clitest.WriteFile(t, dir, "prog.ptc", "(println \"n:\" (count ctx/items))\n(->> ctx/items (map inc) (filter even?))\n")
	jsonCtx := clitest.WriteFile(t, dir, "ctx.json", `{"items": [1, 2, 3, 5], "name": "json"}`)
	ednCtx := clitest.WriteFile(t, dir, "ctx.edn", `{:items [10 11] "name" "edn"}`)
	upperEDN := clitest.WriteFile(t, dir, "CTX.EDN", `{:items [7]}`)
	arrayCtx := clitest.WriteFile(t, dir, "array.json", `[1, 2]`)
	badCtx := clitest.WriteFile(t, dir, "bad.json", `{"items": `)
	badEDN := clitest.WriteFile(t, dir, "bad.edn", `{:a`)
	plain := clitest.WriteFile(t, dir, "plain.ptc", "(+ 1 2)")

	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		errWords []string // each must appear in stderr; nil means stderr must be empty
	}{
		{"-e", []string{"-e", "(+ 1 2)"}, 0, "3\n", nil},
		{"FILE", []string{plain}, 0, "3\n", nil},
		{"println before the value", []string{"-e", `(println "a") (println "b" 1) [1 "s" :k]`}, 0, "a\nb 1\n[1 \"s\" :k]\n", nil},
		{"--json", []string{"--json", "-e", `{:a [1 2.5 "x" nil] :b true}`}, 0, `{"a":[1,2.5,"x",null],"b":true}` + "\n", nil},
		{"-json", []string{"-json", "-e", `[1 :k]`}, 0, `[1,"k"]` + "\n", nil},
		{"return", []string{"-e", `(return 5) 6`}, 0, "5\n", nil},
		{"empty program", []string{"-e", ";; nothing"}, 0, "nil\n", nil},
		{"JSON context", []string{"-c", jsonCtx, prog}, 0, "n: 4\n[2 4 6]\n", nil},
		{"EDN context", []string{"-c", ednCtx, "-e", `[ctx/items ctx/name]`}, 0, "[[10 11] \"edn\"]\n", nil},
		{"EDN context, upper-case extension", []string{"-c", upperEDN, "-e", `ctx/items`}, 0, "[7]\n", nil},
		// With --json, stdout holds only the value: println output goes to stderr.
		{"flags after the file", []string{prog, "--json", "-c", jsonCtx}, 0, "[2,4,6]\n", []string{"n: 4"}},
		{"flags around the file", []string{"-c", ednCtx, prog, "--json"}, 0, "[12]\n", []string{"n: 2"}},
		{"-- ends the flags", []string{"-c", jsonCtx, "--", prog}, 0, "n: 4\n[2 4 6]\n", nil},
		{"no context", []string{"-e", `ctx/items`}, 0, "nil\n", nil},

		{"runtime error", []string{"-e", `(+ 1 "a")`}, 1, "", []string{"1:1", "type_error", `(+ 1 "a")`}},
		{"output before an error is printed", []string{"-e", `(println "before") (+ 1 "a")`}, 1, "before\n", []string{"type_error"}},
		{"unknown name", []string{"-e", `(let [x 1] (foo x))`}, 1, "", []string{"1:13", "unbound_var", "foo"}},
		{"analysis error", []string{"-e", `(let [x] x)`}, 1, "", []string{"1:6", "invalid_form"}},
		{"parse error", []string{"-e", `(let [x 1`}, 1, "", []string{"parse_error", "unclosed"}},
		{"fail", []string{"-e", `(println "p") (fail {:reason :bad})`}, 1, "p\n", []string{"fail: {:reason :bad}"}},
		{"fail --json", []string{"--json", "-e", `(fail {:a 1})`}, 1, "", []string{`fail: {"a":1}`}},

		// Limits: sizes with units, -1 for none.
		{"--max-memory with a unit", []string{"--max-memory", "64MB", "-e", `(count (vec (range 100)))`}, 0, "100\n", nil},
		{"--max-memory in MiB", []string{"--max-memory", "1MiB", "-e", `(count (vec (range 100000)))`}, 1, "", []string{"memory_exceeded", "1 MB"}},
		{"--max-memory -1", []string{"--max-memory", "-1", "-e", `(count (vec (range 100000)))`}, 0, "100000\n", nil},
		{"--max-memory not a size", []string{"--max-memory", "lots", "-e", "1"}, 2, "", []string{"not a size"}},
		{"--timeout -1", []string{"--timeout", "-1", "-e", "1"}, 0, "1\n", nil},
		{"--timeout without a unit", []string{"--timeout", "5", "-e", "1"}, 2, "", []string{"no unit"}},
		{"--max-output with a unit", []string{"--max-output", "1KiB", "-e", `(println (apply str (repeat 2000 "x")))`}, 1, "", []string{"output_exceeded"}},
		{"--max-parallel", []string{"--max-parallel", "1", "-e", `(pmap inc [1 2 3])`}, 0, "[2 3 4]\n", nil},
		// Values that share structure print within the memory limit.
		{"a shared-structure value", []string{"--max-memory", "1MB", "-e", `(nth (iterate (fn [v] [v v]) 1) 60)`}, 1, "", []string{"prints to more than"}},
		{"a shared-structure value as JSON", []string{"--json", "-e", `(nth (iterate (fn [v] [v v]) 1) 60)`}, 1, "", []string{"memory_exceeded"}},
		{"a shared-structure fail value", []string{"--max-memory", "1MB", "-e", `(fail (nth (iterate (fn [v] [v v]) 1) 60))`}, 1, "", []string{"prints to more than"}},

		// The test's standard input is not a terminal: it is the program.
		{"no program, empty standard input", nil, 0, "nil\n", nil},
		{"-e twice: both run, in order", []string{"-e", "(def x 2)", "-e", "(* x 5)"}, 0, "#'x\n10\n", nil},
		{"-e twice, the first fails", []string{"-e", `(+ 1 "a")`, "-e", "(println 2)"}, 1, "", []string{"type_error"}},
		{"-e twice, an error's position is in its own -e", []string{"-e", "1", "-e", `(+ 1 "a")`}, 1, "1\n", []string{"1:1: type_error"}},
		{"both -e and FILE", []string{"-e", "1", plain}, 2, "", []string{"(ptc eval -h for help)"}},
		{"two files", []string{plain, plain}, 2, "", []string{"(ptc eval -h for help)"}},
		{"unknown flag", []string{"--bogus", "-e", "1"}, 2, "", []string{"flag provided but not defined: -bogus", "(ptc eval -h for help)"}},
		{"unknown flag after the file", []string{plain, "-x"}, 2, "", []string{"flag provided but not defined: -x"}},
		{"missing file", []string{filepath.Join(dir, "nope.ptc")}, 2, "", []string{"ptc eval:", "nope.ptc"}},
		{"missing context", []string{"-c", filepath.Join(dir, "nope.json"), "-e", "1"}, 2, "", []string{"ptc eval:", "nope.json"}},
		{"context not a map", []string{"-c", arrayCtx, "-e", "1"}, 2, "", []string{"array.json", "must be a map"}},
		{"context bad JSON", []string{"-c", badCtx, "-e", "1"}, 2, "", []string{"bad.json"}},
		{"context bad EDN", []string{"-c", badEDN, "-e", "1"}, 2, "", []string{"bad.edn"}},
		{"-c without a value", []string{"-e", "1", "-c"}, 2, "", []string{"flag needs an argument: -c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := ptc(t, "", append([]string{"eval"}, tt.args...)...)
			checkOutcome(t, code, out, errOut, tt.code, tt.stdout, tt.errWords)
		})
	}
}

// TestEvalErrorSnippet checks the exact error report: position, kind and
// message, then the source line and a caret under the column.
func TestEvalErrorSnippet(t *testing.T) {
	dir := t.TempDir()
	file := clitest.WriteFile(t, dir, "err.ptc", "(let [x 1]\n  (+ x \"a\"))\n")
	for _, args := range [][]string{{"-e", "(let [x 1]\n  (+ x \"a\"))"}, {file}} {
		code, out, errOut := ptc(t, "", append([]string{"eval"}, args...)...)
		if code != 1 || out != "" {
			t.Errorf("%v: exit %d, stdout %q", args, code, out)
		}
		lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("%v: stderr has %d lines, want 3:\n%s", args, len(lines), errOut)
		}
		if want := "2:3: type_error: "; !strings.HasPrefix(lines[0], want) || !strings.Contains(lines[0], `"a"`) {
			t.Errorf("%v: first line %q, want prefix %q", args, lines[0], want)
		}
		if want := `  (+ x "a"))`; lines[1] != want {
			t.Errorf("%v: source line %q, want %q", args, lines[1], want)
		}
		if want := "  ^"; lines[2] != want {
			t.Errorf("%v: caret line %q, want %q", args, lines[2], want)
		}
	}
}

func TestRepl(t *testing.T) {
	dir := t.TempDir()
	ctx := clitest.WriteFile(t, dir, "ctx.json", `{"name": "ada"}`)
	tests := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		stdout   string
		errWords []string // nil: stderr must be empty
	}{
		{"defs persist, multi-line form, history, error in the middle",
			nil,
			"(def x 10)\n(+ x\n  5)\n*1\n(foo)\n(println \"p\") (inc x)\n*2\n[*1 *2 *3]\n",
			0, "#'x\n15\n15\np\n11\n15\n[15 11 15]\n",
			[]string{"1:2", "unbound_var", "foo", "(foo)", " ^"}},
		{"defn then call", nil, "(defn sq [n] (* n n))\n(sq 7)\n", 0, "#'sq\n49\n", nil},
		{"blank lines are skipped", nil, "\n\n1\n   \n2\n", 0, "1\n2\n", nil},
		{"a failed run keeps the namespace", nil, "(def a 1)\n(do (def a 2) (+ 1 \"x\"))\na\n", 0, "#'a\n1\n",
			[]string{"type_error"}},
		{"fail does not stop the loop", nil, "(fail 1)\n2\n", 0, "2\n", []string{"fail: 1"}},
		{"an error is not history", nil, "1\n(+ 1 \"x\")\n*1\n", 0, "1\n1\n", []string{"type_error"}},
		{"input ends inside a form", nil, "(def y 1)\n(let [a 1]\n  (+ a\n", 0, "#'y\n",
			[]string{"parse_error", "unclosed"}},
		{"a string may span lines", nil, "\"ab\n5\"\n(count \"a\nb\")\n", 0, "\"ab\\n5\"\n3\n", nil},
		{"input ends inside a string", nil, "1\n\"ab\n(+ 1 2)\n", 0, "1\n", []string{"parse_error", "unterminated string"}},
		{"context", []string{"-c", ctx}, "ctx/name\n", 0, "\"ada\"\n", nil},
		{"no input", nil, "", 0, "", nil},
		{"extra argument", []string{"x"}, "", 2, "", []string{"(ptc repl -h for help)"}},
		{"unknown flag", []string{"--nope"}, "", 2, "", []string{"flag provided but not defined"}},
		{"missing context", []string{"-c", filepath.Join(dir, "nope.json")}, "1\n", 2, "", []string{"ptc repl:", "nope.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := ptc(t, tt.stdin, append([]string{"repl"}, tt.args...)...)
			checkOutcome(t, code, out, errOut, tt.code, tt.stdout, tt.errWords)
		})
	}
}

// TestReplErrorCount checks that each bad input is reported exactly once.
func TestReplErrorCount(t *testing.T) {
	_, out, errOut := ptc(t, "(foo)\n(bar)\n3\n(baz\n", "repl")
	if out != "3\n" {
		t.Errorf("stdout %q", out)
	}
	for _, name := range []string{"foo", "bar"} {
		if n := strings.Count(errOut, "undefined name "+name); n != 1 {
			t.Errorf("%s reported %d times:\n%s", name, n, errOut)
		}
	}
	if n := strings.Count(errOut, "unclosed '('"); n != 1 {
		t.Errorf("unclosed form reported %d times:\n%s", n, errOut)
	}
}

// TestReplLongLine: a line longer than the REPL's buffer must be reported,
// not end the session silently.
// TestReplLongLine: a very long input line is read whole, and the lines
// after it are still read.
func TestReplLongLine(t *testing.T) {
	stdin := "1\n(count \"" + strings.Repeat("a", 200<<10) + "\")\n(count \"" + strings.Repeat("a", 17<<20) + "\")\n2\n"
	code, out, errOut := ptc(t, stdin, "repl")
	if code != 0 || out != "1\n204800\n2\n" || !strings.Contains(errOut, "over the 256 KB limit") {
		t.Errorf("exit %d, stdout %.80q, stderr %.200q", code, out, errOut)
	}
}

const conformVectors = `{"id":"add","program":"(+ 1 2)","expect":"3"}
{"id":"ctx","program":"ctx/x","context":{"x":5},"context_edn":"{:x 5}","expect":"5"}

{"id":"inf","program":"(/ 1.0 0)","expect":"##Inf"}
{"id":"multi","program":"(first [1 2])\n(inc 41)","expect":"43"}
{"id":"err","program":"(foo)","expect_error":"unbound_var"}
{"id":"noerr","program":"(+ 1 1)","expect_error":"type_error"}
`

func TestConform(t *testing.T) {
	dir := t.TempDir()
	mixed := clitest.WriteFile(t, dir, "mixed.jsonl", conformVectors)
	var passing []string
	for _, l := range strings.Split(conformVectors, "\n") {
		if l != "" && !strings.Contains(l, `"multi"`) && !strings.Contains(l, `"noerr"`) {
			passing = append(passing, l)
		}
	}
	good := clitest.WriteFile(t, dir, "good.jsonl", strings.Join(passing, "\n")+"\n")
	bad := clitest.WriteFile(t, dir, "bad.jsonl", "{\"id\":\"a\",\"program\":\"1\",\"expect\":\"1\"}\nnot json\n")

	t.Run("failures", func(t *testing.T) {
		code, out, errOut := ptc(t, "", "conform", mixed)
		if code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		if errOut != "" {
			t.Errorf("stderr %q", errOut)
		}
		want := "FAIL multi\n" +
			"  program:  (first [1 2])\n" +
			"            (inc 41)\n" +
			"  expected: 43\n" +
			"  got:      42\n" +
			"  (value differs)\n" +
			"FAIL noerr\n" +
			"  program:  (+ 1 1)\n" +
			"  expected: error type_error\n" +
			"  got:      2\n" +
			"  (expected error type_error)\n" +
			"4 passed, 2 failed\n"
		if out != want {
			t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
		}
	})
	t.Run("all pass", func(t *testing.T) {
		code, out, errOut := ptc(t, "", "conform", good)
		if code != 0 || errOut != "" {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
		if out != "4 passed, 0 failed\n" {
			t.Errorf("stdout %q", out)
		}
	})
	t.Run("unexpected error", func(t *testing.T) {
		f := clitest.WriteFile(t, dir, "unexpected.jsonl", `{"id":"u","program":"(+ 1 \"a\")","expect":"1"}`+"\n")
		code, out, _ := ptc(t, "", "conform", f)
		if code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		if !strings.Contains(out, "FAIL u\n") || !strings.Contains(out, "  got:      error type_error") ||
			!strings.Contains(out, "(unexpected error)") || lastLine(out) != "0 passed, 1 failed" {
			t.Errorf("stdout:\n%s", out)
		}
	})
	t.Run("empty file", func(t *testing.T) {
		f := clitest.WriteFile(t, dir, "empty.jsonl", "")
		code, out, _ := ptc(t, "", "conform", f)
		if code != 0 || out != "0 passed, 0 failed\n" {
			t.Errorf("exit %d, stdout %q", code, out)
		}
	})
	usage := []struct {
		name     string
		args     []string
		errWords []string
	}{
		{"bad JSONL", []string{bad}, []string{"ptc conform:", "bad.jsonl", "line 2"}},
		{"missing file", []string{filepath.Join(dir, "nope.jsonl")}, []string{"ptc conform:", "nope.jsonl"}},
		{"no file", nil, []string{"(ptc conform -h for help)"}},
		{"two files", []string{good, good}, []string{"(ptc conform -h for help)"}},
		{"unknown flag", []string{"-q", good}, []string{"flag provided but not defined"}},
	}
	for _, tt := range usage {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := ptc(t, "", append([]string{"conform"}, tt.args...)...)
			checkOutcome(t, code, out, errOut, base.ExitUsage, "", tt.errWords)
		})
	}
}

// TestConformShared runs the shared conformance vectors, when present
// (lisp/conformance's own vectors check the runner on every checkout).
func TestConformShared(t *testing.T) {
	path, ok := shared.Path("conformance", "dev.jsonl")
	if !ok {
		t.Skip("../shared/conformance/dev.jsonl is absent: ptc conform over the shared vectors is not run " +
			"(TestConform and lisp/conformance's TestRepoVectors still check it)")
	}
	if testing.Short() {
		t.Skip("skipping the shared conformance vectors in -short mode")
	}
	code, out, errOut := ptc(t, "", "conform", path)
	last := lastLine(out)
	m := regexp.MustCompile(`^(\d+) passed, (\d+) failed$`).FindStringSubmatch(last)
	if m == nil {
		t.Fatalf("last line %q (stderr %q)", last, errOut)
	}
	wantCode := 0
	if m[2] != "0" {
		wantCode = 1
	}
	if code != wantCode {
		t.Errorf("exit %d with %q, want %d", code, last, wantCode)
	}
	if fails := strings.Count(out, "\nFAIL ") + boolInt(strings.HasPrefix(out, "FAIL ")); m[2] != strconv.Itoa(fails) {
		t.Errorf("%d FAIL blocks, last line says %s failed", fails, m[2])
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestBench(t *testing.T) {
	dir := t.TempDir()
	prog := clitest.WriteFile(t, dir, "tiny.ptc", "(reduce + (map inc (range 10)))")
	ctxProg := clitest.WriteFile(t, dir, "ctx.ptc", "(count ctx/items)")
	ctx := clitest.WriteFile(t, dir, "ctx.json", `{"items": [1, 2, 3]}`)
	badProg := clitest.WriteFile(t, dir, "bad.ptc", "(+ 1 \"a\")")
	unknown := clitest.WriteFile(t, dir, "unknown.ptc", "(foo)")

	t.Run("text", func(t *testing.T) {
		code, out, errOut := ptc(t, "", "bench", "-n", "3", prog)
		if code != 0 || errOut != "" {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
		re := `^` + regexp.QuoteMeta(prog) + `: 3 runs, median \S+s, p90 \S+s, \d+ allocs/run, \d+ bytes/run\n` +
			`  compile \S+s \(\d+ allocs, \d+ bytes\) \+ run \S+s \(\d+ allocs, \d+ bytes\): a cached program costs the run alone\n$`
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("stdout %q does not match %s", out, re)
		}
	})
	for _, args := range [][]string{{"-n", "3", "--json", prog}, {prog, "--json", "-n", "3"}, {"-c", ctx, "-n", "3", "--json", ctxProg}} {
		t.Run("json "+strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := ptc(t, "", append([]string{"bench"}, args...)...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
				t.Errorf("stdout is not one line: %q", out)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatalf("stdout %q: %v", out, err)
			}
			keys := []string{"median_ns", "p90_ns", "allocs_per_run", "bytes_per_run",
				"compile_median_ns", "compile_allocs", "compile_bytes", "run_median_ns", "run_allocs", "run_bytes"}
			for _, k := range keys {
				v, ok := m[k].(float64)
				if !ok || v <= 0 {
					t.Errorf("%s = %v, want a positive number (%s)", k, m[k], out)
				}
			}
			if len(m) != len(keys) {
				t.Errorf("%d keys, want %d: %s", len(m), len(keys), out)
			}
			if m["p90_ns"].(float64) < m["median_ns"].(float64) {
				t.Errorf("p90 below the median: %s", out)
			}
		})
	}
	errs := []struct {
		name     string
		args     []string
		code     int
		errWords []string
	}{
		{"program error", []string{"-n", "3", badProg}, 1, []string{"type_error", `(+ 1 "a")`}},
		{"unknown name", []string{"-n", "3", unknown}, 1, []string{"unbound_var", "foo"}},
		{"no file", []string{"-n", "3"}, 2, []string{"(ptc bench -h for help)"}},
		{"two files", []string{prog, prog}, 2, []string{"(ptc bench -h for help)"}},
		{"zero runs", []string{"-n", "0", prog}, 2, []string{"(ptc bench -h for help)"}},
		{"negative runs", []string{"-n", "-2", prog}, 2, []string{"(ptc bench -h for help)"}},
		{"runs not a number", []string{"-n", "many", prog}, 2, []string{"invalid value"}},
		{"missing file", []string{filepath.Join(dir, "nope.ptc")}, 2, []string{"ptc bench:", "nope.ptc"}},
		{"missing context", []string{"-c", filepath.Join(dir, "nope.json"), prog}, 2, []string{"ptc bench:", "nope.json"}},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := ptc(t, "", append([]string{"bench"}, tt.args...)...)
			checkOutcome(t, code, out, errOut, tt.code, "", tt.errWords)
		})
	}
}

// checkOutcome checks a command's exit status and stdout, and that its
// stderr holds every word of errWords (errWords nil: that it is empty).
func checkOutcome(t *testing.T, code int, out, errOut string, wantCode int, wantOut string, errWords []string) {
	t.Helper()
	if code != wantCode {
		t.Errorf("exit %d, want %d (stderr %q)", code, wantCode, errOut)
	}
	if out != wantOut {
		t.Errorf("stdout %q, want %q", out, wantOut)
	}
	if errWords == nil && errOut != "" {
		t.Errorf("stderr %q, want empty", errOut)
	}
	for _, w := range errWords {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
}
