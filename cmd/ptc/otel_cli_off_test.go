//go:build ptc_nootel

package main

import (
	"strings"
	"testing"

	"github.com/ptc-go/ptc/llm/llmtest"
)

// TestNoOTel: a binary built without OpenTelemetry runs the mission and
// says on stderr that an OTEL_* variable asking for an export exports
// nothing; the help says it was built without.
func TestNoOTel(t *testing.T) {
	tests := []struct {
		vars map[string]string
		warn string
	}{
		{nil, ""},
		{map[string]string{"OTEL_SERVICE_NAME": "x"}, ""},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none"}, ""},
		{map[string]string{"OTEL_TRACES_EXPORTER": "console"}, "OTEL_TRACES_EXPORTER is set, but this binary was built without OpenTelemetry (build tag ptc_nootel)"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, "OTEL_EXPORTER_OTLP_ENDPOINT is set"},
		{map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "console"}, ""},
	}
	for _, tc := range tests {
		env := testEnv(llmtest.NewScript(ordersReplies()...).Func(), nil)
		env.Getenv = func(k string) string { return tc.vars[k] }
		code, out, errOut := ptcIn(t, env, "run", ordersAgent, "--model", "m", "--quiet")
		if code != 0 || out != ordersValue {
			t.Fatalf("%v: exit %d, stdout %q, stderr:\n%s", tc.vars, code, out, errOut)
		}
		if tc.warn == "" && errOut != "" || !strings.Contains(errOut, tc.warn) {
			t.Errorf("%v: stderr %q, want %q", tc.vars, errOut, tc.warn)
		}
	}
	_, hOut, hErr := ptcIn(t, testEnv(nil, nil), "run", "-h")
	help := hOut + hErr
	containsAll(t, "ptc run -h", help, "built without it (build tag ptc_nootel)")
}
