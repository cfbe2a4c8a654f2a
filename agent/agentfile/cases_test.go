package agentfile_test

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/eval"
)

// An agent file's cases: inline, in the file cases: names, or beside it.
func TestCases(t *testing.T) {
	fsys := fstest.MapFS{
		"inline.md":        {Data: []byte("---\nsignature: (n :int) -> :int\ncases: |\n  [{:name \"two\" :input {:n 2} :expect 4}\n   {:input {:n 3} :check #(= 6 %)}]\n---\nDouble {{n}}.")},
		"named.md":         {Data: []byte("---\ncases: tests/double.clj\n---\nDouble {{n}}.")},
		"tests/double.clj": {Data: []byte(`[{:input {:n 5} :expect 10}]`)},
		"beside.md":        {Data: []byte("Double {{n}}.")},
		"beside.cases.clj": {Data: []byte(`[{:input {:n 1} :expect 2} {:input {:n 0} :expect 0}]`)},
		"none.md":          {Data: []byte("Double {{n}}.")},
		"bad-inline.md":    {Data: []byte("---\ncases: |\n  [{:input {:n 2}\n    :expct 4}]\n---\nP")},
		"missing.md":       {Data: []byte("---\ncases: nope.clj\n---\nP")},
		"bad-file.md":      {Data: []byte("---\ncases: bad.clj\n---\nP")},
		"bad.clj":          {Data: []byte("[{:input {:n 2}\n  :fails 3}]")},
	}
	count := func(name string) int {
		t.Helper()
		f, err := agentfile.Load(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		cases, err := f.Cases()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return len(cases)
	}
	for name, want := range map[string]int{"inline.md": 2, "named.md": 1, "beside.md": 2, "none.md": 0} {
		if got := count(name); got != want {
			t.Errorf("%s: %d cases, want %d", name, got, want)
		}
	}
	for name, want := range map[string]string{
		"bad-inline.md": "bad-inline.md:4:5: cases: unknown key :expct",
		"missing.md":    "missing.md:2:8: cases: no file nope.clj",
		"bad-file.md":   "bad.clj:2:10: :fails wants a reason",
	} {
		f, err := agentfile.Load(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Cases()
		var ae *agentfile.Error
		var ce *eval.CaseError
		if err == nil || !strings.Contains(err.Error(), want) || !(errors.As(err, &ae) || errors.As(err, &ce)) {
			t.Errorf("%s: got %v, want %q", name, err, want)
		}
	}
	// Parse reads no file, and inline cases still parse.
	f, err := agentfile.Parse("inline.md", fsys["inline.md"].Data)
	if err != nil {
		t.Fatal(err)
	}
	if cases, err := f.Cases(); err != nil || len(cases) != 2 {
		t.Errorf("Parse: %d cases, %v", len(cases), err)
	}
}
