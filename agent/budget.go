package agent

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/ptc-go/ptc/internal/engine"
	"github.com/ptc-go/ptc/llm"
)

// treeLimit is a token limit or a Budget callback set on a mission (or on
// a pipeline), which bounds the mission's whole tree: every mission below
// it reports its usage to it, and to the limits above, as it goes.
// Limits chain: a child's own limit is checked with its callers'.
type treeLimit struct {
	up    *treeLimit
	limit int              // TokenLimit; 0: none
	check func(Usage) bool // Budget; nil: none
	// The limit's time (the Duration Budget is given) is by clock, since
	// start.
	clock clock
	start time.Time
	// setBy says whose limit it is, for messages: `agent "triage"`, "the
	// pipeline", or, for a limit placed by Hooks.Position, the setter of
	// the callers' limit whose tokens are left.
	setBy string
	// remote: the tokens left of the callers' limit, placed by
	// Hooks.Position; total is that limit, for messages.
	remote bool
	total  int

	mu    sync.Mutex // serializes the Budget callback's calls
	usage Usage      // the tree's turns, LLM requests and tokens so far
	trip  *tripInfo  // the LLM call that went over; nil while within
}

// tripInfo says which mission's LLM call took a tree over its limit.
type tripInfo struct {
	agent, traceID string
	depth          int
	panicked       string // the Budget callback panicked
	stack          string // where it panicked
}

func newTreeLimit(up *treeLimit, limit int, check func(Usage) bool, setBy string, clk clock) *treeLimit {
	if limit <= 0 && check == nil {
		return up
	}
	return &treeLimit{up: up, limit: max(limit, 0), check: check, clock: clk, start: clk.now(), setBy: setBy}
}

// bounded reports whether the limit bounds tokens (a remote one does even
// when no token is left).
func (l *treeLimit) bounded() bool { return l.limit > 0 || l.remote }

// add counts d (turns, LLM requests, tokens) in every limit of the chain.
func (l *treeLimit) add(d Usage) {
	for ; l != nil; l = l.up {
		l.mu.Lock()
		l.usage.Turns += d.Turns
		l.usage.LLMRequests += d.LLMRequests
		l.usage.Tokens = l.usage.Tokens.Add(d.Tokens)
		l.mu.Unlock()
	}
}

// afterCall checks the chain after an LLM call of mission who: a limit
// whose tokens are used up, or whose Budget says stop, trips. It returns
// the outermost limit that is over (the one that ends most of the tree),
// nil when all hold.
func (l *treeLimit) afterCall(who tripInfo) *treeLimit {
	var over *treeLimit
	for ; l != nil; l = l.up {
		if l.checkOne(who) {
			over = l
		}
	}
	return over
}

func (l *treeLimit) checkOne(who tripInfo) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.trip != nil {
		return true
	}
	stop := l.bounded() && l.usage.Tokens.Total() >= l.limit
	if !stop && l.check != nil {
		u := l.usage
		u.Duration = l.clock.since(l.start)
		func() {
			defer func() {
				if r := recover(); r != nil {
					stop, who.panicked, who.stack = true, fmt.Sprint(r), string(debug.Stack())
				}
			}()
			stop = !l.check(u)
		}()
	}
	if stop {
		l.trip = &who
	}
	return stop
}

// over returns the outermost limit of the chain that has tripped, nil when
// none has: a mission does not start a turn once its tree is over.
func (l *treeLimit) over() *treeLimit {
	var over *treeLimit
	for ; l != nil; l = l.up {
		l.mu.Lock()
		if l.trip == nil && l.bounded() && l.usage.Tokens.Total() >= l.limit {
			// Charged by a child that ran elsewhere (Hooks): its own Step
			// names the mission that went over.
			l.trip = &tripInfo{}
		}
		if l.trip != nil {
			over = l
		}
		l.mu.Unlock()
	}
	return over
}

// tokensLeft is the tightest of the chain's token limits: what is left of
// it, the limit and whose it is; ok is false when no limit bounds tokens.
func (l *treeLimit) tokensLeft() (left, limit int, setBy string, ok bool) {
	for ; l != nil; l = l.up {
		if !l.bounded() {
			continue
		}
		l.mu.Lock()
		n := max(l.limit-l.usage.Tokens.Total(), 0)
		l.mu.Unlock()
		if !ok || n < left {
			left, ok, limit, setBy = n, true, l.limit, l.setBy
			if l.remote {
				limit = l.total
			}
		}
	}
	return left, limit, setBy, ok
}

