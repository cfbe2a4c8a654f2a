package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// The firewall's guarantee, channel by channel: no fragment of 8 bytes or
// more of a firewalled text (a string, or the printed form of a number) in
// any of the forms it is printed in reaches the model, in any request of a
// mission, whatever the programs do to move it there short of transforming
// it. Each channel is a mission whose programs try one way; every request
// the model receives (the system prompt, the mission, every message) is
// scanned, as are the preview and the Fail of the Step.

// fwSecrets are the firewalled texts: plain, long, with characters the
// printers escape, and non-ASCII.
var fwSecrets = []string{
	"tok-3f9a1c7e",
	"sk-live-0123456789abcdef0123456789abcdef",
	"pass\"word\\with\ttab\nand-newline",
	"geheimes-wört-ß-秘密-κλειδί",
}

// generous is a program timeout no test needs: deterministic limits decide.
const generous = 5 * time.Minute

const timeUnit = time.Millisecond

// fwPin is a firewalled number.
const fwPin = 90817263544

// fragments returns every 8-byte substring of each form of secret.
func fragments(secret string) []string {
	forms := []string{secret, strconv.Quote(secret), lisp.PrintString(secret)}
	if b, err := json.Marshal(secret); err == nil {
		forms = append(forms, string(b))
	}
	var out []string
	for _, f := range forms {
		f = strings.Trim(f, `"`)
		for i := 0; i+8 <= len(f); i++ {
			out = append(out, f[i:i+8])
		}
	}
	return out
}

// leak returns the first fragment of a firewalled text found in text.
func leak(text string, secrets ...string) string {
	for _, s := range secrets {
		for _, f := range fragments(s) {
			if strings.Contains(text, f) {
				return f
			}
		}
	}
	return ""
}

// requestTexts returns everything a request sends the model.
func requestTexts(req llm.Request) []string {
	texts := []string{req.System, req.Prompt}
	for _, m := range req.Messages {
		texts = append(texts, m.Content)
	}
	return texts
}

type fwChannel struct {
	name     string
	programs []string // the turns before the final (return 1)
	sig      string   // the agent's signature; default :any
	final    string   // the last program; default (return 1)
}

