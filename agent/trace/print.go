package trace

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ptc-go/ptc/agent"
	fwall "github.com/ptc-go/ptc/internal/firewall"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// Options select what Print shows. The zero value shows each
// turn's program, tool calls, output and result, with values cut to a
// readable size and redacted: firewalled values and copies of firewalled
// text are <Firewalled>, as for the LLM.
type Options struct {
	// Replies adds the LLM's whole reply to each turn (always recorded)
	// and the feedback it was sent (recorded when the mission ran with
	// agent.TraceConversation).
	Replies bool
	// Unredacted shows values, output and errors as they are, firewalled
	// data included: for a developer's own terminal, never for a log, a
	// ticket or an LLM.
	Unredacted bool
	// Full prints values without cutting them.
	Full bool
	// NoChildren leaves out the turns of agents called as tools.
	NoChildren bool
	// NoTimings leaves out durations and token counts, which vary from run
	// to run (for golden files and examples).
	NoTimings bool
}

// Print writes a readable account of a mission to w: one box per
// turn with its program, tool calls, println output, result or error,
// duration and tokens, then the outcome. Agents called as tools are shown
// inside their caller's tool call. Unless opts.Unredacted, every value is
// printed with the Step's Redaction and every text (programs, output,
// errors, replies, feedback) is scrubbed as agent.Step.Scrub does; a nested
// agent's trace hides what its callers hide too.
func Print(w io.Writer, step *agent.Step, opts Options) error {
	bw := bufio.NewWriter(w)
	tp := tracePrinter{w: bw, opts: opts}
	tp.step(step, "", step.Veil())
	return bw.Flush()
}

// PrintChain writes the traces of a pipeline of steps (each the context of
// the next), numbered. Unless opts.Unredacted, each step hides what any
// step of the chain hides.
func PrintChain(w io.Writer, steps []*agent.Step, opts Options) error {
	bw := bufio.NewWriter(w)
	tp := tracePrinter{w: bw, opts: opts}
	var all fwall.Veil
	for _, s := range steps {
		all = all.With(s.Veil())
	}
	for i, s := range steps {
		fmt.Fprintf(bw, "═══ Step %d of %d ═══\n", i+1, len(steps))
		tp.step(s, "", all)
	}
	return bw.Flush()
}

type tracePrinter struct {
	w    *bufio.Writer
	opts Options
}

// text is a text of the trace as the reader may see it.
func (tp *tracePrinter) text(v fwall.Veil, s string) string {
	if tp.opts.Unredacted {
		return s
	}
	return v.Scrub(s)
}

const ruleWidth = 46

const traceRule = "──────────────────────────────────────────────"

func (tp *tracePrinter) value(vl fwall.Veil, v lisp.Value) string {
	opts := lisp.PrintOptions{MaxItems: 8, MaxChars: 300, MaxDepth: 6}
	if tp.opts.Full {
		opts = lisp.PrintOptions{}
	}
	if tp.opts.Unredacted {
		return lisp.Print(v, opts)
	}
	return vl.Format(v, opts)
}

// step prints s, whose readers' firewalls are outer.
func (tp *tracePrinter) step(s *agent.Step, indent string, outer fwall.Veil) {
	if s == nil {
		fmt.Fprintf(tp.w, "%s(no step)\n", indent)
		return
	}
	if len(s.Trace) == 0 && s.Usage.Turns > 0 {
		fmt.Fprintf(tp.w, "%s(no trace kept: see Options.Trace)\n", indent)
	}
	v := s.Veil().With(outer)
	for i := range s.Trace {
		tp.turn(i+1, &s.Trace[i], indent, v)
	}
	u := s.Usage
	if s.Fail != nil {
		fmt.Fprintf(tp.w, "%sFailed: %s: %s\n", indent, tp.text(v, string(s.Fail.Reason)), firstLine(tp.text(v, s.Fail.Message)))
	} else {
		fmt.Fprintf(tp.w, "%sReturned: %s\n", indent, tp.value(v, s.Return))
	}
	cost := plural(u.Turns, "turn") + ", " + plural(u.LLMRequests, "LLM request")
	if u.Turns == 0 && u.LLMRequests == 0 && len(s.Trace) > 0 {
		cost = "no LLM (a compiled program)"
	}
	if tp.opts.NoTimings {
		fmt.Fprintf(tp.w, "%s%s\n", indent, cost)
	} else {
		fmt.Fprintf(tp.w, "%s%s, %s, tokens %d in / %d out\n", indent,
			cost, roundDuration(u.Duration), u.Tokens.Input, u.Tokens.Output)
	}
	if t := s.TotalUsage; t.LLMRequests != u.LLMRequests && !tp.opts.NoChildren {
		fmt.Fprintf(tp.w, "%swith nested agents: %s, %s, tokens %d in / %d out\n", indent,
			plural(t.Turns, "turn"), plural(t.LLMRequests, "LLM request"), t.Tokens.Input, t.Tokens.Output)
	}
}

