package transcript

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/llm"
)

// Replayer answers the agent's calls with the recorded replies, checking
// on each call that the agent sent what it sent when the transcript was
// recorded. The first difference ends the mission (a config_error the
// agent does not retry) and is kept for the report.
type Replayer struct {
	Rec *Transcript
	// Stop cancels the mission, where the recorded one was cancelled or
	// timed out.
	Stop func()

	mu       sync.Mutex
	next     int
	stopped  bool
	mismatch *Mismatch
	// systemDiff is the first difference between the system prompt and
	// the recorded one, when there is one: a note, not a mismatch.
	systemDiff string
}

// Mismatch is where a replay first departed from the recording.
type Mismatch struct {
	Call     int    `json:"call,omitempty"` // the LLM call, from 1 (0: the outcome)
	Turn     int    `json:"turn,omitempty"`
	What     string `json:"what"`
	Expected string `json:"expected"`
	Got      string `json:"got"`
	Diff     string `json:"diff,omitempty"`
}

// ReasonReplayMismatch is the reason of a replayed mission stopped at its
// first difference.
const ReasonReplayMismatch = "replay_mismatch"

// ErrReplayMismatch ends a replayed mission at its first difference.
var ErrReplayMismatch = &llm.Error{Class: llm.ClassConfig, Reason: ReasonReplayMismatch,
	Message: "the agent's request differs from the recorded one"}

// Call answers a call of the agent with the recorded reply, or ends the
// mission with ErrReplayMismatch at its first difference.
func (r *Replayer) Call(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mismatch != nil {
		return llm.Response{}, ErrReplayMismatch
	}
	i := r.next
	r.next++
	if i >= len(r.Rec.Calls) {
		if o := r.Rec.Outcome; o != nil && o.Fail != nil && endedByContext(o.Fail.Reason) {
			// The recorded mission was cut short here: cut this one too.
			r.stopped = true
			r.Stop()
			return llm.Response{}, context.Canceled
		}
		r.mismatch = &Mismatch{Call: i + 1, Turn: req.Turn, What: "an LLM call the recording does not have",
			Expected: fmt.Sprintf("the mission to end after %s", textutil.Plural(len(r.Rec.Calls), "LLM call")),
			Got:      fmt.Sprintf("call %d, for turn %d, after %s", i+1, req.Turn, lastMessage(req.Messages))}
		return llm.Response{}, ErrReplayMismatch
	}
	c := r.Rec.Calls[i]
	if mm := compareMessages(c.Messages, req.Messages, r.Rec.Redacted); mm != nil {
		mm.Call, mm.Turn = i+1, req.Turn
		r.mismatch = mm
		return llm.Response{}, ErrReplayMismatch
	}
	want := c.System
	if want == "" {
		want = r.Rec.System
	}
	if r.systemDiff == "" && req.System != want {
		r.systemDiff = firstDifference(want, req.System)
	}
	if c.Interrupted {
		r.stopped = true
		r.Stop()
		return llm.Response{}, context.Canceled
	}
	if c.Reply.Error != "" {
		class := c.Reply.Class
		if class == "" {
			class = llm.ClassServerError
		}
		return llm.Response{}, &llm.Error{Class: class, Status: c.Status, Message: c.Reply.Error}
	}
	return llm.Response{Content: c.Reply.Content, Tokens: c.Reply.Tokens}, nil
}

// SystemDiff is where the system prompt first differed from the recorded
// one ("" when it did not): a note, not a mismatch.
func (r *Replayer) SystemDiff() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.systemDiff
}

// endedByContext: the reasons of a mission cut short from outside, which a
// replay reproduces by cancelling the mission where the recording ends.
func endedByContext(reason string) bool {
	return reason == string(agent.ReasonCancelled) || reason == string(agent.ReasonMissionTimeout)
}

