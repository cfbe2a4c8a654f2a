package agent_test

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// What a program computes from firewalled values is hidden as the values
// are (docs/agents.md, "Derived values"): each case is a mission whose
// first program computes something from ctx/_secret (12 bytes) or
// ctx/_salary and shows it one way; the texts it would reveal must reach
// neither the model nor the trace, and what does not depend on them (a
// size, a public value, the program's own words) still shows.

const (
	flowSecret = "tok-3f9a1c7e"
	flowSalary = 123456
)

func flowContext() map[string]any {
	return map[string]any{"_secret": flowSecret, "_salary": flowSalary, "public": "visible", "rows": []any{1, 2, 3}}
}

func reversed(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

func TestDerivedValuesHidden(t *testing.T) {
	codes := func(s string) string {
		var parts []string
		for _, r := range s {
			parts = append(parts, strconv.Itoa(int(r)))
		}
		return strings.Join(parts, " ")
	}
	cases := []struct {
		name     string
		sig      string
		programs []string
		hidden   []string // texts that must not reach the model or the trace
		shown    []string // texts the model must still see
	}{
		{"upper-case", "", []string{`(clojure.string/upper-case ctx/_secret)`}, []string{"TOK-3F9A1C7E"}, nil},
		{"reverse", "", []string{`(apply str (reverse ctx/_secret))`}, []string{reversed(flowSecret)}, nil},
		{"short fragments", "", []string{`[(subs ctx/_secret 0 5) (subs ctx/_secret 8) (first ctx/_secret)]`},
			[]string{`"tok-3"`, `"1c7e"`, `\t`}, []string{"Value: [<Firewalled> <Firewalled> <Firewalled>]"}},
		{"character codes", "", []string{`(mapv int ctx/_secret)`}, []string{codes(flowSecret[:3])}, nil},
		{"arithmetic", "", []string{`{:x3 (* 3 ctx/_salary) :k (quot ctx/_salary 1000) :odd (odd? ctx/_salary)}`},
			[]string{strconv.Itoa(3 * flowSalary), ":k 123"}, []string{":odd <Firewalled>"}},
		{"format and str", "", []string{`(println (format "%x|%s" ctx/_salary (clojure.string/replace ctx/_secret "-" "+")) "|" (str ctx/_salary))`},
			[]string{strconv.FormatInt(flowSalary, 16), "tok+3f", strconv.Itoa(flowSalary)}, []string{"Output:"}},
		{"join and split", "", []string{`(clojure.string/join "," (clojure.string/split ctx/_secret #"-"))`}, []string{"tok,3f9a"}, nil},
		{"sizes stay visible", "", []string{`(println "length" (count ctx/_secret) (empty? ctx/_secret) ctx/public) {:n (count ctx/_secret) :up (clojure.string/upper-case ctx/_secret)}`},
			[]string{"TOK-"}, []string{"length 12 false visible", ":n 12", ":up <Firewalled>"}},
		{"error message", "", []string{`(throw (ex-info (str "bad " (clojure.string/upper-case ctx/_secret)) {:n (* 2 ctx/_salary) :ok 1}))`},
			[]string{"TOK-3F9A1C7E", strconv.Itoa(2 * flowSalary)}, []string{"bad <Firewalled>", ":ok 1", ":n <Firewalled>"}},
		{"ctx/fail", "", []string{`(throw (ex-info (subs ctx/_secret 0 6) {}))`, `(println (:message ctx/fail)) ctx/fail`},
			[]string{"tok-3f"}, nil},
		{"memory across turns", "", []string{`(def up (clojure.string/upper-case ctx/_secret)) (def n (+ 7 ctx/_salary)) 1`, `(println "got" up n) {:u up :n n}`},
			[]string{"TOK-3F9A1C7E", strconv.Itoa(flowSalary + 7)}, []string{"got <Firewalled>"}},
		{"atom", "", []string{`(def box (atom {:k (subs ctx/_secret 0 4) :public ctx/public})) box`, `(swap! box assoc :n (+ 1 ctx/_salary)) box`},
			[]string{`"tok-"`, strconv.Itoa(flowSalary + 1)}, []string{`:public "visible"`}},
		{"closure over a secret, called in a later turn", "", []string{`(let [s ctx/_secret] (defn f [] (subs s 0 6))) 1`, `(println "got" (f)) (f)`},
			[]string{`tok-3f`}, []string{"got <Firewalled>"}},
		{"delay forced in a later turn", "", []string{`(def d (delay (subs ctx/_secret 0 6))) (def pub (delay (str ctx/public "!"))) 1`, `(println "got" @d @pub) [@d @pub]`},
			[]string{`tok-3f`}, []string{"got <Firewalled>"}},
		{"future and promise", "", []string{`(def f (future (* 5 ctx/_salary))) (def p (promise)) (deliver p (clojure.string/upper-case ctx/_secret)) [@f @p]`, `(println @f @p) {:f @f :p @p}`},
			[]string{strconv.Itoa(5 * flowSalary), "TOK-3F9A1C7E"}, []string{":f <Firewalled>"}},
		{"java.util collections", "", []string{`(def l (java.util.ArrayList. [ctx/public])) (.add l (clojure.string/upper-case ctx/_secret)) (def m (java.util.HashMap.)) (.put m :n (* 3 ctx/_salary)) 1`,
			`(println "got" (str l) (.get m :n)) {:l l :m m :first (.get l 0)}`},
			[]string{"TOK-3F9A1C7E", strconv.Itoa(3 * flowSalary)}, []string{`:first "visible"`}},
		{"java.util collections holding firewalled values as they are", "", []string{`(def l (java.util.ArrayList.)) (.add l ctx/_secret) (def m (java.util.LinkedHashMap.)) (.put m :s ctx/_salary) (def q (java.util.ArrayDeque. [ctx/_secret])) 1`,
			`(println "got" l m (str q)) {:l l :m m :q q :n (count l)}`},
			[]string{flowSecret, strconv.Itoa(flowSalary)}, []string{":n 1"}},
		{"validation feedback", "{n :int, m :int}", []string{`(return {:n (clojure.string/upper-case ctx/_secret) :m 1})`, `(return (subs ctx/_secret 0 5))`},
			[]string{"TOK-3F9A1C7E", "tok-3"}, []string{"Got: {:m 1, :n <Firewalled>}", "Got: <Firewalled>"}},
		{"history", "", []string{`(subs ctx/_secret 2 7)`, `(println *1) (str *1 "!")`}, []string{"k-3f9"}, nil},
		{"public values unchanged", "", []string{`(println "rows" (count ctx/rows) (reduce + ctx/rows)) {:sum (reduce + ctx/rows) :p ctx/public}`},
			nil, []string{"rows 3 6", `{:p "visible", :sum 6}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			replies := make([]llmtest.Reply, 0, len(c.programs)+1)
			for _, p := range c.programs {
				replies = append(replies, llmtest.Code(p))
			}
			replies = append(replies, llmtest.Code(`(return {:n 1 :m 1})`))
			s := llmtest.NewScript(replies...)
			step, err := agent.MustNew(agent.Config{Prompt: "p", Signature: c.sig, MaxTurns: len(c.programs) + 2}).Run(context.Background(),
				agent.Options{LLM: s.Func(), Input: flowContext()})
			if err != nil {
				t.Fatal(err)
			}
			var shown strings.Builder
			for _, req := range s.Requests() {
				for _, m := range req.Messages {
					if m.Role == llm.User {
						shown.WriteString(m.Content + "\n")
					}
				}
			}
			var tr bytes.Buffer
			if err := trace.Print(&tr, step, trace.Options{Full: true}); err != nil {
				t.Fatal(err)
			}
			data, err := trace.Marshal(step, trace.JSONOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range c.hidden {
				for what, text := range map[string]string{"the model": shown.String(), "trace.Print": tr.String(), "the JSON trace": string(data)} {
					if strings.Contains(text, h) {
						t.Errorf("%s sees %q:\n%s", what, h, text)
					}
				}
			}
			for _, w := range c.shown {
				if !strings.Contains(shown.String(), w) {
					t.Errorf("the model does not see %q:\n%s", w, shown.String())
				}
			}
		})
	}
}

// TestDerivedValuesStayReal: the tools and the caller get the real values a
// program computed from firewalled data; only what is shown is hidden.
func TestDerivedValuesStayReal(t *testing.T) {
	var mu sync.Mutex
	var got []string
	record := agent.Tool{Func: func(_ context.Context, args *lisp.Map) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, lisp.Print(args, lisp.PrintOptions{}))
		return map[string]any{"ok": true, "len": args.Len()}, nil
	}}
	s := llmtest.NewScript(
		llmtest.Code(`(tool/record {:up (clojure.string/upper-case ctx/_secret) :n (* 2 ctx/_salary)})`),
		llmtest.Code(`(return {:up (clojure.string/upper-case ctx/_secret) :n (* 2 ctx/_salary) :len (:len *1)})`))
	step, err := agent.MustNew(agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"record": record}}).Run(context.Background(),
		agent.Options{LLM: s.Func(), Input: flowContext()})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{:n %d, :up "TOK-3F9A1C7E"}`, 2*flowSalary)
	if len(got) != 1 || got[0] != want {
		t.Errorf("the tool got %v, want once %s", got, want)
	}
	if r := printed(step.Return); r != fmt.Sprintf(`{:len 2, :n %d, :up "TOK-3F9A1C7E"}`, 2*flowSalary) {
		t.Errorf("the caller got %s", r)
	}
	// The tool's result is its own (public): the model sees it; the
	// arguments computed from the secret it does not, in the trace either.
	fb := s.LastMessage(1)
	if !strings.Contains(fb, `"len" 2`) || strings.Contains(fb, "TOK-") {
		t.Errorf("feedback:\n%s", fb)
	}
	if args := lisp.Print(step.Trace[0].ToolCalls[0].Args, lisp.PrintOptions{Redact: step.Redaction()}); args != "{:n <Firewalled>, :up <Firewalled>}" {
		t.Errorf("the recorded arguments print %s", args)
	}
	if ret := lisp.Print(step.Return, lisp.PrintOptions{Redact: step.Redaction()}); ret != "{:len 2, :n <Firewalled>, :up <Firewalled>}" {
		t.Errorf("the return prints %s behind the Step's veil", ret)
	}
}

// TestShadowRunNeverCallsTools: the shadow run replays the real run's tool
// results; every tool is called once per call the program makes, also
// when the shadow run's arguments differ or it calls more.
func TestShadowRunNeverCallsTools(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	count := agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		return map[string]any{"n": calls, "_token": "tool-secret-" + strconv.Itoa(calls)}, nil
	}}
	s := llmtest.NewScript(
		llmtest.Code(`(let [a (tool/count {:k (subs ctx/_secret 0 3)})
      b (if (= ctx/_salary 123456) (tool/count {}) nil)]
  (println "n" (:n a) (clojure.string/upper-case (:_token a)))
  [(:n a) (:n b)])`),
		llmtest.Code(`(return 1)`))
	_, err := agent.MustNew(agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"count": count}}).Run(context.Background(),
		agent.Options{LLM: s.Func(), Input: flowContext()})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 {
		t.Errorf("the tool was called %d times, want 2", calls)
	}
	fb := s.LastMessage(1)
	// (:n a) is the tool's own; the branch on the salary made the second
	// call in the real run only: what it returned shows as derived.
	for _, w := range []string{"n 1 <Firewalled>", "Value: [1 <Firewalled>]"} {
		if !strings.Contains(fb, w) {
			t.Errorf("feedback lacks %q:\n%s", w, fb)
		}
	}
	if strings.Contains(fb, "TOOL-SECRET") {
		t.Errorf("feedback shows the upper-cased token:\n%s", fb)
	}
}

