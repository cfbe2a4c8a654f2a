package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	fwall "github.com/ptc-go/ptc/internal/firewall"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
)

// What a program computes from firewalled values is hidden from the model
// as the values themselves are (docs/agents.md, "Derived values"). When a
// mission holds firewalled data, each program runs twice more, in shadow
// runs (concurrently): on the same context, memory and history with every
// firewalled value replaced by a surrogate (same type and size, another
// value at every position; one variant per shadow run), with the tools'
// results of the real run replayed (no tool is called twice). What a
// shadow run shows differently depends on the firewalled values and is
// hidden: elements of the turn's value, of the arguments of its tool calls
// and of an error's data by their place, words of output lines and error
// messages. The real run's values go to the tools and to the caller
// unchanged.

// shadowState is a mission's state as its shadow runs see it: the
// surrogates of its context and the memory, history and ctx/fail the
// shadow runs left.
type shadowState struct {
	variant int // of the surrogates (fwall.Variants)
	// fw hides in the shadow run's output what the mission's firewall
	// hides in the real run's: the surrogates of its firewalled values.
	fw       *fwall.Firewall
	ctx      *lisp.Map
	memory   *lisp.Namespace
	history  []lisp.Value
	lastFail lisp.Value
}

// shadowTurn is what a turn's shadow run showed.
type shadowTurn struct {
	sh  *shadowState
	res *lisp.Result
	err error
	// args are the arguments the shadow run passed for each of the real
	// run's tool calls (nil: it made no such call).
	args []*lisp.Map
}

// shadowTurns are a turn's shadow runs, one per variant.
type shadowTurns []*shadowTurn

// startShadow returns the shadow state of a mission that holds firewalled
// data from this turn on, made from its state before the turn: memory
// and history as they are, with what they firewall replaced.
func (m *mission) startShadow(variant int, memory *lisp.Namespace, history []lisp.Value, lastFail lisp.Value) *shadowState {
	sh := &shadowState{variant: variant}
	sc := m.a.shadowContext(m.context, variant)
	if m.fw.CallerHidesByPlace() || m.upstreamFW != nil {
		// Arguments a caller computed from its firewalled data, and a
		// chained Step's value computed from its mission's, are
		// replaced as this mission's own firewalled values are.
		sc = shadowContext{}
		if c, ok := m.fw.SurrogateHidden(m.context, variant); ok {
			sc.ctx, _ = c.(*lisp.Map)
		}
		sc.set = fwall.NewSet(sc.ctx)
	}
	sh.ctx, sh.fw = sc.ctx, m.fw.Shadow(sc.set)
	if memory != nil {
		vars := map[string]lisp.Value{}
		for _, name := range memory.Names() {
			v, _ := memory.Get(name)
			if isHiddenName(name) {
				vars[name], _ = fwall.SurrogateAll(v, variant)
			} else {
				vars[name], _ = fwall.Surrogate(v, variant)
			}
		}
		// WithVars over the real memory: the surrogates replace every
		// var, and the namespace keeps the rest of what the runs made
		// (the global hierarchy, the count of cells).
		sh.memory = memory.WithVars(vars)
		sh.fw.AddMemory(sh.memory)
	}
	for _, v := range history {
		s, _ := fwall.Surrogate(v, variant)
		sh.history = append(sh.history, s)
	}
	sh.lastFail, _ = fwall.Surrogate(lastFail, variant)
	return sh
}

func isHiddenName(name string) bool { return fwall.HiddenKey(name) }

// shadowRun runs the turn's program again behind the firewall's
// surrogates, once per variant and concurrently, when the mission holds
// firewalled data; nil otherwise. It must run before what the real run
// showed is derived (deriveTurn).
func (m *mission) shadowRun(tr *Turn, p *lisp.Program, before *lisp.Namespace, history []lisp.Value, lastFail lisp.Value) shadowTurns {
	if p == nil || !m.fw.Labelled() {
		return nil
	}
	m.shadowMu.Lock()
	if m.shadow == nil {
		for v := range fwall.Variants {
			m.shadow = append(m.shadow, m.startShadow(v, before, history, lastFail))
		}
	}
	m.shadowMu.Unlock()
	sts := make(shadowTurns, len(m.shadow))
	var wg sync.WaitGroup
	for i, sh := range m.shadow {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sts[i] = m.shadowRunOne(sh, tr, p)
		}()
	}
	wg.Wait()
	return sts
}

