package agent

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ptc-go/ptc/agent/prompt"
	fwall "github.com/ptc-go/ptc/internal/firewall"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/signature"
)

// turnOnce runs one turn: ask the LLM, run its program, and either end the
// mission or send feedback for the next turn.
func (m *mission) turnOnce() *ending {
	start := m.now()
	var tr Turn
	m.cur, m.curStart = &tr, start // recorded by a panic that ends the turn
	if m.obs != nil {
		m.emit(&Event{Kind: TurnStart, Time: start})
	}
	system := m.system
	if system == "" { // a LanguageFunc: the prompt is made on every turn
		system = m.systemPrompt()
	}
	m.lastSystem = system // for Step.Messages (TraceConversation)
	if m.firstSystem == "" {
		m.firstSystem = system
	}
	req := llm.Request{
		System:    system,
		Messages:  m.messages,
		Turn:      m.turn,
		Prompt:    m.prompt,
		ToolNames: m.a.names,
		Options:   m.opts.LLMOptions,
		Cache:     m.opts.Cache,
		Tools:     m.a.specs,
		// Where the request comes from, as the mission's events say it.
		Agent:         m.name,
		Depth:         m.depth,
		TraceID:       m.traceID,
		ParentTraceID: m.parentTraceID,
	}
	if m.guard != nil {
		m.guard.mu.Lock()
		m.guard.turn, m.guard.turnStart = &tr, start
		m.guard.mu.Unlock()
	}
	m.llmTook = 0
	resp, err := m.callLLM(req)
	tr.LLMDuration = m.since(start)
	if m.llmTook > 0 {
		// The engine measured the model's own time (engine.LLMReply).
		tr.LLMDuration = m.llmTook
	}
	tr.LLMRetries = m.retries
	if err != nil {
		// The turn ends with the mission. Its Error stays empty (no
		// program failed, and the model was told nothing); its LLMRetries
		// hold the attempts that failed, so that a reader does not take a
		// turn with no program for a turn that went well.
		var fail *Fail
		if ctxErr := m.ctx.Err(); ctxErr != nil {
			fail = m.contextFail(ctxErr)
		} else if le := llm.Classify(err); le.Class == llm.ClassConfig {
			fail = &Fail{Reason: Reason(le.Reason), Message: le.Message}
		} else {
			fail = &Fail{Reason: ReasonLLMError, Message: "the LLM call failed: " + err.Error(),
				Details: map[string]any{"class": string(le.Class)}}
		}
		m.record(&tr, start)
		return &ending{fail: fail}
	}
	tr.Usage.Tokens = resp.Tokens
	m.tokens = m.tokens.Add(resp.Tokens)
	// Kept always, as the seeds keep raw_response: a turn without a
	// program is otherwise unexplained. It costs nothing while the mission
	// runs (the conversation holds the same string) and, after, at most
	// the provider's output limit per turn.
	tr.Response = resp.Content
	if m.overBudget() {
		m.record(&tr, start)
		return &ending{value: m.partial, fail: m.budgetEnding()}
	}

	if m.a.textMode {
		end := m.textTurn(&tr, resp.Content)
		m.record(&tr, start)
		return end
	}
	if m.a.toolMode {
		end := m.toolTurn(&tr, resp)
		m.record(&tr, start)
		return end
	}
	code := prompt.ExtractProgram(resp.Content)
	if code == "" {
		tr.Error = noCodeMessage
		if m.a.SingleShot() && !m.mayRetry() {
			m.record(&tr, start)
			return &ending{fail: &Fail{Reason: ReasonNoCodeFound, Message: "the LLM's reply has no PTC-Lisp program"}}
		}
		m.feedback(&tr, resp.Content, noCodeMessage+m.turnInfo())
		m.record(&tr, start)
		return nil
	}
	tr.Program = code
	end := m.runProgram(&tr, resp.Content, code)
	m.record(&tr, start)
	return end
}

const noCodeMessage = "Your reply contains no program. Answer with PTC-Lisp code in a ```clojure block."

