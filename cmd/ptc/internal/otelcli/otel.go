//go:build !ptc_nootel

package otelcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	ptcotel "github.com/ptc-go/ptc/otel"
	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// Help is what ptc run --help and ptc mcp serve --help say of
// OpenTelemetry.
const Help = `
OpenTelemetry: set OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER (otlp, console, none;
metrics also prometheus in a build with -tags ptc_prometheus) or OTEL_EXPORTER_OTLP_ENDPOINT to export the missions' spans
and metrics (OTLP over http/protobuf, or grpc with OTEL_EXPORTER_OTLP_PROTOCOL=grpc;
console writes to stderr). Without them nothing is exported. OTEL_SERVICE_NAME (default
ptc), OTEL_RESOURCE_ATTRIBUTES and the other OTEL_* variables apply; see
docs/observability.md.
`

// otelShutdownTimeout bounds the flush on exit, so that an unreachable
// collector delays the end of ptc by this much at most.
const otelShutdownTimeout = 5 * time.Second

// Telemetry is what ptc run and ptc mcp serve export to OpenTelemetry:
// nothing when the environment asks for nothing.
type Telemetry struct {
	obs      *ptcotel.Observer
	tp       *sdktrace.TracerProvider
	mp       *sdkmetric.MeterProvider
	traces   string // the exporter of each signal ("": none), for tests
	metrics  string
	Protocol string
	red      *Redactor // what the exporters' errors must not show
}

// Exporter is the exporter the environment names for a signal, ""
// when it exports nothing. The OTel SDK's own default (otlp, whatever the
// variables) would have every ptc run dial localhost:4318; ptc exports a
// signal only when asked: its OTEL_*_EXPORTER is set (and not "none"), or
// an OTLP endpoint for it is (then the exporter is otlp).
func Exporter(getenv func(string) string, signal string) string {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return ""
	}
	var name string
	switch signal {
	case "traces":
		name = getenv("OTEL_TRACES_EXPORTER")
		if name == "" && (getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "") {
			name = "otlp"
		}
	case "metrics":
		name = getenv("OTEL_METRICS_EXPORTER")
		if name == "" && (getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != "") {
			name = "otlp"
		}
	}
	name = strings.TrimSpace(name)
	if name == "none" {
		return ""
	}
	return name
}

// otlpProtocol is the OTLP protocol of a signal, as the exporters read it.
func otlpProtocol(getenv func(string) string, signal string) string {
	p := getenv("OTEL_EXPORTER_OTLP_" + strings.ToUpper(signal) + "_PROTOCOL")
	if p == "" {
		p = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	if p == "" {
		p = "http/protobuf"
	}
	return p
}

// Start sets up the exporters the OTEL_* variables of env ask
// for; a nil *Telemetry (and no error) when they ask for none. The
// exporters of the OTLP protocols read their own settings (endpoint,
// headers, TLS, timeout...) from the process's environment, as the OTel
// SDK specifies. console writes to stderr, so that stdout keeps only the
// command's output (ptc run --json, the MCP stdio stream).
func Start(ctx context.Context, env *base.Env, stderr io.Writer) (*Telemetry, error) {
	traces, metrics := Exporter(env.Getenv, "traces"), Exporter(env.Getenv, "metrics")
	if traces == "" && metrics == "" {
		return nil, nil
	}
	for _, name := range []string{traces, metrics} {
		if strings.Contains(name, ",") {
			return nil, fmt.Errorf("OpenTelemetry: one exporter per signal (%q names several)", name)
		}
	}
	// The OTLP exporters read the process's environment.
	red := NewRedactor(env.Getenv, os.Getenv)
	t := &Telemetry{traces: traces, metrics: metrics, red: red}
	// The SDK reports failed exports to the process-wide handler, by
	// default the log package's timestamped lines: say them as ptc does,
	// without the credentials a collector may echo, and in a few hundred
	// characters. ptc runs one command a process, so the global is the
	// command's.
	otelapi.SetErrorHandler(otelapi.ErrorHandlerFunc(func(err error) {
		fmt.Fprintf(stderr, "ptc: OpenTelemetry: %s\n", red.Message(err))
	}))
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", "ptc"),
			attribute.String("service.version", env.Version().Version)),
		// After the defaults: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win.
		resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("OpenTelemetry resource: %v", err)
	}
	var o ptcotel.Options
	o.CaptureContent = strings.EqualFold(env.Getenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"), "true")
	if traces != "" {
		var exp sdktrace.SpanExporter
		switch traces {
		case "console":
			exp, err = stdouttrace.New(stdouttrace.WithWriter(stderr))
		case "otlp":
			t.Protocol = otlpProtocol(env.Getenv, "traces")
			exp, err = newOTLPSpanExporter(ctx, t.Protocol)
		default:
			err = fmt.Errorf("unknown exporter (otlp, console or none)")
		}
		if err != nil {
			return nil, fmt.Errorf("OpenTelemetry traces exporter %q: %s", traces, red.Message(err))
		}
		t.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		o.TracerProvider = t.tp
	} else {
		o.TracerProvider = tracenoop.NewTracerProvider()
	}
	if metrics != "" {
		var r sdkmetric.Reader
		switch metrics {
		case "console":
			var exp sdkmetric.Exporter
			if exp, err = stdoutmetric.New(stdoutmetric.WithWriter(stderr)); err == nil {
				r = sdkmetric.NewPeriodicReader(exp)
			}
		case "otlp":
			protocol := otlpProtocol(env.Getenv, "metrics")
			if t.Protocol == "" {
				t.Protocol = protocol
			}
			var exp sdkmetric.Exporter
			if exp, err = newOTLPMetricExporter(ctx, protocol); err == nil {
				r = sdkmetric.NewPeriodicReader(exp)
			}
		case "prometheus":
			r, err = newPrometheusReader(ctx)
		default:
			err = fmt.Errorf("unknown exporter (otlp, console, prometheus or none)")
		}
		if err != nil {
			_ = t.Shutdown()
			return nil, fmt.Errorf("OpenTelemetry metrics exporter %q: %s", metrics, red.Message(err))
		}
		t.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(r), sdkmetric.WithResource(res))
		o.MeterProvider = t.mp
	} else {
		o.MeterProvider = metricnoop.NewMeterProvider()
	}
	if t.obs, err = ptcotel.NewObserver(o); err != nil {
		_ = t.Shutdown()
		return nil, fmt.Errorf("OpenTelemetry: %v", err)
	}
	return t, nil
}