// differing counts the positions at which a and b differ, and the
// characters one has beyond the other.
func differing(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	n := max(len(ra), len(rb)) - min(len(ra), len(rb))
	for i := range min(len(ra), len(rb)) {
		if ra[i] != rb[i] {
			n++
		}
	}
	return n
}

// FuzzDerivedValues builds programs that chain transformations of strings
// and numbers from firewalled and public inputs, and checks that no value
// that depends on a firewalled input reaches the model's requests: a value
// depends on one when the program gives another value with other
// firewalled inputs of the same sizes.
// traceNoise are the fields of a JSON trace or event that a number may
// match by chance: ids, times, durations, token counts.
var traceNoise = regexp.MustCompile(`"(trace_id|parent_trace_id|[a-z_]*duration_ms|time|start|tokens|input|output|system_prompt_tokens)":("[^"]*"|[0-9.]+|\{[^}]*\})`)

func FuzzDerivedValues(f *testing.F) {
	for _, seed := range []string{"\x00\x01\x02", "\x01\x05\x07\x03", "\x02\x08\x09\x0a", "\x03\x04\x04\x0b\x0c", "\x00\x06\x0d\x01"} {
		f.Add([]byte(seed))
	}
	strFns := []string{`(clojure.string/upper-case %s)`, `(clojure.string/lower-case %s)`, `(apply str (reverse %s))`,
		`(subs %s 1)`, `(str "<" %s ">")`, `(clojure.string/replace %s "-" "+")`,
		`(apply str (map (fn [c] (char (inc (int c)))) %s))`, `(str (first %s))`}
	numFns := []string{`(* 3 %s)`, `(+ %s 7)`, `(- %s)`, `(quot %s 10)`, `(mod %s 97)`}
	toNum := []string{`(int (first %s))`, `(count %s)`, `(reduce + (map int %s))`}
	// Lossy steps (a quotient, a residue, a sum of codes) at most once: a
	// chain of them ends in a value of a few hundred outcomes, which both
	// shadow runs may give (docs/agents.md, "Derived values").
	lossy := func(fn string) bool {
		return strings.HasPrefix(fn, "(quot") || strings.HasPrefix(fn, "(mod") || strings.HasPrefix(fn, "(reduce")
	}
	toStr := []string{`(str %s)`, `(format "%%x" %s)`, `(str "n=" %s)`}
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 || len(ops) > 8 {
			return
		}
		inputs := []struct {
			expr  string
			isNum bool
		}{{"ctx/_s", false}, {"ctx/_n", true}, {"ctx/p", false}, {"ctx/m", true}}
		in := inputs[int(ops[0])%len(inputs)]
		expr, isNum := in.expr, in.isNum
		lossySteps := 0
		for _, op := range ops[1:] {
			var fns []string
			switch {
			case isNum && op%4 == 0:
				fns, isNum = toStr, false
			case isNum:
				fns = numFns
			case op%4 == 0:
				fns, isNum = toNum, true
			default:
				fns = strFns
			}
			fn := fns[int(op/4)%len(fns)]
			if lossy(fn) {
				if lossySteps++; lossySteps > 1 {
					return
				}
			}
			expr = fmt.Sprintf(fn, expr)
		}
		// How the program shows the value: a turn's value and output,
		// a tool's arguments (live events), a fail's message, the
		// mission's return, a memory name.
		shows := []string{`(println "v" v) {:v v :w [v]}`, `(tool/t {:a v :b [v]}) 1`,
			`(fail {:reason :x :message (str "m " v) :details {:v v}})`, `(return v)`, `(memory/put (keyword (str "k" v)) 1) 1`}
		show := shows[int(ops[0]/4)%len(shows)]
		probe := fmt.Sprintf(`(let [v %s] {:v v})`, expr)
		program := fmt.Sprintf(`(let [v %s] %s)`, expr, show)
		ctxFor := func(s string, n int64) map[string]any {
			return map[string]any{"_s": s, "_n": n, "p": "pub-lic", "m": 31}
		}
		real, other := ctxFor("tok-3f9a1c7e", 918273), ctxFor("QRS_zyxw+Y8p", 450912)
		value := func(ctx map[string]any) (string, bool) {
			res, err := lisp.Run(context.Background(), probe, lisp.Options{Input: ctx})
			if err != nil {
				return "", false
			}
			v, _ := res.Value.(*lisp.Map).Get(lisp.Keyword("v"))
			return lisp.Print(v, lisp.PrintOptions{Display: true}), true
		}
		rv, ok := value(real)
		if !ok {
			return
		}
		ov, ok := value(other)
		if ok && differing(rv, ov) < 3 || len(rv) < 5 || strings.Contains(program, rv) {
			// Public, or a value of few outcomes (a digit, a sign): the
			// shadow runs may give it too (docs/agents.md says so).
			return
		}
		s := llmtest.NewScript(llmtest.Code(program), llmtest.Code(`(return 1)`))
		var events strings.Builder
		var mu sync.Mutex
		obs := agent.ObserverFunc(func(_ context.Context, e *agent.Event) {
			mu.Lock()
			defer mu.Unlock()
			// The texts an event carries (its times and ids are noise a
			// number could match by chance).
			fmt.Fprintln(&events, e.ArgsText, e.ResultText, e.Output, e.Warnings)
			if e.Err != nil {
				fmt.Fprintln(&events, e.Err)
			}
		})
		tools := map[string]agent.Tool{"t": {Description: "T.", Func: func(context.Context, *lisp.Map) (any, error) { return "ok", nil }}}
		step, _ := agent.MustNew(agent.Config{Prompt: "p", MaxTurns: 3, Tools: tools}).Run(context.Background(),
			agent.Options{LLM: s.Func(), Input: real, Observers: []agent.Observer{obs}})
		var shown strings.Builder
		for _, req := range s.Requests() {
			for _, m := range req.Messages {
				if m.Role == llm.User {
					shown.WriteString(m.Content + "\n")
				}
			}
		}
		data, err := trace.Marshal(step, trace.JSONOptions{})
		if err != nil {
			t.Fatal(err)
		}
		data = traceNoise.ReplaceAll(data, nil)
		failText := ""
		if step.Fail != nil {
			failText = step.Fail.Error()
		}
		mu.Lock()
		defer mu.Unlock()
		for what, text := range map[string]string{"the model": shown.String(), "the events": events.String(),
			"the JSON trace": string(data), "Fail.Error()": failText} {
			if strings.Contains(text, rv) {
				t.Fatalf("%s: %s sees %q:\n%s", program, what, rv, text)
			}
		}
	})
}

