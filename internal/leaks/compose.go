package leaks

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// The composed channels: agents called as tools, LLM tools and compiled
// agents, whose programs move secrets up and down a tree of missions.

// TreeSecrets are firewalled strings of several shapes for the trees: 12
// bytes, 40 bytes, one with the characters printers escape, one
// non-ASCII.
var TreeSecrets = []string{
	"tk-7Hq2Wz9Lp", // 12 bytes
	"sk-hx-4f1e9b2c7d0a83f56e2b9c14d7a0f3e8b5", // 40 bytes
	"hx\"Q7\\zp\tK3\nwM-Yf82Lr",                // " \ tab newline
	"ключ-密钥-Schlüssel-ß9",                     // non-ASCII
}

// Firewalled numbers of 11 digits: the root's context's and the leaf
// tool's.
const (
	PinRoot int64 = 48213975061
	PinLeaf int64 = 73920461857
)

// CompSecret is what the compiled agent's tool firewalls.
const CompSecret = "cmpl-Vb8Nq3Xe6Ju1"

// TreeTexts is the list the scans of a tree look for: the strings and
// the printed forms of the numbers.
func TreeTexts(strs ...string) []string {
	return append(strs, strconv.FormatInt(PinRoot, 10), strconv.FormatInt(PinLeaf, 10), CompSecret)
}

// Router is a scripted model for a tree: each route is a mission prompt
// prefix and the programs of its turns; the first matching route, in the
// order added, answers; a turn past the programs gets the last one again.
type Router struct {
	prefixes []string
	programs [][]string
}

// Add adds a route.
func (r *Router) Add(prefix string, programs ...string) *Router {
	r.prefixes = append(r.prefixes, prefix)
	r.programs = append(r.programs, programs)
	return r
}

// Script returns the model.
func (r *Router) Script() *llmtest.Script {
	return &llmtest.Script{Respond: func(req llm.Request) llmtest.Reply {
		for i, prefix := range r.prefixes {
			if strings.HasPrefix(req.Prompt, prefix) {
				programs := r.programs[i]
				return llmtest.Code(programs[min(max(req.Turn, 1), len(programs))-1])
			}
		}
		return llmtest.Fail(fmt.Errorf("leaks.Router: no route for %.60q", req.Prompt))
	}}
}

func tool(t agent.Tool, err error) agent.Tool {
	if err != nil {
		panic(err) // static configurations: a broken corpus
	}
	return t
}

// Tree is the tree of TestHostileFirewallTree: root -> mid (an agent
// tool) -> leaf (an agent tool), with an LLM tool (judge, with its own
// model) at the root and in mid, and a compiled agent in mid. Secrets of
// every shape start at every level: the root's context (_secret,
// cfg._key, _pin), mid's tool (_mtok), the leaf's tool (_token, _pin,
// nested._deep), the compiled agent's tool (_ctok). Hostile programs at
// every level move them up (non-_ keys, failure messages, keys, memory
// names) and down (public arguments, prompt placeholders), and print them
// every way they can. The root ends with its own (fail {:reason :exfil}).
type Tree struct {
	Root *agent.Agent
	// Model answers the root, mid and the leaf; Judge the LLM tool;
	// Compiler compiled the compiled agent (before NewTree returned).
	Model, Judge, Compiler *llmtest.Script
	Context                map[string]any
	// Texts are the firewalled texts of the whole tree.
	Texts []string
}

// Run runs the tree's root with opts (their LLM and Context are the
// tree's).
func (tr *Tree) Run(ctx context.Context, opts agent.Options) (*agent.Step, error) {
	opts.LLM, opts.Input = tr.Model.Func(), tr.Context
	return tr.Root.Run(ctx, opts)
}

