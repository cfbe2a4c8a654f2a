//go:build !ptc_nootel

package main

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/cmd/ptc/internal/otelcli"
)

// echoingCollector answers every export with status, and a body that
// echoes the request's credential headers first (each as a line, as JSON
// and URL-escaped), then the others, then pad bytes.
func echoingCollector(status, pad int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		var b strings.Builder
		fmt.Fprintf(&b, "rejected %s: ", r.URL.Path)
		names := slices.Sorted(maps.Keys(r.Header))
		slices.SortStableFunc(names, func(a, b string) int {
			return cmp.Compare(credentialName(b), credentialName(a))
		})
		for _, k := range names {
			for _, v := range r.Header[k] {
				j, _ := json.Marshal(v)
				fmt.Fprintf(&b, "%s: %s %s %s\n", k, v, j, url.QueryEscape(v))
			}
		}
		b.WriteString(strings.Repeat("x", pad))
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, b.String())
	})
}

// credentialName is 1 for the headers the test sends credentials in.
func credentialName(name string) int {
	switch name {
	case "Authorization", "Proxy-Authorization", "X-Api-Key":
		return 1
	}
	return 0
}

// TestRunOTelCollectorEchoesHeaders: a collector that answers an export
// with an error whose body echoes the request's headers costs ptc run a
// line on stderr, which shows no header value of the OTEL_EXPORTER_OTLP_*
// headers variables, in any form, and no more than a few hundred
// characters of the collector's answer.
func TestRunOTelCollectorEchoesHeaders(t *testing.T) {
	const (
		key      = "otlp-key-0123456789abcdef"
		traceKey = "trace-key-fedcba9876543210"
		user     = "collector-user"
		password = "basic-pass-5647382910"
	)
	basic := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	secrets := []string{key, traceKey, basic, password}
	for _, status := range []int{http.StatusBadRequest, http.StatusInternalServerError} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			srv := httptest.NewServer(echoingCollector(status, 64<<10))
			defer srv.Close()
			vars := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + srv.URL,
				"OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20" + key + ",x-team=ptc",
				// The traces' own headers replace the others for traces.
				"OTEL_EXPORTER_OTLP_TRACES_HEADERS=x-api-key=" + traceKey + ",proxy-authorization=Basic%20" + url.QueryEscape(basic)}
			code, out, errOut := runBinaryEnv(t, vars, "run", "--replay", ordersRecording, "--quiet")
			if code != 0 || out != ordersValue {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
			}
			containsAll(t, "stderr", errOut, "ptc run: exporting to OpenTelemetry:", fmt.Sprint(status), "/v1/traces", "/v1/metrics",
				"[redacted]")
			for _, s := range secrets {
				for _, form := range []string{s, s[:8], s[len(s)-8:], url.QueryEscape(s), base64.StdEncoding.EncodeToString([]byte(s))} {
					if strings.Contains(errOut, form) {
						t.Errorf("stderr shows %q (of %q):\n%s", form, s, errOut)
					}
				}
			}
			for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
				if !strings.HasPrefix(line, "ptc: OpenTelemetry: ") && !strings.HasPrefix(line, "ptc run: exporting to OpenTelemetry: ") {
					t.Errorf("stderr line %q is not ptc's", line)
				}
			}
			if len(errOut) > 4*otelcli.MaxErrors*otelcli.MaxErrorChars || strings.Contains(errOut, strings.Repeat("x", otelcli.MaxErrorChars)) {
				t.Errorf("stderr holds %d bytes: the collector's answer is not cut:\n%s", len(errOut), errOut)
			}
		})
	}
}
