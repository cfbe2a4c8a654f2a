package evalcmd

import (
	"fmt"
	"io"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/load"
	"github.com/ptc-go/ptc/lisp"
)

// Run runs ptc eval with args in env and returns its exit status. The
// program is FILE, -e SOURCE, or stdin for "-" (or no argument when
// stdin is not a terminal).
func Run(env *base.Env, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := base.NewFlagSet("eval", stderr, "[-c CONTEXT.json|.edn] [--json] [--mcp FILE [--unredacted]] (-e SOURCE... | FILE | -)")
	ctxPath := fs.String("c", "", "context file: JSON or EDN map, read as ctx/")
	var exprs base.RepeatedString
	fs.Var(&exprs, "e", "program `source` to evaluate (instead of FILE); repeatable: each runs in order, sees the defs of those before it, and prints its value")
	asJSON := fs.Bool("json", false, "print the result as JSON instead of EDN (println output goes to stderr)")
	mcpPath := fs.String("mcp", "", "make the tools of the MCP servers in `FILE` (an mcpServers JSON file) callable as (tool/server.tool {...}); what they firewall prints as <Firewalled>, as in ptc run")
	unredacted := fs.Bool("unredacted", false, "with --mcp, show firewalled data as it is in the value, --json, println output and errors: for your own terminal only")
	limits := base.LimitFlags(fs)
	pos, err := base.ParseFlags(fs, args)
	if err != nil {
		return base.FlagError(fs, err, stdout)
	}
	var srcs []string
	switch {
	case len(pos) > 1:
		return base.UsageError(fs, "takes one FILE, got %d arguments", len(pos))
	case len(pos) == 1 && len(exprs) > 0:
		return base.UsageError(fs, "-e and FILE do not go together")
	case len(exprs) > 0:
		srcs = exprs
	case len(pos) == 1 && pos[0] == "-", len(pos) == 0 && !base.IsTerminal(stdin):
		// A pipe without "-" too: echo '(+ 1 2)' | ptc eval.
		b, err := base.ReadBoundedFrom(stdin, base.KindProgram)
		if err != nil {
			fmt.Fprintf(stderr, "ptc eval: %v\n", base.FileError("standard input", err))
			return base.ExitUsage
		}
		srcs = []string{string(b)}
	case len(pos) == 1:
		b, err := base.ReadBounded(pos[0], base.KindProgram)
		if err != nil {
			fmt.Fprintf(stderr, "ptc eval: %v\n", base.FileError(pos[0], err))
			return base.ExitUsage
		}
		srcs = []string{string(b)}
	default:
		return base.UsageError(fs, "missing the program: -e SOURCE, FILE, or - for standard input")
	}
	ctxVal, err := load.ReadContext(*ctxPath)
	if err != nil {
		fmt.Fprintf(stderr, "ptc eval: %v\n", err)
		return base.ExitUsage
	}
	ctx, cancel := base.SignalContext(env)
	defer cancel()
	var tools lisp.ToolCaller
	var view load.EvalView
	if *mcpPath != "" {
		view = load.NewEvalView(!*unredacted)
		view.Add(ctxVal)
		mt, status := load.OpenMCPTools(ctx, env, "eval", *mcpPath, view, stderr)
		if mt == nil {
			return status
		}
		defer mt.Close()
		tools = mt.Caller
	}
	// With --json, stdout holds the JSON values alone, for jq and friends.
	progOut := stdout
	if *asJSON {
		progOut = stderr
	}
	var ns *lisp.Namespace
	for _, src := range srcs {
		res, err := lisp.Run(ctx, src, lisp.Options{Input: ctxVal, Limits: *limits, Tools: tools, Namespace: ns,
			Redact: view.Redaction()})
		for _, line := range view.Output(res.Output) {
			fmt.Fprintln(progOut, line)
		}
		if err != nil {
			view.PrintError(stderr, err)
			return base.ExitFail
		}
		out, err := view.Render(ctx, res.Value, *asJSON, *limits)
		if err != nil {
			view.PrintError(stderr, err) // a memory_exceeded, as the program's own errors print
			return base.ExitFail
		}
		if res.Status == lisp.Failed {
			fmt.Fprintf(stderr, "fail: %s\n", out)
			return base.ExitFail
		}
		fmt.Fprintln(stdout, out)
		ns = res.Namespace
	}
	return base.ExitOK
}