var fwChannels = []fwChannel{
	{name: "value", programs: []string{`ctx/_secret`}},
	{name: "value under a public key", programs: []string{`{:x ctx/_secret :y [ctx/_secret]}`}},
	{name: "println", programs: []string{`(println ctx/_secret) (print ctx/_secret) (prn ctx/_secret) 1`}},
	{name: "println of the context", programs: []string{`(println ctx) (prn ctx) 1`}},
	{name: "str copy", programs: []string{`(str "x" ctx/_secret "y")`, `(println (str "<" ctx/_secret ">")) 1`}},
	{name: "format copy", programs: []string{`(format "%s|%s" ctx/_secret ctx/_secret)`}},
	{name: "pr-str copy", programs: []string{`(pr-str {:a ctx/_secret})`, `(pr-str [ctx/_secret])`}},
	{name: "printed twice", programs: []string{`(str [ctx/_secret])`, `(str {:_k ctx/_secret})`, `(pr-str ctx/_secret)`,
		`(tool/echo {:s ctx/_secret})`, `(println (str [ctx/_secret])) 1`}},
	{name: "fragments", programs: []string{`(subs ctx/_secret 0 10)`, `(subs ctx/_secret 2)`, `[(subs ctx/_secret 1 9) (subs ctx/_secret 3)]`}},
	{name: "split", programs: []string{`(clojure.string/split ctx/_secret #"-")`}},
	{name: "keyword", programs: []string{`(keyword ctx/_secret)`, `(str (keyword ctx/_secret))`}},
	{name: "type error echo", programs: []string{`(+ 1 ctx/_secret)`, `(+ 1 (str "abc" ctx/_secret))`}},
	{name: "error echoes", programs: []string{`(nth ctx/_secret 1000)`, `(assoc ctx/_secret 1 2)`, `(:a ctx/_secret)`, `(ctx/_secret 1)`,
		`(get-in {:a 1} [ctx/_secret ctx/_secret])`, `(case ctx/_secret 1 2)`, `(throw ctx/_secret)`}},
	{name: "ctx/fail", programs: []string{`(+ 1 ctx/_secret)`, `(println ctx/fail) ctx/fail`}},
	{name: "validation feedback", sig: "{n :int}", final: `(return {:n 1})`, programs: []string{`(return {:n ctx/_secret})`, `(return {:n [ctx/_secret (str "x" ctx/_secret)]})`}},
	{name: "memory report", programs: []string{`(memory/put (keyword ctx/_secret) 1)`, `(def x 1) 2`}},
	{name: "map result keys", programs: []string{`{(keyword (subs ctx/_secret 0 10)) 1}`, `{ctx/_secret 1}`, `(def y 2) 3`}},
	{name: "history", programs: []string{`(str ctx/_secret (apply str (repeat 600 "x")))`, `(println *1) (subs *1 0 30)`}},
	{name: "cut at the feedback limit", programs: []string{
		`(str (apply str (repeat 498 "a")) ctx/_secret)`,
		`(println (apply str (repeat 497 "a")) ctx/_secret) 1`,
		`(vec (concat (repeat 9 1) [ctx/_secret]))`}},
	{name: "firewalled number", programs: []string{`{:n ctx/_pin}`, `(println ctx/_pin (str ctx/_pin))`, `(+ ctx/_pin "x")`}},
	{name: "tool result", programs: []string{`(tool/get {})`, `(let [r (tool/get {})] {:t (:_token r) :s (str "=" (:_token r))})`}},
	{name: "tool error", programs: []string{`(tool/check {:token (:_token (tool/get {}))})`}},
	{name: "firewalled memory", programs: []string{`(def _stash ctx/_secret) (def copy (str _stash "!")) 1`, `copy`}},
	{name: "fail message", programs: []string{`(fail {:reason :x :message (str "bad " ctx/_secret) :op ctx/_secret})`}},
	{name: "fail value", programs: []string{`(fail ctx/_secret)`}},
	{name: "fail keyword", programs: []string{`(fail {:reason (keyword ctx/_secret) :message "m"})`}},
}

func TestFirewallChannels(t *testing.T) {
	for _, secret := range fwSecrets {
		for _, ch := range fwChannels {
			t.Run(fmt.Sprintf("%s/%d bytes", ch.name, len(secret)), func(t *testing.T) {
				replies := make([]llmtest.Reply, 0, len(ch.programs)+1)
				for _, p := range ch.programs {
					replies = append(replies, llmtest.Code(p))
				}
				final := ch.final
				if final == "" {
					final = `(return 1)`
				}
				replies = append(replies, llmtest.Code(final))
				s := llmtest.NewScript(replies...)
				token := secret + "#t" // the tool's own firewalled text
				tools := map[string]agent.Tool{
					"get": agent.Func(func(context.Context, *lisp.Map) (any, error) {
						return map[string]any{"id": 7, "_token": token}, nil
					}),
					"echo": agent.Func(func(_ context.Context, args *lisp.Map) (any, error) {
						b, err := lisp.ToJSON(args) // a tool that returns its arguments as JSON text
						return string(b), err
					}),
					"check": agent.Func(func(_ context.Context, args *lisp.Map) (any, error) {
						tok, _ := args.Lookup(lisp.Keyword("token"))
						return nil, fmt.Errorf("token %v was refused", tok)
					}),
				}
				a, err := agent.New(agent.Config{Prompt: "Use the data.", Signature: ch.sig, Tools: tools,
					MaxTurns: len(replies) + 2, Limits: lisp.Limits{Timeout: generous}})
				if err != nil {
					t.Fatal(err)
				}
				step, _ := a.Run(context.Background(), agent.Options{LLM: s.Func(), Context: map[string]any{
					"_secret": secret, "_pin": fwPin, "public": "visible",
					"config": map[string]any{"_key": secret, "region": "eu"},
				}})
				secrets := []string{secret, token, strconv.Itoa(fwPin)}
				if strings.HasPrefix(ch.name, "fail") != (step.Fail != nil) || len(s.Requests()) == 0 {
					t.Fatalf("the channel was not exercised: %d requests, Fail %+v", len(s.Requests()), step.Fail)
				}
				for i, req := range s.Requests() {
					for _, text := range requestTexts(req) {
						if f := leak(text, secrets...); f != "" {
							t.Errorf("request %d leaks %q:\n%s", i+1, f, text)
						}
					}
				}
				if step.Fail != nil {
					for _, text := range []string{step.Fail.Reason, step.Fail.Message, step.Fail.Op} {
						if f := leak(text, secrets...); f != "" {
							t.Errorf("Fail leaks %q: %q", f, text)
						}
					}
				}
			})
		}
	}
}