func (tp *tracePrinter) turn(number int, t *agent.Turn, indent string, v fwall.Veil) {
	w := tp.w
	head := fmt.Sprintf("┌─ Turn %d ", number)
	fmt.Fprintf(w, "%s%s%s\n", indent, head, strings.Repeat("─", max(3, ruleWidth-utf8.RuneCountInString(head))))
	bar := indent + "│ "
	if t.Program != "" {
		fmt.Fprintf(w, "%sProgram:\n", bar)
		for _, line := range strings.Split(strings.TrimRight(tp.text(v, t.Program), "\n"), "\n") {
			fmt.Fprintf(w, "%s  %s\n", bar, line)
		}
	}
	if len(t.ToolCalls) > 0 {
		fmt.Fprintf(w, "%sTools:\n", bar)
		for _, c := range t.ToolCalls {
			args := "{}"
			if c.Args != nil {
				args = tp.value(v, c.Args)
			}
			if tp.opts.NoTimings {
				fmt.Fprintf(w, "%s  → %s %s\n", bar, c.Name, args)
			} else {
				fmt.Fprintf(w, "%s  → %s %s  (%s)\n", bar, c.Name, args, roundDuration(c.Duration))
			}
			for _, warn := range c.Warnings {
				fmt.Fprintf(w, "%s    ! %s\n", bar, tp.text(v, warn))
			}
			if c.Error != "" {
				fmt.Fprintf(w, "%s    ✗ %s\n", bar, firstLine(tp.text(v, c.Error)))
			} else {
				fmt.Fprintf(w, "%s    ← %s\n", bar, tp.value(v, c.Result))
			}
			if c.Child != nil && !tp.opts.NoChildren {
				tp.step(c.Child, bar+"    ", v)
			}
		}
	}
	if len(t.Output) > 0 {
		fmt.Fprintf(w, "%sOutput:\n", bar)
		// Scrubbed as a whole: a firewalled text may span lines.
		for _, line := range strings.Split(tp.text(v, strings.Join(t.Output, "\n")), "\n") {
			fmt.Fprintf(w, "%s  %s\n", bar, line)
		}
	}
	if t.Error != "" {
		fmt.Fprintf(w, "%sError: ", bar)
		for i, line := range strings.Split(strings.TrimRight(tp.text(v, t.Error), "\n"), "\n") {
			if i > 0 {
				fmt.Fprintf(w, "%s       ", bar)
			}
			fmt.Fprintln(w, line)
		}
	} else if t.Program != "" {
		fmt.Fprintf(w, "%sResult: %s\n", bar, tp.value(v, t.Result))
	}
	if tp.opts.Replies {
		tp.block(bar, "LLM reply", tp.text(v, t.Response))
		tp.block(bar, "Feedback", tp.text(v, t.Feedback))
	}
	for i, a := range t.LLMRetries {
		line := fmt.Sprintf("%sLLM attempt %d failed", bar, i+1)
		if c := llm.Classify(a.Err); c != nil && c.Class != "" {
			line += " (" + string(c.Class) + ")"
		}
		if a.Err != nil {
			line += ": " + firstLine(tp.text(v, a.Err.Error()))
		}
		if a.Wait > 0 && !tp.opts.NoTimings {
			line += fmt.Sprintf("; retried after %s", roundDuration(a.Wait))
		}
		fmt.Fprintln(w, line)
	}
	if !tp.opts.NoTimings {
		fmt.Fprintf(w, "%sDuration: %s (LLM %s) | Tokens: %d in / %d out\n", bar,
			roundDuration(t.Usage.Duration), roundDuration(t.LLMDuration), t.Usage.Tokens.Input, t.Usage.Tokens.Output)
	}
	fmt.Fprintf(w, "%s└%s\n", indent, traceRule)
}

func (tp *tracePrinter) block(bar, title, text string) {
	if text == "" {
		return
	}
	fmt.Fprintf(tp.w, "%s%s:\n", bar, title)
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintf(tp.w, "%s  %s\n", bar, line)
	}
}

// roundDuration keeps three significant figures or so: 1.23ms, 245ms, 2.1s.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	default:
		return d.Round(time.Microsecond)
	}
}

// firstLine is the first line of s, with a mark when more follow.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// plural writes n and what, plural unless n is 1, with its digits grouped
// (12,345 turns) as the agent's own messages write counts.
func plural(n int, what string) string {
	s := strconv.Itoa(n)
	if n >= 0 {
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
	}
	if n != 1 {
		what += "s"
	}
	return s + " " + what
}
