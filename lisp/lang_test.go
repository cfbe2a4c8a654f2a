package lisp_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/lisp/conformance"
)

// A language test file (testdata/lang/*.txt) holds cases:
//
//	=== name
//	program lines...
//	--- expected value (EDN, compared with Clojure =)
//	--- error KIND [text the message must contain]
//	--- output LINE        (optional, repeatable: expected println lines)
//	--- ctx {:edn "context"}   (optional, before the expectation)
//
// Lines starting with "#" outside a program are comments.
type langCase struct {
	file, name string
	line       int
	program    string
	ctx        string
	expect     string
	errKind    string
	errText    string
	output     []string
	hasOutput  bool
}

func loadLangCases(t *testing.T) []langCase {
	t.Helper()
	files, err := filepath.Glob("testdata/lang/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no language test files: %v", err)
	}
	var cases []langCase
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		var cur *langCase
		var prog []string
		flush := func() {
			if cur != nil {
				cur.program = strings.Join(prog, "\n")
				cases = append(cases, *cur)
			}
			cur, prog = nil, nil
		}
		n := 0
		inProgram := false
		for sc.Scan() {
			n++
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "=== "):
				flush()
				cur = &langCase{file: filepath.Base(f), name: strings.TrimSpace(line[4:]), line: n}
				inProgram = true
			case cur != nil && strings.HasPrefix(line, "--- "):
				inProgram = false
				rest := strings.TrimSpace(line[4:])
				switch {
				case strings.HasPrefix(rest, "error "):
					kind, text, _ := strings.Cut(strings.TrimSpace(rest[6:]), " ")
					cur.errKind, cur.errText = kind, strings.TrimSpace(text)
				case rest == "error":
					cur.errKind = "*"
				case strings.HasPrefix(rest, "output"):
					cur.hasOutput = true
					if s := strings.TrimPrefix(rest, "output"); s != "" {
						cur.output = append(cur.output, strings.TrimPrefix(s, " "))
					}
				case strings.HasPrefix(rest, "ctx "):
					cur.ctx = strings.TrimSpace(rest[4:])
				default:
					cur.expect = rest
				}
			case inProgram:
				prog = append(prog, line)
			case strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "":
			default:
				t.Fatalf("%s:%d: unexpected line %q", f, n, line)
			}
		}
		flush()
		fh.Close()
	}
	return cases
}

func TestLanguage(t *testing.T) {
	for _, c := range loadLangCases(t) {
		t.Run(c.file+"/"+c.name, func(t *testing.T) {
			// A generous timeout: the other limits decide, not the machine's load.
			opts := lisp.Options{Limits: lisp.Limits{Timeout: generous}}
			if c.ctx != "" {
				v, err := lisp.Read(c.ctx, lisp.ReadOptions{Format: lisp.ReadEDN})
				if err != nil {
					t.Fatalf("%s:%d: bad ctx: %v", c.file, c.line, err)
				}
				opts.Input = v
			}
			res, err := lisp.Run(context.Background(), c.program, opts)
			if c.hasOutput && strings.Join(res.Output, "\n") != strings.Join(c.output, "\n") {
				t.Errorf("%s:%d: output %q, want %q", c.file, c.line, res.Output, c.output)
			}
			if c.errKind != "" {
				if err == nil {
					t.Fatalf("%s:%d: %s\n got %s, want error %s", c.file, c.line, c.program, lisp.Print(res.Value, lisp.PrintOptions{}), c.errKind)
				}
				var le *lisp.Error
				if !errors.As(err, &le) {
					t.Fatalf("%s:%d: error %T is not a *lisp.Error", c.file, c.line, err)
				}
				if c.errKind != "*" && string(le.Kind) != c.errKind {
					t.Errorf("%s:%d: error kind %s, want %s (%v)", c.file, c.line, le.Kind, c.errKind, err)
				}
				if !strings.Contains(err.Error(), c.errText) {
					t.Errorf("%s:%d: error %q does not contain %q", c.file, c.line, err.Error(), c.errText)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s:%d: %s\n unexpected error: %v", c.file, c.line, c.program, err)
			}
			if c.expect == "" {
				return
			}
			want, err := lisp.Read(c.expect, lisp.ReadOptions{Format: lisp.ReadEDN})
			if err != nil {
				t.Fatalf("%s:%d: bad expectation %q: %v", c.file, c.line, c.expect, err)
			}
			if !conformance.Equivalent(want, res.Value) {
				t.Errorf("%s:%d: %s\n got  %s\n want %s", c.file, c.line, c.program, lisp.Print(res.Value, lisp.PrintOptions{}), c.expect)
			}
		})
	}
}
