//go:build !ptc_nootel && !ptc_prometheus

package otelcli

import (
	"context"
	"errors"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// newPrometheusReader: the default build leaves the Prometheus exporter
// out (its client library and registry cost about 3 MB and start-up work
// in every ptc); docs/observability.md says how to build it in.
func newPrometheusReader(context.Context) (sdkmetric.Reader, error) {
	return nil, errors.New("this binary was built without the Prometheus exporter (build tag ptc_prometheus); use otlp with a collector")
}