// TestDerivedValuesThroughAgents: what a child agent computed from its own
// firewalled data stays hidden from its model, and from its caller's
// model when it comes back as a public field.
func TestDerivedValuesThroughAgents(t *testing.T) {
	child := agent.MustNew(agent.Config{Prompt: "Shout the word", Description: "Shouts.", Signature: "(_s :string) -> {up :string, n :int}"})
	childModel := llmtest.NewScript(
		llmtest.Code(`(println "up:" (clojure.string/upper-case ctx/_s))`),
		llmtest.Code(`(return {:up (clojure.string/upper-case ctx/_s) :n (count ctx/_s)})`))
	tool, err := child.AsTool(agent.AsToolOptions{LLM: childModel.Func()})
	if err != nil {
		t.Fatal(err)
	}
	parent := llmtest.NewScript(
		llmtest.Code(`(let [r (tool/shout {:_s ctx/_secret})] (println "child said" (:up r) (:n r)) {:r r :u (str "<" (:up r) ">")})`),
		llmtest.Code(`(return 1)`))
	_, err = agent.MustNew(agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"shout": tool}}).Run(context.Background(),
		agent.Options{LLM: parent.Func(), Input: flowContext()})
	if err != nil {
		t.Fatal(err)
	}
	for who, s := range map[string]*llmtest.Script{"child": childModel, "parent": parent} {
		for _, req := range s.Requests() {
			for _, m := range req.Messages {
				if m.Role == llm.User && strings.Contains(m.Content, "TOK-") {
					t.Errorf("the %s's model sees the upper-cased secret:\n%s", who, m.Content)
				}
			}
		}
	}
	if fb := parent.LastMessage(1); !strings.Contains(fb, "child said <Firewalled> 12") {
		t.Errorf("parent feedback:\n%s", fb)
	}
}