// budgetEnding is how a mission ends when a limit of its tree is over
// (m.overLimit): by its own TokenLimit or Budget, with
// ReturnPartialOnBudget, the value of the last turn that ran without error
// when there is one and it matches the signature (nil fail); otherwise
// budget_callback_exceeded, saying whose limit and which mission's LLM
// call went over it.
func (m *mission) budgetEnding() *Fail {
	own := m.overLimit == m.ownLimit
	fail := m.budgetFailOf(m.overLimit, own)
	if own && fail.Reason == ReasonBudgetExceeded && m.opts.ReturnPartialOnBudget {
		msg := fail.Message
		if m.partial == nil {
			msg += "; no turn had produced a value to return"
		} else if issues := m.validateReturn(m.partial); issues != nil {
			msg += "; the last turn's value does not match the signature: " + issueText(issues)
		} else {
			return nil
		}
		fail.Message = m.clip(msg, maxFailChars)
	}
	return fail
}

// mayRetry reports whether a single-shot agent with retries (an LLM tool)
// may have another reply after a failed one.
func (m *mission) mayRetry() bool { return m.turn <= m.a.retries }

// overBudget reports, after an LLM call, whether a TokenLimit or a Budget
// of the mission's tree (its own or one above it) ends the mission: the
// call's usage is reported to them first.
func (m *mission) overBudget() bool {
	m.account()
	if m.rt.limit == nil {
		return false
	}
	m.callback = budgetCallback // named if it calls runtime.Goexit (its panics end the tree: afterCall)
	m.overLimit = m.rt.limit.afterCall(m.who())
	m.callback = ""
	return m.overLimit != nil
}

// record appends the turn to the trace.
func (m *mission) record(tr *Turn, start time.Time) {
	if tr == m.cur {
		m.cur = nil
	}
	// The turn's usage, as its turn.stop event reports it.
	tr.Usage.Turns, tr.Usage.LLMRequests, tr.Usage.Duration = 1, 1+len(tr.LLMRetries), m.since(start)
	if tr.Program != "" {
		tr.Usage.Programs = 1
	}
	if m.opts.Trace == TraceConversation {
		tr.Memory = m.memory
	}
	if m.opts.Trace != TraceOff {
		m.trace = append(m.trace, *tr)
	}
	if m.obs != nil {
		e := &Event{Kind: TurnStop, Turn: m.turn, Duration: tr.Usage.Duration, Usage: tr.Usage,
			Program: tr.Program, Err: turnErr(tr.Error), Output: m.eventOutput(tr.Output)}
		if tr.Error == "" && tr.Program != "" {
			e.ResultText = m.eventText(tr.Result)
			if m.obs.raw {
				e.result = tr.Result
			}
		}
		m.emit(e)
	}
}

// feedback appends the LLM's reply and our answer to the conversation.
func (m *mission) feedback(tr *Turn, reply, text string) {
	if m.opts.Trace == TraceConversation {
		tr.Feedback = text
	}
	m.messages = append(m.messages,
		llm.Message{Role: llm.Assistant, Content: reply},
		llm.Message{Role: llm.User, Content: text})
}

