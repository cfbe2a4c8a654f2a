package agent

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
	"github.com/ptc-go/ptc/signature"
)

var update = flag.Bool("update", false, "rewrite the golden files of agent/testdata/prompts")

func nopTool(context.Context, *lisp.Map) (any, error) { return map[string]any{}, nil }

// typicalOrders are 120 rows, the context of the typical agent.
func typicalOrders() []map[string]any {
	orders := make([]map[string]any, 120)
	statuses := []string{"paid", "open", "refunded"}
	for i := range orders {
		orders[i] = map[string]any{"id": i + 1, "customer_id": 100 + i%7,
			"total": float64(i*37%500) + 0.5, "status": statuses[i%3]}
	}
	return orders
}

func typicalContext() map[string]any {
	return map[string]any{
		"region":   "EMEA",
		"orders":   typicalOrders(),
		"fx_rates": map[string]any{"USD": 1.08, "GBP": 0.86},
	}
}

type customerArgs struct {
	ID int `json:"id" desc:"the customer's id, as in orders"`
}

type customer struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	Tier  string `json:"tier"`
	Email string `json:"_email"`
}

// typicalConfig is the agent the prompt budget is measured on: three tools
// with signatures (one typed, with a field description), a signature with
// a firewalled output field and context descriptions.
func typicalConfig(lang string) Config {
	getCustomer := NewTool("One customer by id.", func(ctx context.Context, in customerArgs) (customer, error) {
		return customer{ID: in.ID, Name: "Ann"}, nil
	})
	return Config{
		Prompt:    "Find the three largest paid orders of {{region}} and the customers who placed them.",
		Signature: "(region :string) -> {top [{id :int, total :float, customer :string}], count :int, _order_ids [:int]}",
		Tools: map[string]Tool{
			"search-orders": {Func: nopTool, Description: "Orders of a region, newest first.",
				Signature: "(region :string, status :string?, limit :int?) -> [{id :int, customer_id :int, total :float, status :string}]"},
			"get-customer": getCustomer,
			"send-report": {Func: nopTool, Description: "Files a report for the sales team.",
				Signature: "(title :string, body :string) -> {ok :bool}"},
		},
		Presentation: prompt.Options{InputDescriptions: map[string]string{"orders": "this quarter's orders", "fx_rates": "exchange rates to EUR"}, Language: lang},
	}
}

// singleShotConfig is a typical single-shot agent: no tools, one turn.
func singleShotConfig(lang string) Config {
	return Config{
		Prompt:            "Which share of the {{region}} orders is refunded?",
		Signature:         "(region :string) -> {refunded :int, share :float}",
		FieldDescriptions: map[string]string{"share": "refunded / all, between 0 and 1"},
		MaxTurns:          1,
		Presentation:      prompt.Options{InputDescriptions: map[string]string{"orders": "this quarter's orders", "fx_rates": "exchange rates to EUR"}, Language: lang},
	}
}

func preview(t testing.TB, cfg Config, opts Options) *prompt.Preview {
	t.Helper()
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.Preview(opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func system(t testing.TB, cfg Config, ctx any) string {
	t.Helper()
	return preview(t, cfg, Options{Input: ctx}).System
}

// TestGoldenPrompts pins the whole system prompt of the typical agents,
// and their size: the prompt is paid for on every turn (go test -update
// rewrites the files).
func TestGoldenPrompts(t *testing.T) {
	cases := []struct {
		file     string
		cfg      Config
		maxChars int // ~4 characters per token
	}{
		// Issue 40 stated every limit in the prompt and issue 39 added
		// exceptions and tools' ex-data; together they may grow each prompt
		// by 5% at most over its size before them (5,033, 2,895, 3,150 and
		// 1,824 characters).
		{"default_multi.txt", typicalConfig("default"), 5033 * 105 / 100},
		{"compact_multi.txt", typicalConfig("compact"), 2895 * 105 / 100},
		{"default_single.txt", singleShotConfig("default"), 3150 * 105 / 100},
		{"compact_single.txt", singleShotConfig("compact"), 1824 * 105 / 100},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got := system(t, c.cfg, typicalContext())
			t.Logf("%s: %d chars, ~%d tokens", c.file, len(got), estimateTokens(got))
			if len(got) > c.maxChars {
				t.Errorf("the prompt has %d chars, over its budget of %d", len(got), c.maxChars)
			}
			path := filepath.Join("testdata", "prompts", c.file)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("the prompt differs from %s (go test -update to accept):\n%s", path, got)
			}
		})
	}
}

// TestPreviewIsTurnOne checks that the preview is exactly what Run sends
// on its first turn.
func TestPreviewIsTurnOne(t *testing.T) {
	for _, lang := range []string{"default", "compact"} {
		cfg := typicalConfig(lang)
		p := preview(t, cfg, Options{Input: typicalContext()})
		script := llmtest.NewScript(llmtest.Code(`(return {:top [] :count 0 :_order_ids []})`))
		if _, err := MustNew(cfg).Run(context.Background(), Options{LLM: script.Func(), Input: typicalContext()}); err != nil {
			t.Fatal(err)
		}
		req := script.Requests()[0]
		if req.System != p.System {
			t.Errorf("%s: the preview's system prompt differs from turn 1's", lang)
		}
		if len(req.Messages) != 1 || req.Messages[0].Content != p.User {
			t.Errorf("%s: the preview's user message %q differs from turn 1's %v", lang, p.User, req.Messages)
		}
	}
}

