package lisp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp"
)

// secretRedaction hides every "_" map entry and the collection held in
// ctx/vault (by identity), as an agent's firewall does.
func secretRedaction(vault lisp.Value) *lisp.Redaction {
	return &lisp.Redaction{
		Placeholder: "<hidden>",
		Key: func(k lisp.Value) bool {
			kw, ok := k.(lisp.Keyword)
			return ok && strings.HasPrefix(string(kw), "_")
		},
		Value: func(v lisp.Value) bool {
			if s, ok := v.(string); ok {
				return s == "hunter22-password"
			}
			return v == vault
		},
	}
}

func TestRedactionInOutput(t *testing.T) {
	vault, err := lisp.Read(`[{:pin 1234} {:pin 9999}]`, lisp.ReadOptions{Format: lisp.ReadEDN})
	if err != nil {
		t.Fatal(err)
	}
	ctx := lisp.NewMap()
	ctx = ctx.Assoc(lisp.Keyword("vault"), vault)
	ctx = ctx.Assoc(lisp.Keyword("user"), mustRead(t, `{:name "ann" :_token "hunter22-password"}`))
	tests := []struct {
		name, program string
		output        []string
		value         string // pr-str of the value: values are never redacted
	}{
		{"println of a hidden collection", `(println "v:" ctx/vault) 1`, []string{"v: <hidden>"}, "1"},
		{"println of a map with a hidden key", `(println ctx/user)`, []string{"{:_token <hidden>, :name ann}"}, "nil"},
		{"prn keeps quotes, hides", `(prn ctx/user)`, []string{`{:_token <hidden>, :name "ann"}`}, "nil"},
		{"println of a hidden string", `(println (:_token ctx/user))`, []string{"<hidden>"}, "nil"},
		{"nested inside a new vector", `(println [ctx/vault 2])`, []string{"[<hidden> 2]"}, "nil"},
		{"print then println", `(print "a") (println ctx/vault)`, []string{"a<hidden>"}, "nil"},
		{"printf %s of a hidden collection", `(printf "x=%s\n" ctx/vault)`, []string{"x=<hidden>"}, "nil"},
		{"printf of a map with a hidden key", `(printf "%s\n" ctx/user)`, []string{`{:_token <hidden>, :name "ann"}`}, "nil"},
		{"a derived value is not hidden", `(println (count ctx/vault) (:pin (first ctx/vault)))`, []string{"2 1234"}, "nil"},
		{"pr-str builds a value: not redacted", `(pr-str ctx/vault)`, nil, `"[{:pin 1234} {:pin 9999}]"`},
		{"str builds a value: not redacted", `(str (:_token ctx/user))`, nil, `"hunter22-password"`},
		{"the result value is not redacted", `ctx/user`, nil, `{:_token "hunter22-password", :name "ann"}`},
		// with-out-str captures output as printed: what println would hide
		// stays hidden in the string it returns.
		{"with-out-str hides as println does", `(with-out-str (println (:_token ctx/user) ctx/vault))`, nil, `"<hidden> <hidden>\n"`},
		{"print-table hides cells and hidden keys' columns", `(clojure.pprint/print-table [{:name (:_token ctx/user) :_token 1 :n 2}])`, []string{"", "|  :_token | :n |    :name |", "|----------+----+----------|", "| <hidden> |  2 | <hidden> |"}, "nil"},
		{"with-out-str of pmap branches", `(with-out-str (pmap println [(:_token ctx/user)]))`, nil, `"<hidden>\n"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := lisp.Run(context.Background(), tt.program, lisp.Options{Input: ctx, Redact: secretRedaction(vault)})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(res.Output) != fmt.Sprint(tt.output) {
				t.Errorf("output %q, want %q", res.Output, tt.output)
			}
			if got := lisp.Print(res.Value, lisp.PrintOptions{}); got != tt.value {
				t.Errorf("value %s, want %s", got, tt.value)
			}
		})
	}
}

func TestRedactionFormatValue(t *testing.T) {
	vault := mustRead(t, `[1 2]`)
	v := lisp.NewVector([]lisp.Value{vault, mustRead(t, `{:a 1 :_b [3]}`), "hunter22-password", "ok"})
	got := lisp.Print(v, lisp.PrintOptions{Redact: secretRedaction(vault)})
	if want := `[<hidden> {:_b <hidden>, :a 1} <hidden> "ok"]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// Without a Redaction nothing is hidden.
	if got := lisp.Print(v, lisp.PrintOptions{}); strings.Contains(got, "<hidden>") {
		t.Errorf("got %s", got)
	}
}

func mustRead(t *testing.T, src string) lisp.Value {
	t.Helper()
	v, err := lisp.Read(src, lisp.ReadOptions{Format: lisp.ReadEDN})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func ExampleRedaction() {
	user, _ := lisp.Read(`{:name "ann" :_ssn "078-05-1120"}`, lisp.ReadOptions{Format: lisp.ReadEDN})
	hideUnderscored := &lisp.Redaction{
		Placeholder: "<hidden>",
		Key: func(k lisp.Value) bool {
			kw, ok := k.(lisp.Keyword)
			return ok && strings.HasPrefix(string(kw), "_")
		},
	}
	res, _ := lisp.Run(context.Background(), `(println "user:" ctx/user) (count (:_ssn ctx/user))`,
		lisp.Options{Input: map[string]any{"user": user}, Redact: hideUnderscored})
	fmt.Println(res.Output[0])
	fmt.Println(lisp.Print(res.Value, lisp.PrintOptions{}))
	// Output:
	// user: {:_ssn <hidden>, :name ann}
	// 11
}

// ToJSON with a Redaction hides exactly what Print hides, in the same places,
// and its walk stays bounded on shared structure.
func TestToJSON(t *testing.T) {
	vault, err := lisp.Read(`[{:pin 1234} {:pin 9999}]`, lisp.ReadOptions{Format: lisp.ReadEDN})
	if err != nil {
		t.Fatal(err)
	}
	r := secretRedaction(vault)
	v := lisp.NewMap().
		Assoc(lisp.Keyword("user"), mustRead(t, `{:name "ann" :_token "abc" :pw "hunter22-password"}`)).
		Assoc(lisp.Keyword("copies"), lisp.NewVector([]lisp.Value{vault, vault})).
		Assoc(lisp.Keyword("n"), int64(3))
	j, err := lisp.ToJSON(v, r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"copies":["<hidden>","<hidden>"],"n":3,"user":{"_token":"<hidden>","name":"ann","pw":"<hidden>"}}`
	if string(j) != want {
		t.Errorf("got  %s\nwant %s", j, want)
	}
	printed := lisp.Print(v, lisp.PrintOptions{Redact: r})
	if strings.Count(printed, "<hidden>") != strings.Count(string(j), "<hidden>") {
		t.Errorf("the printer hides elsewhere: %s", printed)
	}
	if j, _ := lisp.ToJSON(v, nil); !strings.Contains(string(j), "hunter22-password") {
		t.Errorf("a nil redaction hid something: %s", j)
	}
	// [v v] doubled 60 times: the budget ends the walk with an error.
	res, err := lisp.Run(context.Background(), `(nth (iterate (fn [v] [v v]) [1]) 60)`, lisp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lisp.ToJSON(res.Value, r); err == nil {
		t.Error("an exponential value encoded")
	}
}

// Text rewrites strings and map keys as they are printed and encoded, and
// hides whole the scalars whose printed form it changes; both forms agree
// and the printed one reads back.
func TestRedactionText(t *testing.T) {
	v := mustRead(t, `{"kSECRET" "aSECRETb", :SECRETkw 1, :n 7, :kw :xSECRET, :f 1.5, :v ["SECRET" 42 "plain"]}`)
	res, err := lisp.Run(context.Background(), `(re-pattern "aSECRET")`, lisp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v = v.(*lisp.Map).Assoc(lisp.Keyword("big"), int64(91234)).Assoc(lisp.Keyword("re"), res.Value)
	num := &lisp.Redaction{Placeholder: "<hidden>", Text: func(s string) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, "91234", "<hidden>"), "SECRET", "<hidden>")
	}}
	printed := lisp.Print(v, lisp.PrintOptions{Redact: num})
	want := `{<hidden> 1, :big <hidden>, :f 1.5, :kw <hidden>, :n 7, :re <hidden>, :v ["<hidden>" 42 "plain"], "k<hidden>" "a<hidden>b"}`
	if printed != want {
		t.Errorf("printed\n got  %s\n want %s", printed, want)
	}
	j, err := lisp.ToJSON(v, num)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `{"<hidden>":1,"big":"<hidden>","f":1.5,"kw":"<hidden>","n":7,"re":"<hidden>","v":["<hidden>",42,"plain"],"k<hidden>":"a<hidden>b"}`
	if string(j) != wantJSON {
		t.Errorf("JSON\n got  %s\n want %s", j, wantJSON)
	}
	if strings.Contains(printed, "SECRET") || strings.Contains(string(j), "SECRET") || strings.Contains(printed, "91234") {
		t.Errorf("a copy survived: %s / %s", printed, j)
	}
	// Without Text nothing changes.
	if got := lisp.Print(v, lisp.PrintOptions{Redact: &lisp.Redaction{Placeholder: "<hidden>"}}); !strings.Contains(got, "aSECRETb") {
		t.Errorf("a redaction without Text rewrote text: %s", got)
	}
}
