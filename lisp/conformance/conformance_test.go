package conformance_test

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/internal/shared"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/lisp/conformance"
)

// TestSharedVectors runs every shared conformance vector. A vector fails
// exactly when docs/deviations.md lists it.
func TestSharedVectors(t *testing.T) {
	path, ok := shared.Path("conformance", "dev.jsonl")
	if !ok {
		t.Skip("../shared/conformance/dev.jsonl is absent: the reference's shared vectors, and docs/deviations.md's " +
			"list of those that fail, are not checked (TestRepoVectors checks the runner on the repository's own vectors)")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vs, err := conformance.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	df, err := os.Open("../../docs/deviations.md")
	if err != nil {
		t.Fatal(err)
	}
	defer df.Close()
	deviations, err := conformance.Deviations(df)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	passed := 0
	for _, v := range vs {
		seen[v.ID] = true
		o := conformance.Run(context.Background(), v)
		reason, listed := deviations[v.ID]
		switch {
		case o.Passed && listed:
			t.Errorf("%s passes now: remove it from docs/deviations.md (row %q)", v.ID, reason)
		case !o.Passed && !listed:
			t.Errorf("%s fails and is not a listed deviation:\n  program: %s\n  want: %s%s\n  got:  %s\n  (%s)",
				v.ID, v.Program, v.Expect, v.ExpectError, o.Got, o.Reason)
		}
		if o.Passed {
			passed++
		}
	}
	var stale []string
	for id := range deviations {
		// clj: ids belong to the differential tests (lisp/difftest).
		if !seen[id] && !strings.HasPrefix(id, "clj:") {
			stale = append(stale, id)
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("docs/deviations.md lists vectors that do not exist: %v", stale)
	}
	rate := float64(passed) / float64(len(vs))
	t.Logf("%d of %d shared vectors pass (%.1f%%), %d listed deviations", passed, len(vs), 100*rate, len(deviations))
	if rate < 0.95 {
		t.Errorf("pass rate %.1f%% is below 95%%", 100*rate)
	}
}

// TestRepoVectors runs the runner's own vectors (testdata/vectors.jsonl),
// which every checkout has: all must pass, and each must fail once its
// expectation is changed, so the runner is checked on a clone with no
// shared vectors beside it.
func TestRepoVectors(t *testing.T) {
	f, err := os.Open("testdata/vectors.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vs, err := conformance.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) < 60 {
		t.Fatalf("only %d vectors in testdata/vectors.jsonl", len(vs))
	}
	kinds := map[string]bool{}
	withContext := 0
	for _, v := range vs {
		o := conformance.Run(context.Background(), v)
		if !o.Passed {
			t.Errorf("%s: %s\n  program: %s\n  want: %s%s\n  got:  %s", v.ID, o.Reason, v.Program, v.Expect, v.ExpectError, o.Got)
		}
		if v.ContextEDN != "" {
			withContext++
		}
		kinds[v.ExpectError] = true
		// A wrong expectation must fail: an error kind for a value, a
		// value for an error, another error kind for an error.
		wrong := v
		switch {
		case v.ExpectError != "":
			wrong.ExpectError = "not_a_kind"
		default:
			wrong.Expect, wrong.ExpectError = "", "type_error"
		}
		if o := conformance.Run(context.Background(), wrong); o.Passed {
			t.Errorf("%s passes with a wrong expectation %s%s", v.ID, wrong.Expect, wrong.ExpectError)
		}
	}
	if withContext < 5 || len(kinds) < 6 {
		t.Errorf("the vectors cover %d contexts and %d error kinds, want at least 5 and 6", withContext, len(kinds)-1)
	}
}

func TestEquivalent(t *testing.T) {
	read := func(s string) lisp.Value {
		v, err := lisp.Read(s, lisp.ReadOptions{Format: lisp.ReadEDN})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		a, b string
		eq   bool
	}{
		{"1", "1", true},
		{"1", "1.0", false},
		{"[1 2]", "[1 2]", true},
		{"[1 2]", "[1 2 3]", false},
		{"{:a 1 :b [2]}", "{:b [2] :a 1}", true},
		{"{:a 1}", `{"a" 1}`, false},
		{"#{1 2}", "#{2 1}", true},
		{"0.3333333333", "0.33333333330000001", true},
		{"0.1", "0.10000000001", false},
		{":a", `"a"`, false},
		{"nil", "false", false},
	}
	for _, tc := range tests {
		if got := conformance.Equivalent(read(tc.a), read(tc.b)); got != tc.eq {
			t.Errorf("Equivalent(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.eq)
		}
	}
}
