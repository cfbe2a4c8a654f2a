package agent

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/signature"
	"github.com/ptc-go/ptc/template"
)

// Config defines an agent: what it is asked to do, its contract, its tools
// and its limits. It is plain data; New validates it into an *Agent. A zero
// field means the documented default.
type Config struct {
	// Name identifies the agent in events, spans and logs ("researcher").
	// Default: the name of the tool it is called as, else none.
	Name string
	// Prompt is the mission, a template whose {{placeholders}} are filled
	// from the run's context: "Find urgent emails for {{user}}". Required.
	Prompt string
	// Signature is the contract, "(user :string) -> {count :int, _ids [:int]}"
	// or the output alone, "{count :int}". Placeholders of Prompt must be
	// parameters of the signature. Empty: no contract (any input, any output).
	Signature string
	// Tools are the functions the agent's programs may call.
	Tools map[string]Tool
	// ToolCatalog lists tools the LLM may know about when planning but not
	// call (for example, the tools of other agents). Calling one is an
	// error fed back to the LLM.
	ToolCatalog map[string]CatalogEntry
	// MaxTurns bounds the LLM calls of a mission. Default 5. With MaxTurns
	// 1 and no tools the agent is single-shot: the program's value is the
	// answer. Otherwise the mission ends only with (return v) or (fail v).
	MaxTurns int
	// MissionTimeout bounds the whole mission, every turn and nested agent
	// included. Zero: 60 s, the seeds' default (DefaultMissionTimeout);
	// negative: no limit beyond the caller's context. Raise it for real
	// models on long missions.
	MissionTimeout time.Duration
	// LLMRetry is the retry policy for failed LLM calls (network errors,
	// rate limits). Retries never consume turns. Zero: no retries.
	LLMRetry llm.RetryPolicy
	// LLMTimeout bounds each LLM call (each attempt): a call that takes
	// longer is abandoned and is a timeout, which LLMRetry retries by
	// default. Zero or negative: no bound of its own; the mission
	// (MissionTimeout) and the caller's context bound each call. A real
	// model's reply often takes longer than a turn's 5 s, which bounds the
	// program, not the model.
	LLMTimeout time.Duration
	// LLM pins the model this agent always uses, overriding the run's
	// Options.LLM, a model bound to its tool and any parent's (the seeds'
	// per-agent llm). Nil: the run's default, or the caller's.
	LLM llm.Model
	// SystemPrompt customizes the system prompt.
	SystemPrompt SystemPrompt
	// PromptLimit bounds what the system prompt shows.
	PromptLimit PromptLimit
	// MemoryLimit bounds what the agent's memory (its defs and stored
	// values) adds to the context and the tool results, in bytes of the
	// printed form: a name for data the mission already holds costs its
	// name. Default 1 MiB. A turn that goes over is an error turn whose
	// definitions are rolled back; two in a row end the mission with
	// memory_limit_exceeded.
	MemoryLimit int
	// MaxDepth bounds the nesting of agents that call agents. Default 3.
	MaxDepth int
	// TurnBudget bounds the turns of the whole mission tree, nested agents
	// included. Default 20.
	TurnBudget int
	// Description says what the agent does, for the tool schema a parent
	// agent sees and for documentation.
	Description string
	// FieldDescriptions describe signature fields by dotted path
	// ("user.email"); they appear in prompts and JSON Schemas.
	FieldDescriptions map[string]string
	// ContextDescriptions describe context entries by name; they appear in
	// the data inventory of the system prompt.
	ContextDescriptions map[string]string
	// Format bounds what the LLM is shown of each turn.
	Format FormatOptions
	// FloatPrecision is the number of decimals floats are rounded to in
	// what the LLM sees and in the returned value. Default 2; negative: no
	// rounding. (Zero means the default: round in the program to get
	// integers.)
	FloatPrecision int
	// Limits bound each turn's program (time, steps, memory...). Zero
	// fields take the interpreter's defaults, except Timeout, 5s by
	// default for an agent's turn.
	Limits lisp.Limits
	// MapResults says what a turn whose value is a map does to memory.
	MapResults MapResults
}

