package otel

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/llm"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/ptc-go/ptc/otel"

// Options configure an Observer.
type Options struct {
	// TracerProvider makes the spans; nil: the global one
	// (otel.GetTracerProvider).
	TracerProvider trace.TracerProvider
	// MeterProvider makes the metrics; nil: the global one
	// (otel.GetMeterProvider).
	MeterProvider metric.MeterProvider
	// CaptureContent adds the content (LLM messages, programs, values,
	// tool arguments and results; firewalled data redacted) to the spans.
	// Off by default, as the GenAI conventions advise (package doc).
	CaptureContent bool
}

// Observer is an agent.Observer that turns a mission's events into spans
// and metrics. One Observer may serve any number of concurrent runs. Its
// methods never panic.
type Observer struct {
	tracer  trace.Tracer
	capture bool
	inst    instruments
	sets    setCache

	mu       sync.Mutex
	missions map[string]*missionState // by TraceID
	calls    map[callKey]*callState   // open LLM call attempts and tool calls
}

var _ agent.Observer = (*Observer)(nil)

// missionState is an open invoke_agent span and what hangs under it.
type missionState struct {
	id          string // the TraceID
	span        trace.Span
	start       time.Time
	agent       string
	parentTrace string
	// turn is the open turn span (nil between turns) and turnN its number.
	turn  trace.Span
	turnN int
	// calls are the CallIDs of the mission's open calls, children the
	// TraceIDs of its open nested missions: what its end must end too.
	calls    map[uint64]struct{}
	children map[string]struct{}
}

type callKey struct {
	trace string
	id    uint64
}

type callState struct {
	span  trace.Span
	tool  bool // a tool call, else an LLM call attempt
	start time.Time
	name  string // the model (LLM calls) or the tool's name
}

// NewObserver returns an Observer reporting to the providers of opts. Its
// error is the meter provider's, when an instrument cannot be created.
func NewObserver(opts Options) (*Observer, error) {
	tp, mp := opts.TracerProvider, opts.MeterProvider
	if tp == nil {
		tp = otelapi.GetTracerProvider()
	}
	if mp == nil {
		mp = otelapi.GetMeterProvider()
	}
	inst, err := newInstruments(mp.Meter(ScopeName))
	if err != nil {
		return nil, err
	}
	return &Observer{
		tracer:   tp.Tracer(ScopeName),
		capture:  opts.CaptureContent,
		inst:     inst,
		missions: map[string]*missionState{},
		calls:    map[callKey]*callState{},
	}, nil
}

// Observe records e. It implements agent.Observer.
func (o *Observer) Observe(ctx context.Context, e *agent.Event) {
	if o == nil || e == nil {
		return
	}
	defer func() { _ = recover() }() // never break a mission, never be dropped
	if ctx == nil {
		ctx = context.Background()
	}
	switch e.Kind {
	case agent.RunStart:
		o.runStart(ctx, e)
	case agent.RunStop, agent.RunException:
		o.runEnd(ctx, e)
	case agent.TurnStart:
		o.turnStart(ctx, e)
	case agent.TurnStop:
		o.turnStop(e)
	case agent.LLMStart:
		o.llmStart(ctx, e)
	case agent.LLMStop, agent.LLMException:
		o.llmEnd(ctx, e)
	case agent.ToolStart:
		o.toolStart(ctx, e)
	case agent.ToolStop, agent.ToolException:
		o.toolEnd(ctx, e)
	}
}

// EndAll ends every span still open, marked ptc.unfinished, and forgets
// them: for a process that stops while missions run. A run always reports
// its end, so the spans of finished runs are never left open.
func (o *Observer) EndAll() {
	if o == nil {
		return
	}
	defer func() { _ = recover() }()
	o.mu.Lock()
	var spans []trace.Span
	for _, c := range o.calls {
		spans = append(spans, c.span)
	}
	for _, m := range o.missions {
		if m.turn != nil {
			spans = append(spans, m.turn)
		}
		spans = append(spans, m.span)
	}
	clear(o.calls)
	clear(o.missions)
	o.mu.Unlock()
	for _, s := range spans {
		endUnfinished(s, time.Time{})
	}
}

// open reports the number of spans the Observer keeps open (for tests).
func (o *Observer) open() (missions, calls int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.missions), len(o.calls)
}

// descLimit bounds the status descriptions (error messages).
const descLimit = 1024