// shadowRunOne is one shadow run of the turn's program.
func (m *mission) shadowRunOne(sh *shadowState, tr *Turn, p *lisp.Program) *shadowTurn {
	st := &shadowTurn{sh: sh, args: make([]*lisp.Map, len(tr.ToolCalls))}
	if sh.ctx == nil {
		st.err = errors.New("the context could not be replaced")
		return st
	}
	ctxMap := sh.ctx
	if sh.lastFail != nil {
		ctxMap = ctxMap.Assoc(lisp.Keyword("fail"), sh.lastFail)
	}
	rp := &replay{m: m, fw: sh.fw, variant: sh.variant, calls: tr.ToolCalls, args: st.args}
	st.res, st.err = p.Run(m.ctx, lisp.Options{
		Input:     ctxMap,
		Namespace: sh.memory,
		History:   sh.history,
		Tools:     rp,
		Limits:    m.limits(),
		Redact:    sh.fw.Redaction(),
	})
	if st.res != nil && st.err == nil {
		sh.fw.AddMemory(st.res.Namespace)
		sh.fw.Add(st.res.Value, false)
	}
	return st
}

// replay answers a shadow run's tool calls with the real run's results
// (their firewalled parts replaced): a call with the same name and
// arguments first, else the next call of that tool.
type replay struct {
	m       *mission
	fw      *fwall.Firewall // the shadow's
	variant int
	mu      sync.Mutex
	calls   []ToolCall
	args    []*lisp.Map // filled: the shadow's arguments of each real call
	used    []bool
}

var errNoSuchCall = errors.New("the shadow run made a call the real run did not")

// matchCall returns the real call that a shadow run's call of the tool
// name with args stands for, among those not used yet (-1: none): the
// first with the same arguments, else the first of that tool.
func matchCall(calls []ToolCall, used []bool, name string, args *lisp.Map) int {
	first := -1
	for i, c := range calls {
		if used[i] || c.Name != name {
			continue
		}
		if lisp.Equal(c.Args, args) {
			return i
		}
		if first < 0 {
			first = i
		}
	}
	return first
}

// CallTool implements lisp.ToolCaller.
func (rp *replay) CallTool(_ context.Context, name string, args *lisp.Map) (any, error) {
	if _, ok := rp.m.a.tools[name]; !ok {
		return nil, rp.m.unknownTool(name)
	}
	rp.mu.Lock()
	if rp.used == nil {
		rp.used = make([]bool, len(rp.calls))
	}
	pick := matchCall(rp.calls, rp.used, name, args)
	if pick < 0 {
		rp.mu.Unlock()
		return nil, errNoSuchCall
	}
	rp.used[pick] = true
	rp.args[pick] = args
	c := rp.calls[pick]
	rp.mu.Unlock()
	if !lisp.Equal(args, c.Args) {
		// The check of the arguments is the runtime's, and its error
		// quotes them: the shadow run gets its own.
		bt := rp.m.a.tools[name]
		if _, err := bt.checkArgs(args, rp.m.opts.Validation); err != nil {
			return nil, errors.New(err.Error())
		}
		if _, err := bt.checkArgs(c.Args, rp.m.opts.Validation); err != nil {
			// The real arguments failed where these pass: the real
			// error is not this run's.
			s, _ := fwall.SurrogateAll(c.Error, rp.variant)
			return nil, fmt.Errorf("%v", s)
		}
	}
	if c.Error != "" {
		return nil, errors.New(c.Error)
	}
	// What the real firewall hides of the result is replaced too: an
	// agent called as a tool hides, by their place, what it computed from
	// its own firewalled data.
	v, _ := rp.m.fw.SurrogateHidden(c.Result, rp.variant)
	rp.fw.AddToolResult(v)
	return v, nil
}

