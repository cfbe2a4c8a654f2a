package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTimeoutHelpDefault: the --timeout help of the commands whose
// programs run as an agent's turns gives the agent's default (5s), not
// the interpreter's (1s), which eval keeps.
func TestTimeoutHelpDefault(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-h"}, "(default 5s; -1: none)"},
		{[]string{"mcp", "serve", "-h"}, "(default 5s; -1: none)"},
		{[]string{"eval", "-h"}, "(default 1s; -1: none)"},
	} {
		_, _, errOut := ptc(t, "", tc.args...)
		i := strings.Index(errOut, "-timeout")
		if i < 0 {
			t.Fatalf("%v: no -timeout in\n%s", tc.args, errOut)
		}
		line := errOut[i:]
		if j := strings.Index(line, "\n  -"); j > 0 {
			line = line[:j]
		}
		if !strings.Contains(line, tc.want) {
			t.Errorf("%v: --timeout help %q, want %q", tc.args, line, tc.want)
		}
	}
}

// TestModelsJSONFields: every object of ptc models --json has every
// field docs/cli.md lists, with its type, false and empty ones included.
func TestModelsJSONFields(t *testing.T) {
	env := testEnv(nil, nil)
	env.getenv = func(string) string { return "" } // no key set: key_set "" and ready false somewhere
	code, out, _ := ptcIn(t, env, "models", "--json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); code != exitOK || err != nil || len(rows) == 0 {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	kinds := map[string]string{"provider": "string", "example": "string", "adapter": "string", "key_env": "array",
		"key_set": "string", "url_env": "string", "url": "string", "local": "bool", "ready": "bool"}
	for _, r := range rows {
		if len(r) != len(kinds) {
			t.Errorf("%v: %d fields, want %d", r["provider"], len(r), len(kinds))
		}
		for k, kind := range kinds {
			var ok bool
			switch v := r[k]; kind {
			case "string":
				_, ok = v.(string)
			case "bool":
				_, ok = v.(bool)
			case "array":
				_, ok = v.([]any)
			}
			if !ok {
				t.Errorf("%v: %s is %#v, want a %s", r["provider"], k, r[k], kind)
			}
		}
	}
}
