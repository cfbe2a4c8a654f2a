package agent

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ptc-go/ptc/agent/prompt"
	fwall "github.com/ptc-go/ptc/internal/firewall"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/signature"
	"github.com/ptc-go/ptc/template"
)

// Config defines an agent: what it is asked to do, its contract, its tools
// and its limits. It is plain data; New validates it into an *Agent. A zero
// field means the documented default. Its fields are grouped: definition,
// limits, model policy, presentation.
type Config struct {
	// Name identifies the agent in events, spans and logs ("researcher").
	// Default: the name of the tool it is called as, else none.
	Name string
	// Prompt is the mission, a template whose {{placeholders}} are filled
	// from the run's input: "Find urgent emails for {{user}}". Required.
	Prompt string
	// Signature is the contract, "(user :string) -> {count :int, _ids [:int]}"
	// or the output alone, "{count :int}". Empty: any input, any output.
	Signature string
	// Description says what the agent does, for the tool schema a parent
	// agent sees and for documentation.
	Description string
	// FieldDescriptions describe signature fields by dotted path
	// ("user.email"); they appear in prompts and JSON Schemas.
	FieldDescriptions map[string]string
	// Tools are the functions the agent's programs may call.
	Tools map[string]Tool
	// ToolCatalog lists tools the LLM is told of but cannot call (their
	// Signature and Description are shown; Func is not used).
	ToolCatalog map[string]Tool
	// KeepMaps: a turn's map value is shown like any other value. Default
	// false: its entries are stored in memory (docs/agents.md, "Memory").
	KeepMaps bool
	// Mode is how the model answers: "" or "program" (PTC-Lisp programs),
	// "tools" (the provider's native tool calls) or "text" (one JSON
	// answer a turn, no tools). See docs/agents.md, "Modes".
	Mode string

	// MaxTurns bounds the LLM calls of a mission. Zero: 5 (an LLM tool
	// without tools: 2, an answer and one retry). MaxTurns 1 and
	// no tools make the agent single-shot (the program's value answers).
	MaxTurns int
	// MaxTreeTurns bounds the turns of the whole mission tree, nested
	// agents included; the root's applies. Zero: 20.
	MaxTreeTurns int
	// MaxNesting bounds the nesting of agents that call agents (not the
	// call depth of a program: Limits.MaxDepth). Zero: 3.
	MaxNesting int
	// MaxAgentMemory bounds, in printed bytes, what the agent's memory
	// (defs, stored values) adds to the prompt; not a program's heap
	// (Limits.MaxMemory). Zero: 1 MiB. See docs/agents.md, "Memory".
	MaxAgentMemory int
	// MissionTimeout bounds the whole mission, nested agents included.
	// Zero: 60 s; negative: only the caller's context.
	MissionTimeout time.Duration
	// Limits bound each turn's program. Zero fields take the interpreter's
	// defaults, except Timeout: 5 s (and then MaxSteps 2,500,000,000).
	Limits lisp.Limits

	// LLM pins the model this agent always uses, over Options.LLM and a
	// caller's model. Nil: the caller's model, else Options.LLM (see
	// docs/agents.md, "Models").
	LLM llm.Model
	// LLMTimeout bounds each LLM call attempt. Zero or negative: only the
	// mission's bounds.
	LLMTimeout time.Duration
	// LLMRetry is the retry policy for failed LLM calls; retries never
	// consume turns. Zero: no retries.
	LLMRetry llm.RetryPolicy

	// Presentation shapes the system prompt and what the LLM is shown of
	// each turn (see package prompt). Zero: the defaults.
	Presentation prompt.Options
}

// Defaults of the zero Config fields, as the field comments state them
// (TestDefaults pins them).
// The values of Config.Mode.
const (
	modeProgram = "program"
	modeText    = "text"
	modeTools   = "tools"
)

const (
	defaultMaxTurns       = 5
	defaultMemoryLimit    = 1 << 20
	defaultMaxDepth       = 3
	defaultTurnBudget     = 20
	defaultFloatPrecision = 2
	defaultTurnTimeout    = 5 * time.Second
	defaultTurnSteps      = 2_500_000_000
	// defaultMissionTimeout bounds a mission whose MissionTimeout is zero:
	// the design documents' 60 s (docs/deviations.md).
	defaultMissionTimeout = 60 * time.Second
)

// defaultFormat returns the default feedback bounds of prompt.Options.
func defaultFormat() prompt.Options {
	return prompt.Options{FeedbackLimit: 10, FeedbackMaxChars: 512, HistoryMaxBytes: 512, ResultLimit: 50, ResultMaxChars: 500}
}

