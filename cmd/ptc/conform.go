package main

import (
	"context"
	"fmt"
	"io"

	"github.com/ptc-go/ptc/lisp/conformance"
)

func cmdConform(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("conform", stderr, "FILE.jsonl")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(fs, err, stdout)
	}
	if len(pos) != 1 {
		return usageError(fs, "%s", oneArg("FILE.jsonl", pos))
	}
	f, err := openBounded(pos[0], kindVectors)
	if err != nil {
		fmt.Fprintf(stderr, "ptc conform: %v\n", err)
		return exitUsage
	}
	defer f.Close()
	vs, err := conformance.Load(f)
	if err != nil {
		fmt.Fprintf(stderr, "ptc conform: %s: %s\n", pos[0], clipMessage(err.Error(), maxFileMessage))
		return exitUsage
	}
	s := conformance.RunAll(context.Background(), vs)
	for _, o := range s.Failures {
		want := o.Vector.Expect
		if o.Vector.ExpectError != "" {
			want = "error " + o.Vector.ExpectError
		}
		fmt.Fprintf(stdout, "FAIL %s\n  program:  %s\n  expected: %s\n  got:      %s\n  (%s)\n",
			o.Vector.ID, indent(o.Vector.Program), want, o.Got, o.Reason)
	}
	fmt.Fprintf(stdout, "%d passed, %d failed\n", s.Passed, s.Failed)
	if s.Failed > 0 {
		return exitFail
	}
	return exitOK
}

func indent(s string) string {
	out := []byte{}
	for i := 0; i < len(s); i++ {
		out = append(out, s[i])
		if s[i] == '\n' && i < len(s)-1 {
			out = append(out, "            "...)
		}
	}
	return trimTrailingNewline(string(out))
}
