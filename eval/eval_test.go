package eval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// stepOf returns a successful Step whose value is the printed form src.
func stepOf(t *testing.T, src string) *agent.Step {
	t.Helper()
	v, err := lisp.Read(src, lisp.ReadOptions{Format: lisp.ReadEDN})
	if err != nil {
		t.Fatal(err)
	}
	return &agent.Step{Return: v}
}

func TestChecks(t *testing.T) {
	failed := &agent.Step{Fail: &agent.Fail{Reason: "not_found", Message: "no such user"}}
	cases := []struct {
		name  string
		check eval.Check
		step  *agent.Step
		why   string // "" passes
	}{
		{"equal map", eval.Equals(map[string]any{"count": 2, "total": 130.5}), stepOf(t, `{:count 2 :total 130.5}`), ""},
		{"keyword and string keys", eval.Equals(map[string]any{"a": 1}), stepOf(t, `{"a" 1}`), ""},
		{"int equals float by value", eval.Equals(2), stepOf(t, `2.0`), ""},
		{"wrong number", eval.Equals(map[string]any{"count": 2}), stepOf(t, `{:count 3}`), ":expect: at [:count] want 2, got 3"},
		{"extra field", eval.Equals(map[string]any{"count": 2}), stepOf(t, `{:count 2 :x 1}`), ":expect: at [:x] unexpected, got 1"},
		{"missing field", eval.Subset(map[string]any{"count": 2}), stepOf(t, `{:x 1}`), ":subset: at [:count] missing, want 2"},
		{"subset allows more", eval.Subset(map[string]any{"count": 2}), stepOf(t, `{:count 2 :x 1}`), ""},
		{"subset nested", eval.Subset(map[string]any{"u": map[string]any{"n": "a"}}), stepOf(t, `{:u {:n "a" :m 1}}`), ""},
		{"vector order matters", eval.Equals([]any{1, 2}), stepOf(t, `[2 1]`), ":expect: at [0] want 1, got 2"},
		{"within", eval.Within(map[string]any{"avg": 107.5}, 0.01), stepOf(t, `{:avg 107.4986}`), ""},
		{"outside", eval.Within(107.5, 0.001), stepOf(t, `107.4986`), ":expect: want 107.5 within 0.001, got 107.4986"},
		{"keyword equals its string", eval.Equals(lisp.Keyword("high")), stepOf(t, `"high"`), ""},
		{"set", eval.Equals(lisp.NewSet("a", "b")), stepOf(t, `#{"b" "a"}`), ""},
		{"satisfies", eval.Satisfies(`(fn [r] (> (:total r) 100))`), stepOf(t, `{:total 130.5}`), ""},
		{"satisfies short fn", eval.Satisfies(`#(= 3 (count %))`), stepOf(t, `[1 2]`), "is false of [1 2]"},
		{"satisfies that errs", eval.Satisfies(`(fn [r] (+ r 1))`), stepOf(t, `"x"`), "check (fn [r] (+ r 1))"},
		{"fails with", eval.Fails("not_found"), failed, ""},
		{"fails with another", eval.Fails(":bad"), failed, "failed with not_found, want bad"},
		{"fails but succeeded", eval.Fails(""), stepOf(t, `1`), "succeeded with 1"},
		{"failed mission", eval.Equals(1), failed, "failed: not_found: no such user"},
		{"go func", eval.Passes(func(s *agent.Step) error { return errors.New("nope") }), stepOf(t, `1`), "nope"},
		{"nil expected", eval.Equals(nil), stepOf(t, `nil`), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.check.Verify(context.Background(), tc.step)
			switch {
			case tc.why == "" && err != nil:
				t.Errorf("%s: %v", tc.check, err)
			case tc.why != "" && (err == nil || !strings.Contains(err.Error(), tc.why)):
				t.Errorf("%s: got %v, want an error with %q", tc.check, err, tc.why)
			}
		})
	}
}