// TestDerivedArgumentsToAgents: what a program passes an agent computed
// from firewalled data is hidden from the agent's model (its prompt, its
// feedback) and from the tool events of its caller, before the call is
// made; what the program passes from public data reaches it.
func TestDerivedArgumentsToAgents(t *testing.T) {
	child := agent.MustNew(agent.Config{Prompt: "Summarize {{topic}} for {{who}}", Description: "Summarizes.", Signature: "(topic :string, who :string) -> :string"})
	look := llmtest.Code(`(println "topic" ctx/topic "who" ctx/who) {:t (str "<" ctx/topic ">") :n (count ctx/topic)}`)
	childModel := llmtest.NewScript(look, llmtest.Code(`(return "ok")`), look, llmtest.Code(`(return "ok")`))
	tool, err := child.AsTool(agent.AsToolOptions{LLM: childModel.Func()})
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	var mu sync.Mutex
	obs := agent.ObserverFunc(func(_ context.Context, e *agent.Event) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e.ArgsText)
	})
	parent := llmtest.NewScript(
		llmtest.Code(`(let [a (tool/sum {:topic (clojure.string/upper-case ctx/_secret) :who ctx/public})
      b (tool/sum {:topic (str "n" (* 2 ctx/_salary)) :who "me"})]
  [a b])`),
		llmtest.Code(`(return 1)`))
	_, err = agent.MustNew(agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"sum": tool}}).Run(context.Background(),
		agent.Options{LLM: parent.Func(), Input: flowContext(), Observers: []agent.Observer{obs}})
	if err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	for _, req := range childModel.Requests() {
		seen.WriteString(req.System + "\n") // the data inventory
		for _, m := range req.Messages {
			if m.Role == llm.User {
				seen.WriteString(m.Content + "\n")
			}
		}
	}
	mu.Lock()
	seen.WriteString(strings.Join(events, "\n"))
	mu.Unlock()
	for _, hidden := range []string{"TOK-3F9A1C7E", strconv.Itoa(2 * flowSalary)} {
		if strings.Contains(seen.String(), hidden) {
			t.Errorf("the child's model or the events see %q:\n%s", hidden, seen.String())
		}
	}
	for _, shown := range []string{"who visible", "who me", ":n 7", ":n 12"} {
		if !strings.Contains(seen.String(), shown) {
			t.Errorf("the child's model does not see %q (public):\n%s", shown, seen.String())
		}
	}
}