// runProgram runs the turn's program and decides what happens next.
func (m *mission) runProgram(tr *Turn, reply, code string) *ending {
	m.nested.clearTurn()
	ctxMap := m.context
	if m.lastFail != nil {
		ctxMap = ctxMap.Assoc(lisp.Keyword("fail"), m.lastFail)
	}
	priorMemory, priorHistory, priorFail := m.memory, m.history, m.lastFail
	var prog *lisp.Program
	res, err := m.runLisp(tr, ctxMap, func(ctx context.Context, opts lisp.Options) (*lisp.Result, error) {
		p, err := m.compile(tr, code)
		if err != nil {
			return &lisp.Result{Namespace: opts.Namespace}, err
		}
		prog = p
		m.running.Store(&runningTurn{prog: p, memory: priorMemory, history: priorHistory, lastFail: priorFail})
		defer m.running.Store(nil)
		return p.Run(ctx, opts)
	})
	// What the program computed from firewalled values: see flow.go.
	st := m.shadowRun(tr, prog, priorMemory, priorHistory, priorFail)
	if st != nil {
		m.deriveOutput(tr, st)
		m.deriveCalls(tr, st)
	}
	single := m.a.SingleShot()
	// A single-shot agent with retries left is told what went wrong, as a
	// multi-turn agent is.
	final := single && !m.mayRetry()

	if err != nil {
		le := asLispError(err)
		if fail := m.endedByContext(le); fail != nil {
			return &ending{fail: fail}
		}
		if child := childFail(err); child != nil && child.Reason == ReasonTurnBudgetExhausted {
			// The tree's turns are gone: no turn of this mission can follow.
			return &ending{fail: m.budgetFail()}
		}
		// Errors can be long (a tool's message is its own): cut before
		// scrubbing to bound the work, and again when shown.
		detail := m.clip(le.Detailed(), 8*m.a.format.FeedbackMaxChars)
		if st != nil {
			detail = m.deriveError(le, detail, st)
		}
		msg := detail + m.exData(le)
		tr.Error = msg
		if final {
			return &ending{fail: programFail(le, msg)}
		}
		m.lastFail = failMap(le, msg)
		if st != nil {
			m.failShadow(st, m.lastFail)
		}
		m.feedback(tr, reply, m.errorFeedback(msg, tr.Output, m.toolWarnings(tr.ToolCalls)))
		return nil
	}
	before := m.memory // kept for a turn whose definitions overrun the memory
	m.memory = res.Namespace
	m.lastFail = nil
	tr.Result = res.Value
	// Values the program stored under "_" names or keys are firewalled
	// from now on, like the context's.
	m.fw.AddMemory(m.memory)
	m.fw.Add(res.Value, false)
	if st != nil && m.deriveTurn(tr, res, st) {
		// The value as a whole is computed from firewalled data: the
		// turn's record and what the model is shown hold the
		// placeholder; the caller still gets the value (Step.Return),
		// which every record and event hides by its value, and so does
		// a caller's model when it comes back from a tool.
		tr.Result = fwall.Placeholder
		m.fw.HideScalar(res.Value)
	}

	switch res.Status {
	case lisp.Failed:
		f := m.programFailValue(res.Value)
		if st != nil {
			m.deriveFail(f, res.Value, st)
		}
		return &ending{fail: f}
	case lisp.Returned:
		return m.offer(tr, reply, code, res.Value, final, st)
	}
	// Completed without return or fail: a single-shot agent's answer.
	if single {
		return m.offer(tr, reply, code, res.Value, final, st)
	}
	shown, fromMap := m.applyMapResult(res.Value)
	if tr.Result == fwall.Placeholder && res.Value != fwall.Placeholder {
		shown = tr.Result
	}
	if over := m.checkMemory(tr, res.Defined); over != nil {
		return m.memoryOverrun(tr, reply, before, over)
	}
	m.memoryOverruns = 0
	m.partial = res.Value
	m.pushHistory(res.Value)
	stored := m.storedNote(before, res.Defined, fromMap)
	m.feedback(tr, reply, m.valueFeedback(shown, tr.Output, stored, m.shadowNotes(res.Shadowed)+m.programNotes(res.Notes)+m.toolWarnings(tr.ToolCalls)))
	return nil
}