// snapshot returns the limit's usage and trip.
func (l *treeLimit) snapshot() (Usage, *tripInfo) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.usage, l.trip
}

// setTrip records who took the limit over when a child that ran elsewhere
// did (its Fail's Details say), unless it is known already.
func (l *treeLimit) setTrip(who tripInfo) {
	l.mu.Lock()
	if l.trip == nil || *l.trip == (tripInfo{}) {
		l.trip = &who
	}
	l.mu.Unlock()
}

const pipelineName = "the pipeline"

// budgetCallback names the Budget callback in the Fail of its panic.
const budgetCallback = "Options.Budget"

// pipelineLimit returns the limit of a pipeline's total, when opts set
// one under up (the tree of the mission whose Go code runs the pipeline,
// nil at the top), and the options its stages run with: the stages answer
// for the pipeline's limit, their children inherit it.
func pipelineLimit(ctx context.Context, up *tree, opts Options) (*treeLimit, Options) {
	var above *treeLimit
	if up != nil {
		above = up.limit
	}
	l := newTreeLimit(above, opts.TokenLimit, opts.Budget, pipelineName, clockOf(engine.HooksFrom(ctx), up))
	if l == above {
		return nil, opts
	}
	opts.TokenLimit, opts.Budget = 0, nil
	return l, opts
}

// account reports the mission's usage since its last report to the limits
// of its tree.
func (m *mission) account() {
	if m.rt == nil || m.rt.limit == nil {
		return
	}
	now := Usage{Turns: m.turn, LLMRequests: m.requests, Tokens: m.tokens}
	d := Usage{Turns: now.Turns - m.reported.Turns, LLMRequests: now.LLMRequests - m.reported.LLMRequests,
		Tokens: subTokens(now.Tokens, m.reported.Tokens)}
	m.reported = now
	m.rt.limit.add(d)
}

// who is the mission, as a tripInfo.
func (m *mission) who() tripInfo {
	return tripInfo{agent: m.name, traceID: m.traceID, depth: m.depth}
}

// treeOver is the end of a mission whose tree is over one of its limits
// before a turn: a sibling or a child went over it, or a child charged it.
func (m *mission) treeOver() *ending {
	if m.rt == nil || m.rt.limit == nil {
		return nil
	}
	if l := m.rt.limit.over(); l != nil {
		m.overLimit = l
		return &ending{value: m.partial, fail: m.budgetEnding()}
	}
	return nil
}

// chargeChild counts the usage of a child that ran elsewhere (its Step
// came from Hooks) in the limits of the tree, and takes from a child that
// went over one of them who did.
func (m *mission) chargeChild(step *Step) {
	if m.rt.limit == nil {
		return
	}
	m.rt.limit.add(Usage{Turns: step.TotalUsage.Turns, LLMRequests: step.TotalUsage.LLMRequests,
		Tokens: step.TotalUsage.Tokens})
	if f := step.Fail; f != nil && f.Reason == ReasonBudgetExceeded {
		who, ok := tripOf(f)
		if !ok {
			return
		}
		for l := m.rt.limit; l != nil; l = l.up {
			if l.bounded() {
				u, _ := l.snapshot()
				if u.Tokens.Total() >= l.limit {
					l.setTrip(who)
				}
			}
		}
	}
}

// tripOf reads who went over a limit from a Fail's Details.
func tripOf(f *Fail) (tripInfo, bool) {
	if f == nil || f.Details == nil {
		return tripInfo{}, false
	}
	traceID, ok := f.Details["trace_id"].(string)
	if !ok {
		return tripInfo{}, false
	}
	who := tripInfo{traceID: traceID}
	who.agent, _ = f.Details["agent"].(string)
	switch d := f.Details["depth"].(type) {
	case int:
		who.depth = d
	case int64:
		who.depth = int(d)
	case float64:
		who.depth = int(d)
	}
	return who, true
}