// deriveCalls hides the parts of the real run's tool arguments that the
// shadow run passed differently, and the whole arguments of a call it
// did not make.
func (m *mission) deriveCallsOne(tr *Turn, st *shadowTurn) {
	for i, c := range tr.ToolCalls {
		if c.Args == nil {
			continue
		}
		var s lisp.Value = st.args[i]
		if st.args[i] == nil {
			s = nil
		}
		m.fw.Derive(c.Args, s)
		m.deriveWarnings(c, st.args[i])
		if c.Error != "" {
			tr.ToolCalls[i].Error = m.deriveArgsError(c.Name, c.Args, c.Error, st.args[i])
		}
	}
}

// deriveArgsError returns the error text msg of a call of the tool name
// with args with what the shadow run's arguments, checked alike, gave
// differently hidden, when the error is the check of the arguments (which
// quotes them); a tool's own error is its own (as its result is).
func (m *mission) deriveArgsError(name string, args *lisp.Map, msg string, theirArgs *lisp.Map) string {
	bt, ok := m.a.tools[name]
	if !ok {
		return msg
	}
	if _, err := bt.checkArgs(args, m.opts.Validation); err == nil {
		return msg
	}
	their := ""
	if theirArgs != nil {
		if _, err := bt.checkArgs(theirArgs, m.opts.Validation); err != nil {
			their = err.Error()
		}
	}
	return fwall.DeriveText(msg, their)
}

// deriveWarnings hides the words of a call's coercion warnings (which
// quote its arguments) that the shadow run's arguments, checked alike,
// gave differently; all of them when the shadow run made no such call.
func (m *mission) deriveWarnings(c ToolCall, theirArgs *lisp.Map) {
	if len(c.Warnings) == 0 {
		return
	}
	var theirs []signature.Issue
	if bt, ok := m.a.tools[c.Name]; ok && theirArgs != nil {
		theirs, _ = bt.checkArgs(theirArgs, m.opts.Validation)
	}
	for j, w := range c.Warnings {
		their := ""
		if j < len(theirs) {
			their = theirs[j].String()
		}
		c.Warnings[j] = fwall.DeriveText(w, their)
	}
}

// deriveOutput hides the words of the real run's output that the shadow
// run printed differently.
func (m *mission) deriveOutputOne(tr *Turn, st *shadowTurn) {
	var out []string
	if st.res != nil {
		out = st.res.Output
	}
	tr.Output = fwall.DeriveLines(tr.Output, out)
}

// deriveValue hides what of the real run's value v the shadow run did not
// give the same; it reports whether v as a whole (a scalar) is hidden.
func (m *mission) deriveValue(v lisp.Value, st *shadowTurn) bool {
	var s lisp.Value
	if st.err == nil && st.res != nil {
		s = st.res.Value
	} else {
		s, _ = fwall.SurrogateAll(v, st.sh.variant) // the shadow failed: all of v differs
	}
	return m.fw.Derive(v, s)
}

// keepShadow moves the shadow state on after a turn whose real run ended
// without an error, with the namespace ns: the shadow run's memory and
// history when it ended so too, else the real run's with this turn's
// definitions replaced (the shadow's view of them is lost, so they count
// as firewalled).
func (m *mission) keepShadow(st *shadowTurn, ns *lisp.Namespace, defined []string, value lisp.Value, status lisp.Status) {
	sh := st.sh
	m.shadowMu.Lock()
	defer m.shadowMu.Unlock()
	sh.lastFail = nil
	// A turn that ends with a map stores its entries (the memory
	// contract): the shadow run's map in its own memory.
	storeMap := func(v lisp.Value) {
		if status != lisp.Completed {
			return
		}
		vars := map[string]lisp.Value{}
		if _, stored := m.mapResult(v, vars); len(stored) > 0 {
			sh.memory = sh.memory.WithVars(vars)
		}
	}
	if st.err == nil && st.res != nil {
		sh.memory = st.res.Namespace
		storeMap(st.res.Value)
		// A "_" var is firewalled by its name, whatever its value: the
		// shadow keeps a surrogate of the real value (never of its own,
		// which a second surrogate could turn back into the real one).
		hidden := map[string]lisp.Value{}
		for _, name := range defined {
			if isHiddenName(name) {
				v, _ := ns.Get(name)
				hidden[name], _ = fwall.SurrogateAll(v, sh.variant)
			}
		}
		if len(hidden) > 0 {
			sh.memory = sh.memory.WithVars(hidden)
		}
		sh.history = pushValue(sh.history, truncateValue(st.res.Value, m.a.format.HistoryMaxBytes))
		return
	}
	vars := map[string]lisp.Value{}
	for _, name := range defined {
		v, _ := ns.Get(name)
		vars[name], _ = fwall.SurrogateAll(v, sh.variant)
	}
	base := sh.memory
	if base == nil {
		base = lisp.NewNamespace(nil)
	}
	sh.memory = base.WithVars(vars)
	sv, _ := fwall.SurrogateAll(value, sh.variant)
	storeMap(sv)
	sh.history = pushValue(sh.history, sv)
}