func (o *Observer) runStart(ctx context.Context, e *agent.Event) {
	o.mu.Lock()
	old := o.missions[e.TraceID]
	delete(o.missions, e.TraceID)
	var parent trace.Span
	if e.ParentTraceID != "" {
		if c := o.calls[callKey{e.ParentTraceID, e.ParentCallID}]; c != nil && e.ParentCallID != 0 {
			parent = c.span
		} else if pm := o.missions[e.ParentTraceID]; pm != nil {
			parent = pm.span
		}
	}
	o.mu.Unlock()
	if old != nil {
		o.endMission(old, e.Time, true)
	}

	if parent != nil {
		ctx = trace.ContextWithSpan(ctx, parent)
	}
	name := opInvokeAgent
	if e.Agent != "" {
		name += " " + e.Agent
	}
	attrs := []attribute.KeyValue{
		attribute.String(keyOperation, opInvokeAgent),
		attribute.String(keyTraceID, e.TraceID),
		attribute.Int(keyDepth, e.Depth),
	}
	if e.Agent != "" {
		attrs = append(attrs, attribute.String(keyAgentName, e.Agent))
	}
	if e.ParentTraceID != "" {
		attrs = append(attrs, attribute.String(keyParentTraceID, e.ParentTraceID))
	}
	_, span := o.tracer.Start(ctx, name, startOpts(trace.SpanKindInternal, e.Time, attrs)...)

	m := &missionState{id: e.TraceID, span: span, start: e.Time, agent: e.Agent, parentTrace: e.ParentTraceID}
	o.mu.Lock()
	o.missions[e.TraceID] = m
	if pm := o.missions[e.ParentTraceID]; pm != nil && e.ParentTraceID != "" {
		if pm.children == nil {
			pm.children = map[string]struct{}{}
		}
		pm.children[e.TraceID] = struct{}{}
	}
	o.mu.Unlock()
}

func (o *Observer) runEnd(ctx context.Context, e *agent.Event) {
	o.mu.Lock()
	m := o.missions[e.TraceID]
	if m == nil {
		o.mu.Unlock()
		return // a stop without a start
	}
	delete(o.missions, e.TraceID)
	if pm := o.missions[m.parentTrace]; pm != nil {
		delete(pm.children, e.TraceID)
	}
	o.mu.Unlock()

	span := m.span
	attrs := []attribute.KeyValue{
		attribute.Int(keyTurns, e.Usage.Turns),
		attribute.Int(keyLLMRequests, e.Usage.LLMRequests),
		attribute.Int(keyPrograms, e.Usage.Programs),
		attribute.Int(keyCached, e.Usage.CachedPrograms),
	}
	attrs = appendTokens(attrs, e.Usage.Tokens)
	if o.capture && e.ResultText != "" {
		attrs = append(attrs, attribute.String(keyResult, e.ResultText))
	}
	errType := ""
	var fail *agent.Fail
	errors.As(e.Err, &fail)
	if fail != nil || e.Kind == agent.RunException {
		errType = errOther
		msg := ""
		if fail != nil {
			if fail.Reason != "" {
				errType = string(fail.Reason)
			}
			msg = fail.Message
			if fail.Op != "" {
				attrs = append(attrs, attribute.String(keyFailOp, fail.Op))
			}
		}
		attrs = append(attrs, attribute.String(keyErrorType, errType))
		span.SetStatus(codes.Error, textutil.ClipBytes(msg, descLimit))
	}
	span.SetAttributes(attrs...)
	o.endMission(m, e.Time, false)

	o.inst.mission.Record(ctx, seconds(e, m.start), o.measure(opInvokeAgent, keyAgentName, m.agent, errType))
}

// endMission ends m's span and, first, whatever is still open under it:
// its calls, its turn and its nested missions (marked unfinished), m
// already removed from o.missions. unfinished marks m's own span too.
func (o *Observer) endMission(m *missionState, at time.Time, unfinished bool) {
	var spans []trace.Span
	o.mu.Lock()
	var collect func(traceID string, m *missionState)
	collect = func(traceID string, m *missionState) {
		for id := range m.calls {
			if c := o.calls[callKey{traceID, id}]; c != nil {
				spans = append(spans, c.span)
				delete(o.calls, callKey{traceID, id})
			}
		}
		for child := range m.children {
			if cm := o.missions[child]; cm != nil && cm.parentTrace == traceID {
				delete(o.missions, child)
				collect(child, cm)
				spans = append(spans, cm.span)
			}
		}
		if m.turn != nil {
			spans = append(spans, m.turn)
			m.turn = nil
		}
	}
	collect(m.id, m)
	o.mu.Unlock()
	for _, s := range spans {
		endUnfinished(s, at)
	}
	if unfinished {
		endUnfinished(m.span, at)
	} else {
		m.span.End(endOpts(at)...)
	}
}

