package agent

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	langref "github.com/ptc-go/ptc/agent/internal/lang"
	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
)

// The system prompt. Its sections, in order (seed 001, "System Prompt
// Contents"):
//
//	Prefix
//	the role          what the model is and what its programs are for
//	the language      a built-in profile, a custom text or LanguageFunc's
//	the mode          single-shot: one program whose value is the answer;
//	                  multi-turn: turns, feedback, memory, return and fail
//	error recovery    what an error looks like and what survives it
//	the data          the inventory of the context (inventory.go)
//	the tools         usage, signature and description of each tool, and
//	                  the catalog (planning only)
//	the output format how to reply (OutputFormat replaces it)
//	Suffix
//
// then Transform. Override replaces all of it. Presentation.SystemMaxChars bounds
// the result in every case, Override included: it is the caller's bound on
// what every turn costs.
//
// The prompt is sent on every turn, so it is lean: the "compact" profile
// also shortens the role, mode and error sections, and sections that do
// not apply (tool rules without tools, error recovery in single-shot) are
// left out. With a nil LanguageFunc it is built once per mission.

// resolveLanguage checks Presentation.Language: a profile name or a text.
func resolveLanguage(lang string) (string, error) {
	if name, ok := langref.Name(lang); ok {
		return name, nil
	}
	if !strings.ContainsAny(lang, " \n") {
		return "", configErr("Presentation.Language", fmt.Sprintf("unknown profile %q (the profiles are default and compact, or minimal, the seeds' name for compact; longer text is used as it is)", lang))
	}
	return lang, nil
}

// systemPrompt builds the system prompt of the current turn.
func (m *mission) systemPrompt() string {
	sp := m.a.cfg.Presentation
	var prompt string
	if sp.Override != "" {
		prompt = sp.Override
	} else if m.a.textMode {
		prompt = m.textPrompt()
	} else if m.a.toolMode {
		prompt = m.toolsPrompt()
	} else {
		prompt = m.generatedPrompt()
		if sp.Transform != nil {
			m.callback = "Presentation.Transform" // named by the failure of its panic
			prompt = sp.Transform(prompt)
			m.callback = ""
		}
	}
	return cutPrompt(prompt, m.a.cfg.Presentation.SystemMaxChars)
}