// The programs of the tree.
var (
	TreeLeafPrograms = []string{
		// Copies under public keys: the value shown, and memory (MergeMaps).
		`(def r (tool/vault {})) {:tok (:_token r) :pin (:_pin r) :deep (get-in r [:nested :_deep]) :s (str "<" (:_token r) ">")}`,
		// println every way, then a tool error echoing the arguments.
		`(println (:_token r) (pr-str (:_token r)) (pr-str (pr-str (:_token r))) (subs (:_token r) 1) (:_pin r) ctx/who) (tool/check {:q (:_token r) :who ctx/who :pin (:_pin r)})`,
		// ctx/fail, memory names, keys.
		`(println ctx/fail) (memory/put (keyword (:_token r)) 1) (memory/put (keyword ctx/who) 2) {(str "k" (:_token r)) 3 (keyword (str (:_pin r))) 4 :v (str (:_pin r) "/" ctx/who)}`,
		// A type error echoing, and throw (not supported: an error too).
		`(+ 1 (str ctx/who (:_token r) (:_pin r)))`,
		`(throw (str "boom " (:_token r) ctx/who))`,
		// Up: everything under public keys, a key, and a firewalled copy.
		`(return {:leak (:_token r) :leak2 (str "x" (:_token r)) :pin (:_pin r) :pinstr (str (:_pin r)) :deep (get-in r [:nested :_deep]) :down ctx/who :_ok (:_token r) (keyword (subs (:_token r) 0 10)) 1})`,
	}
	// A leaf asked for "plain-42" fails, its message full of secrets.
	TreeLeafFailing = []string{
		`(let [r (tool/vault {})] (fail {:reason (keyword (:_token r)) :message (str "token=" (:_token r) " pin=" (:_pin r) " deep=" (get-in r [:nested :_deep]) " who=" ctx/who) :op (:_token r) :details {:t (:_token r)}}))`,
	}
	TreeMidPrograms = []string{
		`(def a (tool/leaf {:who ctx/q})) (def mt (:_mtok (tool/mvault {}))) a`,
		`(println (:leak a) (pr-str (:leak a)) (subs (:leak a) 1) (:pinstr a) (:pin a) (str "deep=" (:deep a)) ctx/q ctx/_s) {:x (:leak a) :y (subs (:leak a) 2) :z mt :w (str mt "!") :d (:deep a) :p (:pin a)}`,
		// LLM tool prompts fed secrets copied into a public argument.
		`(tool/judge {:text (:leak a)})`,
		`(tool/judge {:text (str ctx/q "/" mt "/" (:pin a) "/" (:deep a))})`,
		// A tool error echoing secrets.
		`(tool/echo {:q (:leak a) :m mt :p (:pin a) :s ctx/_s})`,
		// ctx/fail, memory names, and mid's own secret passed down.
		`(println ctx/fail) (memory/put (keyword (:leak a)) 1) (memory/put (keyword mt) 2) (tool/leaf {:who mt})`,
		// The compiled agent: its failure, then its value.
		`(tool/comp {:mode "bad"})`,
		`(println ctx/fail) (tool/comp {:mode "good"})`,
		`(+ 1 (:leak a) mt)`,
		// A firewalled number passed down as it is.
		`(tool/leaf {:who (:pin a)})`,
		`(return {:up (:leak a) :pin (:pin a) :pinstr (:pinstr a) :q ctx/q :mt mt :deep (:deep a) :all (pr-str a) :c (tool/comp {:mode "good"}) :kw (keyword (:leak a))})`,
	}
	// Mid asked for "plain-42" relays the leaf's failure in its own.
	TreeMidFailing = []string{
		`(tool/leaf {:who ctx/q})`,
		`(println ctx/fail) (fail {:reason :relay :message (str "leaf said: " ctx/fail) :op (str (get-in ctx/fail [:details :child :message]))})`,
	}
	TreeRootPrograms = []string{
		`(def m (tool/mid {:q ctx/_secret :_s ctx/_secret})) m`,
		`(println (:up m) (:all m) (pr-str m) (:pin m) (:c m)) (tool/echo {:q (:up m) :k (get-in ctx [:cfg :_key]) :p ctx/_pin :d (:deep m)})`,
		`(println ctx/fail) {(keyword (:up m)) 1 (str "k" (:mt m)) 2 :v (subs (:up m) 1) :n (:pin m)}`,
		`(tool/judge {:text (str (:up m) ctx/_secret)})`,
		`(tool/judge {:text (str "pin " ctx/_pin " deep " (:deep m))})`,
		`(tool/judge {:text ctx/_pin})`,
		`(tool/mid {:q "plain-42"})`,
		`(println ctx/fail (str ctx/fail)) (pr-str (pr-str (:up m)))`,
		`(fail {:reason :exfil :message (str (:up m) "|" (:pin m) "|" ctx/_secret "|" (:deep m) "|" (:mt m)) :op (:up m)})`,
	}
	// The judge first breaks its signature with the text (the validation
	// feedback shows it), then echoes it in a valid answer.
	TreeJudgePrograms = []string{
		`{:ok 42 :echo ctx/text :raw [ctx/text]}`,
		`{:ok true :echo (str "seen:" ctx/text)}`,
	}
)