func (o *Observer) turnStart(ctx context.Context, e *agent.Event) {
	o.mu.Lock()
	m := o.missions[e.TraceID]
	if m == nil {
		o.mu.Unlock()
		return
	}
	old := m.turn
	m.turn = nil
	o.mu.Unlock()
	if old != nil {
		endUnfinished(old, e.Time)
	}
	attrs := []attribute.KeyValue{attribute.Int(keyTurn, e.Turn)}
	if e.Agent != "" {
		attrs = append(attrs, attribute.String(keyAgentName, e.Agent))
	}
	_, span := o.tracer.Start(trace.ContextWithSpan(ctx, m.span), turnSpanName,
		startOpts(trace.SpanKindInternal, e.Time, attrs)...)
	o.mu.Lock()
	if o.missions[e.TraceID] == m {
		m.turn, m.turnN = span, e.Turn
		span = nil
	}
	o.mu.Unlock()
	if span != nil { // the mission ended meanwhile (not with serial events)
		endUnfinished(span, e.Time)
	}
}

func (o *Observer) turnStop(e *agent.Event) {
	o.mu.Lock()
	m := o.missions[e.TraceID]
	if m == nil || m.turn == nil || m.turnN != e.Turn {
		o.mu.Unlock()
		return
	}
	span := m.turn
	m.turn = nil
	o.mu.Unlock()

	attrs := appendTokens(nil, e.Usage.Tokens)
	if e.Program != "" {
		attrs = append(attrs, attribute.Bool(keyProgramCached, e.Usage.CachedPrograms > 0))
	}
	if o.capture {
		if e.Program != "" {
			attrs = append(attrs, attribute.String(keyProgram, e.Program))
		}
		if e.ResultText != "" {
			attrs = append(attrs, attribute.String(keyResult, e.ResultText))
		}
	}
	if e.Err != nil {
		attrs = append(attrs, attribute.String(keyErrorType, errProgram))
		span.SetStatus(codes.Error, textutil.ClipBytes(e.Err.Error(), descLimit))
	}
	span.SetAttributes(attrs...)
	span.End(endOpts(e.Time)...)
}

// parentOf returns the span the calls of e's mission hang under: the open
// turn of e.Turn, else the mission's (nil when the mission is unknown).
// The caller holds o.mu.
func (o *Observer) parentOf(e *agent.Event) (*missionState, trace.Span) {
	m := o.missions[e.TraceID]
	if m == nil {
		return nil, nil
	}
	if m.turn != nil && m.turnN == e.Turn {
		return m, m.turn
	}
	return m, m.span
}

// startCall starts the span of a call and files it under its mission.
// content, when not nil, returns the content attributes, set only on a
// span that records.
func (o *Observer) startCall(ctx context.Context, e *agent.Event, name string, kind trace.SpanKind,
	attrs []attribute.KeyValue, content func(*agent.Event) []attribute.KeyValue, c *callState) {
	key := callKey{e.TraceID, e.CallID}
	o.mu.Lock()
	m, parent := o.parentOf(e)
	old := o.calls[key]
	delete(o.calls, key)
	o.mu.Unlock()
	if old != nil { // the same call started again: the first one is over
		endUnfinished(old.span, e.Time)
	}
	if m == nil {
		return // a call of a mission not seen starting
	}
	_, c.span = o.tracer.Start(trace.ContextWithSpan(ctx, parent), name, startOpts(kind, e.Time, attrs)...)
	if content != nil && c.span.IsRecording() {
		c.span.SetAttributes(content(e)...)
	}
	o.mu.Lock()
	if o.missions[e.TraceID] == m {
		o.calls[key] = c
		if m.calls == nil {
			m.calls = map[uint64]struct{}{}
		}
		m.calls[e.CallID] = struct{}{}
		c = nil
	}
	o.mu.Unlock()
	if c != nil {
		endUnfinished(c.span, e.Time)
	}
}