// deriveFail hides in the Fail a program ended with (fail v) what the
// shadow runs' fails differ in: words of its message and op, its reason
// whole; and, by their value, the scalars of v they differ in, which its
// Details hold as Go data. A shadow run that did not fail so hides the
// message whole.
func (m *mission) deriveFail(f *Fail, v lisp.Value, sts shadowTurns) {
	for _, st := range sts {
		var sv lisp.Value
		var sf *Fail
		if st.err == nil && st.res != nil && st.res.Status == lisp.Failed {
			sv = st.res.Value
			sf = m.programFailValue(sv)
		}
		if sf == nil {
			f.Message = fwall.DeriveText(f.Message, "")
			m.fw.Derive(v, nil)
			continue
		}
		f.Message = fwall.DeriveText(f.Message, sf.Message)
		if f.Op != sf.Op {
			f.Op = fwall.DeriveText(f.Op, sf.Op)
		}
		if f.Reason != sf.Reason {
			f.Reason = Reason(Firewalled)
		}
		if m.fw.Derive(v, sv) {
			m.fw.HideScalar(v)
		}
	}
	m.fw.HiddenScalars(v, m.fw.HideScalar)
}

// derivedName reports whether a memory name was computed from firewalled
// data: a shadow run's memory has no var of that name.
func (m *mission) derivedName(name string) bool {
	m.shadowMu.Lock()
	defer m.shadowMu.Unlock()
	for _, sh := range m.shadow {
		if sh.memory == nil {
			continue
		}
		if _, ok := sh.memory.Get(name); !ok {
			return true
		}
	}
	return false
}

// failShadow moves the shadow state on after a turn whose real run ended
// with an error: memory as it was; ctx/fail the shadow's own error when
// it failed too, else the real one's replaced.
func (m *mission) failShadowOne(st *shadowTurn, real lisp.Value) {
	sh := st.sh
	m.shadowMu.Lock()
	defer m.shadowMu.Unlock()
	if le := (*lisp.Error)(nil); st.err != nil && errors.As(st.err, &le) {
		detail := m.clip(le.Detailed(), 8*m.a.format.FeedbackMaxChars)
		sh.lastFail = failMap(le, detail+m.exData(le))
		return
	}
	sh.lastFail, _ = fwall.SurrogateAll(real, sh.variant)
}

// pushValue puts v first in a history of at most three values.
func pushValue(h []lisp.Value, v lisp.Value) []lisp.Value {
	h = append([]lisp.Value{v}, h...)
	if len(h) > 3 {
		h = h[:3]
	}
	return h
}

// deriveTurn hides what the real run of a turn that ended without an error
// showed differently from its shadow run: in its value, and in the values
// of the vars it defined. It reports whether the value as a whole (a
// scalar) is hidden, and moves the shadow state on.
func (m *mission) deriveTurnOne(res *lisp.Result, st *shadowTurn) (whole bool) {
	whole = m.deriveValue(res.Value, st)
	if st.err == nil && st.res != nil {
		// The vars this turn defined, and every var that holds a cell:
		// a cell changes without a def, and the memory line shows it.
		for _, name := range res.Namespace.Names() {
			rv, _ := res.Namespace.Get(name)
			if _, cell := rv.(*lisp.Cell); !cell && !slices.Contains(res.Defined, name) {
				continue
			}
			sv, ok := st.res.Namespace.Get(name)
			if !ok {
				sv, _ = fwall.SurrogateAll(rv, st.sh.variant)
			}
			m.fw.Derive(rv, sv)
		}
	}
	m.keepShadow(st, res.Namespace, res.Defined, res.Value, res.Status)
	return whole
}

