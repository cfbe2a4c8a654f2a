package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// missionEvents receives what happens during a mission, as it happens, for
// the progress display of "ptc run". Package agent has no observer API
// yet, so observeModel derives the events from the model's requests and
// replies. When agent gets one (a callback per turn in agent.Options), its
// callbacks call these methods with what they are given, and observeModel
// goes: the display does not change.
type missionEvents interface {
	// turnStarted: the agent asks the model for turn n (the first attempt).
	turnStarted(n int)
	// llmRetried: attempt number attempt of turn n's call, after a failure.
	llmRetried(n, attempt int)
	// llmReplied: the model answered turn n's call (or failed).
	llmReplied(n int, reply string, tokens llm.Tokens, err error)
	// turnEnded: turn n's program ran, and r is what came of it.
	turnEnded(n int, r turnResult)
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

// observeModel wraps a model so that ev hears of each turn: a request for
// a new turn means the previous turn's program ran, and its last message
// is the feedback on it (its value or error); a request for the same turn
// is a retry.
func observeModel(f llm.Func, ev missionEvents) llm.Func {
	var mu sync.Mutex
	turn, attempt := 0, 0
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		mu.Lock()
		if req.Turn != turn {
			if turn > 0 && len(req.Messages) > 0 {
				ev.turnEnded(turn, resultFromFeedback(req.Messages[len(req.Messages)-1].Content))
			}
			turn, attempt = req.Turn, 1
			ev.turnStarted(turn)
		} else {
			attempt++
			ev.llmRetried(turn, attempt)
		}
		mu.Unlock()
		resp, err := f(ctx, req)
		ev.llmReplied(req.Turn, resp.Content, resp.Tokens, err)
		return resp, err
	}
}

// resultFromFeedback reads a turn's value or error from the feedback the
// agent sent the model about it ("Value: ...", "Error: ...", or why the
// turn did not count).
func resultFromFeedback(text string) turnResult {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	var r turnResult
	switch first := lines[0]; {
	case strings.HasPrefix(first, "Value: "):
		r.value = strings.TrimPrefix(first, "Value: ")
	case strings.HasPrefix(first, "Error: "):
		r.err = strings.TrimPrefix(first, "Error: ")
	case strings.HasPrefix(first, "Your (return ...) value does not match"):
		r.err = "(return ...) rejected: the value does not match the signature"
		for _, l := range lines {
			if strings.HasPrefix(l, "- ") {
				r.err += ": " + strings.TrimPrefix(l, "- ")
				break
			}
		}
	default:
		r.err = first
	}
	for i, l := range lines {
		if l != "Output:" {
			continue
		}
		for _, o := range lines[i+1:] {
			if o == "" || strings.HasPrefix(o, "Memory: ") || strings.HasPrefix(o, "... (output cut") ||
				strings.HasPrefix(o, "The error is also in ctx/fail") {
				break
			}
			r.output = append(r.output, o)
		}
		break
	}
	return r
}

// progress prints a mission as it runs, for a person watching: each turn's
// number, the program the model wrote, its value or error, the tokens so
// far and the time. It writes through w, shared with other messages.
type progress struct {
	w        *syncWriter
	maxTurns int
	start    time.Time

	mu      sync.Mutex
	tokens  llm.Tokens
	started int // the last turn started
	ended   int // the last turn whose result was shown
}

func newProgress(w *syncWriter, maxTurns int) *progress {
	return &progress{w: w, maxTurns: maxTurns, start: time.Now()}
}

// maxProgramLines bounds the lines of a program shown per turn.
const maxProgramLines = 40

// maxResultChars bounds a value or an error shown per turn.
const maxResultChars = 160

func (p *progress) turnStarted(n int) {
	p.mu.Lock()
	p.started = n
	p.mu.Unlock()
	p.w.printf("turn %d/%d\n", n, p.maxTurns)
}

func (p *progress) llmRetried(n, attempt int) {
	p.w.printf("  retrying the model call (attempt %d)\n", attempt)
}

func (p *progress) llmReplied(n int, reply string, tokens llm.Tokens, err error) {
	p.mu.Lock()
	p.tokens = p.tokens.Add(tokens)
	p.mu.Unlock()
	if errors.Is(err, errReplayMismatch) {
		p.w.printf("  ✗ the request differs from the recording (see below)\n")
		return
	}
	if err != nil {
		p.w.printf("  ! the model call failed: %s\n", oneLine(err.Error(), maxResultChars))
		return
	}
	prog := programOf(reply)
	if prog == "" {
		p.w.printf("  (no program in the reply: %s)\n", oneLine(reply, 80))
		return
	}
	var sb strings.Builder
	lines := strings.Split(strings.TrimRight(prog, "\n"), "\n")
	for i, l := range lines {
		if i == maxProgramLines {
			fmt.Fprintf(&sb, "    … (%s)\n", plural(len(lines)-i, "more line"))
			break
		}
		sb.WriteString("    ")
		sb.WriteString(l)
		sb.WriteByte('\n')
	}
	p.w.printf("%s", sb.String())
}

func (p *progress) turnEnded(n int, r turnResult) {
	p.mu.Lock()
	p.ended = n
	p.mu.Unlock()
	p.showResult(r)
	p.stats()
}

