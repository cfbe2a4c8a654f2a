package otel

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// harness is an Observer on an SDK tracer provider that records every
// span and a meter provider read by hand.
type harness struct {
	obs    *Observer
	rec    *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
}

func newHarness(t testing.TB, capture bool) *harness {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	obs, err := NewObserver(Options{TracerProvider: tp, MeterProvider: mp, CaptureContent: capture})
	if err != nil {
		t.Fatal(err)
	}
	return &harness{obs: obs, rec: rec, tp: tp, reader: reader}
}

// checkClosed fails unless every span started has ended and the Observer
// keeps nothing open.
func (h *harness) checkClosed(t testing.TB) {
	t.Helper()
	if s, e := len(h.rec.Started()), len(h.rec.Ended()); s != e {
		t.Errorf("%d spans started, %d ended", s, e)
	}
	if m, c := h.obs.open(); m != 0 || c != 0 {
		t.Errorf("the observer keeps %d missions and %d calls open", m, c)
	}
}

// spans returns the ended spans.
func (h *harness) spans() []sdktrace.ReadOnlySpan { return h.rec.Ended() }

// named returns the ended spans called name.
func (h *harness) named(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range h.rec.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// one returns the only ended span called name.
func (h *harness) one(t testing.TB, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	s := h.named(name)
	if len(s) != 1 {
		t.Fatalf("%d spans %q, want 1; spans:\n%s", len(s), name, h.tree())
	}
	return s[0]
}

// tree prints the ended spans as an indented tree, children sorted by
// name: for messages and golden comparisons.
func (h *harness) tree() string {
	spans := h.rec.Ended()
	byID := map[string]bool{}
	kids := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byID[s.SpanContext().SpanID().String()] = true
	}
	var roots []sdktrace.ReadOnlySpan
	for _, s := range spans {
		p := s.Parent().SpanID().String()
		if s.Parent().IsValid() && byID[p] {
			kids[p] = append(kids[p], s)
		} else {
			roots = append(roots, s)
		}
	}
	var sb strings.Builder
	var walk func(list []sdktrace.ReadOnlySpan, depth int)
	walk = func(list []sdktrace.ReadOnlySpan, depth int) {
		sort.SliceStable(list, func(i, j int) bool { return list[i].Name() < list[j].Name() })
		for _, s := range list {
			fmt.Fprintf(&sb, "%s%s\n", strings.Repeat("  ", depth), s.Name())
			walk(kids[s.SpanContext().SpanID().String()], depth+1)
		}
	}
	walk(roots, 0)
	return sb.String()
}

// attrs returns a span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[string]attribute.Value {
	m := map[string]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value
	}
	return m
}

// wantAttrs checks that s has the attributes want (values as Value.String prints
// them).
func wantAttrs(t testing.TB, s sdktrace.ReadOnlySpan, want map[string]string) {
	t.Helper()
	got := attrs(s)
	for k, v := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("span %q: no attribute %s (has %v)", s.Name(), k, got)
			continue
		}
		if g.String() != v {
			t.Errorf("span %q: %s = %q, want %q", s.Name(), k, g.String(), v)
		}
	}
}

// noAttrs checks that s has none of the keys.
func noAttrs(t testing.TB, s sdktrace.ReadOnlySpan, keys ...string) {
	t.Helper()
	got := attrs(s)
	for _, k := range keys {
		if v, ok := got[k]; ok {
			t.Errorf("span %q: unexpected %s = %q", s.Name(), k, v.String())
		}
	}
}

// isChild reports whether child's parent is parent.
func isChild(child, parent sdktrace.ReadOnlySpan) bool {
	return child.Parent().SpanID() == parent.SpanContext().SpanID() &&
		child.SpanContext().TraceID() == parent.SpanContext().TraceID()
}

// metrics collects the metrics by name.
func (h *harness) metrics(t testing.TB) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := h.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// exact finds the histogram point of m whose attributes are want.
func exact[N int64 | float64](t testing.TB, m metricdata.Metrics, want ...attribute.KeyValue) metricdata.HistogramDataPoint[N] {
	t.Helper()
	h, ok := m.Data.(metricdata.Histogram[N])
	if !ok {
		t.Fatalf("%s is a %T", m.Name, m.Data)
	}
	set := attribute.NewSet(want...)
	for _, p := range h.DataPoints {
		if p.Attributes.Equals(&set) {
			return p
		}
	}
	t.Fatalf("%s: no point with %v among %d", m.Name, want, len(h.DataPoints))
	return metricdata.HistogramDataPoint[N]{}
}

// clock hands out times one millisecond apart.
type clock struct{ t time.Time }

func newClock() *clock { return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) next() time.Time {
	c.t = c.t.Add(time.Millisecond)
	return c.t
}
