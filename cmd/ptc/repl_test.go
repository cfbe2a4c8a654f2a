package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/clitest"
	"github.com/ptc-go/ptc/cmd/ptc/internal/replcmd"
	"github.com/ptc-go/ptc/lisp"
)

// Key sequences as a terminal in raw mode sends them.
const (
	kUp     = "\x1b[A"
	kDown   = "\x1b[B"
	kRight  = "\x1b[C"
	kLeft   = "\x1b[D"
	kHome   = "\x1b[H"
	kEnd    = "\x1b[F"
	kDel    = "\x1b[3~"
	kBS     = "\x7f"
	kEnter  = "\r"
	kCtrlA  = "\x01"
	kCtrlC  = "\x03"
	kCtrlD  = "\x04"
	kCtrlE  = "\x05"
	kCtrlK  = "\x0b"
	kCtrlR  = "\x12"
	kCtrlU  = "\x15"
	kCtrlW  = "\x17"
	kCtrlY  = "\x19"
	kAltB   = "\x1bb"
	kPaste0 = "\x1b[200~"
	kPaste1 = "\x1b[201~"
)

// replHarness runs the REPL with the line editor on scripted input.
type replHarness struct {
	screen         *vtScreen
	stdout, stderr bytes.Buffer
	session        *replcmd.Session
	cfg            replcmd.EditorConfig
}

func newReplHarness(in io.Reader, width int) *replHarness {
	h := &replHarness{screen: newVTScreen(width)}
	h.session = &replcmd.Session{
		Stdout: io.MultiWriter(&h.stdout, h.screen),
		Stderr: io.MultiWriter(&h.stderr, h.screen),
		CtxVal: lisp.NewMap(),
	}
	h.cfg = replcmd.EditorConfig{In: in, Out: h.screen, Width: func() int { return width }}
	return h
}

func (h *replHarness) run() int { return replcmd.RunEditor(h.session, h.cfg) }

// out is what the session printed on stdout, after the banner.
func (h *replHarness) out() string {
	return strings.TrimPrefix(strings.ReplaceAll(h.stdout.String(), "\r", ""), replcmd.Banner)
}

func (h *replHarness) errOut() string { return strings.ReplaceAll(h.stderr.String(), "\r", "") }

// replScript runs input through the editor and returns stdout and stderr.
func replScript(t *testing.T, input string) (string, string) {
	t.Helper()
	h := newReplHarness(strings.NewReader(input), 80)
	if code := h.run(); code != base.ExitOK {
		t.Errorf("exit %d", code)
	}
	return h.out(), h.errOut()
}