// TestCheckReasons: a failed :expect, :within or :subset names the first
// place the value differs as a get-in path, with the two values there and
// not the whole value; a missing key says missing, an extra one
// unexpected; the values under a _ field print as agent.Firewalled.
func TestCheckReasons(t *testing.T) {
	orders := `{:customer "ann" :notes "a long text that the reason has no need to show"
	            :orders [{:id 1 :total 10.0} {:id 2 :total 20.0} {:id 3 :total 120.0}]}`
	want3 := func(order map[string]any) map[string]any {
		return map[string]any{"orders": []any{map[string]any{}, map[string]any{}, order}}
	}
	cases := []struct {
		name  string
		check eval.Check
		got   string
		why   string
	}{
		{"subset: a nested number", eval.Subset(want3(map[string]any{"total": 130.5})), orders,
			":subset: at [:orders 2 :total] want 130.5, got 120.0"},
		{"subset: a missing key", eval.Subset(want3(map[string]any{"tax": 1.5})), orders,
			":subset: at [:orders 2 :tax] missing, want 1.5"},
		{"subset: a missing element", eval.Subset(map[string]any{"orders": []any{map[string]any{}, map[string]any{}, map[string]any{}, map[string]any{}}}), orders,
			":subset: at [:orders 3] missing, want {}"},
		{"subset: string keys stay strings", eval.Subset(map[string]any{"a": map[string]any{"b": 1}}), `{"a" {"b" 2}}`,
			`:subset: at ["a" "b"] want 1, got 2`},
		{"subset: keyword keys in a cases file", eval.Subset(lisp.NewMap(lisp.Keyword("a"), lisp.NewMap(lisp.Keyword("b"), int64(1)))), `{"a" {}}`,
			`:subset: at ["a" "b"] missing, want 1`},
		{"subset: a different kind", eval.Subset(map[string]any{"orders": map[string]any{}}), `{:orders 3}`,
			":subset: at [:orders] want {}, got 3"},
		{"expect: the value itself", eval.Equals(6), `7`, ":expect: want 6, got 7"},
		{"expect: a nested value", eval.Equals(map[string]any{"u": map[string]any{"tags": []any{"a", "b"}}}), `{:u {:tags ["a" "c"]}}`,
			`:expect: at [:u :tags 1] want "b", got "c"`},
		{"expect: an extra key", eval.Equals(map[string]any{"u": map[string]any{"n": 1}}), `{:u {:n 1 :m 2}}`,
			":expect: at [:u :m] unexpected, got 2"},
		{"expect: an extra element", eval.Equals([]any{1, 2}), `[1 2 3]`, ":expect: at [2] unexpected, got 3"},
		{"expect: a missing element", eval.Equals([]any{1, 2}), `[1]`, ":expect: at [1] missing, want 2"},
		{"within: the tolerance is said", eval.Within(map[string]any{"avg": 1.5}, 0.01), `{:avg 1.6}`,
			":expect: at [:avg] want 1.5 within 0.01, got 1.6"},
		{"expect: sets whole", eval.Equals(lisp.NewSet("a", "b")), `#{"a" "c"}`, `:expect: want #{"a" "b"}, got #{"a" "c"}`},
		{"firewalled field", eval.Subset(map[string]any{"user": map[string]any{"_email": "a@x.org"}}), `{:user {:_email "b@y.org"}}`,
			":subset: at [:user :_email] want <Firewalled>, got <Firewalled>"},
		{"below a firewalled field", eval.Subset(map[string]any{"_raw": []any{map[string]any{"id": 1}}}), `{:_raw [{:id 2}]}`,
			":subset: at [:_raw 0 :id] want <Firewalled>, got <Firewalled>"},
		{"a missing firewalled field", eval.Subset(map[string]any{"_pin": "1234"}), `{:n 1}`,
			":subset: at [:_pin] missing, want <Firewalled>"},
		{"an unexpected firewalled field", eval.Equals(map[string]any{"n": 1}), `{:n 1 :_token "tok-1"}`,
			":expect: at [:_token] unexpected, got <Firewalled>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.check.Verify(context.Background(), stepOf(t, tc.got))
			if err == nil || err.Error() != tc.why {
				t.Errorf("%s of %s:\n got %v\nwant %s", tc.check, tc.got, err, tc.why)
			}
			for _, s := range []string{"long text", "b@y.org", "a@x.org", "1234", "tok-1"} {
				if err != nil && strings.Contains(err.Error(), s) {
					t.Errorf("the reason shows %q: %v", s, err)
				}
			}
		})
	}
}

