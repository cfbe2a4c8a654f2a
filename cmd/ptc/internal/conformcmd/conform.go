package conformcmd

import (
	"context"
	"fmt"
	"io"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/lisp/conformance"
)

// Run runs ptc conform with args and returns its exit status: 1 when a
// vector fails.
func Run(args []string, stdout, stderr io.Writer) int {
	fs := base.NewFlagSet("conform", stderr, "FILE.jsonl")
	pos, err := base.ParseFlags(fs, args)
	if err != nil {
		return base.FlagError(fs, err, stdout)
	}
	if len(pos) != 1 {
		return base.UsageError(fs, "%s", base.OneArg("FILE.jsonl", pos))
	}
	f, err := base.OpenBounded(pos[0], base.KindVectors)
	if err != nil {
		fmt.Fprintf(stderr, "ptc conform: %v\n", err)
		return base.ExitUsage
	}
	defer f.Close()
	vs, err := conformance.Load(f)
	if err != nil {
		fmt.Fprintf(stderr, "ptc conform: %s: %s\n", pos[0], base.ClipMessage(err.Error(), base.MaxFileMessage))
		return base.ExitUsage
	}
	s := conformance.RunAll(context.Background(), vs)
	for _, o := range s.Failures {
		want := o.Vector.Expect
		if o.Vector.ExpectError != "" {
			want = "error " + o.Vector.ExpectError
		}
		fmt.Fprintf(stdout, "FAIL %s\n  program:  %s\n  expected: %s\n  got:      %s\n  (%s)\n",
			o.Vector.ID, Indent(o.Vector.Program), want, o.Got, o.Reason)
	}
	fmt.Fprintf(stdout, "%d passed, %d failed\n", s.Passed, s.Failed)
	if s.Failed > 0 {
		return base.ExitFail
	}
	return base.ExitOK
}

func Indent(s string) string {
	out := []byte{}
	for i := 0; i < len(s); i++ {
		out = append(out, s[i])
		if s[i] == '\n' && i < len(s)-1 {
			out = append(out, "            "...)
		}
	}
	return base.TrimTrailingNewline(string(out))
}