func TestReplEditorKeys(t *testing.T) {
	tests := []struct {
		name, input, stdout string
	}{
		{"enter evaluates", "(+ 1 2)" + kEnter, "3\n"},
		{"left arrows then insert", "(+ 1 3)" + kLeft + kLeft + "2" + kEnter, "24\n"},
		{"backspace in the middle", "(+ 10 5)" + kLeft + kLeft + kLeft + kBS + kEnter, "6\n"},
		{"delete under the cursor", "(+ 19 1)" + kHome + kRight + kRight + kRight + kRight + kDel + kEnter, "2\n"},
		{"right arrow and end", "(* 2 )" + kHome + kRight + kRight + kRight + kRight + kRight + "21" + kEnd + kEnter, "42\n"},
		{"ctrl-a and ctrl-e", "+ 1 2" + kCtrlA + "(" + kCtrlE + ")" + kEnter, "3\n"},
		{"ctrl-u clears to the start", "garbage" + kCtrlU + "(* 6 7)" + kEnter, "42\n"},
		{"ctrl-k clears to the end", "(+ 1 2)junk" + kLeft + kLeft + kLeft + kLeft + kCtrlK + kEnter, "3\n"},
		{"ctrl-w deletes a word", "(+ 1 2 bogus" + kCtrlW + ")" + kEnter, "3\n"},
		{"ctrl-y puts it back", "(str \"ab\" :kw" + kCtrlW + kCtrlY + kCtrlY + ")" + kEnter, "\"ab:kw:kw\"\n"},
		{"alt-b moves by word", "(+ 1 2 3)" + kLeft + kAltB + kAltB + kBS + kEnter, "15\n"},
		{"utf-8 input", "(count \"héllo→\")" + kEnter, "6\n"},
		{"ctrl-c clears the input", "(+ 1 2" + kCtrlC + "7" + kEnter, "7\n"},
		{"ctrl-d discards an unfinished form", "(+ 1" + kEnter + "2" + kCtrlD + "5" + kEnter, "5\n"},
		{"ctrl-d inside the input deletes", "(+ 12 3)" + kHome + kRight + kRight + kRight + kCtrlD + kEnter, "5\n"},
		{"ctrl-d on an empty line quits", "1" + kEnter + kCtrlD + "2" + kEnter, "1\n"},
		{"multi-line form", "(let [a 1]" + kEnter + "(+ a" + kEnter + "41))" + kEnter, "42\n"},
		{"alt-enter opens a line in a complete form", "(+ 1 2)" + kLeft + "\x1b\r" + "3" + kEnter, "6\n"},
		{"a string with a bracket is not open", "(str \"(\")" + kEnter, "\"(\"\n"},
		{"a comment with a bracket is not open", "(+ 1 ; (\r2)" + kEnter, "3\n"},
		{"history up", "(+ 1 2)" + kEnter + "(* 2 5)" + kEnter + kUp + kUp + kEnter, "3\n10\n3\n"},
		{"history up and down", "(+ 1 2)" + kEnter + "(* 2 5)" + kEnter + kUp + kUp + kDown + kEnter, "3\n10\n10\n"},
		{"down returns to the new input", "1" + kEnter + "(inc 4" + kUp + kDown + ")" + kEnter, "1\n5\n"},
		{"history recalls a multi-line form whole", "(+ 1" + kEnter + "2)" + kEnter + "0" + kEnter + kUp + kUp + kEnter, "3\n0\n3\n"},
		{"up inside a multi-line form moves up", "(+ 1" + kEnter + "2" + kUp + kEnd + "0" + kDown + kEnd + ")" + kEnter, "12\n"},
		{"history search", "(+ 40 2)" + kEnter + "(* 3 3)" + kEnter + kCtrlR + "40" + kEnter, "42\n9\n42\n"},
		{"history search older", "(+ 1 100)" + kEnter + "(+ 2 100)" + kEnter + kCtrlR + "100" + kCtrlR + kEnter, "101\n102\n101\n"},
		{"history search given up", "(+ 1 1)" + kEnter + "(inc 9" + kCtrlR + "1 1" + "\x07" + ")" + kEnter, "2\n10\n"},
		{"tab completes a name", "(frequ" + "\t" + " [1 1])" + kEnter, "{1 2}\n"},
		{"tab completes the common prefix", "(partiti\t 2 [1 2 3 4])" + kEnter, "[[1 2] [3 4]]\n"},
		{"tab completes a def", "(def my-long-name 7)" + kEnter + "my-lo\t" + kEnter, "#'my-long-name\n7\n"},
		{"bracketed paste does not submit", kPaste0 + "(+ 1\r\n2)" + kPaste1 + kEnter, "3\n"},
		{"defs persist and *1", "(def x 10)" + kEnter + "(+ x 1)" + kEnter + "*1" + kEnter, "#'x\n11\n11\n"},
		{"quit", "1" + kEnter + ":quit" + kEnter + "2" + kEnter, "1\n"},
		{"a keyword is not a command", ":foo" + kEnter, ":foo\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut := replScript(t, tt.input)
			if out != tt.stdout {
				t.Errorf("stdout %q, want %q", out, tt.stdout)
			}
			if errOut != "" {
				t.Errorf("stderr %q", errOut)
			}
		})
	}
}