// Agent is a validated agent definition, ready to run any number of times,
// concurrently. Build one with New.
type Agent struct {
	cfg    Config
	sig    *signature.Signature // nil: no contract
	prompt *template.Template
	tools  map[string]*boundTool
	names  []string // sorted tool names
	// toolWarnings are given with every run: listed tools the model must
	// guess the arguments of.
	toolWarnings []string
	catalog      []string       // sorted catalog names
	format       prompt.Options // Presentation with the defaults filled in
	language     string         // resolved language reference profile or text

	// retries is how many more replies a single-shot agent may give after
	// one that fails (an LLM tool's Retries).
	retries int
	// inputInMessage puts the data inventory (the input of an LLM tool's
	// call) in the first user message instead of the system prompt, so
	// that the system prompt is the same on every call and a provider's
	// prompt cache serves it.
	inputInMessage bool
	// textMode: the model answers in JSON (Config.Mode "text").
	textMode bool
	// toolMode: the model calls the tools natively (Config.Mode "tools");
	// specs are the functions it is given.
	toolMode bool
	specs    []llm.ToolSpec
	// wireNames are the tools' names as the model calls them (dots made
	// underscores), to their names.
	wireNames map[string]string

	fwMu    sync.Mutex
	fwCache map[*lisp.Map]*fwSet // the firewalled parts of recent contexts
	// shadowCache holds the shadow runs' contexts of recent contexts
	// (flow.go), one per surrogate variant.
	shadowCache map[*lisp.Map]*[fwall.Variants]shadowContext

	fpOnce sync.Once // Fingerprint, computed once: the agent is immutable
	fp     string

	// programs keeps the programs the agent's missions ran, compiled, for
	// those that send the same text again (see Options.CompileCache).
	programs *lisp.Cache
}

// New validates cfg and returns the agent. Errors are *Fail values
// naming the field; a tool called return or fail is a reserved_tool_name
// error (errors.Is(err, ReasonReservedToolName)).
func New(cfg Config) (*Agent, error) {
	a := &Agent{cfg: cfg, programs: new(lisp.Cache)}
	if strings.TrimSpace(cfg.Prompt) == "" {
		return nil, configErr("Prompt", "is required: say what the agent should do")
	}
	if cfg.MaxTurns < 0 {
		return nil, configErr("MaxTurns", fmt.Sprintf("must be at least 1, got %d", cfg.MaxTurns))
	}
	for name, v := range map[string]int{"MaxAgentMemory": cfg.MaxAgentMemory, "MaxNesting": cfg.MaxNesting, "MaxTreeTurns": cfg.MaxTreeTurns} {
		if v < 0 {
			return nil, configErr(name, fmt.Sprintf("must be positive, got %d", v))
		}
	}
	switch cfg.Mode {
	case "", modeProgram:
	case modeText:
		if len(cfg.Tools) > 0 || len(cfg.ToolCatalog) > 0 {
			return nil, configErr("Mode", "a text-mode agent answers in one JSON value: it has no tools (use the program mode)")
		}
		a.textMode = true
	case modeTools:
		a.toolMode = true
	default:
		return nil, configErr("Mode", fmt.Sprintf("unknown mode %q (program, tools or text)", cfg.Mode))
	}
	a.cfg.MaxTurns = orDefault(cfg.MaxTurns, defaultMaxTurns)
	a.cfg.MaxAgentMemory = orDefault(cfg.MaxAgentMemory, defaultMemoryLimit)
	a.cfg.MaxNesting = orDefault(cfg.MaxNesting, defaultMaxDepth)
	a.cfg.MaxTreeTurns = orDefault(cfg.MaxTreeTurns, defaultTurnBudget)
	p := &a.cfg.Presentation
	if p.FloatPrecision == 0 {
		p.FloatPrecision = defaultFloatPrecision
	}
	if a.cfg.Limits.Timeout == 0 {
		a.cfg.Limits.Timeout = defaultTurnTimeout
		if a.cfg.Limits.MaxSteps == 0 {
			// The 5 s the model is told of, at the cheapest work's pace:
			// the interpreter's default is a second's worth.
			a.cfg.Limits.MaxSteps = defaultTurnSteps
		}
	}
	if a.cfg.MissionTimeout == 0 {
		a.cfg.MissionTimeout = defaultMissionTimeout
	}
	p.InputItems = orDefault(p.InputItems, defaultListItems)
	if p.InputChars <= 0 {
		p.InputChars = defaultStringChars
	}
	d := defaultFormat()
	p.FeedbackLimit = orDefault(p.FeedbackLimit, d.FeedbackLimit)
	p.FeedbackMaxChars = orDefault(p.FeedbackMaxChars, d.FeedbackMaxChars)
	p.HistoryMaxBytes = orDefault(p.HistoryMaxBytes, d.HistoryMaxBytes)
	p.ResultLimit = orDefault(p.ResultLimit, d.ResultLimit)
	p.ResultMaxChars = orDefault(p.ResultMaxChars, d.ResultMaxChars)
	a.format = *p
	if cfg.Signature != "" {
		sig, err := signature.Parse(cfg.Signature)
		if err != nil {
			return nil, &Fail{Op: "Signature", Reason: ReasonInvalidSignature, Message: err.Error(), cause: err}
		}
		if len(cfg.FieldDescriptions) > 0 {
			if sig, err = sig.WithDescriptions(cfg.FieldDescriptions); err != nil {
				return nil, &Fail{Op: "FieldDescriptions", Reason: ReasonInvalidSignature, Message: err.Error(), cause: err}
			}
		}
		a.sig = sig
	} else if len(cfg.FieldDescriptions) > 0 {
		return nil, configErr("FieldDescriptions", "needs a Signature to describe")
	}
	tpl, err := template.Parse(cfg.Prompt)
	if err != nil {
		return nil, &Fail{Op: "Prompt", Reason: ReasonTemplateError, Message: err.Error(), cause: err}
	}
	if a.sig != nil {
		if err := tpl.Validate(a.sig); err != nil {
			return nil, &Fail{Op: "Prompt", Reason: ReasonTemplateError, Message: err.Error(), cause: err}
		}
	}
	for _, p := range tpl.Placeholders() {
		for _, seg := range p.Path {
			if strings.HasPrefix(seg, "_") {
				return nil, &Fail{Op: "Prompt", Reason: ReasonTemplateError, Message: fmt.Sprintf(
					"placeholder %s at %d:%d names a firewalled field, whose value the LLM must not see; programs can read it from ctx/%s",
					p, p.Line, p.Col, p.Path[0])}
			}
		}
	}
	a.prompt = tpl
	a.tools = make(map[string]*boundTool, len(cfg.Tools))
	for name, t := range cfg.Tools {
		if name == "return" || name == "fail" {
			return nil, &Fail{Op: "Tools", Reason: ReasonReservedToolName,
				Message: fmt.Sprintf("a tool cannot be called %q: return and fail end the mission", name)}
		}
		if !validToolName(name) {
			return nil, configErr("Tools", fmt.Sprintf("tool name %q is not a PTC-Lisp name (letters, digits, -, _ and inner dots)", name))
		}
		bt, err := bindTool(name, t)
		if err != nil {
			return nil, err
		}
		a.tools[name] = bt
		a.names = append(a.names, name)
	}
	sort.Strings(a.names)
	for _, name := range a.names {
		if w := a.tools[name].untypedWarning(); w != "" {
			a.toolWarnings = append(a.toolWarnings, w)
		}
	}
	for name, c := range cfg.ToolCatalog {
		if _, dup := cfg.Tools[name]; dup {
			return nil, configErr("ToolCatalog", fmt.Sprintf("%q is both a tool and a catalog entry", name))
		}
		if c.Signature != "" {
			if _, err := signature.Parse(c.Signature); err != nil {
				return nil, &Fail{Op: "ToolCatalog", Reason: ReasonInvalidSignature,
					Message: fmt.Sprintf("%s: %v", name, err), cause: err}
			}
		}
		a.catalog = append(a.catalog, name)
	}
	sort.Strings(a.catalog)
	lang, err := resolveLanguage(cfg.Presentation.Language)
	if err != nil {
		return nil, err
	}
	a.language = lang
	if a.toolMode {
		a.specs = a.toolSpecs()
	}
	return a, nil
}

