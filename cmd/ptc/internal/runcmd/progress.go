package runcmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/internal/transcript"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// missionEvents receives what happens during a mission, as it happens, for
// the progress display of "ptc run"; progressObserver derives it from the
// agent's events.
type missionEvents interface {
	// turnStarted: the agent asks the model for turn n (the first attempt).
	turnStarted(n int)
	// llmRetried: attempt number attempt of turn n's call, after a failure.
	llmRetried(n, attempt int)
	// llmWriting: the model is writing turn n's reply (a model that
	// streams); reply is what it wrote so far, scrubbed.
	llmWriting(n int, reply string)
	// llmReplied: the model answered turn n's call (or failed).
	llmReplied(n int, reply string, tokens llm.Tokens, err error)
	// llmWaiting: turn n's call failed and is tried again in wait;
	// rateLimited when the provider said to slow down.
	llmWaiting(n int, wait time.Duration, rateLimited bool)
	// toolCalled: a tool call of turn n's program ended.
	toolCalled(n int, c toolCallResult)
	// turnEnded: turn n's program ran, and r is what came of it.
	turnEnded(n int, r turnResult)
	// missionStarted: the mission's clock starts at at.
	missionStarted(at time.Time)
	// missionEnded: the mission is over.
	missionEnded(step *agent.Step)
}

// turnResult is what came of a turn: its value or its error, as short
// texts.
type turnResult struct {
	value  string   // the value, printed (set when the program ran)
	err    string   // the error, or why the turn did not count
	output []string // the println output (its first lines at least)
}

// toolCallResult is a tool call as the progress shows it.
type toolCallResult struct {
	name, args, result, err string
	duration                time.Duration
}

// progressObserver turns the top mission's events into ev's calls. A
// turn's result is shown when the next turn starts, or by missionEnded for
// the last one (which then says how the mission ended).
type progressObserver struct {
	ev      missionEvents
	pending *turnResult
	turn    int
}

func (o *progressObserver) Observe(_ context.Context, e *agent.Event) {
	if e.Depth > 0 {
		return // nested agents show in their caller's tool calls
	}
	switch e.Kind {
	case agent.RunStart:
		o.ev.missionStarted(e.Time)
	case agent.TurnStart:
		if o.pending != nil {
			o.ev.turnEnded(o.turn, *o.pending)
			o.pending = nil
		}
		o.turn = e.Turn
		o.ev.turnStarted(e.Turn)
	case agent.LLMStart:
		if e.Attempt > 1 {
			o.ev.llmRetried(e.Turn, e.Attempt)
		}
	case agent.LLMChunk:
		if e.Reply != nil {
			o.ev.llmWriting(e.Turn, e.Reply.Content)
		}
	case agent.LLMStop, agent.LLMException:
		var reply string
		if e.Reply != nil {
			reply = e.Reply.Content
			if len(e.Reply.ToolCalls) > 0 {
				// Tool-calling mode: the reply is its calls.
				reply = callsText(e.Reply.ToolCalls)
			}
		}
		o.ev.llmReplied(e.Turn, reply, e.Usage.Tokens, e.Err)
		if e.RetryIn > 0 {
			o.ev.llmWaiting(e.Turn, e.RetryIn, llm.Classify(e.Err).Class == llm.ClassRateLimit)
		}
	case agent.ToolStop, agent.ToolException:
		c := toolCallResult{name: e.Tool, args: e.ArgsText, result: e.ResultText, duration: e.Duration}
		if e.Err != nil {
			c.err = e.Err.Error()
		}
		o.ev.toolCalled(e.Turn, c)
	case agent.TurnStop:
		var errText string
		if e.Err != nil {
			errText = e.Err.Error()
		}
		r := turnResult{value: e.ResultText, err: ErrorSummary(errText), output: e.Output}
		if e.Program == "" && errText == "" {
			return // the model call failed: llmReplied said so
		}
		o.pending = &r
	}
}

// callsText shows native tool calls as the program lines of a reply: one
// (tool/name args) a line, in a fence, so that the progress prints them as
// it prints a program.
func callsText(calls []llm.Message) string {
	var sb strings.Builder
	sb.WriteString("```clojure\n")
	for _, c := range calls {
		fmt.Fprintf(&sb, "(tool/%s %s)\n", c.ToolName, base.OneLine(c.Content, maxResultChars))
	}
	sb.WriteString("```")
	return sb.String()
}

// ErrorSummary is the line of a turn's error the progress shows: its
// first, or for a rejected (return ...), what the signature wanted.
func ErrorSummary(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if !strings.HasPrefix(lines[0], "Your (return ...) value does not match") {
		return lines[0]
	}
	summary := "(return ...) rejected: the value does not match the signature"
	for _, l := range lines {
		if strings.HasPrefix(l, "- ") {
			return summary + ": " + strings.TrimPrefix(l, "- ")
		}
	}
	return summary
}