// A value that shares its parts, exponential to walk naively, is refused
// within the bound.
func TestCheckBounded(t *testing.T) {
	res, err := lisp.Run(context.Background(), `(reduce (fn [v _] [v v]) 1 (range 40))`, lisp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := res.Value
	err = eval.Equals(want).Verify(context.Background(), &agent.Step{Return: want})
	if err == nil || !strings.Contains(err.Error(), "too large to compare") {
		t.Errorf("got %v", err)
	}
}

func TestParseCases(t *testing.T) {
	src := `[{:name "alice" :input {:customer "alice"} :expect {:count 2 :total 130.5} :within 0.01}
 {:input {:customer "bob"} :subset {:count 0} :check (fn [r] (zero? (:total r)))}
 {:name "nobody" :input {:customer "zed"} :fails :not_found}]`
	cases, err := eval.ParseCases("orders.cases.clj", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 3 || cases[0].Name != "alice" || cases[1].Name != "case 2" {
		t.Fatalf("cases %+v", cases)
	}
	if got := cases[0].Checks[0].String(); got != "equals {:count 2, :total 130.5} within 0.01" {
		t.Errorf("check 1: %s", got)
	}
	if len(cases[1].Checks) != 2 || cases[1].Checks[1].String() != "satisfies (fn [r] (zero? (:total r)))" {
		t.Errorf("checks 2: %v", cases[1].Checks)
	}
	ok := &agent.Step{Return: lisp.NewMap(lisp.Keyword("count"), int64(0), lisp.Keyword("total"), 0.0)}
	for _, c := range cases[1].Checks {
		if err := c.Verify(context.Background(), ok); err != nil {
			t.Error(err)
		}
	}
	in, _ := cases[0].Input.(*lisp.Map)
	if v, _ := in.Get(lisp.Keyword("customer")); v != "alice" {
		t.Errorf("input %v", cases[0].Input)
	}

	bad := []struct{ src, want string }{
		{`{:name "x"}`, "f.clj:1:1: want a vector of cases"},
		{`[1]`, "f.clj:1:2: case 1 is not a map"},
		{`[{:nme "x"}]`, "f.clj:1:3: unknown key :nme"},
		{`[{:check (fn [r] (+ r)}]`, "f.clj"},
		{`[{:check (fn [r] (let [x] r))}]`, "f.clj:1:10: check (fn [r] (let [x] r))"},
		{`[{:input [1 2]}]`, "f.clj:1:10: :input wants a map"},
		{`[{:within 0.1}]`, ":within needs an :expect"},
		{`[{:name "a"} {:name "a"}]`, `two cases are named "a"`},
		{`[{:expect (+ 1 2)}]`, "f.clj:1:11"},
		{`[{:fails 3}]`, ":fails wants a reason"},
		{"[] []", "want one vector of cases, found 2 forms"},
	}
	for _, b := range bad {
		_, err := eval.ParseCases("f.clj", b.src)
		var ce *eval.CaseError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: got %v, want %q", b.src, err, b.want)
		}
	}
}

// tasks is a small suite: a task whose model answers right, and one whose
// model answers wrong every other run.
func tasks() []eval.Task {
	return []eval.Task{{
		Name:   "double",
		Config: agent.Config{Prompt: "Double {{n}}", Signature: "(n :int) -> :int"},
		Cases: []eval.Case{
			{Name: "two", Input: map[string]any{"n": 2}, Checks: []eval.Check{eval.Equals(4)}},
			{Name: "three", Input: map[string]any{"n": 3}, Checks: []eval.Check{eval.Equals(6)}},
		},
	}}
}

// doubler answers "Double N" with a program; every answer to n=3 after
// the first (calls counts them) is wrong.
func doubler(calls *atomic.Int64) llm.Func {
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		prog := "(return (* 2 ctx/n))"
		if strings.Contains(req.Prompt, "3") && calls.Add(1) > 1 {
			prog = "(return (+ 2 ctx/n))"
		}
		return llm.Response{Content: "```clojure\n" + prog + "\n```", Tokens: llm.Tokens{Input: 1000, Output: 50}}, nil
	}
}