// TestDerivedArgumentsInLiveEvents: the events of calls to Go tools,
// reported while the turn runs (before its shadow runs), hide what the
// program computed of the arguments from firewalled data: found by a probe
// for a turn's first calls, every value hidden past them; public arguments
// show while probes last, and keys always; the tool gets real values.
func TestDerivedArgumentsInLiveEvents(t *testing.T) {
	var got []string
	var mu sync.Mutex
	lookup := agent.Tool{Description: "Looks up.", Func: func(_ context.Context, args *lisp.Map) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		v, _ := args.Get("q")
		got = append(got, lisp.Print(v, lisp.PrintOptions{}))
		return "found", nil
	}}
	var events []string
	obs := agent.ObserverFunc(func(_ context.Context, e *agent.Event) {
		mu.Lock()
		defer mu.Unlock()
		if e.Kind == agent.ToolStart || e.Kind == agent.ToolStop {
			events = append(events, e.ArgsText)
		}
	})
	model := llmtest.NewScript(
		llmtest.Code(`(tool/lookup {:q (clojure.string/upper-case ctx/_secret) :who ctx/public})
(tool/lookup {:q (str (* 3 ctx/_salary)) :who "me"})
(doseq [i (range 20)] (tool/lookup {:q (str (subs ctx/_secret 0 5) i) :who ctx/public}))
1`),
		llmtest.Code(`(return 1)`))
	_, err := agent.MustNew(agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"lookup": lookup}}).Run(context.Background(),
		agent.Options{LLM: model.Func(), Input: flowContext(), Observers: []agent.Observer{obs}})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 22 || got[0] != `"TOK-3F9A1C7E"` || got[1] != strconv.Quote(strconv.Itoa(3*flowSalary)) || got[21] != `"tok-319"` {
		t.Errorf("the tool got %v, want the real values", got)
	}
	all := strings.Join(events, "\n")
	for _, hidden := range []string{"TOK-3F9A1C7E", strconv.Itoa(3 * flowSalary), "tok-3"} {
		if strings.Contains(all, hidden) {
			t.Errorf("an event shows %q:\n%s", hidden, all)
		}
	}
	if len(events) != 44 {
		t.Fatalf("%d tool events, want 44:\n%s", len(events), all)
	}
	for i, want := range map[int]string{0: `:who "visible"`, 2: `:who "me"`, 42: `{:q <Firewalled>, :who <Firewalled>}`} {
		if !strings.Contains(events[i], want) {
			t.Errorf("event %d shows %q, want %q in it", i, events[i], want)
		}
	}
}

