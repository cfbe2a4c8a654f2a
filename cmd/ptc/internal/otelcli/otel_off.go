//go:build ptc_nootel

package otelcli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
)

// Help is what ptc run --help and ptc mcp serve --help say of
// OpenTelemetry in a binary built without it.
const Help = `
OpenTelemetry: this binary was built without it (build tag ptc_nootel): the OTEL_*
variables export nothing (ptc says so on stderr when one is set).
`

// Telemetry is nothing in a binary built without OpenTelemetry.
type Telemetry struct{}

// Start warns when an OTEL_* variable asks for an export, rather
// than let a user believe spans are exported; it does not refuse to run, as
// the variable may be set for other programs.
func Start(_ context.Context, env *base.Env, stderr io.Writer) (*Telemetry, error) {
	if strings.EqualFold(strings.TrimSpace(env.Getenv("OTEL_SDK_DISABLED")), "true") {
		return nil, nil
	}
	for _, k := range []string{"OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"} {
		if v := strings.TrimSpace(env.Getenv(k)); v != "" && v != "none" {
			fmt.Fprintf(stderr, "ptc: %s is set, but this binary was built without OpenTelemetry (build tag ptc_nootel): nothing is exported\n", k)
			return nil, nil
		}
	}
	return nil, nil
}

func (t *Telemetry) Observers() []agent.Observer { return nil }

func (t *Telemetry) Shutdown() error { return nil }
