package main

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
)

func TestVersion(t *testing.T) {
	stamped := func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/ptc-go/ptc", Version: "v1.2.3"},
			Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
				{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
				{Key: "vcs.modified", Value: "true"},
				{Key: "GOOS", Value: "plan9"},
				{Key: "GOARCH", Value: "arm64"},
			}}, true
	}
	env := testEnv(nil, nil)
	env.BuildInfo = stamped
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, errOut := ptcIn(t, env, args...)
		want := "ptc v1.2.3 (github.com/ptc-go/ptc)\n" +
			"revision 0123456789abcdef0123456789abcdef01234567 of 2026-01-02T03:04:05Z, with uncommitted changes\n" +
			"built with go1.26.8 for plan9/arm64\n"
		if code != 0 || out != want || errOut != "" {
			t.Errorf("%v: exit %d, stdout:\n%s\nwant:\n%s\nstderr %q", args, code, out, want, errOut)
		}
	}
	code, out, _ := ptcIn(t, env, "version", "--json")
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil {
		t.Fatalf("exit %d, %q: %v", code, out, err)
	}
	want := map[string]any{"module": "github.com/ptc-go/ptc", "version": "v1.2.3", "revision": "0123456789abcdef0123456789abcdef01234567",
		"time": "2026-01-02T03:04:05Z", "modified": true, "go": "go1.26.8", "os": "plan9", "arch": "arm64"}
	for k, w := range want {
		if v[k] != w {
			t.Errorf("%s = %v, want %v", k, v[k], w)
		}
	}
	if got := env.Version().String(); got != "v1.2.3 0123456789ab+dirty" {
		t.Errorf("String() = %q", got)
	}

	// No build information (go run, tests): what the runtime knows.
	code, out, _ = ptcIn(t, testEnv(nil, nil), "version")
	if code != 0 || out != "ptc (unknown) (github.com/ptc-go/ptc)\nbuilt with "+runtime.Version()+" for "+runtime.GOOS+"/"+runtime.GOARCH+"\n" {
		t.Errorf("exit %d, stdout %q", code, out)
	}
	// Without VCS stamps (go run, go install module@version) the JSON keeps
	// every documented key, empty: revision and time "", modified null.
	code, out, _ = ptcIn(t, testEnv(nil, nil), "version", "--json")
	wantJSON := `{"module":"github.com/ptc-go/ptc","version":"(unknown)","revision":"","time":"","modified":null,` +
		`"go":"` + runtime.Version() + `","os":"` + runtime.GOOS + `","arch":"` + runtime.GOARCH + `"}` + "\n"
	if code != 0 || out != wantJSON {
		t.Errorf("unstamped --json: exit %d\n got %s\nwant %s", code, out, wantJSON)
	}
	// The real build information, whatever it holds.
	code, out, _ = ptcIn(t, base.ProcessEnv(), "version", "--json")
	if code != 0 || !strings.Contains(out, `"go":"`+runtime.Version()+`"`) {
		t.Errorf("exit %d, stdout %q", code, out)
	}
	if code, _, errOut := ptcIn(t, env, "version", "extra"); code != 2 || !strings.Contains(errOut, "(ptc version -h for help)") {
		t.Errorf("extra argument: exit %d, stderr %q", code, errOut)
	}
}
