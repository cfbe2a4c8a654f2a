//go:build !ptc_nootel

package otelcli

import (
	"context"
	"io"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
)

// TestOTelExporterRule: a signal is exported only when its exporter or an
// OTLP endpoint for it is named; nothing else starts an exporter, so a
// plain ptc run dials nothing (the SDK's default would dial
// localhost:4318).
func TestOTelExporterRule(t *testing.T) {
	tests := []struct {
		name             string
		vars             map[string]string
		traces, metrics  string
		started          bool
		protocol         string
		startErrContains string
	}{
		{"nothing", nil, "", "", false, "", ""},
		{"settings but no exporter", map[string]string{"OTEL_SERVICE_NAME": "x", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
			"OTEL_EXPORTER_OTLP_HEADERS": "a=b", "OTEL_RESOURCE_ATTRIBUTES": "a=b"}, "", "", false, "", ""},
		{"none", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"}, "", "", false, "", ""},
		{"disabled", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "console"}, "", "", false, "", ""},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, "otlp", "otlp", true, "http/protobuf", ""},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces"}, "otlp", "", true, "http/protobuf", ""},
		{"metrics endpoint", map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://127.0.0.1:1/v1/metrics"}, "", "otlp", true, "http/protobuf", ""},
		{"grpc", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "otlp", "", true, "grpc", ""},
		{"grpc for traces", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
			"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"}, "otlp", "", true, "grpc", ""},
		{"console", map[string]string{"OTEL_TRACES_EXPORTER": "console"}, "console", "", true, "", ""},
		{"unknown", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, "zipkin", "", false, "", `"zipkin"`},
		{"list", map[string]string{"OTEL_TRACES_EXPORTER": "otlp,console"}, "otlp,console", "", false, "", "one exporter per signal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string { return tc.vars[k] }
			if got := Exporter(getenv, "traces"); got != tc.traces {
				t.Errorf("traces exporter %q, want %q", got, tc.traces)
			}
			if got := Exporter(getenv, "metrics"); got != tc.metrics {
				t.Errorf("metrics exporter %q, want %q", got, tc.metrics)
			}
			// The OTLP exporters read the process's environment: set it too.
			for k, v := range tc.vars {
				t.Setenv(k, v)
			}
			env := &base.Env{Ctx: context.Background(), Getenv: getenv,
				BuildInfo: func() (*debug.BuildInfo, bool) { return nil, false }}
			tel, err := Start(context.Background(), env, io.Discard)
			if tc.startErrContains != "" {
				if err == nil || !strings.Contains(err.Error(), tc.startErrContains) {
					t.Fatalf("error %v, want one with %q", err, tc.startErrContains)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tel.Shutdown() }()
			if (tel != nil) != tc.started {
				t.Fatalf("started %v, want %v", tel != nil, tc.started)
			}
			if tel != nil && tel.Protocol != tc.protocol {
				t.Errorf("protocol %q, want %q", tel.Protocol, tc.protocol)
			}
			if tel == nil && len(tel.Observers()) != 0 {
				t.Error("observers without telemetry")
			}
		})
	}
}