func TestPreviewUserAndErrors(t *testing.T) {
	p := preview(t, typicalConfig(""), Options{Input: typicalContext()})
	if want := "Find the three largest paid orders of EMEA and the customers who placed them."; p.User != want {
		t.Errorf("User = %q, want %q", p.User, want)
	}
	a := MustNew(typicalConfig(""))
	if _, err := a.Preview(Options{Input: map[string]any{"region": 42}}); err == nil {
		t.Error("a context that breaks the signature should be an error")
	}
	var f *Fail
	if _, err := a.Preview(Options{Input: &Step{Fail: &Fail{Reason: "boom", Message: "x"}}}); !errors.As(err, &f) || f.Reason != ReasonChainedFailure {
		t.Errorf("a failed step: got %v, want a chained_failure", err)
	}
	b := MustNew(Config{Prompt: "Hello {{name}}"})
	if _, err := b.Preview(Options{}); !errors.As(err, &f) || f.Reason != ReasonTemplateError {
		t.Errorf("a missing placeholder: got %v, want a template_error", err)
	}
}

func TestSystemPromptSections(t *testing.T) {
	multi := system(t, typicalConfig(""), typicalContext())
	order := []string{"You solve the user's task", "## PTC-Lisp", "## Turns", "## Errors", "## Data", "## Tools", "## Reply"}
	last := -1
	for _, s := range order {
		i := strings.Index(multi, s)
		if i <= last {
			t.Fatalf("section %q missing or out of order in:\n%s", s, multi)
		}
		last = i
	}
	for _, s := range []string{"(return v), v matching: {top [{id :int, total :float, customer :string}], count :int, _order_ids [:int]}",
		"Limits per program: 5s, 1,000,000 loop iterations, 5,000 nested calls, 1,000 tool calls, 64 MB of new data.", "ctx/fail", "memory/name", "*1 *2 *3",
		"(cut to 10 items and 512 chars)", "except :return, whose value you are shown instead"} {
		if !strings.Contains(multi, s) {
			t.Errorf("the multi-turn prompt lacks %q", s)
		}
	}

	single := system(t, singleShotConfig(""), typicalContext())
	for _, s := range []string{"one PTC-Lisp program", "no (return ...) needed", "The answer must match: {refunded :int, share :float}\n; share: refunded / all, between 0 and 1"} {
		if !strings.Contains(single, s) {
			t.Errorf("the single-shot prompt lacks %q:\n%s", s, single)
		}
	}
	for _, s := range []string{"## Turns", "## Errors", "ctx/fail", "## Tools", "tool/", "tool calls", "pmap"} {
		if strings.Contains(single, s) {
			t.Errorf("the single-shot prompt should not mention %q:\n%s", s, single)
		}
	}

	keep := typicalConfig("")
	keep.KeepMaps = true
	if s := system(t, keep, typicalContext()); strings.Contains(s, ":return entry") {
		t.Error("with KeepMaps the prompt should not explain map results")
	}

	noTools := typicalConfig("")
	noTools.Tools = nil
	s := system(t, noTools, typicalContext())
	if strings.Contains(s, Firewalled) {
		t.Error("nothing can be firewalled: the prompt should not explain " + Firewalled)
	}
	withHidden := typicalContext()
	withHidden["_n"] = 42
	if s := system(t, noTools, withHidden); !strings.Contains(s, "Values shown as "+Firewalled) {
		t.Error("a firewalled context entry should be explained")
	}
	if !strings.Contains(s, "## Tools\nNone: compute the answer from the ctx data.") {
		t.Errorf("a multi-turn agent without tools should say so:\n%s", s)
	}
	if strings.Contains(s, "(tool/name") || strings.Contains(s, "tool calls") {
		t.Error("without tools, the tool rules and limits should be left out")
	}

	one := typicalConfig("")
	one.MaxTurns = 1
	if s := system(t, one, typicalContext()); !strings.Contains(s, "You have one turn, and no second: the program must return or fail, one program per reply.") {
		t.Errorf("one turn with tools:\n%s", s)
	}

	limits := typicalConfig("")
	limits.Limits = lisp.Limits{Timeout: 2e9, MaxLoopIterations: -1, MaxToolCalls: 50}
	if s := system(t, limits, typicalContext()); !strings.Contains(s, "Limits per program: 2s, 5,000 nested calls, 50 tool calls, 64 MB of new data.") {
		t.Errorf("the limits line should follow Config.Limits:\n%s", s)
	}
}

