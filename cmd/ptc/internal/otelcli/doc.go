// Package otelcli starts the OpenTelemetry export of ptc run and ptc mcp
// serve from the standard OTEL_* environment variables (Start), and keeps
// secrets out of the errors an exporter reports (Redactor).
//
// Built with the tag ptc_nootel, the package exports nothing and only
// says so on stderr when an OTEL_* variable asks for an export.
package otelcli