// TestReplEditorScreen checks what the user sees: prompts, continuation
// lines indented under their brackets, the ^C and ^D marks, and a line
// wider than the terminal wrapped and edited in place.
func TestReplEditorScreen(t *testing.T) {
	tests := []struct {
		name, input string
		width       int
		screen      string
	}{
		{"continuation prompt and indentation", "(let [a 1" + kEnter + "b 2]" + kEnter + "(+ a b))" + kEnter, 80,
			"ptc> (let [a 1\n...>       b 2]\n...>   (+ a b))\n3\nptc>"},
		{"ctrl-c", "(+ 1" + kCtrlC, 80, "ptc> (+ 1^C\nptc>"},
		{"ctrl-d", "(+ 1" + kEnter + kCtrlD, 80, "ptc> (+ 1\n...>   ^D\nptc>"},
		{"history recall redraws both lines", "(+ 1" + kEnter + "2)" + kEnter + "9" + kEnter + kUp + kUp, 80,
			"ptc> (+ 1\n...>   2)\n3\nptc> 9\n9\nptc> (+ 1\n...>   2)"},
		{"a shorter recall clears the rest", "(+ 1" + kEnter + "2)" + kEnter + "9" + kEnter + kUp + kUp + kDown + kDown, 80,
			"ptc> (+ 1\n...>   2)\n3\nptc> 9\n9\nptc> 9"},
		{"long line wraps", "(str \"abcdefghijklmnopqrstuvwxyz\")" + kEnter, 20,
			"ptc> (str \"abcdefghi\njklmnopqrstuvwxyz\")\n\"abcdefghijklmnopqrs\ntuvwxyz\"\nptc>"},
		{"a line as wide as the terminal", "(str \"abcdefghijklmnopqrstuvwxyz!\")" + kEnter, 20,
			"ptc> (str \"abcdefghi\njklmnopqrstuvwxyz!\")\n\"abcdefghijklmnopqrs\ntuvwxyz!\"\nptc>"},
		{"cursor moves across a wrapped line", "(str \"abcdefghijklmnopqrstuvwxyz!\")" + kLeft + kLeft + "?" + kEnd + kEnter, 20,
			"ptc> (str \"abcdefghi\njklmnopqrstuvwxyz!?\"\n)\n\"abcdefghijklmnopqrs\ntuvwxyz!?\"\nptc>"},
		{"editing a wrapped line", "(str \"abcdefghijklmnopqrstuvwxyz\")" + kHome + kRight + kRight + kRight + kRight + kRight + "\"<\" " + kEnter, 20,
			"ptc> (str \"<\" \"abcde\nfghijklmnopqrstuvwxy\nz\")\n\"<abcdefghijklmnopqr\nstuvwxyz\"\nptc>"},
		{"tab completes a namespace alias", "(str/sp\t", 80, "ptc> (str/split\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// All at once (drawn once) and a byte at a time (drawn
			// after most keys): the screen must end up the same.
			for _, in := range []io.Reader{strings.NewReader(tt.input), iotest.OneByteReader(strings.NewReader(tt.input))} {
				h := newReplHarness(in, tt.width)
				h.run()
				got := h.screen.text()
				got = got[strings.Index(got, "ptc> "):] // after the banner
				if !strings.HasPrefix(got, strings.TrimRight(tt.screen, "\n")) {
					t.Errorf("screen:\n%s\nwant:\n%s", got, tt.screen)
				}
			}
		})
	}
}

// TestReplEditorTabList: a second Tab on an ambiguous name lists the
// candidates under the input, which is drawn again below them.
func TestReplEditorTabList(t *testing.T) {
	h := newReplHarness(strings.NewReader("(str/trim\t"), 80)
	h.run()
	screen := h.screen.text()
	for _, w := range []string{"str/trim ", "str/trim-newline", "str/triml", "str/trimr"} {
		if !strings.Contains(screen, w) {
			t.Errorf("screen lacks %q:\n%s", w, screen)
		}
	}
	if n := strings.Count(screen, "ptc> (str/trim"); n != 2 {
		t.Errorf("the input is drawn %d times, want 2 (above and below the list):\n%s", n, screen)
	}
}

