// Package leaks is the corpus of ways a mission's programs try to move
// firewalled data past the firewall, for tests: the firewalled texts
// (Secrets, Pin), the leak channels (Channels, each a mission whose
// programs try one way), the composed missions that move secrets across
// agents (NewTree, NewWrapped), and Find, which looks for a fragment of 8
// bytes or more of a firewalled text, in any of its escaped forms, in a
// text.
//
// The agent package's tests scan the requests a model receives
// (agent/firewall_channels_test.go, agent/compose_hostile_test.go); the
// firewall-sinks test of cmd/ptc runs the same corpus through every sink a
// run leaves behind. Test-support code: it is imported by tests only.
package leaks

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// Secrets are the firewalled texts of the channels: plain, long, with the
// characters printers escape, and non-ASCII.
var Secrets = []string{
	"tok-3f9a1c7e",
	"sk-live-0123456789abcdef0123456789abcdef",
	"pass\"word\\with\ttab\nand-newline",
	"geheimes-wört-ß-秘密-κλειδί",
}

// Pin is a firewalled number of the channels' context.
const Pin = 90817263544

// Generous is a program timeout no channel needs: deterministic limits
// decide.
const Generous = 5 * time.Minute

// escapers print a text inside a string literal: as PTC-Lisp, Go's %q and
// JSON print strings (quotes removed).
var escapers = []func(string) string{
	func(s string) string { return unquote(lisp.Print(s, lisp.PrintOptions{})) },
	func(s string) string { return unquote(strconv.Quote(s)) },
	func(s string) string { b, _ := json.Marshal(s); return unquote(string(b)) },
}

func unquote(s string) string {
	if len(s) >= 2 {
		return s[1 : len(s)-1]
	}
	return s
}

// Forms returns a secret, its escaped forms and its escaped-twice forms
// (a printed string printed again: (pr-str (pr-str s))).
func Forms(secret string) []string {
	forms := []string{secret}
	add := func(f string) {
		for _, g := range forms {
			if g == f {
				return
			}
		}
		forms = append(forms, f)
	}
	for _, e1 := range escapers {
		once := e1(secret)
		add(once)
		for _, e2 := range escapers {
			add(e2(once))
		}
	}
	return forms
}

var fragmentCache sync.Map