// CatalogEntry describes a tool shown for planning only.
type CatalogEntry struct {
	Signature   string
	Description string
}

// MapResults is the memory contract for a turn's map value.
type MapResults int

const (
	// MergeMaps (the default, the seeds' contract): a map value's entries
	// are stored in memory, readable as memory/key; if the map has a
	// :return entry, that entry is not stored and its value is what the
	// LLM is shown of the turn.
	MergeMaps MapResults = iota
	// KeepMaps: a map value is shown like any other value; only def,
	// defn and memory/put store values (the reference's later contract).
	KeepMaps
)

// FormatOptions bound what the LLM is shown. Zero fields take the defaults.
type FormatOptions struct {
	// FeedbackLimit is the number of collection items shown of a turn's
	// value. Default 10.
	FeedbackLimit int
	// FeedbackMaxChars bounds the text of a turn's value and of its
	// println output, each. Default 512.
	FeedbackMaxChars int
	// HistoryMaxBytes bounds each of *1, *2, *3 as the next program sees
	// them. Default 512.
	HistoryMaxBytes int
	// ResultLimit is the number of collection items shown of a nested
	// agent's final value (to its parent's LLM). Default 50.
	ResultLimit int
	// ResultMaxChars bounds that value's text. Default 500.
	ResultMaxChars int
}

// PromptLimit bounds the system prompt.
type PromptLimit struct {
	// MaxChars cuts the system prompt (an Override included) to this many
	// characters, the note saying so included. Zero: no limit.
	MaxChars int
	// ListItems is how many items of a context collection the data
	// inventory shows as a sample. Default 5, the seeds'; negative: none.
	ListItems int
	// StringChars bounds each context string shown in the inventory, and
	// each entry's whole sample to 100 characters more. Default 1,000,
	// the seeds'.
	StringChars int
}

// SystemPrompt customizes the system prompt. The generated prompt has these
// sections, in order: Prefix, the role, the language reference, the mode
// (single-shot, or how turns, memory and feedback work), error recovery,
// the data inventory, the tools, the output format, Suffix.
type SystemPrompt struct {
	// Prefix comes first, Suffix last.
	Prefix, Suffix string
	// Language replaces the language reference: a text, or the name of a
	// built-in profile ("default", "compact", or "minimal", the seeds' name
	// for compact; see LanguageReference). Empty: "default".
	Language string
	// LanguageFunc, when set, computes the language reference for each
	// turn (and wins over Language). It may return a profile name, or ""
	// for Language's.
	LanguageFunc func(PromptState) string
	// OutputFormat replaces the instructions on how to answer.
	OutputFormat string
	// Transform, when set, rewrites the whole generated prompt.
	Transform func(prompt string) string
	// Override, when set, is the whole system prompt: nothing is generated.
	// You then have to explain the language, the tools and the data.
	Override string
}

// PromptState is what a LanguageFunc sees of the mission.
type PromptState struct {
	Turn     int           // from 1
	Model    llm.Model     // the model of the run
	Memory   []string      // the names in the agent's memory, sorted
	Messages []llm.Message // the conversation so far
	// MemoryValues is the memory itself, as the next program sees it
	// (MemoryValues.Get(name)); nil before anything is stored. It is the
	// seeds' "current memory state", firewalled values included: a text
	// the LanguageFunc returns is scrubbed of them (see Step.Scrub) before
	// it goes into the prompt.
	MemoryValues *lisp.Namespace
}

// Defaults.
const (
	DefaultMaxTurns       = 5
	DefaultMemoryLimit    = 1 << 20
	DefaultMaxDepth       = 3
	DefaultTurnBudget     = 20
	DefaultFloatPrecision = 2
	DefaultTurnTimeout    = 5 * time.Second
	// DefaultMissionTimeout bounds a mission whose MissionTimeout is zero:
	// the seeds' 60 s, the default 5 turns' model calls and programs.
	DefaultMissionTimeout = 60 * time.Second
)