// TestDerivedReturnHidden: a mission's return value computed whole from
// firewalled data (a scalar: no place to hide it by) is hidden in its
// events, its traces (and a raw trace read back), and in its caller when
// the mission ran as a tool; the Go caller gets it.
func TestDerivedReturnHidden(t *testing.T) {
	for _, c := range []struct {
		program string
		want    lisp.Value
		hidden  string
	}{
		{`(return (subs ctx/_secret 0 5))`, "tok-3", `"tok-3"`},
		{`(return (* 3 ctx/_salary))`, int64(3 * flowSalary), strconv.Itoa(3 * flowSalary)},
		{`(return (keyword (subs ctx/_secret 4 8)))`, lisp.Keyword("3f9a"), ":3f9a"},
	} {
		t.Run(c.hidden, func(t *testing.T) {
			obs, events := eventTexts()
			model := llmtest.NewScript(llmtest.Code(c.program))
			step, err := agent.MustNew(agent.Config{Prompt: "p", MaxTurns: 2}).Run(context.Background(),
				agent.Options{LLM: model.Func(), Input: flowContext(), Observers: []agent.Observer{obs}})
			if err != nil {
				t.Fatal(err)
			}
			if !lisp.Equal(step.Return, c.want) {
				t.Errorf("Step.Return = %v, want %v", step.Return, c.want)
			}
			sinks := stepRecords(t, step)
			sinks["the events"] = events()
			for what, text := range sinks {
				if strings.Contains(text, c.hidden) {
					t.Errorf("%s show %s:\n%s", what, c.hidden, text)
				}
			}

			// As a tool: the caller's model does not see it either.
			child := agent.MustNew(agent.Config{Prompt: "p", Description: "Computes.", Signature: "(_s :string, _n :int) -> :any", MaxTurns: 2})
			childModel := llmtest.NewScript(llmtest.Code(strings.NewReplacer("ctx/_secret", "ctx/_s", "ctx/_salary", "ctx/_n").Replace(c.program)))
			tool, err := child.AsTool(agent.AsToolOptions{LLM: childModel.Func()})
			if err != nil {
				t.Fatal(err)
			}
			parent := llmtest.NewScript(
				llmtest.Code(`(let [r (tool/calc {:_s ctx/_secret :_n ctx/_salary})] (println "child said" r) {:r r :s (str "<" r ">")})`),
				llmtest.Code(`(return 1)`))
			if _, err := agent.MustNew(agent.Config{Prompt: "p", Tools: map[string]agent.Tool{"calc": tool}}).Run(context.Background(),
				agent.Options{LLM: parent.Func(), Input: flowContext()}); err != nil {
				t.Fatal(err)
			}
			fb := parent.LastMessage(1)
			if strings.Contains(fb, strings.Trim(c.hidden, `"`)) || !strings.Contains(fb, "child said <Firewalled>") {
				t.Errorf("the caller's model sees:\n%s", fb)
			}
		})
	}
}