// progress prints a mission as it runs, for a person watching: each turn's
// number, the program the model wrote, its value or error, the tokens so
// far and the time. It writes through w, shared with other messages.
type progress struct {
	w        *base.SyncWriter
	maxTurns int

	mu sync.Mutex
	// start is the mission's start (its run.start event): the times shown
	// and the Step's duration are measured from it alike, so no turn's
	// time exceeds the total (they were from before the agent set up).
	start   time.Time
	tokens  llm.Tokens
	started int // the last turn started
	ended   int // the last turn whose result was shown
	// toolTurn is the turn whose tool calls are being shown, toolsShown
	// how many.
	toolTurn, toolsShown int
	// writing is the turn whose program is shown as the model writes it,
	// written the lines of it shown so far.
	writing int
	written []string
}

func newProgress(w *base.SyncWriter, maxTurns int) *progress {
	return &progress{w: w, maxTurns: maxTurns, start: time.Now()}
}

func (p *progress) missionStarted(at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.start = at
}

// maxProgramLines bounds the lines of a program shown per turn.
const maxProgramLines = 40

// maxResultChars bounds a value or an error shown per turn.
const maxResultChars = 160

func (p *progress) turnStarted(n int) {
	p.mu.Lock()
	p.started = n
	p.mu.Unlock()
	p.w.Printf("turn %d/%d\n", n, p.maxTurns)
}

func (p *progress) llmRetried(n, attempt int) {
	p.w.Printf("  retrying the model call (attempt %d)\n", attempt)
}

// llmWaiting says that the run waits, and how long: a provider's
// Retry-After may be a minute (llm.RetryPolicy.MaxRetryAfter).
func (p *progress) llmWaiting(n int, wait time.Duration, rateLimited bool) {
	if rateLimited {
		p.w.Printf("  rate limited: retrying in %s\n", base.RoundElapsed(wait))
		return
	}
	p.w.Printf("  retrying in %s\n", base.RoundElapsed(wait))
}

func (p *progress) llmReplied(n int, reply string, tokens llm.Tokens, err error) {
	p.mu.Lock()
	p.tokens = p.tokens.Add(tokens)
	p.mu.Unlock()
	if errors.Is(err, transcript.ErrReplayMismatch) {
		p.w.Printf("  ✗ the request differs from the recording (see below)\n")
		return
	}
	if err != nil {
		p.w.Printf("  ! the model call failed: %s\n", base.OneLine(err.Error(), maxResultChars))
		return
	}
	p.mu.Lock()
	var shown []string
	if p.writing == n {
		shown = p.written
	}
	p.writing, p.written = 0, nil
	p.mu.Unlock()
	prog := prompt.ExtractProgram(reply) // what the turn runs
	if prog == "" {
		p.w.Printf("  (no program in the reply: %s)\n", base.OneLine(reply, 80))
		return
	}
	lines := strings.Split(strings.TrimRight(prog, "\n"), "\n")
	from := 0
	if len(shown) <= len(lines) && slices.Equal(shown, lines[:len(shown)]) {
		from = len(shown) // shown as they were written
	} else if len(shown) > 0 {
		p.w.Printf("  (the program, as the reply ended:)\n")
	}
	p.w.Printf("%s", programLines(lines, from, len(lines)))
}

// llmWriting shows the program's lines as the model finishes them: those
// of a fenced block (a reply without one is shown when it ends).
func (p *progress) llmWriting(n int, reply string) {
	if !strings.Contains(reply, "```") {
		return
	}
	lines := strings.Split(prompt.ExtractProgram(reply), "\n")
	done := lines[:len(lines)-1] // the last is being written
	done = done[:min(len(done), maxProgramLines)]
	p.mu.Lock()
	if p.writing != n {
		p.writing, p.written = n, nil
	}
	from := len(p.written)
	if len(done) <= from || !slices.Equal(p.written, done[:from]) {
		p.mu.Unlock()
		return
	}
	p.written = append(p.written, done[from:]...)
	p.mu.Unlock()
	p.w.Printf("%s", programLines(done, from, len(done)))
}

// programLines are lines[from:to] of a program as the progress shows them,
// indented, the lines past maxProgramLines summed up once.
func programLines(lines []string, from, to int) string {
	var sb strings.Builder
	for i := from; i < to; i++ {
		if i == maxProgramLines {
			fmt.Fprintf(&sb, "    … (%s)\n", base.Plural(len(lines)-i, "more line"))
			break
		}
		sb.WriteString("    ")
		sb.WriteString(lines[i])
		sb.WriteByte('\n')
	}
	return sb.String()
}

// maxToolLines bounds the tool calls shown per turn (a pmap over a
// thousand items is summed up).
const maxToolLines = 8

