//go:build !ptc_nootel

package otelcli

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// TestOTelRedactor: the errors of the exporters show no header value, no
// credential of an endpoint's URL, no API key of the environment, each in
// its escaped forms too; each error is on one line, cut; joined errors
// are each kept, within a bound.
func TestOTelRedactor(t *testing.T) {
	vars := map[string]string{
		"OTEL_EXPORTER_OTLP_HEADERS":          "api-key=hdr-key-0123456789,x-short=abc",
		"OTEL_EXPORTER_OTLP_METRICS_HEADERS":  "Authorization=Bearer%20metric-bearer-0123456789",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT":  "https://otel-user:url-pass-0123456789@collector.example/v1/traces?api_key=query-key-0123456789",
		"OPENAI_API_KEY":                      "sk-proj-openai-0123456789",
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "https://collector.example/v1/metrics",
	}
	r := NewRedactor(func(k string) string { return vars[k] })
	secrets := []string{"hdr-key-0123456789", "metric-bearer-0123456789", "url-pass-0123456789", "query-key-0123456789",
		"sk-proj-openai-0123456789"}
	var echo strings.Builder
	for _, s := range secrets {
		fmt.Fprintf(&echo, "%s %s %q %s\n", s, url.QueryEscape("k="+s), s, base64.StdEncoding.EncodeToString([]byte(s)))
	}
	body := echo.String() + "cut here: " + secrets[0][:12] + "\x1b]52;c;AAAA\x07" + strings.Repeat("y", 10000)
	err := errors.Join(
		fmt.Errorf("failed to send to %s: 400 Bad Request (body: %s)", vars["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"], body),
		errors.Join(errors.New("metrics: "+body), errors.New("third: "+body)),
		errors.New("fourth"), errors.New("fifth"), errors.New("sixth"))
	got := r.Message(err)
	for _, s := range secrets {
		if strings.Contains(got, s[:8]) || strings.Contains(got, s[len(s)-8:]) {
			t.Errorf("%q shows: %s", s, got)
		}
	}
	if strings.Contains(got, "\n") || strings.Contains(got, "\x1b") {
		t.Errorf("not one safe line: %q", got)
	}
	if n := strings.Count(got, "; "); n != MaxErrors || !strings.HasSuffix(got, "(more errors left out)") ||
		!strings.Contains(got, "failed to send to https://") || !strings.Contains(got, "metrics: ") || !strings.Contains(got, "fourth") {
		t.Errorf("%d errors shown, want %d and a note: %s", n, MaxErrors, got)
	}
	if len(got) > MaxErrors*(4*MaxErrorChars)+100 {
		t.Errorf("%d bytes: not cut", len(got))
	}
	if r.Wrap(nil) != nil || r.Message(errors.New("collector.example: 503 Service Unavailable")) != "collector.example: 503 Service Unavailable" {
		t.Error("an error without secrets changed, or nil is not nil")
	}
	var nilR *Redactor
	if nilR.Redact("x") != "x" {
		t.Error("a nil redactor changed the text")
	}
}