// TestDerivedValuesThroughChains: a Step's return value computed from
// firewalled data, chained as the next agent's context (Then), is hidden
// from that agent's model: its data inventory (where samples are copies of
// the value), its prompt and what it computes from it.
func TestDerivedValuesThroughChains(t *testing.T) {
	first := llmtest.NewScript(llmtest.Code(`(return {:k (subs ctx/_secret 0 5) :v [(subs ctx/_secret 1 4) ctx/public] :p ctx/public})`))
	step, err := agent.MustNew(agent.Config{Prompt: "p", MaxTurns: 2}).Run(context.Background(), agent.Options{LLM: first.Func(), Input: flowContext()})
	if err != nil {
		t.Fatal(err)
	}
	next := llmtest.NewScript(llmtest.Code(`(println "got" ctx/k ctx/v) (str "<" ctx/k ">")`), llmtest.Code(`(return 1)`))
	if _, err := agent.Then(context.Background(), step, agent.MustNew(agent.Config{Prompt: "Use {{k}} and {{p}}", MaxTurns: 3}),
		agent.Options{LLM: next.Func()}); err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	for _, r := range next.Requests() {
		seen.WriteString(r.System + "\n")
		for _, m := range r.Messages {
			seen.WriteString(m.Content + "\n")
		}
	}
	for _, hidden := range []string{"tok-3", `"ok-"`} {
		if strings.Contains(seen.String(), hidden) {
			t.Errorf("the next agent's model sees %s:\n%s", hidden, seen.String())
		}
	}
	for _, shown := range []string{`[<Firewalled> "visible"]`, "Use <Firewalled> and visible"} {
		if !strings.Contains(seen.String(), shown) {
			t.Errorf("the next agent's model does not see %s:\n%s", shown, seen.String())
		}
	}
}

// TestDerivedValuesInRecords: fragments too short for the scrubber (a
// 5-character prefix of the secret, the salary plus one), computed in the
// ways a mission records them, reach neither the model, the events, the
// traces (a raw trace read back included) nor Fail.Error(); what is public
// beside them still shows.
func TestDerivedValuesInRecords(t *testing.T) {
	cases := []struct {
		name     string
		programs []string
		shown    []string // in the model's messages, or in Fail.Error()
	}{
		{"def", []string{`(def p (subs ctx/_secret 0 5)) 1`, `(return 1)`}, nil},
		{"memory/put", []string{`(memory/put :p (subs ctx/_secret 0 5)) 1`, `(return 1)`}, nil},
		{"atom", []string{`(def a (atom (subs ctx/_secret 0 5))) 1`, `(return 1)`}, nil},
		{"map result in memory", []string{`{:n (count ctx/rows) :s (subs ctx/_secret 0 5)}`, `(println "n is" n "s is" s) [n s]`, `(return 1)`},
			[]string{"n is 3 s is <Firewalled>", "Value: [3 <Firewalled>]"}},
		{"derived memory name", []string{`{(subs ctx/_secret 0 5) 1 :pub 2}`, `(return 1)`}, []string{"Memory: pub, <Firewalled>"}},
		{"history", []string{`(subs ctx/_secret 0 5)`, `(return *1)`}, nil},
		{"returned vector", []string{`(return [(subs ctx/_secret 0 5) ctx/public])`}, nil},
		{"returned keyword", []string{`(return {:k (keyword (subs ctx/_secret 0 5))})`}, nil},
		{"fail map", []string{`(fail {:reason :x :message (str "bad " (subs ctx/_secret 0 5)) :details {:n (+ 1 ctx/_salary) :p ctx/public}})`},
			[]string{"x: <Firewalled>"}}, // the message, a derived text of 8 bytes, is scrubbed whole
		{"fail value", []string{`(fail (subs ctx/_secret 0 5))`}, nil},
		{"number", []string{`(def n (+ 1 ctx/_salary)) (println "n=" n) n`, `(return {:n n})`}, []string{"n= <Firewalled>"}},
		{"ex-data", []string{`(throw (ex-info "boom" {:p (subs ctx/_secret 0 5) :q 1}))`}, []string{"boom", ":q 1"}},
	}
	hidden := []string{"tok-3", strconv.Itoa(flowSalary + 1)}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obs, events := eventTexts()
			replies := make([]llmtest.Reply, 0, len(c.programs))
			for _, p := range c.programs {
				replies = append(replies, llmtest.Code(p))
			}
			model := llmtest.NewScript(replies...)
			step, _ := agent.MustNew(agent.Config{Prompt: "p", MaxTurns: len(c.programs)}).Run(context.Background(),
				agent.Options{LLM: model.Func(), Input: flowContext(), Observers: []agent.Observer{obs}})
			sinks := stepRecords(t, step)
			msgs := modelSaw(model, false)
			sinks["the model"], sinks["the events"] = msgs, events()
			for what, text := range sinks {
				for _, h := range hidden {
					if i := strings.Index(text, h); i >= 0 {
						t.Errorf("%s shows %s: …%s…", what, h, text[max(0, i-60):min(len(text), i+30)])
					}
				}
			}
			for _, w := range c.shown {
				if !strings.Contains(msgs+sinks["Fail.Error()"], w) {
					t.Errorf("%q is not shown:\n%s\n%s", w, msgs, sinks["Fail.Error()"])
				}
			}
		})
	}
}