// Finish compares the mission's end with the recording's: every recorded
// call made, the same value or failure. Durations and trace ids, which
// vary from run to run, are not compared, nor the message of an
// llm_error (timeouts are measured): its class is.
func (r *Replayer) Finish(step *agent.Step) *Mismatch {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mismatch != nil {
		return r.mismatch
	}
	// A redacted recording is compared with the replay redacted alike.
	got := outcomeText(outcomeRecord(Shown{Step: step, Raw: !r.Rec.Redacted}))
	if n := len(r.Rec.Calls); r.next < n {
		r.mismatch = &Mismatch{Call: r.next + 1, What: "the end of the mission",
			Expected: fmt.Sprintf("%s (the recording has %d more)", textutil.Plural(n, "LLM call"), n-r.next),
			Got:      fmt.Sprintf("%s, then %s", textutil.Plural(r.next, "LLM call"), got)}
		return r.mismatch
	}
	want := r.Rec.Outcome
	if want == nil {
		return nil
	}
	if r.stopped && step.Fail != nil && endedByContext(string(step.Fail.Reason)) {
		return nil // cut short where the recording was
	}
	if exp := outcomeText(want); placeholders(exp, r.Rec.Redacted) != placeholders(got, r.Rec.Redacted) {
		r.mismatch = &Mismatch{What: "the outcome", Expected: exp, Got: got, Diff: LineDiff(exp, got)}
	}
	return r.mismatch
}

// outcomeText is what a replay compares of an outcome.
func outcomeText(o *RecordedOutcome) string {
	if o.Fail == nil {
		return "returned " + o.ReturnEDN
	}
	if o.Fail.Reason == string(agent.ReasonLLMError) {
		return "failed: llm_error of class " + o.Fail.Class
	}
	return "failed: " + o.Fail.Reason + ": " + o.Fail.Message
}

// placeholders returns text with the placeholder's quoted and keyword
// forms as the placeholder, when redacted: a replay of a redacted
// transcript runs on the placeholder where the recording had firewalled
// values, and a copy of one (a string, a keyword) prints as the
// placeholder itself, quoted or not.
func placeholders(text string, redacted bool) string {
	if !redacted {
		return text
	}
	return placeholderForms.Replace(text)
}

var placeholderForms = strings.NewReplacer(strconv.Quote(agent.Firewalled), agent.Firewalled, ":"+agent.Firewalled, agent.Firewalled)

// compareMessages reports the first difference between the recorded
// messages of a request and the agent's (as placeholders says, when the
// recording is redacted).
func compareMessages(want, got []llm.Message, redacted bool) *Mismatch {
	same := func(a, b llm.Message) bool {
		return a.Role == b.Role && placeholders(a.Content, redacted) == placeholders(b.Content, redacted)
	}
	for i := range max(len(want), len(got)) {
		switch {
		case i >= len(want):
			return &Mismatch{What: fmt.Sprintf("message %d, %s", i+1, messageRole(i)),
				Expected: fmt.Sprintf("no message %d (the recorded request has %d)", i+1, len(want)), Got: got[i].Content,
				Diff: LineDiff("", got[i].Content)}
		case i >= len(got):
			return &Mismatch{What: fmt.Sprintf("message %d, %s", i+1, messageRole(i)),
				Expected: want[i].Content, Got: fmt.Sprintf("no message %d (the request has %d)", i+1, len(got)),
				Diff: LineDiff(want[i].Content, "")}
		case !same(want[i], got[i]):
			return &Mismatch{What: fmt.Sprintf("message %d, %s", i+1, messageRole(i)),
				Expected: want[i].Content, Got: got[i].Content, Diff: LineDiff(want[i].Content, got[i].Content)}
		}
	}
	return nil
}

// messageRole says what message i (from 0) of a conversation is.
func messageRole(i int) string {
	switch {
	case i == 0:
		return "the mission prompt"
	case i%2 == 1:
		return fmt.Sprintf("the model's reply on turn %d", (i+1)/2)
	}
	return fmt.Sprintf("the feedback on turn %d", i/2)
}

func lastMessage(msgs []llm.Message) string {
	if len(msgs) == 0 {
		return "no messages"
	}
	return fmt.Sprintf("%q", textutil.FirstLine(msgs[len(msgs)-1].Content, 80))
}