// endCall removes and returns the open call of e (nil when there is none
// of that kind).
func (o *Observer) endCall(e *agent.Event, tool bool) *callState {
	key := callKey{e.TraceID, e.CallID}
	o.mu.Lock()
	defer o.mu.Unlock()
	c := o.calls[key]
	if c == nil || c.tool != tool {
		return nil
	}
	delete(o.calls, key)
	if m := o.missions[e.TraceID]; m != nil {
		delete(m.calls, e.CallID)
	}
	return c
}

func (o *Observer) llmStart(ctx context.Context, e *agent.Event) {
	name := opChat
	attrs := []attribute.KeyValue{
		attribute.String(keyOperation, opChat),
		attribute.Int(keyTurn, e.Turn),
		attribute.Int(keyAttempt, e.Attempt),
	}
	// The model is known when the call ends (the reply names it, or the
	// llm.Name it was asked by): the span is named then.
	var content func(*agent.Event) []attribute.KeyValue
	if o.capture {
		content = llmContent
	}
	o.startCall(ctx, e, name, trace.SpanKindClient, attrs, content, &callState{start: e.Time})
}

// llmContent is the content of an LLM request: the system prompt and the
// messages.
func llmContent(e *agent.Event) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	r := e.Request
	if r == nil {
		return nil
	}
	if r.System != "" {
		attrs = append(attrs, attribute.String(keySystemInstr, jsonText(systemParts(r.System))))
	}
	if len(r.Messages) > 0 {
		attrs = append(attrs, attribute.String(keyInputMessages, jsonText(inputMessages(r.Messages))))
	}
	return attrs
}

// toolContent is the content of a tool call: its arguments.
func toolContent(e *agent.Event) []attribute.KeyValue {
	if e.ArgsText == "" {
		return nil
	}
	return []attribute.KeyValue{attribute.String(keyToolArguments, e.ArgsText)}
}

func (o *Observer) llmEnd(ctx context.Context, e *agent.Event) {
	c := o.endCall(e, false)
	if c == nil {
		return
	}
	// The model asked for names the span; the model that answered (often
	// a dated version of it) never replaces it.
	var reply llm.Response
	if e.Reply != nil {
		reply = *e.Reply
	}
	model := reply.RequestModel
	var attrs []attribute.KeyValue
	if model != "" {
		c.span.SetName(opChat + " " + model)
		attrs = append(attrs, attribute.String(keyRequestModel, model))
	}
	if reply.Model != "" {
		attrs = append(attrs, attribute.String(keyResponseModel, reply.Model))
	}
	if reply.Provider != "" {
		attrs = append(attrs, attribute.String(keyProviderName, reply.Provider))
	}
	key := setKey{op: opChat, nameKey: keyRequestModel, name: model, provider: reply.Provider, responseModel: reply.Model}
	if e.Kind == agent.LLMException {
		errType, msg := errOther, ""
		if e.Err != nil {
			errType, msg = string(llm.Classify(e.Err).Class), e.Err.Error()
		}
		attrs = append(attrs, attribute.String(keyErrorType, errType))
		c.span.SetStatus(codes.Error, textutil.ClipBytes(msg, descLimit))
		key.errType = errType
		o.inst.chat.Record(ctx, seconds(e, c.start), o.measureSet(key))
	} else {
		attrs = appendTokens(attrs, e.Usage.Tokens)
		if reply.FinishReason != "" {
			attrs = append(attrs, attribute.StringSlice(keyFinishReasons, []string{reply.FinishReason}))
		}
		if o.capture && reply.Content != "" && c.span.IsRecording() {
			attrs = append(attrs, attribute.String(keyOutputMessages, jsonText(outputMessages(reply.Content))))
		}
		o.inst.chat.Record(ctx, seconds(e, c.start), o.measureSet(key))
		if e.Usage.Tokens != (llm.Tokens{}) {
			key.tokenType = tokenInput
			o.inst.tokens.Record(ctx, int64(e.Usage.Tokens.Input), o.measureSet(key))
			key.tokenType = tokenOutput
			o.inst.tokens.Record(ctx, int64(e.Usage.Tokens.Output), o.measureSet(key))
		}
	}
	c.span.SetAttributes(attrs...)
	c.span.End(endOpts(e.Time)...)
}