// TestDerivedArgumentChecks: the runtime's check of a tool's arguments
// quotes them, in its coercion warnings and its errors: what the program
// computed from firewalled data is hidden there (the model's feedback, the
// trace, the live events), a public argument is quoted as it is, and the
// tool gets the real, coerced value.
func TestDerivedArgumentChecks(t *testing.T) {
	var got []int64
	var mu sync.Mutex
	num := agent.Tool{Signature: "(n :int) -> :int", Description: "A number.", Func: func(_ context.Context, args *lisp.Map) (any, error) {
		n, _ := args.Get(lisp.Keyword("n"))
		mu.Lock()
		defer mu.Unlock()
		got = append(got, n.(int64))
		return 1, nil
	}}
	obs, events := eventTexts()
	// An agent's arguments are checked alike, before it runs.
	kid, err := agent.MustNew(agent.Config{Prompt: "p", Description: "K.", Signature: "(n :int) -> :int"}).AsTool(agent.AsToolOptions{
		LLM: llmtest.NewScript(llmtest.Code(`(return 1)`)).Func()})
	if err != nil {
		t.Fatal(err)
	}
	model := llmtest.NewScript(
		llmtest.Code(`(tool/num {:n (str (+ 1 ctx/_salary))}) (tool/num {:n "12"}) (tool/num {:n (str "x" (subs ctx/_secret 0 3))})`),
		llmtest.Code(`(tool/num {:n "abc"})`),
		llmtest.Code(`(tool/kid {:n (str "y" (subs ctx/_secret 0 3))})`),
		llmtest.Code(`(return 1)`))
	step, err := agent.MustNew(agent.Config{Prompt: "p", MaxTurns: 4, Tools: map[string]agent.Tool{"num": num, "kid": kid}}).Run(context.Background(),
		agent.Options{LLM: model.Func(), Input: flowContext(), Observers: []agent.Observer{obs}})
	if err != nil {
		t.Fatal(err)
	}
	sinks := stepRecords(t, step)
	msgs := modelSaw(model, false)
	sinks["the model"], sinks["the events"] = msgs, events()
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(got, []int64{flowSalary + 1, 12}) {
		t.Errorf("the tool got %v", got)
	}
	for what, text := range sinks {
		for _, h := range []string{strconv.Itoa(flowSalary + 1), "xtok", "ytok"} {
			if i := strings.Index(text, h); i >= 0 {
				t.Errorf("%s shows %s: …%s…", what, h, text[max(0, i-60):min(len(text), i+30)])
			}
		}
	}
	for _, w := range []string{`n: coerced "<Firewalled>" to :int`, `n: coerced "12" to :int`, `got "<Firewalled>"`, `got "abc"`} {
		if !strings.Contains(msgs, w) {
			t.Errorf("the model does not see %q:\n%s", w, msgs)
		}
	}
}

// eventTexts returns an observer that records every event's JSON form and
// error text (without times and durations, which a number could match by
// chance), and a function that returns what it recorded so far.
func eventTexts() (agent.Observer, func() string) {
	var mu sync.Mutex
	var b strings.Builder
	obs := agent.ObserverFunc(func(_ context.Context, e *agent.Event) {
		mu.Lock()
		defer mu.Unlock()
		data, _ := e.MarshalJSON()
		b.Write(traceNoise.ReplaceAll(data, nil))
		if e.Err != nil {
			b.WriteString(e.Err.Error())
		}
	})
	return obs, func() string {
		mu.Lock()
		defer mu.Unlock()
		return b.String()
	}
}

// modelSaw is every message the scripted model was sent, each request's
// system prompt first when system is set.
func modelSaw(s *llmtest.Script, system bool) string {
	var b strings.Builder
	for _, r := range s.Requests() {
		if system {
			b.WriteString(r.System + "\n")
		}
		for _, m := range r.Messages {
			b.WriteString(m.Content + "\n")
		}
	}
	return b.String()
}

// stepRecords are the records a Step leaves for readers outside the
// firewall, by name: trace.Print, the JSON trace, a raw trace read back
// and printed, and Fail.Error().
func stepRecords(t testing.TB, step *agent.Step) map[string]string {
	t.Helper()
	var printed, reprinted bytes.Buffer
	if err := trace.Print(&printed, step, trace.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	redacted, err := trace.Marshal(step, trace.JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := trace.Marshal(step, trace.JSONOptions{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	back, err := trace.Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := trace.Print(&reprinted, back, trace.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	failText := ""
	if step.Fail != nil {
		failText = step.Fail.Error()
	}
	return map[string]string{"trace.Print": printed.String(), "the JSON trace": string(traceNoise.ReplaceAll(redacted, nil)),
		"a raw trace read back": reprinted.String(), "Fail.Error()": failText}
}