// MustNew is New for agents defined in the program: it panics on error.
func MustNew(cfg Config) *Agent {
	a, err := New(cfg)
	if err != nil {
		panic(err)
	}
	return a
}

// Config returns the agent's definition with the defaults filled in.
func (a *Agent) Config() Config {
	if a == nil {
		return Config{}
	}
	return a.cfg
}

// Signature returns the parsed signature, nil when the agent has none.
func (a *Agent) Signature() *signature.Signature {
	if a == nil {
		return nil
	}
	return a.sig
}

// SingleShot reports whether the agent answers in one LLM call with the
// program's value (MaxTurns 1 and no tools).
func (a *Agent) SingleShot() bool {
	return a != nil && !a.textMode && !a.toolMode && a.cfg.MaxTurns == 1 && len(a.tools) == 0
}

// made reports whether a was made by New: the methods of a nil or zero
// Agent return zero values or errNotMade, never panic.
func (a *Agent) made() bool { return a != nil && a.prompt != nil }

// errNotMade is the error of an Agent method that needs an agent made by
// New, for a nil or zero one.
func errNotMade(method string) *Fail {
	return configErr("Agent", method+": the agent is nil or was not made by New")
}

func configErr(field, msg string) *Fail {
	return &Fail{Op: field, Reason: ReasonInvalidConfig, Message: msg}
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func validToolName(name string) bool {
	if name == "" {
		return false
	}
	for i, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case (c >= '0' && c <= '9') || c == '-' || c == '?' || c == '!':
			if i == 0 {
				return false
			}
		case c == '.':
			// A namespace-like prefix, as MCP servers' tools get
			// (github.search_issues): never first, last or doubled.
			if i == 0 || i == len(name)-1 || name[i-1] == '.' {
				return false
			}
		default:
			return false
		}
	}
	return true
}