// maxOutputLines bounds the println output shown per turn.
const maxOutputLines = 3

func (p *progress) showResult(r turnResult) {
	p.showOutput(r.output)
	if r.err != "" {
		p.w.printf("  ✗ %s\n", oneLine(r.err, maxResultChars))
	} else {
		p.w.printf("  → %s\n", oneLine(r.value, maxResultChars))
	}
}

// showOutput shows the first lines of a turn's println output.
func (p *progress) showOutput(lines []string) {
	for i, o := range lines {
		if i == maxOutputLines {
			p.w.printf("  | … (%s)\n", plural(len(lines)-i, "more line"))
			break
		}
		p.w.printf("  | %s\n", oneLine(o, maxResultChars))
	}
}

func (p *progress) stats() {
	p.mu.Lock()
	t := p.tokens
	p.mu.Unlock()
	p.w.printf("  %s tokens so far (%s in, %s out) · %s\n",
		thousands(t.Total()), thousands(t.Input), thousands(t.Output), roundElapsed(time.Since(p.start)))
}

// missionEnded shows the last turn's result, which no request followed,
// from the trace, and the mission's cost.
func (p *progress) missionEnded(step *agent.Step) {
	p.mu.Lock()
	last, shown := p.started, p.ended
	p.mu.Unlock()
	if step.Fail != nil && step.Fail.Reason == reasonReplayMismatch {
		last = shown // the mismatch report follows
	}
	if last > shown {
		var tr *agent.Turn
		if n := len(step.Trace); n > 0 && step.Trace[n-1].Number == last {
			tr = &step.Trace[n-1]
		}
		switch {
		case step.Fail == nil:
			if tr != nil {
				p.showOutput(tr.Output)
			}
			p.w.printf("  ✓ returned %s\n", lisp.FormatValue(step.Return, lisp.PrintOptions{MaxItems: 8, MaxChars: maxResultChars}))
		case tr != nil && tr.Error != "":
			p.showResult(turnResult{output: tr.Output, err: tr.Error})
		default:
			p.w.printf("  ✗ %s\n", oneLine(step.Fail.Error(), maxResultChars))
		}
		if tr != nil || step.Usage.LLMRequests > 0 {
			p.stats()
		}
	}
	u := step.Usage
	verb := "returned"
	if step.Fail != nil {
		verb = "failed"
	}
	p.w.printf("%s after %s, %s, %s tokens (%s in, %s out), %s\n", verb,
		plural(u.Turns, "turn"), plural(u.LLMRequests, "LLM request"),
		thousands(u.Tokens.Total()), thousands(u.Tokens.Input), thousands(u.Tokens.Output), roundElapsed(u.Duration))
}

// quietEvents is the display of --quiet: nothing.
type quietEvents struct{}

func (quietEvents) turnStarted(int)                           {}
func (quietEvents) llmRetried(int, int)                       {}
func (quietEvents) llmReplied(int, string, llm.Tokens, error) {}
func (quietEvents) turnEnded(int, turnResult)                 {}
func (quietEvents) missionEnded(*agent.Step)                  {}

// programOf finds the program in a model's reply, for display: the code
// blocks tagged clojure (or clj, lisp, ptc...), else the untagged blocks
// that start with "(", else the lines from the first that starts with
// "(". (The agent's own extraction, agent.extractCode, is not exported;
// this is a close copy for display only: the trace keeps what ran.)
func programOf(reply string) string {
	reply = strings.ReplaceAll(reply, "\r\n", "\n")
	lines := strings.Split(reply, "\n")
	var tagged, untagged []string
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "```") {
			continue
		}
		tag := strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "`")))
		if f := strings.Fields(tag); len(f) > 0 {
			tag = f[0]
		}
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), "```") {
			j++
		}
		body := strings.Join(lines[i+1:min(j, len(lines))], "\n")
		switch tag {
		case "clojure", "clj", "lisp", "ptc", "ptc-lisp", "cljs", "edn":
			if strings.TrimSpace(body) != "" {
				tagged = append(tagged, body)
			}
		case "":
			if strings.HasPrefix(strings.TrimSpace(body), "(") {
				untagged = append(untagged, body)
			}
		}
		i = j
	}
	switch {
	case len(tagged) > 0:
		return strings.Join(tagged, "\n")
	case len(untagged) > 0:
		return strings.Join(untagged, "\n")
	}
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "(") {
			return strings.TrimSpace(strings.Join(lines[i:], "\n"))
		}
	}
	return ""
}

// syncWriter serializes writes: the mission's goroutine, the interrupt
// handler and the command write to stderr.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) printf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.w, format, args...)
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// oneLine is the first line of s, cut to n characters, with a mark when
// something was left out.
func oneLine(s string, n int) string {
	s = strings.TrimSpace(s)
	first, rest, more := strings.Cut(s, "\n")
	first = strings.TrimRight(first, " \r")
	if utf8.RuneCountInString(first) > n {
		return string([]rune(first)[:n]) + "…"
	}
	if more && strings.TrimSpace(rest) != "" {
		return first + " …"
	}
	return first
}

// thousands writes n with commas: 12,345.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return thousands(n) + " " + word + "s"
}

// roundElapsed rounds a duration for display: 850ms, 2.4s, 1m12s.
func roundElapsed(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}