// maxDiffLines bounds each side of a diff, maxDiffWidth each line.
const (
	maxDiffLines = 8
	maxDiffWidth = 160
)

// diffLine is a line of a diff cut to maxDiffWidth characters: those
// around column col (from 1), where the first difference is, or the
// first ones when col is 0.
func diffLine(s string, col int) string {
	if utf8.RuneCountInString(s) <= maxDiffWidth {
		return s
	}
	r := []rune(s)
	lo := max(0, min(col-1-maxDiffWidth/4, len(r)-maxDiffWidth))
	hi := min(len(r), lo+maxDiffWidth)
	out := string(r[lo:hi])
	if lo > 0 {
		out = "…" + out
	}
	if hi < len(r) {
		out += "…"
	}
	return out
}

// LineDiff is a short diff of two texts: the lines they share at the
// start and the end left out but one line of context, the rest as
// "- expected" and "+ got" lines, with the column of the first difference.
func LineDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	if want == "" {
		a = nil
	}
	if got == "" {
		b = nil
	}
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	// The column of the first difference, for the lines that show it.
	col := 0
	if pre < len(a) && pre < len(b) {
		col = firstDiffColumn(a[pre], b[pre])
	}
	var sb strings.Builder
	if pre > 0 {
		if pre > 1 {
			fmt.Fprintf(&sb, "  … (%s)\n", textutil.Plural(pre-1, "same line"))
		}
		fmt.Fprintf(&sb, "  %s\n", diffLine(a[pre-1], 0))
	}
	side := func(mark string, lines []string) {
		for i, l := range lines {
			if i == maxDiffLines {
				fmt.Fprintf(&sb, "%s … (%s)\n", mark, textutil.Plural(len(lines)-i, "more line"))
				break
			}
			c := 0
			if i == 0 {
				c = col
			}
			fmt.Fprintf(&sb, "%s %s\n", mark, diffLine(l, c))
		}
	}
	side("-", a[pre:len(a)-suf])
	side("+", b[pre:len(b)-suf])
	if suf > 0 {
		fmt.Fprintf(&sb, "  %s\n", diffLine(a[len(a)-suf], 0))
		if suf > 1 {
			fmt.Fprintf(&sb, "  … (%s)\n", textutil.Plural(suf-1, "same line"))
		}
	}
	if col > 0 {
		fmt.Fprintf(&sb, "(first difference: line %d, column %d)\n", pre+1, col)
	}
	return strings.TrimRight(sb.String(), "\n")
}

func firstDiffColumn(a, b string) int {
	col := 1
	for len(a) > 0 && len(b) > 0 {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			break
		}
		a, b = a[na:], b[nb:]
		col++
	}
	return col
}

// firstDifference describes where two texts first differ, in a line.
func firstDifference(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y || i >= len(a) || i >= len(b) {
			return fmt.Sprintf("line %d: recorded %q, now %q", i+1, textutil.FirstLine(x, 60), textutil.FirstLine(y, 60))
		}
	}
	return ""
}

// Report writes the mismatch for a person.
func (m *Mismatch) Report() string {
	var sb strings.Builder
	sb.WriteString("replay mismatch: ")
	switch {
	case m.Call > 0 && m.Turn > 0:
		fmt.Fprintf(&sb, "turn %d (LLM call %d), %s\n", m.Turn, m.Call, m.What)
	case m.Call > 0:
		fmt.Fprintf(&sb, "LLM call %d, %s\n", m.Call, m.What)
	default:
		fmt.Fprintf(&sb, "%s\n", m.What)
	}
	fmt.Fprintf(&sb, "  expected: %s\n", textutil.FirstLine(m.Expected, 200))
	fmt.Fprintf(&sb, "  got:      %s\n", textutil.FirstLine(m.Got, 200))
	if m.Diff != "" {
		for _, l := range strings.Split(m.Diff, "\n") {
			fmt.Fprintf(&sb, "  %s\n", l)
		}
	}
	return sb.String()
}