// memoryOverrun handles a turn whose definitions took the memory past its
// limit: they are rolled back and the turn is an error the model can act
// on. A second such turn in a row ends the mission: the model was told the
// sizes and the limit, and did not keep to them.
func (m *mission) memoryOverrun(tr *Turn, reply string, before *lisp.Namespace, over *memoryOverrun) *ending {
	m.memory = before
	m.memSizes = nil
	msg := m.memoryErrorText(over)
	m.memoryOverruns++
	if m.memoryOverruns > 1 {
		return &ending{fail: &Fail{Reason: ReasonMemoryLimitExceeded, Message: m.clip(msg, maxFailChars)}}
	}
	tr.Error = msg
	b := lisp.NewMapBuilder(nil)
	b.Set(lisp.Keyword("reason"), lisp.Keyword(ReasonMemoryLimitExceeded))
	b.Set(lisp.Keyword("message"), msg)
	b.Set(lisp.Keyword("details"), lisp.NewMap(lisp.Keyword("limit"), int64(m.a.cfg.MaxAgentMemory),
		lisp.Keyword("size"), int64(over.size)))
	m.lastFail = b.Map()
	m.feedback(tr, reply, m.errorFeedback(msg, tr.Output, m.toolWarnings(tr.ToolCalls)))
	return nil
}

// offer checks a value that would end the mission: against the signature,
// and, when the mission compiles, the program's independence of earlier
// turns. A rejected value is explained to the LLM and is ctx/fail in the
// next turn; final says there is no next turn (single-shot).
func (m *mission) offer(tr *Turn, reply, code string, v lisp.Value, final bool, st shadowTurns) *ending {
	reject := func(reason Reason, short, text string, details map[string]any) *ending {
		if final {
			return &ending{fail: &Fail{Reason: reason, Message: m.clip(short, maxFailChars), Details: details}}
		}
		tr.Error = text
		b := lisp.NewMapBuilder(nil)
		b.Set(lisp.Keyword("reason"), lisp.Keyword(reason))
		b.Set(lisp.Keyword("message"), m.clip(short, maxFailChars))
		if raw, ok := details["issues"]; ok {
			if issues, err := lisp.FromGo(raw); err == nil { // strings: it converts
				b.Set(lisp.Keyword("details"), lisp.NewMap(lisp.Keyword("issues"), issues))
			}
		}
		m.lastFail = b.Map()
		m.feedback(tr, reply, text+m.turnInfo())
		return nil
	}
	if issues := m.validateReturn(v); issues != nil {
		issues = m.deriveIssues(issues, st)
		shown := v
		if tr.Result == fwall.Placeholder && v != fwall.Placeholder {
			shown = tr.Result // computed from firewalled data as a whole
		}
		return reject(ReasonValidationError, "the value does not match the signature: "+issueText(issues),
			m.validationFeedback(shown, issues), issueDetails(issues))
	}
	if m.compiling {
		if p, _, err := m.programCache().Compile(m.ctx, code); err == nil {
			// As the program reads here: a builtin an earlier turn
			// redefined would be the builtin again when it runs alone.
			if deps := p.DependenciesIn(m.memory); !deps.SelfContained() {
				why := dependencyText(deps)
				return reject(ReasonValidationError, "the final program is not self-contained: "+why,
					"This program will be kept and run on its own, without the earlier turns, but "+why+
						". Send one program that computes the value from ctx and the tools alone, and returns it.", nil)
			}
		}
		m.final = code
	}
	if m.opts.Validation == signature.WarnOnly && m.a.sig != nil {
		if w, _ := m.a.sig.ValidateOutput(v, signature.WarnOnly); len(w) > 0 {
			for _, is := range w {
				m.warnings = append(m.warnings, "return: "+is.String())
			}
		}
	}
	return &ending{value: v}
}

// childFail returns the Fail of the nested mission behind a tool error.
func childFail(err error) *Fail {
	var ae *Error
	if errors.As(err, &ae) && ae.Step != nil {
		return ae.Step.Fail
	}
	return nil
}

