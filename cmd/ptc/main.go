package main

import (
	"fmt"
	"io"
	"os"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/benchcmd"
	"github.com/ptc-go/ptc/cmd/ptc/internal/conformcmd"
	"github.com/ptc-go/ptc/cmd/ptc/internal/evalcmd"
	"github.com/ptc-go/ptc/cmd/ptc/internal/mcpcmd"
	"github.com/ptc-go/ptc/cmd/ptc/internal/modelscmd"
	"github.com/ptc-go/ptc/cmd/ptc/internal/replcmd"
	"github.com/ptc-go/ptc/cmd/ptc/internal/runcmd"
	"github.com/ptc-go/ptc/cmd/ptc/internal/testcmd"
	"github.com/ptc-go/ptc/cmd/ptc/internal/tracecmd"
	"github.com/ptc-go/ptc/cmd/ptc/internal/versioncmd"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage:
  ptc eval [-c CONTEXT.json|.edn] [--json] (-e SOURCE | FILE)
  ptc repl [-c CONTEXT.json|.edn]
  ptc run AGENT_FILE [--model REF] [--mcp FILE] [-c CONTEXT] [--set NAME=VALUE]... [--json]
          [--record FILE | --replay FILE [--replay-mcp]] [--trace FILE|-] [--quiet] [limit flags]
  ptc test [AGENT_FILE|SUITE_DIR]... [--model REF]... [-n RUNS] [--parallel N] [--json] [--junit FILE]
           [--record DIR | --replay DIR] [--prompt-profile LIST] [--list]
  ptc trace print FILE [--full] [--replies] [--no-children] [--no-timings]
  ptc trace view FILE [-o OUT.html] [--open]
  ptc dev [DIR] [--addr HOST:PORT] [--model REF] [--mcp FILE] [--runs DIR2] [--open]
  ptc conform FILE.jsonl
  ptc bench [-c CONTEXT] [-n RUNS] [--json] (-e SOURCE | FILE)
  ptc models [--json]
  ptc mcp tools --config FILE [--json]
  ptc mcp serve --config FILE [--http ADDR] [--model REF]
  ptc version [--json]
run "ptc COMMAND -h" for the flags of a command
`

// run is main without the process: testable with any args and streams.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return dispatch(base.ProcessEnv(), args, stdin, stdout, stderr)
}

// dispatch runs the command args names in env.
func dispatch(env *base.Env, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, base.UsageLine("", "missing COMMAND"))
		return base.ExitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "eval":
		return evalcmd.Run(env, rest, stdin, stdout, stderr)
	case "repl":
		return replcmd.Run(env, rest, stdin, stdout, stderr)
	case "conform":
		return base.TermWrapped(stdout, stderr, func(stdout, stderr io.Writer) int { return conformcmd.Run(rest, stdout, stderr) })
	case "bench":
		return benchcmd.Run(rest, stdout, stderr)
	case "run":
		return base.TermWrapped(stdout, stderr, func(stdout, stderr io.Writer) int { return runcmd.Run(env, rest, stdout, stderr) })
	case "test":
		return base.TermWrapped(stdout, stderr, func(stdout, stderr io.Writer) int { return testcmd.Run(env, rest, stdout, stderr) })
	case "mcp":
		return mcpcmd.Run(env, rest, stdin, stdout, stderr)
	case "trace":
		return base.TermWrapped(stdout, stderr, func(stdout, stderr io.Writer) int { return tracecmd.Run(env, rest, stdout, stderr) })
	case "dev":
		return cmdDev(env, rest, stdout, stderr)
	case "models":
		return modelscmd.Run(env, rest, stdout, stderr)
	case "version", "--version":
		return versioncmd.Run(env, rest, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return base.ExitOK
	}
	fmt.Fprintln(stderr, base.UsageLine("", fmt.Sprintf("unknown command %q", base.ClipText(cmd, 40))))
	return base.ExitUsage
}