// generatedPrompt assembles the sections.
func (m *mission) generatedPrompt() string {
	sp := m.a.cfg.Presentation
	lang := m.a.language
	if sp.LanguageFunc != nil {
		// A LanguageFunc may return a profile name, or "" for the
		// configured language.
		m.callback = "Presentation.LanguageFunc"
		l := sp.LanguageFunc(m.promptState())
		m.callback = ""
		if name, ok := langref.Name(l); ok && l != "" {
			lang = name
		} else if l != "" {
			// It saw the memory's firewalled values: none may reach the
			// LLM through it.
			lang = m.fw.Scrub(l)
		}
	}
	compact := lang == "compact"
	single := m.a.SingleShot()
	var inventory string
	var hidden bool
	if !m.a.inputInMessage { // else it is in the first user message
		inventory, hidden = m.inventory()
	}
	sections := []string{
		sp.Prefix,
		m.roleSection(compact, single),
		m.languageSection(lang),
		m.modeSection(compact, single, hidden),
		m.errorSection(compact, single),
		inventory,
		m.toolsSection(),
		m.outputSection(compact, single),
		m.compileSection(),
		sp.Suffix,
	}
	var parts []string
	for _, s := range sections {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

// compileSection tells the model of a compiling mission (Agent.Compile)
// that its final program is kept and run on other inputs.
func (m *mission) compileSection() string {
	if !m.compiling {
		return ""
	}
	return "## Compilation\n" +
		"The program that ends this mission is kept and run again, without you, on other inputs of the same shape. " +
		"Read every input from ctx/..., never write this input's values into the program, " +
		"and make that last program do the whole computation: it must not rely on defs, memory or *1 from earlier turns."
}

// promptState is what a LanguageFunc sees.
func (m *mission) promptState() prompt.State {
	st := prompt.State{Turn: max(m.turn, 1), Messages: slices.Clone(m.messages)}
	if m.memory != nil {
		st.Memory, st.MemoryValues = m.memory.Names(), m.memory
	}
	switch {
	case m.rt != nil:
		st.Model = m.rt.model
	case m.a.cfg.LLM != nil:
		st.Model = m.a.cfg.LLM
	default:
		st.Model = m.opts.LLM
	}
	return st
}

// roleSection says what the model is: the author of programs that a
// sandbox runs, whose returned value is the answer.
func (m *mission) roleSection(compact, single bool) string {
	what := "the data below"
	switch {
	case m.a.inputInMessage && len(m.a.names) > 0:
		what = "the data of the user's message and the tools below"
	case m.a.inputInMessage:
		what = "the data of the user's message"
	case len(m.a.names) > 0:
		what = "the data and tools below"
	}
	switch {
	case single && compact:
		return "Solve the task with one PTC-Lisp program; a sandbox runs it with " + what + ", and its value is the answer."
	case single:
		return "You solve the user's task by writing one PTC-Lisp program. A sandbox runs it with " + what + ", and the program's value is the answer."
	case compact:
		return "Solve the task by writing PTC-Lisp programs; a sandbox runs them with " + what + ". The value you return is the answer."
	}
	return "You solve the user's task by writing PTC-Lisp programs. A sandbox runs each program with " + what + " and shows you what it did; the value you return is the answer."
}

// languageSection is the language reference: a profile (with its tool
// rules when the agent has tools), or a custom text as it is.
func (m *mission) languageSection(name string) string {
	text, ok := langref.Text(name, len(m.a.names) > 0)
	if !ok {
		return name
	}
	return text
}

// modeSection explains how a mission ends: the program's value
// (single-shot) or return and fail across turns, with the feedback,
// memory and limits of each turn. hidden says the context has firewalled
// entries.
func (m *mission) modeSection(compact, single, hidden bool) string {
	var sb strings.Builder
	out := m.outputContract()
	if single {
		sb.WriteString("## Answer\n")
		sb.WriteString(m.answerRules(compact))
		if out != "" {
			sb.WriteString("\nThe answer must match: " + out)
		}
		if next := m.opts.feeds; next != nil {
			sb.WriteString("\n" + feedsLine(next))
		}
		sb.WriteString("\n" + m.limitsLine())
		return sb.String()
	}
	cfg := m.a.cfg
	f := m.a.format
	sb.WriteString("## Turns\n")
	turns := fmt.Sprintf("up to %d turns", cfg.MaxTurns)
	if cfg.MaxTurns == 1 {
		// An agent with tools is never single-shot, even with one turn.
		turns = "one turn, and no second: the program must return or fail"
	}
	if compact {
		fmt.Fprintf(&sb, "%s, one program each. You see Value: (last value), Output: (println lines), Memory: (names kept), cut to %d chars. ", upperFirst(turns), f.FeedbackMaxChars)
		sb.WriteString("Kept as name or memory/name (unset: nil): def/defn, (memory/put :k v)")
		if !cfg.KeepMaps {
			sb.WriteString(", each key of a final map value but :return, shown instead")
		}
		fmt.Fprintf(&sb, "; at most %s, names of ctx data free. *1 *2 *3 are recent values.\n", textutil.Bytes(int64(cfg.MaxAgentMemory)))
	} else {
		fmt.Fprintf(&sb, "You have %s, one program per reply. After a program that neither returns nor fails you see:\n", turns)
		fmt.Fprintf(&sb, "Value: its value, Output: its println lines, Memory: the names you have kept (cut to %d items and %d chars).\n", f.FeedbackLimit, f.FeedbackMaxChars)
		fmt.Fprintf(&sb, "Explore first, printing counts, keys and a few rows with println; then compute. Print little: output past %s chars is cut.\n", textutil.Thousands(f.FeedbackMaxChars))
		sb.WriteString("- Later programs can read, as name or memory/name (nil when unset): def/defn names, (memory/put :k v)")
		if !cfg.KeepMaps {
			sb.WriteString(", and each key of a map the program ends with, except :return, whose value you are shown instead")
		}
		fmt.Fprintf(&sb, ". Memory holds at most %s; a name for ctx data or a tool's result costs nothing.\n", textutil.Bytes(int64(cfg.MaxAgentMemory)))
		sb.WriteString("- *1 *2 *3 are the values of the last three turns (shortened).\n")
		if hidden || m.mayFirewall() {
			sb.WriteString("- Values shown as " + Firewalled + " are hidden from you, and so are the _ fields tools and agents return; programs still get them, and may compute with them, pass them to tools and return them.\n")
		}
	}
	if out != "" {
		sb.WriteString("End with (return v), v matching: " + out)
	} else {
		sb.WriteString("End with (return v)")
	}
	sb.WriteString(", or (fail {:reason :kw :message \"...\"}) when the task cannot be done.\n")
	if next := m.opts.feeds; next != nil {
		sb.WriteString(feedsLine(next) + "\n")
	}
	sb.WriteString(m.limitsLine())
	return sb.String()
}

// feedsLine tells a pipeline's stage where its return value goes: the next
// agent reads it as its ctx/.
func feedsLine(next *Agent) string {
	what := "the next agent of a pipeline"
	if next.cfg.Name != "" {
		what += " (" + next.cfg.Name + ")"
	}
	line := "Your return value is the input of " + what + ", read as its ctx/"
	if sig := next.sig; sig != nil && len(sig.Params) > 0 {
		params, _, _ := strings.Cut(sig.String(), " -> ")
		line += "; it needs " + params
	}
	return line + "."
}

// answerRules says how a single-shot mission ends: the program's value is
// the answer, and what becomes of a failed reply (an LLM tool's Retries).
func (m *mission) answerRules(compact bool) string {
	n := m.a.retries
	var s string
	switch {
	case n == 0 && compact:
		s = "One reply, one program: its last value is the answer (no return needed); an error fails the task. Unusable input: (fail {:reason :bad_input :message \"...\"})."
	case n == 0:
		s = "You have one reply and one program: its last value is the answer, no (return ...) needed. There is no second turn: an error fails the task, so guard against nil and unexpected values. " +
			"Input you cannot use (it does not parse, a field is missing): end with (fail {:reason :bad_input :message \"...\"}), not a guess."
	case compact:
		s = fmt.Sprintf("One program: its last value is the answer (no return needed). An error or a wrong value is sent back for a corrected program, %s at most.", times(n))
	default:
		s = fmt.Sprintf("Reply with one program: its last value is the answer, no (return ...) needed. "+
			"A program that fails, or whose value does not match, is sent back to you with the problem for a corrected program, %s at most; "+
			"then the task fails, so guard against nil and unexpected values.", times(n))
	}
	if m.a.inputInMessage { // an LLM tool: often a judgement of its input
		if compact {
			s += " For a judgement, a literal map alone is the program."
		} else {
			s += "\nWhen the answer is a judgement (a label, a verdict, a summary) rather than a computation, " +
				"the program can be the answer written as a literal: a map literal alone is a whole program."
		}
	}
	return s
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

func upperFirst(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// mayFirewall reports whether the model may meet firewalled values besides
// the context's "_" entries: tools may return some, and the context may
// hold some deeper down.
func (m *mission) mayFirewall() bool {
	return len(m.a.names) > 0 || !m.fw.Empty()
}

// outputContract renders the output type of the agent's signature with its
// field descriptions. Firewalled fields are shown: this agent's programs
// must produce them; only the agent's callers do not see them.
func (m *mission) outputContract() string {
	sig := m.a.sig
	if sig == nil || sig.Output.Kind == signature.Any {
		return ""
	}
	out := &signature.Signature{Output: sig.Output}
	return strings.TrimPrefix(out.Render(signature.RenderOptions{Descriptions: true}), "() -> ")
}

// limitsLine states the limits of each program that a model can plan for.
func (m *mission) limitsLine() string {
	l := m.a.cfg.Limits
	eff := l.Effective()
	var parts []string
	if l.Timeout > 0 {
		parts = append(parts, fmt.Sprintf("%v", l.Timeout))
	}
	loops := l.MaxLoopIterations
	if loops == 0 {
		loops = eff.MaxLoopIterations
	}
	if loops > 0 {
		parts = append(parts, textutil.Thousands(loops)+" loop iterations")
	}
	// Recursion deeper than this fails where Clojure's stack may hold: a
	// model told of it walks a long sequence with loop/recur instead.
	if depth := eff.MaxDepth; depth > 0 && depth < 1_000_000 {
		parts = append(parts, textutil.Thousands(depth)+" nested calls")
	}
	if len(m.a.names) > 0 {
		calls := l.MaxToolCalls
		if calls == 0 {
			calls = eff.MaxToolCalls
		}
		if calls > 0 {
			parts = append(parts, textutil.Thousands(calls)+" tool calls")
		}
	}
	mem := l.MaxMemory
	if mem == 0 {
		mem = eff.MaxMemory
	}
	if mem > 0 {
		parts = append(parts, textutil.Bytes(mem)+" of new data")
	}
	if len(parts) == 0 {
		return ""
	}
	// "per program": a model read "2 tool calls" as its budget for the
	// whole mission.
	return "Limits per program: " + strings.Join(parts, ", ") + "."
}

// errorSection says how errors come back (multi-turn only: in single-shot
// an error ends the mission).
func (m *mission) errorSection(compact, single bool) string {
	if single {
		return ""
	}
	if compact {
		return "Errors come back as \"Error: ...\" and as ctx/fail {:reason :message :op :details}; memory is unchanged. Fix and retry."
	}
	return "## Errors\n" +
		"An error stops the program. You get \"Error: <message>\", and the next program can read it as ctx/fail, a map {:reason :message :op :details}. " +
		"A failed program keeps nothing: memory is as it was. Fix the cause and try again; do not resend the same program."
}

// toolsSection lists the tools with their usage, signature (firewalled
// output fields hidden) and description, then the catalog.
func (m *mission) toolsSection() string {
	a := m.a
	var sb strings.Builder
	if len(a.names) == 0 {
		if a.SingleShot() && len(a.catalog) == 0 {
			return "" // nothing to say: the mode says the value is the answer
		}
		sb.WriteString("## Tools\nNone: compute the answer from the ctx data.\n")
	} else {
		sb.WriteString("## Tools\n")
		unlisted := 0
		for _, name := range a.names {
			bt := a.tools[name]
			if bt.unlisted {
				unlisted++
				continue
			}
			writeTool(&sb, bt)
			if note := toolNote(bt); note != "" {
				sb.WriteString("  ; " + note + "\n")
			}
		}
		if unlisted > 0 {
			fmt.Fprintf(&sb, "%d more tools are callable but not listed here: the tools above tell you their names and signatures.\n", unlisted)
		}
	}
	if len(a.catalog) > 0 {
		sb.WriteString("For planning only, not callable here:\n")
		for _, name := range a.catalog {
			c := a.cfg.ToolCatalog[name]
			sb.WriteString("- " + name)
			if c.Signature != "" {
				if sig, err := signature.Parse(c.Signature); err == nil {
					sb.WriteString(" " + sig.Render(signature.RenderOptions{HideFirewalled: true}))
				}
			}
			if d := textutil.OneLine(c.Description); d != "" {
				sb.WriteString(" ; " + d)
			}
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// toolNote says what answers a tool when it is not plain code: a model
// cannot tell from a signature that a call runs a whole mission, or asks
// a model that knows only what it is given.
func toolNote(bt *boundTool) string {
	if bt.nested == nil {
		return ""
	}
	if bt.nested.kind == "llm" {
		return "answered by a model: one call per input, knowing only the arguments; pmap is fine"
	}
	note := "an agent: each call is a mission of its own, with its own turns; pmap is fine; its failure is a tool error"
	if p := bt.nested.a.cfg.Presentation.FloatPrecision; p >= 0 {
		note += fmt.Sprintf("; its floats come rounded to %d decimals", p)
	}
	return note
}

// writeTool writes one tool:
//
//	(tool/search {:query ... :limit ...}) ; Full-text search.
//	  (query :string, limit :int?) -> [{id :int}]
//	  ; query: words to look for
func writeTool(sb *strings.Builder, bt *boundTool) {
	name, sig, desc := bt.name, bt.sig, bt.desc
	form := ""
	if sig == nil {
		form = callingForm(name, desc)
	}
	switch {
	case form != "":
		sb.WriteString(form)
	case sig == nil && len(bt.args) > 0:
		sb.WriteString("(tool/" + name + " {")
		for i, a := range bt.args {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(":" + a.name + " ...")
		}
		sb.WriteString("})")
	case sig == nil:
		sb.WriteString("(tool/" + name + " {...})")
	case len(sig.Params) > 0:
		sb.WriteString("(tool/" + name + " {")
		for i, p := range sig.Params {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(lisp.Print(lisp.Keyword(p.Name), lisp.PrintOptions{}) + " ...")
		}
		sb.WriteString("})")
	default:
		sb.WriteString("(tool/" + name + ")")
	}
	if d := textutil.OneLine(desc); d != "" {
		sb.WriteString(" ; " + d)
	}
	sb.WriteByte('\n')
	if sig == nil {
		for _, a := range bt.args {
			if d := textutil.OneLine(a.desc); d != "" {
				sb.WriteString("  ; " + a.name + ": " + d + "\n")
			}
		}
		switch {
		case form != "" || len(bt.args) > 0:
			sb.WriteString("  result: any value\n")
		default:
			sb.WriteString("  arguments: a map, as the description says; result: any value\n")
		}
		return
	}
	// Firewalled result fields are named, marked hidden: the model's
	// programs get them and may pass them on, though it never sees them.
	for _, line := range strings.Split(sig.Render(signature.RenderOptions{MarkFirewalled: true, Descriptions: true}), "\n") {
		sb.WriteString("  " + line + "\n")
	}
}

// callingForm finds how a description shows the tool called, for a tool
// without a signature: "(tool/name {...})" or "(call \"name\" {...})" with
// its parentheses balanced, or "".
func callingForm(name, desc string) string {
	for _, start := range []string{"(tool/" + name, "(call \"" + name + "\""} {
		i := strings.Index(desc, start)
		if i < 0 {
			continue
		}
		next := i + len(start)
		if next < len(desc) && desc[next] != ' ' && desc[next] != ')' && desc[next] != '\n' {
			continue // another tool whose name starts with this one
		}
		depth, inStr := 0, false
		for j := i; j < len(desc) && j-i < 300; j++ {
			switch c := desc[j]; {
			case inStr && c == '\\':
				j++
			case c == '"':
				inStr = !inStr
			case inStr:
			case c == '(' || c == '[' || c == '{':
				depth++
			case c == ')' || c == ']' || c == '}':
				depth--
				if depth == 0 {
					return textutil.OneLine(desc[i : j+1])
				}
			}
		}
	}
	return ""
}

// outputSection says how to reply.
func (m *mission) outputSection(compact, single bool) string {
	if f := m.a.cfg.Presentation.OutputFormat; f != "" {
		return f
	}
	if compact {
		return "Reply with the program in one ```clojure block, without explanations."
	}
	return "## Reply\nReply with one ```clojure block holding the program; keep any text outside it to one short line."
}

// promptCutNote ends a system prompt cut by PromptLimit.MaxChars.
const promptCutNote = "\n[... system prompt cut to %d characters]"

// cutPrompt bounds the prompt to limit characters (0: no limit), note
// included. It cuts at a line break when one is close, so that no line of
// the language reference or of a signature is left half-written.
func cutPrompt(prompt string, limit int) string {
	if limit <= 0 || utf8.RuneCountInString(prompt) <= limit {
		return prompt
	}
	note := fmt.Sprintf(promptCutNote, limit)
	keep := limit - utf8.RuneCountInString(note)
	if keep <= 0 {
		return textutil.TruncateRunes(prompt, limit)
	}
	cut := textutil.TruncateRunes(prompt, keep)
	if i := strings.LastIndexByte(cut, '\n'); i > 0 && utf8.RuneCountInString(cut[i:]) <= 200 {
		cut = cut[:i]
	}
	return cut + note
}