// toolWarnings tells the LLM how its tool arguments were coerced, so that
// its next programs write them right.
func (m *mission) toolWarnings(calls []ToolCall) string {
	var lines []string
	for _, c := range calls {
		for _, w := range c.Warnings {
			if len(lines) == 5 {
				lines = append(lines, "...")
				break
			}
			lines = append(lines, "- tool/"+c.Name+": "+w)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "\n" + m.clip("Argument warnings (coerced; write them with these types):\n"+strings.Join(lines, "\n"), m.a.format.FeedbackMaxChars)
}

// runLisp runs a program with the mission's memory, history, tools, limits
// and firewall, recording its tool calls and output in tr.
func (m *mission) runLisp(tr *Turn, ctxMap *lisp.Map, run func(context.Context, lisp.Options) (*lisp.Result, error)) (*lisp.Result, error) {
	calls := &toolCalls{m: m}
	res, err := run(m.ctx, lisp.Options{
		Input:     ctxMap,
		Namespace: m.memory,
		History:   m.history,
		Tools:     calls,
		Limits:    m.limits(),
		Redact:    m.fw.Redaction(),
	})
	tr.ToolCalls = calls.close()
	tr.Output = res.Output
	return res, err
}

// programCache is where the mission keeps its programs: the tree's
// Options.CompileCache, else its agent's own.
func (m *mission) programCache() *lisp.Cache {
	if m.rt != nil && m.rt.programs != nil {
		return m.rt.programs
	}
	return m.a.programs
}

// compile compiles the turn's program through the cache, and counts it.
func (m *mission) compile(tr *Turn, code string) (*lisp.Program, error) {
	p, cached, err := m.programCache().Compile(m.ctx, code)
	m.programs++
	if cached {
		m.cachedPrograms++
		tr.Usage.CachedPrograms = 1
	}
	return p, err
}

// endedByContext is the mission's end when a program stopped because the
// mission's context ended (its timeout, or the caller's), nil otherwise.
func (m *mission) endedByContext(le *lisp.Error) *Fail {
	if m.ctx.Err() != nil && (le.Kind == lisp.Cancelled || le.Kind == lisp.Timeout) {
		return m.contextFail(m.ctx.Err())
	}
	return nil
}

func asLispError(err error) *lisp.Error {
	var le *lisp.Error
	if errors.As(err, &le) {
		return le
	}
	return &lisp.Error{Kind: lisp.InternalError, Message: err.Error()}
}

// exData shows the data of an uncaught ex-info (or of a tool's error)
// after the error's message, printed behind the firewall as a value is:
// the message of the *lisp.Error never holds it.
func (m *mission) exData(le *lisp.Error) string {
	if le.Data == nil {
		return ""
	}
	return "\nex-data: " + m.show(le.Data, m.a.format.FeedbackLimit, m.a.format.FeedbackMaxChars)
}

// programFail is the Fail of a single-shot program's error.
func programFail(le *lisp.Error, msg string) *Fail {
	return &Fail{Reason: reasonOf(le.Kind), Message: msg, Op: le.Op, Details: map[string]any{"kind": string(le.Kind)}}
}

// reasonOf maps an interpreter error kind onto a Step reason.
func reasonOf(k lisp.Kind) Reason {
	if errors.Is(k, lisp.InvalidForm) { // its special cases too
		return ReasonAnalysisError
	}
	switch k {
	case lisp.ParseError:
		return ReasonParseError
	case lisp.UnboundVar, lisp.CannotShadowBuiltin:
		return ReasonAnalysisError
	case lisp.Timeout:
		return ReasonTimeout
	case lisp.MemoryExceeded:
		return ReasonMemoryExceeded
	case lisp.ToolError:
		return ReasonToolError
	case lisp.UnknownTool:
		return ReasonUnknownTool
	}
	return ReasonEvalError
}

// failMap is ctx/fail for the next turn: {:reason :message :op :details}.
func failMap(le *lisp.Error, msg string) *lisp.Map {
	b := lisp.NewMapBuilder(nil)
	b.Set(lisp.Keyword("reason"), lisp.Keyword(reasonOf(le.Kind)))
	b.Set(lisp.Keyword("message"), msg)
	if le.Op != "" {
		b.Set(lisp.Keyword("op"), le.Op)
	}
	details := lisp.NewMap(lisp.Keyword("kind"), lisp.Keyword(string(le.Kind)))
	if le.Data != nil {
		// An uncaught ex-info's data, for the next program to act on.
		details = details.Assoc(lisp.Keyword("data"), le.Data)
	}
	if child := childFail(le); child != nil {
		// A nested agent failed: its own reason, for programs to act on.
		details = details.Assoc(lisp.Keyword("child"), lisp.NewMap(
			lisp.Keyword("reason"), lisp.Keyword(child.Reason),
			lisp.Keyword("message"), child.Message))
	}
	b.Set(lisp.Keyword("details"), details)
	return b.Map()
}

// programFailValue is the Fail of (fail v): v's :reason, :message, :op and
// :details when v is a map, else reason "failed" with v printed. The texts
// go through the firewall (a parent agent's LLM sees them once agents
// nest) and are bounded (a program can fail with any value); the details
// are for the host, converted to Go data.
func (m *mission) programFailValue(v lisp.Value) *Fail {
	f := &Fail{Reason: ReasonFailed, ByProgram: true}
	mv, ok := v.(*lisp.Map)
	if !ok {
		f.Message = m.failText(v)
		if v != nil {
			f.Details = map[string]any{"value": goData(v)}
		}
		return f
	}
	get := func(k string) (lisp.Value, bool) { return mv.Get(lisp.Keyword(k)) }
	if r, ok := get("reason"); ok && r != nil {
		f.Reason = Reason(m.failText(r))
	}
	if msg, ok := get("message"); ok {
		f.Message = m.failText(msg)
	}
	if op, ok := get("op"); ok && op != nil {
		f.Op = m.failText(op)
	}
	if d, ok := get("details"); ok && d != nil {
		if dm, ok := goData(d).(map[string]any); ok {
			f.Details = dm
		} else {
			f.Details = map[string]any{"value": goData(d)}
		}
	}
	if f.Message == "" {
		f.Message = m.failText(v)
	}
	return f
}

// maxFailChars bounds the texts of a Fail made from a program's value.
const maxFailChars = 2000

// failText is the text of a value in a Fail: a keyword's name, a string as
// it is, anything else printed; readied for an LLM (see clip).
func (m *mission) failText(v lisp.Value) string {
	var s string
	switch x := v.(type) {
	case lisp.Keyword:
		s = string(x)
	case string:
		s = x
	case nil:
		s = ""
	default:
		s = lisp.Print(v, lisp.PrintOptions{MaxItems: 50, MaxChars: 4 * maxFailChars})
	}
	return m.clip(s, maxFailChars)
}

// goData converts a value for Fail.Details; a value too large to convert
// is described instead.
func goData(v lisp.Value) any {
	g, err := lisp.ToGo(v)
	if err != nil {
		return "<not converted: " + err.Error() + ">"
	}
	return g
}

// validateReturn checks a return value against the signature's output; nil
// when it matches (or there is nothing to check).
func (m *mission) validateReturn(v lisp.Value) error {
	sig := m.a.sig
	if sig == nil || sig.Output.Kind == signature.Any || m.opts.Validation == signature.Disabled {
		return nil
	}
	_, err := sig.ValidateOutput(v, m.opts.Validation)
	return err
}

func issueText(err error) string {
	var ve *signature.ValidationError
	if errors.As(err, &ve) {
		parts := make([]string, len(ve.Issues))
		for i, is := range ve.Issues {
			parts[i] = is.String()
		}
		return strings.Join(parts, "; ")
	}
	return err.Error()
}

// limits are the limits of the mission's programs: the agent's, run one
// call at a time when the tree is sequential (Options.Sequential).
func (m *mission) limits() lisp.Limits {
	l := m.a.cfg.Limits
	if m.rt != nil && m.rt.sequential {
		l.MaxParallel = 1
	}
	return l
}

// turnErr is the error of a turn's program as the LLM was told it, for
// Event.Err (nil when the turn had none).
func turnErr(text string) error {
	if text == "" {
		return nil
	}
	return errors.New(text)
}