// Fragments returns every 8-byte window of every form of secret.
func Fragments(secret string) []string {
	if v, ok := fragmentCache.Load(secret); ok {
		return v.([]string)
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range Forms(secret) {
		for i := 0; i+8 <= len(f); i++ {
			if w := f[i : i+8]; !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	fragmentCache.Store(secret, out)
	return out
}

// Find returns the first fragment of a secret found in text, "" if none.
func Find(text string, secrets ...string) string {
	for _, s := range secrets {
		for _, f := range Fragments(s) {
			if strings.Contains(text, f) {
				return f
			}
		}
	}
	return ""
}

// Around returns the text around the first occurrence of fragment, for a
// failure message.
func Around(text, fragment string) string {
	k := strings.Index(text, fragment)
	if k < 0 {
		return ""
	}
	return text[max(0, k-120):min(len(text), k+80)]
}

// RequestTexts returns everything the requests sent a model.
func RequestTexts(reqs ...llm.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.System, r.Prompt)
		for _, m := range r.Messages {
			out = append(out, m.Content)
		}
	}
	return out
}

// Channel is a mission whose programs try one way past the firewall.
type Channel struct {
	Name     string
	Programs []string // the turns before the final one
	Sig      string   // the agent's signature; default :any
	Final    string   // the last program; default (return 1)
}

// Fails reports whether the channel's mission ends with a failure.
func (ch Channel) Fails() bool { return strings.HasPrefix(ch.Name, "fail") }

// Channels are the leak channels of one mission. Each reads ctx/_secret,
// ctx/_pin and config._key (the context of Context) and the tools of
// Tools.
var Channels = []Channel{
	{Name: "value", Programs: []string{`ctx/_secret`}},
	{Name: "value under a public key", Programs: []string{`{:x ctx/_secret :y [ctx/_secret]}`}},
	{Name: "println", Programs: []string{`(println ctx/_secret) (print ctx/_secret) (prn ctx/_secret) 1`}},
	{Name: "println of the context", Programs: []string{`(println ctx) (prn ctx) 1`}},
	{Name: "str copy", Programs: []string{`(str "x" ctx/_secret "y")`, `(println (str "<" ctx/_secret ">")) 1`}},
	{Name: "format copy", Programs: []string{`(format "%s|%s" ctx/_secret ctx/_secret)`}},
	{Name: "pr-str copy", Programs: []string{`(pr-str {:a ctx/_secret})`, `(pr-str [ctx/_secret])`}},
	{Name: "printed twice", Programs: []string{`(str [ctx/_secret])`, `(str {:_k ctx/_secret})`, `(pr-str ctx/_secret)`,
		`(tool/echo {:s ctx/_secret})`, `(println (str [ctx/_secret])) 1`}},
	{Name: "fragments", Programs: []string{`(subs ctx/_secret 0 10)`, `(subs ctx/_secret 2)`, `[(subs ctx/_secret 1 9) (subs ctx/_secret 3)]`}},
	{Name: "split", Programs: []string{`(clojure.string/split ctx/_secret #"-")`}},
	{Name: "keyword", Programs: []string{`(keyword ctx/_secret)`, `(str (keyword ctx/_secret))`}},
	{Name: "type error echo", Programs: []string{`(+ 1 ctx/_secret)`, `(+ 1 (str "abc" ctx/_secret))`}},
	{Name: "error echoes", Programs: []string{`(nth ctx/_secret 1000)`, `(assoc ctx/_secret 1 2)`, `(:a ctx/_secret)`, `(ctx/_secret 1)`,
		`(get-in {:a 1} [ctx/_secret ctx/_secret])`, `(case ctx/_secret 1 2)`, `(throw ctx/_secret)`}},
	{Name: "ctx/fail", Programs: []string{`(+ 1 ctx/_secret)`, `(println ctx/fail) ctx/fail`}},
	{Name: "validation feedback", Sig: "{n :int}", Final: `(return {:n 1})`, Programs: []string{`(return {:n ctx/_secret})`, `(return {:n [ctx/_secret (str "x" ctx/_secret)]})`}},
	{Name: "memory report", Programs: []string{`(memory/put (keyword ctx/_secret) 1)`, `(def x 1) 2`}},
	{Name: "map result keys", Programs: []string{`{(keyword (subs ctx/_secret 0 10)) 1}`, `{ctx/_secret 1}`, `(def y 2) 3`}},
	{Name: "history", Programs: []string{`(str ctx/_secret (apply str (repeat 600 "x")))`, `(println *1) (subs *1 0 30)`}},
	{Name: "cut at the feedback limit", Programs: []string{
		`(str (apply str (repeat 498 "a")) ctx/_secret)`,
		`(println (apply str (repeat 497 "a")) ctx/_secret) 1`,
		`(vec (concat (repeat 9 1) [ctx/_secret]))`}},
	{Name: "firewalled number", Programs: []string{`{:n ctx/_pin}`, `(println ctx/_pin (str ctx/_pin))`, `(+ ctx/_pin "x")`}},
	{Name: "firewalled number as a BigDecimal", Programs: []string{`{:n (bigdec ctx/_pin) :m (* ctx/_pin 1.00M)}`,
		`(println (bigdec ctx/_pin) (str (bigdec ctx/_pin)) (* ctx/_pin 1.0M)) 1`, `(.toPlainString (.movePointLeft (bigdec ctx/_pin) 3))`,
		`(format "%.2f" (bigdec ctx/_pin))`, `(with-precision 5 (/ (bigdec ctx/_pin) 7))`, `(+ (bigdec ctx/_pin) "x")`}},
	{Name: "tool result", Programs: []string{`(tool/get {})`, `(let [r (tool/get {})] {:t (:_token r) :s (str "=" (:_token r))})`}},
	{Name: "tool error", Programs: []string{`(tool/check {:token (:_token (tool/get {}))})`}},
	{Name: "coercion warning", Programs: []string{`(tool/num {:n (str ctx/_pin)})`, `(tool/num {:n (str ctx/_secret)})`}},
	{Name: "firewalled memory", Programs: []string{`(def _stash ctx/_secret) (def copy (str _stash "!")) 1`, `copy`}},
	{Name: "returned copies", Final: `(return {:leak (str "L" ctx/_secret) :n ctx/_pin :ns (str ctx/_pin) :k {(str "k" ctx/_secret) 1} :kw (keyword ctx/_secret) :_raw ctx/_secret})`},
	{Name: "exceptions", Programs: []string{
		// Uncaught: the message, the data shown after it, ctx/fail.
		`(throw (ex-info (str "boom " ctx/_secret) {:s ctx/_secret :_s ctx/_secret :c ctx/config :p ctx/_pin :ps (str ctx/_pin)}))`,
		`(println ctx/fail) ctx/fail`,
		// Caught and printed every way, then the exception as the value.
		`(try (throw (ex-info (str "m" ctx/_secret) {:s ctx/_secret :_k ctx/_secret :c ctx/config :p ctx/_pin} (ex-info ctx/_secret {})))
		   (catch Exception e (println e) (println (ex-data e) (ex-message e) (str e) (pr-str e)) (prn e) (println (ex-cause e)) e))`,
		// A tool's error, caught; an exception kept in memory.
		`(try (tool/check {:token (:_token (tool/get {}))}) (catch Exception e (println (ex-data e) (str e)) (ex-data e)))`,
		`(def err (try (throw (ex-info "kept" {:_k ctx/_secret :k (str "k" ctx/_secret)})) (catch Exception e e))) [err (str err)]`,
		`(throw err)`}},
	{Name: "fail message", Programs: []string{`(fail {:reason :x :message (str "bad " ctx/_secret) :op ctx/_secret})`}},
	{Name: "fail value", Programs: []string{`(fail ctx/_secret)`}},
	{Name: "fail keyword", Programs: []string{`(fail {:reason (keyword ctx/_secret) :message "m"})`}},
	{Name: "fail details", Programs: []string{`(fail {:reason :x :message "m" :details {:s ctx/_secret :c (str "c" ctx/_secret) :n ctx/_pin :_d ctx/_secret}})`}},
}

// Token is the firewalled text the channels' tool get returns, a secret
// of the tool's own.
func Token(secret string) string { return secret + "#t" }

// Texts are the firewalled texts a channel's mission holds for secret:
// the secret, the tool's token and the pin's printed form.
func Texts(secret string) []string { return []string{secret, Token(secret), strconv.Itoa(Pin)} }

// Context is the context of the channels' missions.
func Context(secret string) map[string]any {
	return map[string]any{
		"_secret": secret, "_pin": Pin, "public": "visible",
		"config": map[string]any{"_key": secret, "region": "eu"},
	}
}

// Tools are the tools of the channels' missions: get returns a
// firewalled token, echo returns its arguments as JSON text, check fails
// with its argument in the error, num coerces its argument to an int.
func Tools(secret string) map[string]agent.Tool {
	token := Token(secret)
	return map[string]agent.Tool{
		"get": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) {
			return map[string]any{"id": 7, "_token": token}, nil
		}},

		"echo": agent.Tool{Func: func(_ context.Context, args *lisp.Map) (any, error) {
			b, err := lisp.ToJSON(args, nil)
			return string(b), err
		}},

		"check": agent.Tool{Func: func(_ context.Context, args *lisp.Map) (any, error) {
			tok, _ := args.Get(lisp.Keyword("token"))
			return nil, fmt.Errorf("token %v was refused", tok)
		}},

		// num coerces its argument: the warning echoes it.
		"num": {Signature: "(n :int) -> :int", Description: "A number.", Func: func(_ context.Context, args *lisp.Map) (any, error) {
			n, _ := args.Get(lisp.Keyword("n"))
			return n, nil
		}},
	}
}