// TestReplEditorInterrupt: Ctrl-C during an endless evaluation cancels it,
// and the session goes on with its earlier defs (and without the defs of
// the interrupted run); what was typed meanwhile is the next input.
func TestReplEditorInterrupt(t *testing.T) {
	pr, pw := io.Pipe()
	h := newReplHarness(pr, 80)
	h.session.Limits = lisp.Limits{Timeout: -1, MaxSteps: -1, MaxLoopIterations: -1}
	started := make(chan struct{})
	var once sync.Once
	h.session.Tools = lisp.Tools{"started": func(context.Context, *lisp.Map) (any, error) {
		once.Do(func() { close(started) })
		return nil, nil
	}}
	done := make(chan int, 1)
	go func() { done <- h.run() }()
	write := func(s string) {
		if _, err := pw.Write([]byte(s)); err != nil {
			t.Error(err)
		}
	}
	write("(def kept 5)" + kEnter)
	write("(do (def lost 1) (tool/started) (loop [i 0] (recur (inc i))))" + kEnter)
	select {
	case <-started:
	case <-time.After(time.Minute): // generous: a busy machine is slow, not stuck
		t.Fatal("the evaluation did not start")
	}
	write("(+ kept") // typed ahead, kept for the next input
	write(kCtrlC)
	write(" 1)" + kEnter + "lost" + kEnter)
	pw.Close()
	select {
	case code := <-done:
		if code != base.ExitOK {
			t.Errorf("exit %d", code)
		}
	case <-time.After(time.Minute): // generous: a busy machine is slow, not stuck
		t.Fatal("Ctrl-C did not end the evaluation")
	}
	if got, want := h.out(), "#'kept\n6\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	errOut := h.errOut()
	for _, w := range []string{"interrupted after", "keeps its earlier defs", "lost"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
}

func TestReplCommands(t *testing.T) {
	tests := []struct {
		name, input string
		outWords    []string
		errWords    []string
	}{
		{"doc map", ":doc map", []string{"map\n", "(map f coll)", "vector", "(map inc [1 2 3])", ";=> [[2 3 4] [11 22]]"}, nil},
		{"doc with a namespace", ":doc str/join", []string{"clojure.string/join", `"a, b, c"`}, nil},
		{"doc of a special form", ":doc let", []string{"(let [name value …] body…)"}, nil},
		{"doc of a def", "(defn sq [x] (* x x))\n:doc sq", []string{"sq is defined in this session: #fn[sq]"}, nil},
		{"doc of a bit operation", ":doc unsigned-bit-shift-right", []string{"(unsigned-bit-shift-right x n)", ";=> 15"}, nil},
		{"doc of a rejected name", ":doc shuffle", []string{"shuffle is not available in PTC-Lisp", "deterministic"}, nil},
		{"doc of a typo", ":doc fitler", []string{"no documentation for fitler; did you mean filter"}, nil},
		{"doc without a name", ":doc", nil, []string{"usage: :doc NAME"}},
		{"help", ":help", []string{":doc NAME", ":quit", "Ctrl-R", "Ctrl-C", "Ctrl-D", "Tab", "PTC_HISTORY=off"}, nil},
		{"apropos", ":apropos sort", []string{"sort-by", "sort "}, nil},
		{"defs", "(def a [1 2])\n(defn f [x] x)\n:defs", []string{"a = [1 2]\n", "f = #fn[f]\n"}, nil},
		{"no defs", ":defs", []string{"no defs yet"}, nil},
		{"reset", "(def a 1)\n:reset\na", []string{"forgotten"}, []string{"unbound_var"}},
		{"time", ":time (reduce + (range 10))", []string{"45\n"}, []string{"steps"}},
		{"load", ":load " + filepath.Join("testdata", "nope.lisp"), nil, []string{"nope.lisp"}},
	}
	for _, tt := range tests {
		for _, mode := range []string{"editor", "plain"} {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				var out, errOut string
				if mode == "editor" {
					out, errOut = replScript(t, strings.ReplaceAll(tt.input, "\n", kEnter)+kEnter)
				} else {
					var code int
					code, out, errOut = ptc(t, tt.input+"\n", "repl")
					if code != base.ExitOK {
						t.Errorf("exit %d", code)
					}
				}
				for _, w := range tt.outWords {
					if !strings.Contains(out, w) {
						t.Errorf("stdout lacks %q:\n%s", w, out)
					}
				}
				for _, w := range tt.errWords {
					if !strings.Contains(errOut, w) {
						t.Errorf("stderr lacks %q:\n%s", w, errOut)
					}
				}
				if tt.errWords == nil && errOut != "" {
					t.Errorf("stderr %q", errOut)
				}
			})
		}
	}
}

func TestReplLoad(t *testing.T) {
	path := clitest.WriteFile(t, t.TempDir(), "lib.lisp", "(defn twice [x] (* 2 x))\n(def base 20)\n")
	_, out, errOut := ptc(t, ":load "+path+"\n(twice base)\n", "repl")
	if out != "#'base\n40\n" || errOut != "" {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
}

// TestReplHistoryFile: inputs are saved, multi-line ones whole, recalled
// by the next session, and the file stays bounded.
func TestReplHistoryFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "history")
	session := func(input string) string {
		h := newReplHarness(strings.NewReader(input), 80)
		h.cfg.HistPath = path
		h.run()
		return h.out()
	}
	session("(+ 1" + kEnter + "2)" + kEnter + "(* 2 \"<&>\")" + kEnter + "  " + kEnter + "(* 2 \"<&>\")" + kEnter + kCtrlD)
	h := replcmd.LoadHistory(path, replcmd.HistoryLimit)
	if want := []string{"(+ 1\n  2)", "(* 2 \"<&>\")"}; strings.Join(h.Entries, "|") != strings.Join(want, "|") {
		t.Errorf("entries %q, want %q", h.Entries, want)
	}
	if out := session(kUp + kUp + kEnter); out != "3\n" {
		t.Errorf("the next session recalls %q, want 3", out)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("history file: %v, %v", st, err)
	}

	// Bounded: a long file is cut to the newest entries.
	var b strings.Builder
	for i := range 40 {
		b.WriteString(`"(+ ` + strings.Repeat("1 ", i) + `)"` + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	h = replcmd.LoadHistory(path, 10)
	if len(h.Entries) != 10 || !strings.Contains(h.Entries[9], strings.Repeat("1 ", 39)) {
		t.Errorf("%d entries, the last %q", len(h.Entries), h.Entries[len(h.Entries)-1])
	}
	if again := replcmd.LoadHistory(path, 100); len(again.Entries) != 10 {
		t.Errorf("the file keeps %d entries, want 10", len(again.Entries))
	}
}