// deriveError returns the real run's error text (detail) with the words
// the shadow run's differed in hidden, and hides what differs in the
// error's data. A shadow run that did not fail so hides the whole text.
func (m *mission) deriveErrorOne(le *lisp.Error, detail string, st *shadowTurn) string {
	var sle *lisp.Error
	if st.err == nil || !errors.As(st.err, &sle) {
		return fwall.DeriveText(detail, "")
	}
	if le.Data != nil {
		var sd lisp.Value
		if sle.Data != nil {
			sd = sle.Data
		}
		m.fw.Derive(le.Data, sd)
	}
	return fwall.DeriveText(detail, m.clip(sle.Detailed(), 8*m.a.format.FeedbackMaxChars))
}

// The steps of a turn's derivation over all its shadow runs: what any of
// them shows differently is hidden.

func (m *mission) deriveCalls(tr *Turn, sts shadowTurns) {
	for _, st := range sts {
		m.deriveCallsOne(tr, st)
	}
}

func (m *mission) deriveOutput(tr *Turn, sts shadowTurns) {
	for _, st := range sts {
		m.deriveOutputOne(tr, st)
	}
}

func (m *mission) deriveError(le *lisp.Error, detail string, sts shadowTurns) string {
	for _, st := range sts {
		detail = m.deriveErrorOne(le, detail, st)
	}
	return detail
}

func (m *mission) failShadow(sts shadowTurns, real lisp.Value) {
	for _, st := range sts {
		m.failShadowOne(st, real)
	}
}

func (m *mission) deriveTurn(tr *Turn, res *lisp.Result, sts shadowTurns) (whole bool) {
	for _, st := range sts {
		if m.deriveTurnOne(res, st) {
			whole = true
		}
	}
	return whole
}

// deriveIssues hides in the issues of a value that does not match the
// signature the words that the issues of the shadow runs' values differ
// in (an issue quotes the value it found), and an issue at a path where a
// shadow run's value had none whole.
func (m *mission) deriveIssues(err error, sts shadowTurns) error {
	var ve *signature.ValidationError
	if len(sts) == 0 || !errors.As(err, &ve) {
		return err
	}
	issues := slices.Clone(ve.Issues)
	for _, st := range sts {
		var theirs []signature.Issue
		if st.err == nil && st.res != nil {
			var sve *signature.ValidationError
			if errors.As(m.validateReturn(st.res.Value), &sve) {
				theirs = sve.Issues
			}
		}
		for i, is := range issues {
			j := slices.IndexFunc(theirs, func(o signature.Issue) bool { return o.Path == is.Path })
			if j < 0 {
				issues[i].Message = fwall.Placeholder
				continue
			}
			issues[i].Message = fwall.DeriveText(is.Message, theirs[j].Message)
		}
	}
	return &signature.ValidationError{Issues: issues}
}

// runningTurn is a program running now and the mission's state before it.
type runningTurn struct {
	prog     *lisp.Program
	memory   *lisp.Namespace
	history  []lisp.Value
	lastFail lisp.Value
}

// errProbeDone stops a probe at the call it looked for: a limit's kind, so
// that no catch in the program stops it.
var errProbeDone = &lisp.Error{Kind: lisp.ToolLimitExceeded, Message: "the probe reached its call"}