func TestToolsSection(t *testing.T) {
	cfg := Config{
		Prompt: "x",
		Tools: map[string]Tool{
			"plain": {Func: nopTool, Description: "No contract.\n  Second line."},
			"now":   {Func: nopTool, Signature: "-> :string"},
			"shown": {Func: nopTool, Description: `Looks a SKU up: (tool/shown {:sku "A-1" :warehouse "east"}) gives its stock.`},
			"keys": {Func: nopTool, Description: "Forecast.", FieldDescriptions: map[string]string{
				"days": "how many days ahead, 1 to 7", "city": "a city name"}},
		},
		ToolCatalog: map[string]Tool{
			"archive": {Signature: "(id :int) -> {ok :bool, _receipt :string}", Description: "Archives an order."},
		},
	}
	s := system(t, cfg, nil)
	for _, want := range []string{
		"(tool/now)\n  () -> :string\n",
		"(tool/plain {...}) ; No contract. Second line.\n  arguments: a map, as the description says; result: any value\n",
		// An untyped tool's calling form, from its description or its
		// FieldDescriptions.
		`(tool/shown {:sku "A-1" :warehouse "east"}) ; Looks a SKU up: (tool/shown {:sku "A-1" :warehouse "east"}) gives its stock.` + "\n  result: any value\n",
		"(tool/keys {:city ... :days ...}) ; Forecast.\n  ; city: a city name\n  ; days: how many days ahead, 1 to 7\n  result: any value\n",
		"For planning only, not callable here:\n- archive (id :int) -> {ok :bool} ; Archives an order.",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the tools section lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "_receipt") {
		t.Error("a catalog entry's firewalled field is shown")
	}
}