// Replies are the scripted model's replies of the channel: its programs,
// then the final one.
func (ch Channel) Replies() []llmtest.Reply {
	replies := make([]llmtest.Reply, 0, len(ch.Programs)+1)
	for _, p := range ch.Programs {
		replies = append(replies, llmtest.Code(p))
	}
	final := ch.Final
	if final == "" {
		final = `(return 1)`
	}
	return append(replies, llmtest.Code(final))
}

// Agent returns the channel's agent (the model is given to Run).
func (ch Channel) Agent(secret string) (*agent.Agent, error) {
	return agent.New(agent.Config{Prompt: "Use the data.", Signature: ch.Sig, Tools: Tools(secret),
		MaxTurns: len(ch.Programs) + 3, Limits: lisp.Limits{Timeout: Generous}})
}

// Run runs the channel's mission for secret, with opts (their LLM and
// Context are the channel's), and returns the Step and the model.
func (ch Channel) Run(secret string, opts agent.Options) (*agent.Step, *llmtest.Script, error) {
	a, err := ch.Agent(secret)
	if err != nil {
		return nil, nil, err
	}
	s := llmtest.NewScript(ch.Replies()...)
	opts.LLM, opts.Input = s.Func(), Context(secret)
	step, _ := a.Run(context.Background(), opts)
	if ch.Fails() != (step.Fail != nil) || len(s.Requests()) == 0 {
		return step, s, fmt.Errorf("the channel %q was not exercised: %d requests, Fail %+v", ch.Name, len(s.Requests()), step.Fail)
	}
	return step, s, nil
}

