//go:build !ptc_nootel && !ptc_prometheus

package otelcli

import (
	"context"
	"io"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
)

// TestExportersTheDefaultBuildRefuses: the default build has no
// Prometheus exporter and no OTLP over http/json, and says so (with the
// build tag that adds Prometheus) instead of exporting nothing quietly.
func TestExportersTheDefaultBuildRefuses(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
		want string
	}{
		{"prometheus", map[string]string{"OTEL_METRICS_EXPORTER": "prometheus"}, "ptc_prometheus"},
		{"http/json", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
			`unsupported OTLP protocol "http/json"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string { return tc.vars[k] }
			for k, v := range tc.vars {
				t.Setenv(k, v)
			}
			env := &base.Env{Ctx: context.Background(), Getenv: getenv,
				BuildInfo: func() (*debug.BuildInfo, bool) { return nil, false }}
			tel, err := Start(context.Background(), env, io.Discard)
			if err == nil {
				_ = tel.Shutdown()
				t.Fatal("started; want an error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want one with %q", err, tc.want)
			}
		})
	}
}