func TestToolSchemas(t *testing.T) {
	a := MustNew(typicalConfig(""))
	ts := a.ToolSchemas()
	var names []string
	for _, s := range ts {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "get-customer search-orders send-report" {
		t.Fatalf("names = %s", got)
	}
	gc := ts[0]
	if gc.Signature != "(id :int) -> {id :int, name :string, tier :string}" || gc.Description != "One customer by id." {
		t.Errorf("get-customer = %+v", gc)
	}
	props := gc.OutputSchema["properties"].(map[string]any)
	if _, ok := props["_email"]; ok || len(props) != 3 {
		t.Errorf("the output schema should omit _email: %v", gc.OutputSchema)
	}
	if gc.InputSchema["type"] != "object" {
		t.Errorf("input schema = %v", gc.InputSchema)
	}
	b := MustNew(Config{Prompt: "x", Tools: map[string]Tool{"raw": Tool{Func: nopTool}}})
	raw := b.ToolSchemas()[0]
	if raw.Signature != "" || raw.InputSchema["type"] != "object" || raw.OutputSchema == nil {
		t.Errorf("a tool without a signature: %+v", raw)
	}
}

func TestCustomization(t *testing.T) {
	ctx := map[string]any{"region": "EMEA"}
	base := func(mod func(*prompt.Options)) Config {
		cfg := typicalConfig("")
		mod(&cfg.Presentation)
		return cfg
	}
	cases := []struct {
		name  string
		sp    func(*prompt.Options)
		check func(t *testing.T, s string)
	}{
		{"prefix and suffix", func(sp *prompt.Options) { sp.Prefix, sp.Suffix = "PERSONA: analyst.", "ALWAYS double-check." },
			func(t *testing.T, s string) {
				if !strings.HasPrefix(s, "PERSONA: analyst.\n\nYou solve") || !strings.HasSuffix(s, "\n\nALWAYS double-check.") {
					t.Errorf("prefix/suffix misplaced:\n%s", s)
				}
			}},
		{"language text", func(sp *prompt.Options) { sp.Language = "MY DSL: write (ok) forms only." },
			func(t *testing.T, s string) {
				if !strings.Contains(s, "the data and tools below and shows you what it did; the value you return is the answer.\n\nMY DSL: write (ok) forms only.\n\n## Turns") {
					t.Errorf("a custom language text should replace the reference, in place:\n%s", s)
				}
				if strings.Contains(s, "## PTC-Lisp") {
					t.Error("the built-in reference is still there")
				}
			}},
		{"compact", func(sp *prompt.Options) { sp.Language = "compact" },
			func(t *testing.T, s string) {
				if !strings.Contains(s, "## PTC-Lisp, a Clojure subset") || strings.Contains(s, "## Errors") {
					t.Errorf("not the compact prompt:\n%s", s)
				}
			}},
		{"language func returns a profile", func(sp *prompt.Options) { sp.LanguageFunc = func(prompt.State) string { return "compact" } },
			func(t *testing.T, s string) {
				if !strings.Contains(s, "## PTC-Lisp, a Clojure subset") {
					t.Errorf("a LanguageFunc may name a profile:\n%s", s)
				}
			}},
		{"language func returns nothing", func(sp *prompt.Options) { sp.LanguageFunc = func(prompt.State) string { return "" } },
			func(t *testing.T, s string) {
				if !strings.Contains(s, "## PTC-Lisp\nClojure syntax") {
					t.Errorf("an empty LanguageFunc result should fall back to Language:\n%s", s)
				}
			}},
		{"output format", func(sp *prompt.Options) { sp.OutputFormat = "Answer in a ```lisp block." },
			func(t *testing.T, s string) {
				if !strings.HasSuffix(s, "\n\nAnswer in a ```lisp block.") || strings.Contains(s, "## Reply") {
					t.Errorf("OutputFormat should replace the reply section:\n%s", s)
				}
			}},
		{"transform", func(sp *prompt.Options) {
			sp.Suffix = "end"
			sp.Transform = func(p string) string { return strings.ReplaceAll(p, "PTC-Lisp", "MyLisp") + "\nEXTRA" }
		},
			func(t *testing.T, s string) {
				if strings.Contains(s, "PTC-Lisp") || !strings.HasSuffix(s, "end\nEXTRA") {
					t.Errorf("Transform should see the whole prompt, suffix included:\n%s", s)
				}
			}},
		{"override", func(sp *prompt.Options) {
			sp.Override = "Only this."
			sp.Prefix = "ignored"
			sp.Transform = func(string) string { return "not called" }
		},
			func(t *testing.T, s string) {
				if s != "Only this." {
					t.Errorf("Override = %q", s)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.check(t, system(t, base(c.sp), ctx)) })
	}
}

func TestMaxChars(t *testing.T) {
	full := system(t, typicalConfig(""), typicalContext())
	for _, limit := range []int{2000, 500, 60, 10} {
		cfg := typicalConfig("")
		cfg.Presentation.SystemMaxChars = limit
		s := system(t, cfg, typicalContext())
		if n := len([]rune(s)); n > limit {
			t.Errorf("MaxChars %d: %d chars", limit, n)
		}
		if limit >= 60 && !strings.HasSuffix(s, fmt.Sprintf("[... system prompt cut to %d characters]", limit)) {
			t.Errorf("MaxChars %d: no note at the end:\n%s", limit, s)
		}
		if !strings.HasPrefix(full, strings.TrimSuffix(s, fmt.Sprintf("\n[... system prompt cut to %d characters]", limit))) {
			t.Errorf("MaxChars %d: the kept part is not a prefix of the prompt", limit)
		}
	}
	cfg := typicalConfig("")
	cfg.Presentation.SystemMaxChars = 1 << 20
	if s := system(t, cfg, typicalContext()); s != full {
		t.Error("a prompt under MaxChars should not change")
	}
	cfg.Presentation.Override = strings.Repeat("x", 100)
	cfg.Presentation.SystemMaxChars = 80
	if s := system(t, cfg, typicalContext()); len(s) > 80 {
		t.Errorf("MaxChars should bound an Override too: %d chars", len(s))
	}
}

// TestLanguageFuncState runs a mission to check what a LanguageFunc sees
// on each turn, and that its text is sent.
func TestLanguageFuncState(t *testing.T) {
	var states []prompt.State
	cfg := Config{
		Prompt: "Count to two.",
		Presentation: prompt.Options{LanguageFunc: func(st prompt.State) string {
			states = append(states, st)
			return fmt.Sprintf("LANG FOR TURN %d", st.Turn)
		}},
	}
	script := llmtest.NewScript(llmtest.Code("(def n 1)"), llmtest.Code("(return (inc n))"))
	model := llm.Func(script.Func())
	step, err := MustNew(cfg).Run(context.Background(), Options{LLM: model})
	if err != nil {
		t.Fatal(err)
	}
	if step.Return != int64(2) || len(states) != 2 {
		t.Fatalf("return %v, %d states", step.Return, len(states))
	}
	if states[0].Turn != 1 || states[1].Turn != 2 {
		t.Errorf("turns %d, %d", states[0].Turn, states[1].Turn)
	}
	if len(states[0].Memory) != 0 || strings.Join(states[1].Memory, ",") != "n" {
		t.Errorf("memory %v, %v", states[0].Memory, states[1].Memory)
	}
	if len(states[0].Messages) != 1 || len(states[1].Messages) != 3 || states[0].Messages[0].Content != "Count to two." {
		t.Errorf("messages %v, %v", states[0].Messages, states[1].Messages)
	}
	if states[0].Model == nil {
		t.Error("the model is missing")
	}
	for i, req := range script.Requests() {
		if want := fmt.Sprintf("LANG FOR TURN %d", i+1); !strings.Contains(req.System, want) {
			t.Errorf("turn %d: the system prompt lacks %q", i+1, want)
		}
	}
}

// --- The data inventory ---

func inventoryOf(t testing.TB, cfg Config, opts Options) string {
	t.Helper()
	s := preview(t, cfg, opts).System
	i := strings.Index(s, "## Data\n")
	if i < 0 {
		t.Fatalf("no data section in:\n%s", s)
	}
	s = s[i:]
	if j := strings.Index(s[1:], "\n\n"); j >= 0 {
		s = s[:j+1]
	}
	return s + "\n"
}

func TestInventoryTypes(t *testing.T) {
	ctx := map[string]any{
		"rows": []any{
			map[string]any{"id": 1, "price": 2, "tags": []string{"a"}},
			map[string]any{"id": 2, "price": 2.5, "note": nil},
			map[string]any{"id": 3, "price": 3, "note": "x"},
		},
		"count":   7,
		"ratio":   0.5,
		"flag":    true,
		"status":  lisp.Keyword("open"),
		"nothing": nil,
		"mixed":   []any{1, "a"},
		"empty":   []any{},
		"nested":  map[string]any{"user": map[string]any{"name": "Ann", "langs": []string{"go"}}},
		"weird":   map[string]any{"content type": "json", "Content-Type": "x"},
		"big":     bigMap(40),
		"set":     lisp.NewSet(int64(1), int64(2)),
	}
	inv := inventoryOf(t, Config{Prompt: "x"}, Options{Input: ctx})
	for _, want := range []string{
		"ctx/rows [{id :int, price :float, tags [:string]?, note :string?}] (3 items)\n",
		"ctx/count :int\n  7\n",
		"ctx/ratio :float\n  0.5\n",
		"ctx/flag :bool\n  true\n",
		"ctx/status :keyword\n  :open\n",
		"ctx/nothing :nil\n  nil\n",
		"ctx/mixed [:any] (2 items)\n",
		"ctx/empty [:any] (0 items)\n  []\n",
		"ctx/nested {user {langs [:string], name :string}} (1 key)\n",
		`ctx/weird {Content-Type :string, "content type" :string} (2 keys)`,
		"ctx/big :map (40 keys)\n",
		"ctx/set #{:int} (2 items)\n  #{1 2}\n",
	} {
		if !strings.Contains(inv, want) {
			t.Errorf("the inventory lacks %q:\n%s", want, inv)
		}
	}
}

func bigMap(n int) map[string]any {
	m := map[string]any{}
	for i := 0; i < n; i++ {
		m[fmt.Sprintf("k%03d", i)] = i
	}
	return m
}

func TestInventoryDeclaredTypesAndDescriptions(t *testing.T) {
	cfg := Config{
		Prompt:            "x {{user}}",
		Signature:         "(user :string, limit :int?) -> :int",
		FieldDescriptions: map[string]string{"limit": "rows at most"},
		Presentation:      prompt.Options{InputDescriptions: map[string]string{"user": "who asks", "rows": "  the data,\n  all of it "}},
	}
	ctx := map[string]any{"user": "ann", "limit": 5, "rows": []any{map[string]any{"a": 1}}, "extra": "e"}
	inv := inventoryOf(t, cfg, Options{Input: ctx, InputSignature: "{rows [{a :float, b :string?}], extra :keyword}"})
	for _, want := range []string{
		"ctx/user :string ; who asks\n",                                      // parameter type, ContextDescriptions
		"ctx/limit :int? ; rows at most\n",                                   // parameter type and description
		"ctx/rows [{a :float, b :string?}] (1 item) ; the data, all of it\n", // the context signature wins
		"ctx/extra :keyword\n",
	} {
		if !strings.Contains(inv, want) {
			t.Errorf("the inventory lacks %q:\n%s", want, inv)
		}
	}

	// A chained step brings its signature and field descriptions.
	prev := &Step{
		Return:            mustFromGo(t, map[string]any{"count": 3, "names": []string{"a", "b"}}),
		Signature:         mustSig("{count :int, names [:string]}"),
		fieldDescriptions: map[string]string{"count": "how many were found"},
	}
	inv = inventoryOf(t, Config{Prompt: "x"}, Options{Input: prev})
	for _, want := range []string{"ctx/count :int ; how many were found\n  3\n", "ctx/names [:string] (2 items)\n  [\"a\" \"b\"]\n"} {
		if !strings.Contains(inv, want) {
			t.Errorf("the chained inventory lacks %q:\n%s", want, inv)
		}
	}
}

func TestInventorySamplesBounded(t *testing.T) {
	long := strings.Repeat("abcdefghij", 100)
	rows := make([]any, 50)
	for i := range rows {
		rows[i] = map[string]any{"id": i, "text": long, "tags": []any{1, 2, 3, 4, 5, 6}}
	}
	ctx := map[string]any{"rows": rows, "doc": long, "wide": bigMap(30), "deep": deep(12)}
	cfg := Config{Prompt: "x", Presentation: prompt.Options{InputItems: 2, InputChars: 20}}
	inv := inventoryOf(t, cfg, Options{Input: ctx})
	for _, want := range []string{
		"ctx/doc :string (1,000 chars)\n  \"abcdefghijabcdefghij...\"\n",
		"ctx/rows [{id :int, tags [:int], text :string}] (50 items)\n  [{\"id\" 0, \"tags\" [1 2 ... (4 more)], \"text\" \"abcdefghijabcdefghij...\"} ",
		"ctx/wide :map (30 keys)\n  {\"k000\" 0, \"k001\" 1, ",
		", ... (20 more)}",
	} {
		if !strings.Contains(inv, want) {
			t.Errorf("the inventory lacks %q:\n%s", want, inv)
		}
	}
	for _, line := range strings.Split(inv, "\n") {
		if len([]rune(line)) > 2+20+sampleExtraChars && strings.HasPrefix(line, "  ") {
			t.Errorf("sample line of %d chars: %s", len(line), line)
		}
	}
	if strings.Contains(inv, strings.Repeat("abcdefghij", 3)) {
		t.Error("a string was not cut to StringChars")
	}
	if strings.Contains(inv, "\U0010FFFF") || strings.Contains(inv, `""`) {
		t.Errorf("a marker leaked:\n%s", inv)
	}

	none := Config{Prompt: "x", Presentation: prompt.Options{InputItems: -1}}
	inv = inventoryOf(t, none, Options{Input: map[string]any{"rows": rows, "n": 1}})
	if strings.Contains(inv, `[{"id"`) || !strings.Contains(inv, "ctx/n :int\n  1") || strings.Contains(inv, "first") {
		t.Errorf("ListItems < 0 should drop collection samples only:\n%s", inv)
	}
}

func deep(n int) any {
	var v any = "bottom"
	for i := 0; i < n; i++ {
		v = []any{v}
	}
	return v
}

func TestInventoryManyEntries(t *testing.T) {
	ctx := map[string]any{"bad key": 1, "": 2}
	for i := 0; i < inventoryEntries+inventoryNames+5; i++ {
		ctx[fmt.Sprintf("e%03d", i)] = i
	}
	inv := inventoryOf(t, Config{Prompt: "x"}, Options{Input: ctx})
	if strings.Count(inv, "\nctx/") != inventoryEntries {
		t.Errorf("%d entries described, want %d", strings.Count(inv, "\nctx/"), inventoryEntries)
	}
	if !strings.Contains(inv, "Also: ctx/e040 ctx/e041") || !strings.HasSuffix(inv, " and 5 more\n") {
		t.Errorf("later entries should be listed, then counted:\n%s", inv)
	}
	if strings.Contains(inv, "bad key") {
		t.Error("a key no ctx/name can read is listed")
	}
	if s := system(t, Config{Prompt: "x"}, nil); strings.Contains(s, "## Data") {
		t.Error("an empty context should have no data section")
	}
}

// --- The firewall ---

func TestFirewallNeverInPrompt(t *testing.T) {
	secrets := []string{"sk-live-0123456789", "alice@example.com", "4111-1111-1111-1111", "tok-abcdefgh", "hidden-note-xyz"}
	ctx := map[string]any{
		"_api_key": secrets[0],
		"_contact": map[string]any{"email": secrets[1], "card": secrets[2]},
		"orders": []any{
			map[string]any{"id": 1, "_token": secrets[3], "note": "visible"},
			map[string]any{"id": 2, "_token": secrets[3], "note": secrets[4]}, // a public copy of...
		},
		"_notes": []any{secrets[4]}, // ...a firewalled string
		"user":   map[string]any{"name": "Ann", "_ssn": "123-45-6789", "_prefs": map[string]any{"alice@example.com": 1}},
	}
	cfg := typicalConfig("")
	cfg.Prompt = "x"
	cfg.Signature = ""
	cfg.Tools["lookup"] = Tool{Func: nopTool, Signature: "(q :string) -> {hits [{id :int, _raw_hit :string}], _cursor :string}"}
	cfg.ToolCatalog = map[string]Tool{"other": {Signature: "{ok :bool, _blob :string}"}}
	for _, lang := range []string{"default", "compact"} {
		cfg.Presentation.Language = lang
		p := preview(t, cfg, Options{Input: ctx})
		all := p.System + p.User + fmt.Sprint(p.Tools)
		for _, s := range append(secrets, "123-45-6789", "_blob") {
			if strings.Contains(all, s) {
				t.Errorf("%s: %q appears in the preview:\n%s", lang, s, p.System)
			}
		}
		// A tool's firewalled result fields are named, as hidden: the
		// model's programs get them.
		if !strings.Contains(p.System, "; hidden from you: hits._raw_hit, _cursor\n") {
			t.Errorf("%s: the tool's hidden fields are not named:\n%s", lang, p.System)
		}
		inv := p.System[strings.Index(p.System, "## Data"):]
		inv, _, _ = strings.Cut(inv, "## Tools")
		for _, want := range []string{
			"ctx/_api_key :string\n",
			"ctx/_contact :map\n",
			"ctx/_notes [:string]\n",
			`"_token" <Firewalled>`,
			`"note" <Firewalled>`,
			"Names starting with _ are firewalled",
		} {
			if !strings.Contains(inv, want) {
				t.Errorf("%s: the inventory lacks %q:\n%s", lang, want, inv)
			}
		}
		if strings.Contains(inv, "email") || strings.Contains(inv, "card") {
			t.Errorf("%s: the keys of a firewalled map are shown:\n%s", lang, inv)
		}
	}
}

func TestFirewallDeclaredTypes(t *testing.T) {
	ctx := map[string]any{"_ids": []int{1, 2}, "_user": map[string]any{"email": "a@b.cd"}}
	inv := inventoryOf(t, Config{Prompt: "x"}, Options{Input: ctx, InputSignature: "{_ids [:int], _user {email :string}}"})
	if !strings.Contains(inv, "ctx/_ids [:int]\n") || !strings.Contains(inv, "ctx/_user :map\n") || strings.Contains(inv, "a@b.cd") {
		t.Errorf("firewalled entries: name and coarse type only:\n%s", inv)
	}
	// Maps from strings: declared, shown as declared; firewalled, their
	// values' records coarse.
	ctx = map[string]any{"tally": map[string]int{"a": 1}, "_by_id": map[string]any{"7": map[string]any{"email": "a@b.cd"}}}
	inv = inventoryOf(t, Config{Prompt: "x"}, Options{Input: ctx, InputSignature: "{tally {:string :int}, _by_id {:string {email :string}}}"})
	if !strings.Contains(inv, "ctx/tally {:string :int}") || !strings.Contains(inv, "ctx/_by_id {:string :map}\n") || strings.Contains(inv, "email") {
		t.Errorf("maps from strings:\n%s", inv)
	}
}

// --- The language references run ---

// snippetTools answers every tool call with a row, so that examples
// calling tools run.
type snippetTools struct{}

func (snippetTools) CallTool(_ context.Context, name string, args *lisp.Map) (any, error) {
	return map[string]any{"id": 1, "name": name}, nil
}

// TestLanguageExamplesRun runs the examples of both profiles: every
// ```clojure block, and every parenthesized form of the reference cards,
// against a context and names that give their free variables values. A
// parse or analysis error means the prompt teaches something PTC-Lisp
// does not accept; runtime errors are fine (some forms show what fails).
func TestLanguageExamplesRun(t *testing.T) {
	setup, err := lisp.Run(context.Background(), `
	  (def rows [{:id 1 :status "paid" :amount 10 :user {:name "Ann" :tier "gold"}}
	             {:id 2 :status "open" :amount 5 :user {:name "Bob" :tier "basic"}}])
	  (def row (first rows))
	  (def xs [3 1 2])
	  (def ids [1 2])
	  (def m {:a 1})
	  (def s #{2 1})
	  (def v "paid")
	  (def x 3.14159)
	  (def d (java.util.Date. "2024-01-02T10:00:00Z"))
	  (def a (LocalDate/parse "2024-01-02"))
	  (def b (LocalDate/parse "2024-03-01"))
	  (def p (where :amount > 6))
	  (def q (where :status = "paid"))
	  (def groups (group-by :status rows))`, lisp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := map[string]any{"orders": []any{
		map[string]any{"id": 1, "status": "paid", "total": 12.5, "user_id": 7},
		map[string]any{"id": 2, "status": "open", "total": 3, "user_id": 8},
	}}
	runs := 0
	check := func(profile, src string) {
		t.Helper()
		runs++
		res, err := lisp.Run(context.Background(), src, lisp.Options{Input: ctx, Namespace: setup.Namespace, Tools: snippetTools{}})
		var le *lisp.Error
		if errors.As(err, &le) && (le.Kind == lisp.ParseError || reasonOf(le.Kind) == ReasonAnalysisError) {
			t.Errorf("%s: %s\n%s", profile, src, le.Detailed())
		}
		_ = res
	}
	for _, profile := range []string{"default", "compact"} {
		text := prompt.Reference(profile)
		if text == "" {
			t.Fatalf("no profile %s", profile)
		}
		for _, block := range codeBlocks(text) {
			check(profile, block)
		}
		for _, form := range inlineForms(stripBlocks(text)) {
			check(profile, form)
		}
	}
	if runs < 35 {
		t.Errorf("only %d examples found: the extraction is broken", runs)
	}
	if prompt.Reference("nope") != "" {
		t.Error("an unknown profile should give nothing")
	}
}

var blockRE = regexp.MustCompile("(?s)```clojure\n(.*?)```")

func codeBlocks(text string) []string {
	var out []string
	for _, m := range blockRE.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

func stripBlocks(text string) string { return blockRE.ReplaceAllString(text, "") }

// inlineForms returns the top-level bracketed forms of text, "(...)" and
// "#(...)", skipping strings inside them.
func inlineForms(text string) []string {
	var out []string
	for i := 0; i < len(text); i++ {
		if text[i] != '(' {
			continue
		}
		start := i
		if i > 0 && text[i-1] == '#' {
			start = i - 1
		}
		depth, inStr := 0, false
		j := i
		for ; j < len(text); j++ {
			c := text[j]
			switch {
			case inStr && c == '\\':
				j++
			case c == '"':
				inStr = !inStr
			case inStr:
			case c == '(' || c == '[' || c == '{':
				depth++
			case c == ')' || c == ']' || c == '}':
				depth--
			}
			if depth == 0 {
				break
			}
		}
		if j < len(text) {
			out = append(out, text[start:j+1])
		}
		i = j
	}
	return out
}

// --- Cost ---

// BenchmarkSystemPrompt10kRows builds the prompt of a mission whose
// context has 10,000 rows: the inventory reads a few rows, not all.
func BenchmarkSystemPrompt10kRows(b *testing.B) {
	rows := make([]any, 10_000)
	for i := range rows {
		rows[i] = map[string]any{"id": i, "name": fmt.Sprint("row ", i), "score": float64(i) / 7, "tags": []any{"a", "b"}}
	}
	ctxMap := mustFromGo(b, map[string]any{"region": "EMEA", "rows": rows, "index": bigMap(10_000)}).(*lisp.Map)
	a := MustNew(typicalConfig(""))
	m := &mission{a: a, opts: Options{Input: ctxMap}, parent: context.Background(), memory: lisp.NewNamespace(nil)}
	if fail := m.setContext(); fail != nil {
		b.Fatal(fail)
	}
	m.fw = newFirewall(a, m.context, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if s := m.systemPrompt(); len(s) > 8000 {
			b.Fatalf("a %d-char prompt", len(s))
		}
	}
}

func ExampleAgent_Preview() {
	a := MustNew(Config{
		Prompt:    "Find the emails of {{user}} from {{sender}}.",
		Signature: "(user :string, sender :string) -> {count :int, _ids [:int]}",
		Tools: map[string]Tool{"list-emails": {
			Func:        func(context.Context, *lisp.Map) (any, error) { return []any{}, nil },
			Signature:   "(user :string) -> [{id :int, from :string, subject :string, _body :string}]",
			Description: "The user's inbox, newest first.",
		}},
	})
	p, err := a.Preview(Options{Input: map[string]any{"user": "alice", "sender": "bob@example.com"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.User)
	for _, ts := range p.Tools {
		fmt.Println(ts.Name, ts.Signature)
	}
	for _, line := range strings.Split(p.System, "\n") {
		if strings.HasPrefix(line, "ctx/sender") {
			fmt.Println(line)
		}
	}
	// Output:
	// Find the emails of alice from bob@example.com.
	// list-emails (user :string) -> [{id :int, from :string, subject :string}]
	// ctx/sender :string
}

// Unlisted tools stay out of the prompt's list (which counts them) but are
// called, with their arguments checked, like any other; dotted names work.
func TestUnlistedTools(t *testing.T) {
	var got []string
	cfg := Config{
		Prompt: "x",
		Tools: map[string]Tool{
			"gh.search": {Func: func(_ context.Context, args *lisp.Map) (any, error) {
				got = append(got, lisp.Print(args, lisp.PrintOptions{}))
				return []any{"gh.issue"}, nil
			}, Signature: "(q :string) -> [:string]", Description: "Finds tools."},
			"gh.issue": {Func: func(_ context.Context, args *lisp.Map) (any, error) {
				got = append(got, lisp.Print(args, lisp.PrintOptions{}))
				return map[string]any{"n": 7}, nil
			}, Signature: "(n :int) -> {n :int}", Description: "SECRET-DESCRIPTION", Unlisted: true},
		},
	}
	s := system(t, cfg, nil)
	if !strings.Contains(s, "(tool/gh.search {:q ...})") || strings.Contains(s, "SECRET-DESCRIPTION") ||
		!strings.Contains(s, "1 more tools are callable but not listed here") {
		t.Errorf("tools section:\n%s", s)
	}
	a := MustNew(cfg)
	if ts := a.ToolSchemas(); len(ts) != 2 || !ts[0].Unlisted || ts[1].Unlisted {
		t.Errorf("ToolSchemas: %+v", ts)
	}
	model := llmtest.NewScript(
		llmtest.Code(`(tool/gh.issue {:n "x"})`), // the signature still checks
		llmtest.Code(`(return (tool/gh.issue {:n (count (tool/gh.search {:q "issue"}))}))`),
	)
	step, err := a.Run(context.Background(), Options{LLM: model.Func()})
	if err != nil {
		t.Fatal(err)
	}
	if lisp.Print(step.Return, lisp.PrintOptions{}) != `{"n" 7}` || strings.Join(got, " ") != `{:q "issue"} {:n 1}` {
		t.Errorf("return %s, calls %v", lisp.Print(step.Return, lisp.PrintOptions{}), got)
	}
	if e := step.Trace[0].Error; !strings.Contains(e, "gh.issue") {
		t.Errorf("turn 1 error %q", e)
	}
}

// mustSig parses a signature literal of a test.
func mustSig(src string) *signature.Signature {
	sig, err := signature.Parse(src)
	if err != nil {
		panic(err)
	}
	return sig
}

// mustFromGo converts test data that converts (lisp.FromGo), failing the
// test otherwise.
func mustFromGo(tb testing.TB, x any) lisp.Value {
	tb.Helper()
	v, err := lisp.FromGo(x)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}