// ToolModeAgent is an agent in tool-calling mode (agent.Config.Mode
// "tools") with the channels' tools: its model sees the firewalled values
// only as placeholders, and calls the tools with what it sees.
func ToolModeAgent(secret string) (*agent.Agent, error) {
	return agent.New(agent.Config{Mode: "tools", Prompt: "Use the data.", Tools: Tools(secret), MaxTurns: 5,
		Limits: lisp.Limits{Timeout: Generous}})
}

// ToolModeReplies are the native tool calls of ToolModeAgent's model: every
// tool at once (get's result holds the firewalled token, check's error
// echoes its argument, num coerces its argument), a call that fails its
// validation, then return.
func ToolModeReplies() []llmtest.Reply {
	return []llmtest.Reply{
		llmtest.Calls("get", `{}`, "echo", `{"seen": "<Firewalled>"}`, "check", `{"token": "<Firewalled>"}`, "num", `{"n": "12"}`),
		llmtest.Calls("num", `{"n": "twelve"}`, "nothing", `{}`),
		llmtest.Calls("return", `{"value": "done"}`),
	}
}

// DerivedChannels are missions whose programs show what they computed from
// the firewalled values (an upper-cased and a reversed secret, three times
// the pin) every way a turn shows something: its value, its output, an
// error and ctx/fail, memory read in a later turn, the returned value (a
// map, and a number computed whole), and the arguments of a tool call,
// which its live events print before the turn's shadow runs (get ignores
// them: a tool that echoes its arguments reveals them by design).
var DerivedChannels = []Channel{
	{Name: "derived value", Programs: []string{`{:up (clojure.string/upper-case ctx/_secret) :rev (apply str (reverse ctx/_secret)) :n (* 3 ctx/_pin)}`}},
	{Name: "derived output", Programs: []string{`(println "up" (clojure.string/upper-case ctx/_secret) (* 3 ctx/_pin)) (prn (apply str (reverse ctx/_secret))) 1`}},
	{Name: "derived error", Programs: []string{
		`(throw (ex-info (str "bad " (clojure.string/upper-case ctx/_secret)) {:n (* 3 ctx/_pin) :rev (apply str (reverse ctx/_secret))}))`,
		`(println ctx/fail) (:message ctx/fail)`}},
	{Name: "derived memory", Programs: []string{`(def up (clojure.string/upper-case ctx/_secret)) (def n (* 3 ctx/_pin)) 1`, `(println up n) [up n]`}},
	{Name: "derived return", Final: `(return {:up (clojure.string/upper-case ctx/_secret) :n (* 3 ctx/_pin) :rev (apply str (reverse ctx/_secret))})`},
	{Name: "derived return whole", Final: `(return (* 3 ctx/_pin))`},
	{Name: "derived tool arguments", Programs: []string{
		`(tool/get {:up (clojure.string/upper-case ctx/_secret) :n (* 3 ctx/_pin) :rev (apply str (reverse ctx/_secret))}) 1`}},
}

// DerivedTexts are the texts the derived channels compute from secret, as
// the interpreter computes them.
func DerivedTexts(secret string) []string {
	var out []string
	for _, expr := range []string{`(clojure.string/upper-case ctx/_secret)`, `(apply str (reverse ctx/_secret))`, `(str (* 3 ctx/_pin))`} {
		res, err := lisp.Run(context.Background(), expr, lisp.Options{Input: Context(secret)})
		if err != nil {
			panic(err) // the expressions hold for every secret
		}
		out = append(out, res.Value.(string))
	}
	return out
}