func (o *Observer) toolStart(ctx context.Context, e *agent.Event) {
	attrs := []attribute.KeyValue{
		attribute.String(keyOperation, opExecuteTool),
		attribute.String(keyToolName, e.Tool),
		attribute.String(keyToolCallID, strconv.FormatUint(e.CallID, 10)),
	}
	if e.Turn != 0 {
		attrs = append(attrs, attribute.Int(keyTurn, e.Turn))
	}
	var content func(*agent.Event) []attribute.KeyValue
	if o.capture {
		content = toolContent
	}
	o.startCall(ctx, e, opExecuteTool+" "+e.Tool, trace.SpanKindInternal, attrs, content,
		&callState{tool: true, start: e.Time, name: e.Tool})
}

func (o *Observer) toolEnd(ctx context.Context, e *agent.Event) {
	c := o.endCall(e, true)
	if c == nil {
		return
	}
	var attrs []attribute.KeyValue
	errType := ""
	if e.Kind == agent.ToolException {
		errType = toolErrorType(e.Err)
		msg := ""
		if e.Err != nil {
			msg = e.Err.Error()
		}
		attrs = append(attrs, attribute.String(keyErrorType, errType))
		c.span.SetStatus(codes.Error, textutil.ClipBytes(msg, descLimit))
	} else if o.capture && e.ResultText != "" {
		attrs = append(attrs, attribute.String(keyToolResult, e.ResultText))
	}
	c.span.SetAttributes(attrs...)
	c.span.End(endOpts(e.Time)...)
	o.inst.tool.Record(ctx, seconds(e, c.start), o.measure(opExecuteTool, keyToolName, c.name, errType))
}

// toolErrorType is the error.type of a failed tool call: the failure
// reason of a nested mission, else tool_error.
func toolErrorType(err error) string {
	var fail *agent.Fail
	if errors.As(err, &fail) && fail != nil && fail.Reason != "" {
		return string(fail.Reason)
	}
	return errTool
}

func startOpts(kind trace.SpanKind, at time.Time, attrs []attribute.KeyValue) []trace.SpanStartOption {
	opts := []trace.SpanStartOption{trace.WithSpanKind(kind), trace.WithAttributes(attrs...)}
	if !at.IsZero() {
		opts = append(opts, trace.WithTimestamp(at))
	}
	return opts
}

func endOpts(at time.Time) []trace.SpanEndOption {
	if at.IsZero() {
		return nil
	}
	return []trace.SpanEndOption{trace.WithTimestamp(at)}
}

// endUnfinished ends a span whose end was never reported.
func endUnfinished(s trace.Span, at time.Time) {
	s.SetAttributes(attribute.Bool(keyUnfinished, true))
	s.End(endOpts(at)...)
}

func appendTokens(attrs []attribute.KeyValue, t llm.Tokens) []attribute.KeyValue {
	attrs = append(attrs, attribute.Int(keyInputTokens, t.Input), attribute.Int(keyOutputTokens, t.Output))
	if t.CacheRead != 0 {
		attrs = append(attrs, attribute.Int(keyCacheRead, t.CacheRead))
	}
	if t.CacheWrite != 0 {
		attrs = append(attrs, attribute.Int(keyCacheCreation, t.CacheWrite))
	}
	return attrs
}

// seconds is the duration of the call e ends, in seconds: e.Duration, else
// the time since its start when both times are known.
func seconds(e *agent.Event, start time.Time) float64 {
	d := e.Duration
	if d <= 0 && !start.IsZero() && !e.Time.IsZero() {
		d = e.Time.Sub(start)
	}
	return max(d, 0).Seconds()
}

// The GenAI conventions' message formats (gen_ai.input.messages,
// gen_ai.output.messages, gen_ai.system_instructions), text parts only.
type textPart struct {
	Type    string `json:"type"`
	Content string `json:"content"`
}

type chatMessage struct {
	Role  string     `json:"role"`
	Parts []textPart `json:"parts"`
}

func systemParts(s string) []textPart { return []textPart{{Type: "text", Content: s}} }

func inputMessages(msgs []llm.Message) []chatMessage {
	out := make([]chatMessage, len(msgs))
	for i, m := range msgs {
		out[i] = chatMessage{Role: string(m.Role), Parts: []textPart{{Type: "text", Content: m.Content}}}
	}
	return out
}

func outputMessages(content string) []chatMessage {
	return []chatMessage{{Role: string(llm.Assistant), Parts: []textPart{{Type: "text", Content: content}}}}
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
