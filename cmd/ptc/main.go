package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
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

// runEnv is what commands get from the process besides their arguments
// and streams: the context missions run under, the environment, the way
// models are opened and the build information. Tests pass their own (a
// scripted model instead of a provider, a context they cancel).
type runEnv struct {
	ctx       context.Context
	getenv    func(string) string
	openModel func(ctx context.Context, ref string) (llm.Func, error)
	buildInfo func() (*debug.BuildInfo, bool)
	// interrupts: a SIGINT (Ctrl-C) cancels a running mission; a second
	// one ends the process. Only the process's own environment sets it.
	interrupts bool
	// tools are Go tools every agent of ptc run gets besides its MCP
	// tools: the tests' way to give an agent file tools in process.
	tools map[string]agent.Tool
}

// processEnv is the environment of the ptc process.
func processEnv() *runEnv {
	return &runEnv{
		ctx:        context.Background(),
		getenv:     os.Getenv,
		openModel:  openModel,
		buildInfo:  debug.ReadBuildInfo,
		interrupts: true,
	}
}

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// run is main without the process: testable with any args and streams.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return processEnv().run(args, stdin, stdout, stderr)
}

// run runs the command args names in env.
func (env *runEnv) run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usageLine("", "missing COMMAND"))
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "eval":
		return cmdEval(env, rest, stdin, stdout, stderr)
	case "repl":
		return cmdRepl(env, rest, stdin, stdout, stderr)
	case "conform":
		return termWrapped(stdout, stderr, func(stdout, stderr io.Writer) int { return cmdConform(rest, stdout, stderr) })
	case "bench":
		return cmdBench(rest, stdout, stderr)
	case "run":
		return termWrapped(stdout, stderr, func(stdout, stderr io.Writer) int { return cmdRun(env, rest, stdout, stderr) })
	case "test":
		return termWrapped(stdout, stderr, func(stdout, stderr io.Writer) int { return cmdTest(env, rest, stdout, stderr) })
	case "mcp":
		return cmdMCP(env, rest, stdin, stdout, stderr)
	case "trace":
		return termWrapped(stdout, stderr, func(stdout, stderr io.Writer) int { return cmdTrace(env, rest, stdout, stderr) })
	case "dev":
		return cmdDev(env, rest, stdout, stderr)
	case "models":
		return cmdModels(env, rest, stdout, stderr)
	case "version", "--version":
		return cmdVersion(env, rest, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintln(stderr, usageLine("", fmt.Sprintf("unknown command %q", clipText(cmd, 40))))
	return exitUsage
}

// parseFlags parses flags that may appear before or after the positional
// arguments, and returns the positional ones. Everything after "--" is
// positional. The flag package prints nothing: a caller hands an error
// to flagError, which says it in one line (or prints the help for -h).
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	out := fs.Output()
	fs.SetOutput(io.Discard)
	defer fs.SetOutput(out)
	var rest []string
	for i, a := range args {
		if a == "--" {
			args, rest = args[:i], args[i+1:]
			break
		}
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return append(pos, rest...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// parseNoArgs parses the flags of a command that takes no positional
// argument. ok is false when the command must stop, with status its exit
// status (0 for -h, whose help goes to stdout).
func parseNoArgs(fs *flag.FlagSet, args []string, stdout io.Writer) (status int, ok bool) {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(fs, err, stdout), false
	}
	if len(pos) > 0 {
		return usageError(fs, "unexpected argument %q", clipText(pos[0], 40)), false
	}
	return exitOK, true
}

// flagError ends a command whose flags did not parse: -h (--help) prints
// the help to stdout, exit 0; any other error is a usage error.
func flagError(fs *flag.FlagSet, err error, stdout io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		out := fs.Output()
		fs.SetOutput(stdout)
		defer fs.SetOutput(out)
		fs.Usage()
		return exitOK
	}
	return usageError(fs, "%s", err)
}

// usageError prints a usage error of the command fs parses the flags of
// as one line on its output (stderr), "ptc CMD: what is wrong (ptc CMD
// -h for help)", and returns exitUsage. The help itself is not printed:
// 80 lines of flags would bury the reason.
func usageError(fs *flag.FlagSet, format string, a ...any) int {
	fmt.Fprintln(fs.Output(), usageLine(fs.Name(), fmt.Sprintf(format, a...)))
	return exitUsage
}

// oneArg says what is wrong with pos, the positional arguments of a
// command that takes one, what.
func oneArg(what string, pos []string) string {
	if len(pos) == 0 {
		return "missing " + what
	}
	return fmt.Sprintf("takes one %s, got %d arguments", what, len(pos))
}

// usageLine is the one line of a usage error of the command cmd ("" for
// ptc itself).
func usageLine(cmd, msg string) string {
	name := "ptc"
	if cmd != "" {
		name += " " + cmd
	}
	return fmt.Sprintf("%s: %s (%s -h for help)", name, termLine(msg), name)
}

func newFlagSet(name string, stderr io.Writer, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: ptc %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// isTerminal reports whether r is an interactive terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func trimTrailingNewline(s string) string { return strings.TrimRight(s, "\n") }