// budgetFailOf builds the Fail of a mission ended by limit l of its tree;
// own says the limit is the mission's (or its pipeline's, for a stage).
func (m *mission) budgetFailOf(l *treeLimit, own bool) *Fail {
	u, trip := l.snapshot()
	if trip == nil {
		trip = &tripInfo{}
	}
	if trip.traceID == "" && own {
		*trip = m.who()
	}
	tokens := u.Tokens.Total()
	subject := "the mission tree"
	switch {
	case l.setBy == pipelineName:
		subject = "the pipeline"
	case own && m.nested.empty():
		subject = "the mission"
	}
	var what string
	switch {
	case l.remote:
		what = fmt.Sprintf("the mission used the %d tokens left to it of the TokenLimit of %d of %s", l.limit, l.total, l.setBy)
	case own && l.bounded():
		what = fmt.Sprintf("%s used %d tokens, over its budget (TokenLimit %d)", subject, tokens, l.limit)
	case own:
		what = fmt.Sprintf("%s used %d tokens, over its budget (the Budget callback said stop)", subject, tokens)
	case l.bounded():
		what = fmt.Sprintf("the mission tree used %d tokens, over the budget of %s (TokenLimit %d)", tokens, l.setBy, l.limit)
	default:
		what = fmt.Sprintf("the mission tree is over the budget of %s (its Budget callback said stop)", l.setBy)
	}
	details := map[string]any{"tokens": tokens, "limit_of": l.setBy}
	if l.bounded() {
		details["token_limit"] = l.limit
		if l.remote {
			details["token_limit"] = l.total
			details["tokens_left"] = l.limit
		}
	}
	if trip.traceID != "" {
		details["agent"], details["trace_id"], details["depth"] = trip.agent, trip.traceID, trip.depth
		if trip.traceID != m.traceID {
			what += fmt.Sprintf("; the LLM call that went over was %s's", describeAgent(trip.agent, trip.depth))
		}
	}
	f := &Fail{Reason: ReasonBudgetExceeded, Details: details}
	if trip.panicked != "" {
		// A host fault, as the panics of the other callbacks are.
		f.Reason, f.Op, details["stack"] = ReasonInternalError, budgetCallback, trip.stack
		what = fmt.Sprintf("the Budget callback of %s panicked: %s", l.setBy, trip.panicked)
	}
	f.Message = m.clip(what, maxFailChars)
	return f
}

// describeAgent names a mission of a tree for messages.
func describeAgent(name string, depth int) string {
	if name == "" {
		return fmt.Sprintf("the agent at depth %d", depth)
	}
	return fmt.Sprintf("agent %q (depth %d)", name, depth)
}

func (n *nested) empty() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.usage == (Usage{})
}

// subTokens returns t - o, field by field.
func subTokens(t, o llm.Tokens) llm.Tokens {
	return llm.Tokens{Input: t.Input - o.Input, Output: t.Output - o.Output,
		CacheRead: t.CacheRead - o.CacheRead, CacheWrite: t.CacheWrite - o.CacheWrite}
}

// turnSpend records who used the turns of a tree's MaxTreeTurns, so that the
// turn_budget_exhausted message can say whose turns ran out and what to
// raise.
type turnSpend struct {
	mu    sync.Mutex
	order []string
	by    map[string]*spender
}

type spender struct {
	turns, missions int
}

// add counts a turn of mission who; first says it is the mission's first.
func (s *turnSpend) add(who string, first bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.by == nil {
		s.by = map[string]*spender{}
	}
	sp := s.by[who]
	if sp == nil {
		// Bounded by the tree's turns: a spender exists only once it used one.
		sp = &spender{}
		s.by[who] = sp
		s.order = append(s.order, who)
	}
	sp.turns++
	if first {
		sp.missions++
	}
}

// maxSpenders bounds the spenders a message lists.
const maxSpenders = 6

// String lists the spenders, in the order they first used a turn:
// `3 by the root agent "triage", 17 by 12 missions of "classify"`.
func (s *turnSpend) String() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var parts []string
	for i, who := range s.order {
		if i == maxSpenders {
			parts = append(parts, fmt.Sprintf("and %d others", len(s.order)-i))
			break
		}
		sp := s.by[who]
		if sp.missions == 1 {
			parts = append(parts, fmt.Sprintf("%d by %s", sp.turns, who))
		} else {
			parts = append(parts, fmt.Sprintf("%d by %d missions of %s", sp.turns, sp.missions, who))
		}
	}
	return strings.Join(parts, ", ")
}

// spenderName names mission m among the spenders of its tree's turns.
func (m *mission) spenderName() string {
	switch {
	case m.rt.depth == 0 && m.name == "":
		return "the root agent"
	case m.rt.depth == 0:
		return fmt.Sprintf("the root agent %q", m.name)
	case m.name == "":
		return fmt.Sprintf("the agents at depth %d", m.rt.depth)
	}
	return fmt.Sprintf("%q", m.name)
}