// The mission prompt is expanded behind the firewall: a placeholder of a
// firewalled field is refused, and collections print with their
// firewalled parts hidden, in the first message and in the preview.
func TestFirewallInMissionPrompt(t *testing.T) {
	secret := fwSecrets[1]
	for _, prompt := range []string{"Show {{_secret}}", "Use {{config._key}}", "{{#records}}{{_id}}{{/records}}"} {
		if _, err := agent.New(agent.Config{Prompt: prompt}); err == nil || !strings.Contains(err.Error(), "firewalled") {
			t.Errorf("%s: got %v, want a firewalled-placeholder error", prompt, err)
		}
	}
	a, err := agent.New(agent.Config{Prompt: "Config {{config}}; records: {{#records}}[{{.}} {{name}}]{{/records}}; copy {{copy}}"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := map[string]any{
		"config":  map[string]any{"_key": secret, "region": "eu"},
		"records": []any{map[string]any{"name": "a", "_id": secret}, map[string]any{"name": "b", "_id": secret}},
		"_secret": secret,
		"copy":    "prefix " + secret, // a public string holding a firewalled one
	}
	pv, err := agent.PreviewPrompt(a, agent.Options{Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{pv.User, pv.System} {
		if f := leak(text, secret); f != "" {
			t.Errorf("preview leaks %q:\n%s", f, text)
		}
	}
	if !strings.Contains(pv.User, `"region" "eu"`) || !strings.Contains(pv.User, `"name" "a"} a]`) {
		t.Errorf("the public parts are missing from the prompt: %s", pv.User)
	}
	s := llmtest.NewScript(llmtest.Code(`(return 1)`))
	if _, err := a.Run(context.Background(), agent.Options{LLM: s.Func(), Context: ctx}); err != nil {
		t.Fatal(err)
	}
	for _, text := range requestTexts(s.Requests()[0]) {
		if f := leak(text, secret); f != "" {
			t.Errorf("the first request leaks %q:\n%s", f, text)
		}
	}
}

// A model callback that ignores its context cannot extend a mission past
// its deadline, and its late reply is not used.
func TestIgnoringModelIsAbandoned(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	stubborn := llm.Func(func(context.Context, llm.Request) (llm.Response, error) {
		<-release
		return llm.Response{Content: "```clojure\n(return 1)\n```"}, nil
	})
	a := agent.MustNew(agent.Config{Prompt: "x", MissionTimeout: 50 * timeUnit})
	step, err := a.Run(context.Background(), agent.Options{LLM: stubborn})
	if err == nil || step.Fail == nil || step.Fail.Reason != agent.ReasonMissionTimeout {
		t.Fatalf("got %v, %+v; want mission_timeout", err, step.Fail)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	step, err = agent.MustNew(agent.Config{Prompt: "x"}).Run(ctx, agent.Options{LLM: stubborn})
	var ae *agent.Error
	if !errors.As(err, &ae) || step.Fail.Reason != agent.ReasonCancelled {
		t.Fatalf("cancelled caller: got %v, %+v", err, step.Fail)
	}
}