// NewTree builds the tree with the secrets of each level.
func NewTree(rootS, midS, leafS, deepS string) (*Tree, error) {
	echo := agent.Tool{Func: func(_ context.Context, args *lisp.Map) (any, error) {
		return nil, fmt.Errorf("echo refused %s (%v)", lisp.Print(args, lisp.PrintOptions{}), args)
	}}

	// The compiled agent: compiled once on a sample, then a tool of mid.
	compAgent, err := agent.New(agent.Config{
		Prompt:      "HXCOMP read the vault",
		Signature:   "(mode :string) -> {leak :string, n :int}",
		Description: "Reads the compiled vault.",
		Tools: map[string]agent.Tool{"cvault": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) {
			return map[string]any{"id": 3, "_ctok": CompSecret}, nil
		}}},
		Limits: lisp.Limits{Timeout: Generous},
	})
	if err != nil {
		return nil, err
	}
	compModel := (&Router{}).Add("HXCOMP",
		`(let [v (tool/cvault {})] (if (= ctx/mode "bad") (fail {:reason :bad :message (str "ctok=" (:_ctok v)) :op (:_ctok v)}) (return {:leak (str "c:" (:_ctok v)) :n 1})))`,
	).Script()
	comp, err := compAgent.Compile(context.Background(), agent.Options{LLM: compModel.Func(), Input: map[string]any{"mode": "good"}})
	if err != nil {
		return nil, err
	}
	judgeModel := (&Router{}).Add("HXJUDGE", TreeJudgePrograms...).Script()
	judge := tool(agent.NewLLMTool(agent.Config{
		Prompt:      "HXJUDGE is this text fine: {{text}}",
		Signature:   "(text :string) -> {ok :bool, echo :string}",
		Description: "Judges a text.",
		LLM:         judgeModel.Func(),
	}, agent.AsToolOptions{}))
	leaf, err := agent.New(agent.Config{
		Prompt:      "HXLEAF mission for {{who}}",
		Description: "Looks up the vault for someone.",
		Tools: map[string]agent.Tool{
			"vault": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) {
				return map[string]any{"id": 1, "_token": leafS, "_pin": PinLeaf,
					"nested": map[string]any{"_deep": deepS, "public": "p"}}, nil
			}},

			"check": agent.Tool{Func: func(_ context.Context, args *lisp.Map) (any, error) {
				q, _ := args.Get(lisp.Keyword("q"))
				return nil, fmt.Errorf("check: %v is not allowed; args %s", q, lisp.Print(args, lisp.PrintOptions{}))
			}},
		},
		MaxTurns: 8,
		Limits:   lisp.Limits{Timeout: Generous},
	})
	if err != nil {
		return nil, err
	}
	mid, err := agent.New(agent.Config{
		Prompt:      "HXMID mission: {{q}}",
		Description: "Asks the leaf.",
		Tools: map[string]agent.Tool{
			"leaf": tool(leaf.AsTool(agent.AsToolOptions{})),
			"mvault": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) {
				return map[string]any{"_mtok": midS}, nil
			}},

			"judge": judge,
			"echo":  echo,
			"comp":  tool(comp.AsTool(agent.AsToolOptions{})),
		},
		MaxTurns: 12,
		Limits:   lisp.Limits{Timeout: Generous},
	})
	if err != nil {
		return nil, err
	}
	root, err := agent.New(agent.Config{
		Prompt: "HXROOT mission",
		Tools: map[string]agent.Tool{
			"mid":   tool(mid.AsTool(agent.AsToolOptions{})),
			"judge": judge,
			"echo":  echo,
		},
		MaxTurns:     10,
		MaxTreeTurns: 500,
		Limits:       lisp.Limits{Timeout: Generous},
	})
	if err != nil {
		return nil, err
	}
	// Mid and the leaf asked for "plain-42" take the failing routes.
	model := (&Router{}).
		Add("HXROOT", TreeRootPrograms...).
		Add("HXLEAF mission for plain-42", TreeLeafFailing...).
		Add("HXMID mission: plain-42", TreeMidFailing...).
		Add("HXMID", TreeMidPrograms...).
		Add("HXLEAF", TreeLeafPrograms...).
		Script()
	return &Tree{Root: root, Model: model, Judge: judgeModel, Compiler: compModel,
		Context: map[string]any{
			"_secret": rootS, "_pin": PinRoot, "public": "visible",
			"cfg": map[string]any{"_key": rootS, "region": "eu"},
		},
		Texts: TreeTexts(rootS, midS, leafS, deepS)}, nil
}

