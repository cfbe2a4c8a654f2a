package versioncmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
)

// Run runs ptc version with args in env and returns its exit status.
func Run(env *base.Env, args []string, stdout, stderr io.Writer) int {
	fs := base.NewFlagSet("version", stderr, "[--json]")
	asJSON := fs.Bool("json", false, `print {"module","version","revision","time","modified","go","os","arch"} as JSON`)
	if status, ok := base.ParseNoArgs(fs, args, stdout); !ok {
		return status
	}
	v := env.Version()
	if *asJSON {
		b, _ := json.Marshal(v)
		fmt.Fprintln(stdout, string(b))
		return base.ExitOK
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "ptc %s (%s)\n", v.Version, v.Module)
	if v.Revision != "" {
		fmt.Fprintf(&sb, "revision %s", v.Revision)
		if v.Time != "" {
			fmt.Fprintf(&sb, " of %s", v.Time)
		}
		if v.Dirty() {
			sb.WriteString(", with uncommitted changes")
		}
		sb.WriteByte('\n')
	}
	fmt.Fprintf(&sb, "built with %s for %s/%s\n", v.Go, v.OS, v.Arch)
	fmt.Fprint(stdout, sb.String())
	return base.ExitOK
}