// DefaultFormat returns the default format options.
func DefaultFormat() FormatOptions {
	return FormatOptions{FeedbackLimit: 10, FeedbackMaxChars: 512, HistoryMaxBytes: 512, ResultLimit: 50, ResultMaxChars: 500}
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
	catalog      []string // sorted catalog names
	format       FormatOptions
	language     string // resolved language reference profile or text

	// retries is how many more replies a single-shot agent may give after
	// one that fails (an LLM tool's Retries).
	retries int
	// inputInMessage puts the data inventory (the input of an LLM tool's
	// call) in the first user message instead of the system prompt, so
	// that the system prompt is the same on every call and a provider's
	// prompt cache serves it.
	inputInMessage bool

	fwMu    sync.Mutex
	fwCache map[*lisp.Map]*fwSet // the firewalled parts of recent contexts

	fpOnce sync.Once // Fingerprint, computed once: the agent is immutable
	fp     string

	// programs keeps the programs the agent's missions ran, compiled, for
	// those that send the same text again (see Options.CompileCache).
	programs *lisp.Cache
}

// Error reasons of New.
var (
	// ErrReservedToolName: a tool is named return or fail.
	ErrReservedToolName = errors.New("reserved_tool_name")
)

// New validates cfg and returns the agent. Errors are *ConfigError values
// naming the field; a tool called return or fail is a reserved_tool_name
// error (errors.Is(err, ErrReservedToolName)).
func New(cfg Config) (*Agent, error) {
	a := &Agent{cfg: cfg, programs: lisp.NewCache(lisp.CacheConfig{})}
	if strings.TrimSpace(cfg.Prompt) == "" {
		return nil, configErr("Prompt", "is required: say what the agent should do")
	}
	if cfg.MaxTurns < 0 {
		return nil, configErr("MaxTurns", fmt.Sprintf("must be at least 1, got %d", cfg.MaxTurns))
	}
	for name, v := range map[string]int{"MemoryLimit": cfg.MemoryLimit, "MaxDepth": cfg.MaxDepth, "TurnBudget": cfg.TurnBudget} {
		if v < 0 {
			return nil, configErr(name, fmt.Sprintf("must be positive, got %d", v))
		}
	}
	a.cfg.MaxTurns = orDefault(cfg.MaxTurns, DefaultMaxTurns)
	a.cfg.MemoryLimit = orDefault(cfg.MemoryLimit, DefaultMemoryLimit)
	a.cfg.MaxDepth = orDefault(cfg.MaxDepth, DefaultMaxDepth)
	a.cfg.TurnBudget = orDefault(cfg.TurnBudget, DefaultTurnBudget)
	if cfg.FloatPrecision == 0 {
		a.cfg.FloatPrecision = DefaultFloatPrecision
	}
	if a.cfg.Limits.Timeout == 0 {
		a.cfg.Limits.Timeout = DefaultTurnTimeout
	}
	if a.cfg.MissionTimeout == 0 {
		a.cfg.MissionTimeout = DefaultMissionTimeout
	}
	a.cfg.PromptLimit.ListItems = orDefault(cfg.PromptLimit.ListItems, defaultListItems)
	if cfg.PromptLimit.StringChars <= 0 {
		a.cfg.PromptLimit.StringChars = defaultStringChars
	}
	d := DefaultFormat()
	f := cfg.Format
	a.format = FormatOptions{
		FeedbackLimit:    orDefault(f.FeedbackLimit, d.FeedbackLimit),
		FeedbackMaxChars: orDefault(f.FeedbackMaxChars, d.FeedbackMaxChars),
		HistoryMaxBytes:  orDefault(f.HistoryMaxBytes, d.HistoryMaxBytes),
		ResultLimit:      orDefault(f.ResultLimit, d.ResultLimit),
		ResultMaxChars:   orDefault(f.ResultMaxChars, d.ResultMaxChars),
	}
	a.cfg.Format = a.format
	if cfg.Signature != "" {
		sig, err := signature.Parse(cfg.Signature)
		if err != nil {
			return nil, &ConfigError{Field: "Signature", Reason: ReasonInvalidSignature, Message: err.Error(), Err: err}
		}
		if len(cfg.FieldDescriptions) > 0 {
			if sig, err = sig.WithDescriptions(cfg.FieldDescriptions); err != nil {
				return nil, &ConfigError{Field: "FieldDescriptions", Reason: ReasonInvalidSignature, Message: err.Error(), Err: err}
			}
		}
		a.sig = sig
	} else if len(cfg.FieldDescriptions) > 0 {
		return nil, configErr("FieldDescriptions", "needs a Signature to describe")
	}
	tpl, err := template.Parse(cfg.Prompt)
	if err != nil {
		return nil, &ConfigError{Field: "Prompt", Reason: ReasonTemplateError, Message: err.Error(), Err: err}
	}
	if a.sig != nil {
		if err := tpl.Validate(a.sig); err != nil {
			return nil, &ConfigError{Field: "Prompt", Reason: ReasonTemplateError, Message: err.Error(), Err: err}
		}
	}
	for _, p := range tpl.Placeholders() {
		for _, seg := range p.Path {
			if strings.HasPrefix(seg, "_") {
				return nil, &ConfigError{Field: "Prompt", Reason: ReasonTemplateError, Message: fmt.Sprintf(
					"placeholder %s at %d:%d names a firewalled field, whose value the LLM must not see; programs can read it from ctx/%s",
					p, p.Line, p.Col, p.Path[0])}
			}
		}
	}
	a.prompt = tpl
	a.tools = make(map[string]*boundTool, len(cfg.Tools))
	for name, t := range cfg.Tools {
		if name == "return" || name == "fail" {
			return nil, &ConfigError{Field: "Tools", Reason: ReasonReservedToolName,
				Message: fmt.Sprintf("a tool cannot be called %q: return and fail end the mission", name), Err: ErrReservedToolName}
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
				return nil, &ConfigError{Field: "ToolCatalog", Reason: ReasonInvalidSignature,
					Message: fmt.Sprintf("%s: %v", name, err), Err: err}
			}
		}
		a.catalog = append(a.catalog, name)
	}
	sort.Strings(a.catalog)
	lang, err := resolveLanguage(cfg.SystemPrompt.Language)
	if err != nil {
		return nil, err
	}
	a.language = lang
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
func (a *Agent) SingleShot() bool { return a != nil && a.cfg.MaxTurns == 1 && len(a.tools) == 0 }

// ConfigError is an invalid agent definition.
type ConfigError struct {
	Field   string // the Config field at fault
	Reason  Reason // ReasonInvalidConfig, ReasonReservedToolName, ReasonTemplateError, ReasonInvalidSignature, ReasonNotCompilable
	Message string
	Err     error
}

func (e *ConfigError) Error() string { return "agent: " + e.Field + ": " + e.Message }
func (e *ConfigError) Unwrap() error { return e.Err }

// Is reports whether target is e's Reason: errors.Is(err, agent.ReasonInvalidSignature).
func (e *ConfigError) Is(target error) bool {
	r, ok := target.(Reason)
	return ok && e != nil && e.Reason == r
}

// made reports whether a was made by New: the methods of a nil or zero
// Agent return zero values or errNotMade, never panic.
func (a *Agent) made() bool { return a != nil && a.prompt != nil }

// errNotMade is the error of an Agent method that needs an agent made by
// New, for a nil or zero one.
func errNotMade(method string) *ConfigError {
	return configErr("Agent", method+": the agent is nil or was not made by New")
}

func configErr(field, msg string) *ConfigError {
	return &ConfigError{Field: field, Reason: ReasonInvalidConfig, Message: msg}
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