func (p *progress) toolCalled(n int, c toolCallResult) {
	p.mu.Lock()
	if p.toolTurn != n {
		p.toolTurn, p.toolsShown = n, 0
	}
	p.toolsShown++
	shown := p.toolsShown
	p.mu.Unlock()
	switch {
	case shown > maxToolLines+1:
		return
	case shown == maxToolLines+1:
		p.w.Printf("  ↳ … (more tool calls: ptc run --trace FILE keeps them all)\n")
		return
	}
	call := base.OneLine("tool/"+c.name+" "+c.args, maxResultChars/2)
	if c.err != "" {
		p.w.Printf("  ↳ %s ✗ %s (%s)\n", call, base.OneLine(c.err, maxResultChars/2), base.RoundElapsed(c.duration))
		return
	}
	p.w.Printf("  ↳ %s → %s (%s)\n", call, base.OneLine(c.result, maxResultChars/2), base.RoundElapsed(c.duration))
}

func (p *progress) turnEnded(n int, r turnResult) {
	p.mu.Lock()
	p.ended = n
	p.mu.Unlock()
	p.showResult(r)
	p.stats(-1)
}

// maxOutputLines bounds the println output shown per turn.
const maxOutputLines = 3

func (p *progress) showResult(r turnResult) {
	p.showOutput(r.output)
	if r.err != "" {
		p.w.Printf("  ✗ %s\n", base.OneLine(r.err, maxResultChars))
	} else {
		p.w.Printf("  → %s\n", base.OneLine(r.value, maxResultChars))
	}
}

// showOutput shows the first lines of a turn's println output.
func (p *progress) showOutput(lines []string) {
	for i, o := range lines {
		if i == maxOutputLines {
			p.w.Printf("  | … (%s)\n", base.Plural(len(lines)-i, "more line"))
			break
		}
		p.w.Printf("  | %s\n", base.OneLine(o, maxResultChars))
	}
}

// stats shows the tokens so far and the mission's time: elapsed, or
// (elapsed >= 0) the given one.
func (p *progress) stats(elapsed time.Duration) {
	p.mu.Lock()
	t := p.tokens
	if elapsed < 0 {
		elapsed = time.Since(p.start)
	}
	p.mu.Unlock()
	p.w.Printf("  %s tokens so far (%s in, %s out) · %s\n",
		textutil.Thousands(t.Total()), textutil.Thousands(t.Input), textutil.Thousands(t.Output), base.RoundElapsed(elapsed))
}

// missionEnded shows the last turn's result, which no request followed,
// from the trace, and the mission's cost.
func (p *progress) missionEnded(step *agent.Step) {
	p.mu.Lock()
	last, ended := p.started, p.ended
	p.mu.Unlock()
	if step.Fail != nil && step.Fail.Reason == transcript.ReasonReplayMismatch {
		last = ended // the mismatch report follows
	}
	if last > ended {
		var tr *agent.Turn
		if n := len(step.Trace); n > 0 && n == last {
			tr = &step.Trace[n-1]
		}
		// From the Step, redacted as the events are: the progress is for
		// a person, and often kept in a CI log.
		sh := transcript.Shown{Step: step}
		switch {
		case step.Fail == nil:
			if tr != nil {
				p.showOutput(sh.Texts(tr.Output))
			}
			p.w.Printf("  ✓ returned %s\n", sh.Value(step.Return, lisp.PrintOptions{MaxItems: 8, MaxChars: maxResultChars}))
		case tr != nil && tr.Error != "":
			p.showResult(turnResult{output: sh.Texts(tr.Output), err: sh.Text(tr.Error)})
		default:
			p.w.Printf("  ✗ %s\n", base.OneLine(sh.Text(step.Fail.Error()), maxResultChars))
		}
		if tr != nil || step.Usage.LLMRequests > 0 {
			p.stats(step.Usage.Duration) // the total's time: the mission is over
		}
	}
	u := step.Usage
	verb := "returned"
	if step.Fail != nil {
		verb = "failed"
	}
	p.w.Printf("%s after %s, %s, %s tokens (%s in, %s out), %s\n", verb,
		base.Plural(u.Turns, "turn"), base.Plural(u.LLMRequests, "LLM request"),
		textutil.Thousands(u.Tokens.Total()), textutil.Thousands(u.Tokens.Input), textutil.Thousands(u.Tokens.Output), base.RoundElapsed(u.Duration))
}

// quietEvents is the display of --quiet: nothing.
type quietEvents struct{}

func (quietEvents) turnStarted(int)                           {}
func (quietEvents) llmRetried(int, int)                       {}
func (quietEvents) llmWriting(int, string)                    {}
func (quietEvents) llmReplied(int, string, llm.Tokens, error) {}
func (quietEvents) llmWaiting(int, time.Duration, bool)       {}
func (quietEvents) turnEnded(int, turnResult)                 {}
func (quietEvents) toolCalled(int, toolCallResult)            {}
func (quietEvents) missionStarted(time.Time)                  {}
func (quietEvents) missionEnded(*agent.Step)                  {}
