//go:build !ptc_nootel && ptc_prometheus

package otelcli

import (
	"context"

	"go.opentelemetry.io/contrib/exporters/autoexport"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// newPrometheusReader serves the metrics for Prometheus to scrape: contrib's
// autoexport reads OTEL_METRICS_EXPORTER=prometheus and serves /metrics on
// OTEL_EXPORTER_PROMETHEUS_HOST:OTEL_EXPORTER_PROMETHEUS_PORT
// (localhost:9464).
func newPrometheusReader(ctx context.Context) (sdkmetric.Reader, error) {
	return autoexport.NewMetricReader(ctx)
}
