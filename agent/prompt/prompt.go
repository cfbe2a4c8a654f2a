package prompt

import (
	"github.com/ptc-go/ptc/agent/internal/lang"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// Options shape what an agent's LLM is shown. The zero value is the
// documented default of each field. The generated system prompt has these
// sections, in order: Prefix, the role, the language reference, the mode,
// error recovery, the data inventory, the tools, the output format, Suffix.
type Options struct {
	// Prefix comes first in the system prompt, Suffix last.
	Prefix, Suffix string
	// Language replaces the language reference: a text, or a profile name
	// ("default", "compact", "minimal" for compact; see Reference).
	Language string
	// LanguageFunc, when set, computes the language reference for each
	// turn (and wins over Language); it may return a profile name or "".
	LanguageFunc func(State) string
	// OutputFormat replaces the instructions on how to answer.
	OutputFormat string
	// Transform, when set, rewrites the whole generated system prompt.
	Transform func(prompt string) string
	// Override, when set, is the whole system prompt: nothing is generated.
	Override string
	// SystemMaxChars cuts the system prompt (an Override included) to this
	// many characters, the cut note included. Zero: no limit.
	SystemMaxChars int
	// InputItems is how many items of an input collection the data
	// inventory shows as a sample. Zero: 5; negative: none.
	InputItems int
	// InputChars bounds each input string the inventory shows (each
	// entry's whole sample to 100 characters more). Zero: 1,000.
	InputChars int
	// InputDescriptions describe input entries by name, in the inventory.
	InputDescriptions map[string]string
	// FeedbackLimit is how many collection items of a turn's value the
	// LLM is shown. Zero: 10.
	FeedbackLimit int
	// FeedbackMaxChars bounds the text of a turn's value and of its
	// println output, each. Zero: 512.
	FeedbackMaxChars int
	// HistoryMaxBytes bounds each of *1, *2, *3 as the next program sees
	// them. Zero: 512.
	HistoryMaxBytes int
	// ResultLimit is how many collection items of a nested agent's final
	// value its parent's LLM is shown. Zero: 50.
	ResultLimit int
	// ResultMaxChars bounds that value's text. Zero: 500.
	ResultMaxChars int
	// FloatPrecision is the decimals floats are rounded to in what the LLM
	// sees and in the returned value. Zero: 2; negative: no rounding.
	FloatPrecision int
}

// State is what a LanguageFunc sees of the mission.
type State struct {
	Turn     int           // from 1
	Model    llm.Model     // the model of the run
	Memory   []string      // the names in the agent's memory, sorted
	Messages []llm.Message // the conversation so far
	// MemoryValues is the memory as the next program sees it, firewalled
	// values included (a returned text is scrubbed of them); nil when empty.
	MemoryValues *lisp.Namespace
}

// Preview is what turn 1 of a mission would send an LLM (see
// agent.Agent.Preview).
type Preview struct {
	// System is the system prompt of turn 1.
	System string
	// User is the first user message: the mission prompt, placeholders
	// filled in (an LLM tool's followed by the data inventory of its input).
	User string
	// Tools are the schemas of the tools the programs can call.
	Tools []ToolSchema
}

// ToolSchema describes a tool for documentation and for provider tool
// definitions. Firewalled output fields are left out.
type ToolSchema struct {
	Name string
	// Signature is the compact form, "(query :string) -> [{id :int}]";
	// "" for a tool without one.
	Signature   string
	Description string
	// InputSchema and OutputSchema are JSON Schemas of the arguments and
	// the result ({"type": "object"} and {} for a tool without a signature).
	InputSchema, OutputSchema map[string]any
	// Unlisted reports a tool the system prompt does not list.
	Unlisted bool
}

// Profiles returns the names of the built-in language references,
// "default" first. "minimal" stands for "compact" wherever a profile is
// named.
func Profiles() []string { return lang.Profiles() }

// Reference returns the text of a built-in language reference ("default",
// "compact" or "minimal"), with its tool rules; "" for other names. It is
// for Language texts and LanguageFunc implementations that build on a
// profile:
//
//	Language: prompt.Reference("compact") + "\n- Amounts are in cents."
func Reference(profile string) string {
	name, ok := lang.Name(profile)
	if !ok {
		return ""
	}
	text, _ := lang.Text(name, true)
	return text
}