func TestRunReport(t *testing.T) {
	var calls atomic.Int64
	rep, err := eval.Run(context.Background(), tasks(), eval.Config{
		Variants: []eval.Variant{
			{Name: "m", Model: doubler(&calls), Price: &eval.Price{Input: 1, Output: 4}},
			{Name: "m/compact", Model: llm.Func(llmtest.NewScript().Func()), Profile: "compact"},
		},
		Runs: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 12 {
		t.Fatalf("%d results", len(rep.Results))
	}
	m := rep.Variants[0]
	if m.Runs != 6 || m.PassAt1 < 0.66 || m.PassAt1 > 0.67 || m.PassAll != 0.5 {
		t.Errorf("variant m: %+v", m)
	}
	if m.Cost == nil || *m.Cost != (1000*1+50*4)/1e6 || m.TokensIn != 1000 || m.Turns != 1 {
		t.Errorf("variant m's usage: %+v", m)
	}
	if c := rep.Variants[1]; c.Passed != 0 || c.Cost != nil || c.Reasons["llm_error"] != 6 {
		t.Errorf("variant m/compact: %+v", c)
	}
	if three := rep.Cases[1].PerVariant[0]; three.Passed != 1 || three.Runs != 3 || three.Reasons["wrong_answer"] != 2 {
		t.Errorf("case three: %+v", three)
	}
	if rep.Passed() {
		t.Error("Passed() with failed runs")
	}

	var table bytes.Buffer
	if err := rep.WriteTable(&table, eval.TableOptions{NoTimings: true}); err != nil {
		t.Fatal(err)
	}
	words := strings.Join(strings.Fields(table.String()), " ")
	for _, want := range []string{"double two 3/3 0/3 ✗", "double three 1/3 ✗ 0/3 ✗", "pass@1 67% 0%", "pass^3 50% 0%",
		"cost per run $0.0012 —", "turns (errors) per run 1.0 (0.0) 1.0 (0.0)", "tokens in/out per run 1.0k / 50 0 / 0"} {
		if !strings.Contains(words, want) {
			t.Errorf("the table lacks %q:\n%s", want, table.String())
		}
	}

	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Variants []struct {
			Name    string  `json:"name"`
			PassAt1 float64 `json:"pass_at_1"`
		}
		Results []struct {
			Passed bool   `json:"passed"`
			Why    string `json:"why"`
		}
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Results) != 12 || back.Variants[1].Name != "m/compact" {
		t.Errorf("JSON %v: %s", err, js.String())
	}

	var junit bytes.Buffer
	if err := rep.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(junit.Bytes(), &suites); err != nil {
		t.Fatal(err)
	}
	if suites.Tests != 4 || suites.Failures != 3 || suites.Suites[0].Name != "m double" ||
		suites.Suites[0].Cases[1].Failure == nil || suites.Suites[0].Cases[1].Failure.Message != "2 of 3 runs failed" {
		t.Errorf("JUnit:\n%s", junit.String())
	}
}

// Run refuses what cannot run before running anything.
func TestRunRefuses(t *testing.T) {
	ok := eval.Variant{Name: "m", Model: llm.Func(llmtest.NewScript().Func())}
	bad := []struct {
		tasks []eval.Task
		cfg   eval.Config
		want  string
	}{
		{tasks(), eval.Config{}, "no model"},
		{tasks(), eval.Config{Variants: []eval.Variant{ok, ok}}, "a name of its own"},
		{append(tasks(), tasks()...), eval.Config{Variants: []eval.Variant{ok}}, "task 2: a task needs a name of its own"},
		{[]eval.Task{{Name: "x", Config: agent.Config{}}}, eval.Config{Variants: []eval.Variant{ok}}, "eval: x: invalid_config (Prompt)"},
	}
	for _, b := range bad {
		if _, err := eval.Run(context.Background(), b.tasks, b.cfg); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("got %v, want %q", err, b.want)
		}
	}
}

// A cancelled context ends the evaluation: the runs not started are left
// out and Run says why.
func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := eval.Run(ctx, tasks(), eval.Config{
		Variants: []eval.Variant{{Name: "m", Model: llm.Func(llmtest.NewScript(llmtest.Code("(return 4)")).Func())}},
		Runs:     5,
		Done: func(*eval.RunResult) {
			if n++; n == 1 {
				cancel()
			}
		},
	})
	if !errors.Is(err, context.Canceled) || n >= 10 {
		t.Errorf("err %v after %d runs", err, n)
	}
}