// probeArgs hides what of the arguments of a call to an agent (whose model
// will read them) the program computed from firewalled data, before the
// call is made: the shadow runs of the program run from its start, with
// the real run's finished calls replayed, up to a call of the tool with the
// same arguments (pmap's branches call in any order), or to their end: then
// what their call with the same count passed differently is hidden by its
// place in args. A shadow run that never makes the call
// hides the arguments whole. earlier is the number of calls to the tool
// the real run began before this one; done are its finished calls. The
// probes end with ctx: a timed tool's, the program's own clock, bounds
// them with the program (a probe cut short hides the arguments whole).
func (m *mission) probeArgs(ctx context.Context, name string, earlier int, done []ToolCall, args *lisp.Map) (theirs []*lisp.Map) {
	rt := m.running.Load()
	if rt == nil || !m.fw.Labelled() {
		return nil
	}
	m.shadowMu.Lock()
	if m.shadow == nil {
		for v := range fwall.Variants {
			m.shadow = append(m.shadow, m.startShadow(v, rt.memory, rt.history, rt.lastFail))
		}
	}
	// Copies: a call abandoned by a cancelled run may still probe while
	// the turn moves the shadow state on (keepShadow, under shadowMu).
	shadows := make([]shadowState, len(m.shadow))
	for i, sh := range m.shadow {
		shadows[i] = *sh
	}
	m.shadowMu.Unlock()
	for i := range shadows {
		sh := &shadows[i]
		var got *lisp.Map
		if sh.ctx != nil {
			pr := &probe{m: m, sh: sh, name: name, target: earlier, want: args, done: done}
			ctxMap := sh.ctx
			if sh.lastFail != nil {
				ctxMap = ctxMap.Assoc(lisp.Keyword("fail"), sh.lastFail)
			}
			_, _ = rt.prog.Run(ctx, lisp.Options{Input: ctxMap, Namespace: sh.memory, History: sh.history,
				Tools: pr, Limits: m.limits(), Redact: sh.fw.Redaction()})
			got = pr.result()
		}
		if got == nil {
			m.fw.Derive(args, nil)
		} else {
			m.fw.Derive(args, got)
		}
		theirs = append(theirs, got)
	}
	return theirs
}

// probeCoerced hides what of the coerced arguments of a probed call the
// shadow runs' arguments, coerced alike, differ in.
func (m *mission) probeCoerced(bt *boundTool, coerced *lisp.Map, theirs []*lisp.Map) {
	for _, sargs := range theirs {
		var s lisp.Value
		if sargs != nil {
			if sc, _, err := bt.coerceArgs(sargs, m.opts.Validation); err == nil {
				s = sc
			}
		}
		m.fw.Derive(coerced, s)
	}
}

// probe answers a probing shadow run's tool calls: the real run's finished
// calls replayed, nil for a call it has not finished, and the run stopped
// at the call looked for.
type probe struct {
	m      *mission
	sh     *shadowState
	name   string
	target int       // the call looked for: the target-th call to name,
	want   *lisp.Map // or one with these arguments (pmap calls in any order)
	done   []ToolCall
	mu     sync.Mutex
	seen   map[string]int
	used   []bool
	got    *lisp.Map // the arguments of the target-th call
	same   bool      // a call with the real arguments was made
}

// result is the shadow's arguments of the call looked for: the real ones
// when it made a call with them, else those of its call with the same
// count, nil when it made neither.
func (pr *probe) result() *lisp.Map {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.same {
		return pr.want
	}
	return pr.got
}

// CallTool implements lisp.ToolCaller.
func (pr *probe) CallTool(_ context.Context, name string, args *lisp.Map) (any, error) {
	pr.mu.Lock()
	if pr.seen == nil {
		pr.seen, pr.used = map[string]int{}, make([]bool, len(pr.done))
	}
	n := pr.seen[name]
	pr.seen[name] = n + 1
	if name == pr.name && lisp.Equal(args, pr.want) {
		pr.same = true
		pr.mu.Unlock()
		return nil, errProbeDone
	}
	if name == pr.name && n == pr.target && pr.got == nil {
		// The call looked for, unless a call with the real arguments
		// follows (pmap's branches call in any order): the run goes on.
		pr.got = args
	}
	pick := matchCall(pr.done, pr.used, name, args)
	if pick < 0 {
		pr.mu.Unlock()
		return nil, nil // a call the real run has not finished: its value is unknown here
	}
	pr.used[pick] = true
	c := pr.done[pick]
	pr.mu.Unlock()
	if c.Error != "" {
		return nil, errors.New(c.Error)
	}
	v, _ := pr.m.fw.SurrogateHidden(c.Result, pr.sh.variant)
	return v, nil
}