// newOTLPSpanExporter is the OTLP span exporter of a protocol. The
// exporters are chosen here rather than by contrib's autoexport, which
// links every exporter (and Prometheus's client, with its init-time
// registry) into every ptc: about 6 MB and start-up work for a feature
// most runs never turn on. The exporters read their endpoint, headers,
// TLS and timeout from OTEL_EXPORTER_OTLP_* themselves.
func newOTLPSpanExporter(ctx context.Context, protocol string) (sdktrace.SpanExporter, error) {
	switch protocol {
	case "grpc":
		return otlptracegrpc.New(ctx)
	case "http/protobuf":
		return otlptracehttp.New(ctx)
	}
	return nil, fmt.Errorf("unsupported OTLP protocol %q (grpc or http/protobuf)", protocol)
}

// newOTLPMetricExporter is newOTLPSpanExporter for metrics.
func newOTLPMetricExporter(ctx context.Context, protocol string) (sdkmetric.Exporter, error) {
	switch protocol {
	case "grpc":
		return otlpmetricgrpc.New(ctx)
	case "http/protobuf":
		return otlpmetrichttp.New(ctx)
	}
	return nil, fmt.Errorf("unsupported OTLP protocol %q (grpc or http/protobuf)", protocol)
}

// Observers are the observers to add to a mission's options: none for a
// nil t.
func (t *Telemetry) Observers() []agent.Observer {
	if t == nil {
		return nil
	}
	return []agent.Observer{t.obs}
}

// Shutdown ends the spans still open, and flushes and stops the exporters,
// waiting otelShutdownTimeout at most. Its error is redacted and bounded
// as the error handler's are. A nil t has nothing to do.
func (t *Telemetry) Shutdown() error {
	if t == nil {
		return nil
	}
	if t.obs != nil {
		t.obs.EndAll()
	}
	// Not the command's context: it is cancelled on Ctrl-C, when the
	// spans of the interrupted mission are the ones worth flushing.
	ctx, cancel := context.WithTimeout(context.Background(), otelShutdownTimeout)
	defer cancel()
	var errs []error
	if t.tp != nil {
		errs = append(errs, t.tp.Shutdown(ctx))
	}
	if t.mp != nil {
		errs = append(errs, t.mp.Shutdown(ctx))
	}
	return t.red.Wrap(errors.Join(errs...))
}