// WrappedVias are the ways NewWrapped calls its child: the agent tool,
// a Go tool that calls the agent tool's Func, and the same with the child
// compiled.
var WrappedVias = []string{"direct", "wrapped", "compiled direct", "compiled wrapped"}

// Wrapped is the mission of TestHostileFirewallThroughWrappedAgentFunc: a
// root calls a child whose program copies its tool's "_" fields under
// public keys, through one of WrappedVias, then prints and returns what
// it got.
type Wrapped struct {
	Root  *agent.Agent
	Model *llmtest.Script
	Texts []string
}

// NewWrapped builds it.
func NewWrapped(secret, via string) (*Wrapped, error) {
	child, err := agent.New(agent.Config{
		Prompt:      "HXWCHILD fetch",
		Description: "Fetches.",
		Tools: map[string]agent.Tool{"vault": agent.Tool{Func: func(context.Context, *lisp.Map) (any, error) {
			return map[string]any{"_token": secret, "_pin": PinLeaf}, nil
		}}},
		Limits: lisp.Limits{Timeout: Generous},
	})
	if err != nil {
		return nil, err
	}
	childTool := tool(child.AsTool(agent.AsToolOptions{}))
	if strings.HasPrefix(via, "compiled") {
		compModel := (&Router{}).Add("HXWCHILD",
			`(let [r (tool/vault {})] (return {:leak (:_token r) :pin (:_pin r)}))`).Script()
		comp, err := child.Compile(context.Background(), agent.Options{LLM: compModel.Func()})
		if err != nil {
			return nil, err
		}
		childTool = tool(comp.AsTool(agent.AsToolOptions{}))
	}
	t := childTool
	if strings.HasSuffix(via, "wrapped") {
		t = agent.Tool{Description: "The child, through Go.", Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			return childTool.Func(ctx, args)
		}}
	}
	root, err := agent.New(agent.Config{Prompt: "HXWROOT mission", Tools: map[string]agent.Tool{"child": t},
		Limits: lisp.Limits{Timeout: Generous}})
	if err != nil {
		return nil, err
	}
	model := (&Router{}).
		Add("HXWROOT", `(tool/child {})`, `(println (:leak *1) (:pin *1)) (str (:leak *1))`, `(return 1)`).
		Add("HXWCHILD", `(let [r (tool/vault {})] (return {:leak (:_token r) :pin (:_pin r)}))`).
		Script()
	return &Wrapped{Root: root, Model: model, Texts: TreeTexts(secret)}, nil
}

// Run runs the root with opts (their LLM is the model's).
func (w *Wrapped) Run(ctx context.Context, opts agent.Options) (*agent.Step, error) {
	opts.LLM = w.Model.Func()
	return w.Root.Run(ctx, opts)
}
