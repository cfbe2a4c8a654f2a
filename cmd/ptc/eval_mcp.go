package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/mcp"
)

// mcpTools are the tools of an MCP configuration's servers, for ptc eval
// and ptc repl: a program calls them as an agent does,
// (tool/server.tool {...}), without a model.
type mcpTools struct {
	ts     *mcp.Toolset
	caller lisp.Tools
	infos  []mcp.ToolInfo
}

// openMCPTools reads the MCP configuration at path and connects to its
// servers; view learns what each tool's result firewalls. On failure it
// says why on stderr and returns nil with the exit status: exitUsage for
// a configuration that does not read, exitFail for a server that does not
// connect.
func openMCPTools(ctx context.Context, env *runEnv, cmd, path string, view evalView, stderr io.Writer) (*mcpTools, int) {
	cfg, err := readMCPConfig(path, env.getenv)
	if err != nil {
		fmt.Fprintf(stderr, "ptc %s: %v\n", cmd, err)
		return nil, exitUsage
	}
	ts, err := connectMCP(ctx, cfg, stderr, false)
	if err != nil {
		fmt.Fprintf(stderr, "ptc %s: %v\n", cmd, err)
		return nil, exitFail
	}
	// Every tool callable by name: a person trying tools needs no search.
	tools := ts.Tools(mcp.ToolsOptions{MaxListed: -1})
	caller := make(lisp.Tools, len(tools))
	for name, t := range tools {
		caller[name] = view.tool(lisp.ToolFunc(t.Func))
	}
	return &mcpTools{ts: ts, caller: caller, infos: ts.Infos()}, exitOK
}

// close ends the servers' sessions (and stops their commands).
func (m *mcpTools) close() { m.ts.Close() }

// evalView is how ptc eval and ptc repl show what a program gives. With
// --mcp (and without --unredacted) it is how ptc run shows a mission:
// through a firewall that learns what the tools' results and the context
// firewall (the fields an MCP configuration's "firewall" names, which
// arrive named with "_", and the "_" fields of results), so that their
// values, and copies of their text, show as <Firewalled> in the value,
// --json, println output, errors and the REPL's :defs. Otherwise as it
// is: the program and its data are the user's own. The zero evalView
// shows everything.
type evalView struct {
	hide  bool
	veil  agent.Veil
	learn func(lisp.Value)
}

// newEvalView returns the view of a command: firewalled when hide is set.
func newEvalView(hide bool) evalView {
	if !hide {
		return evalView{}
	}
	v, learn := agent.NewVeil()
	return evalView{hide: true, veil: v, learn: learn}
}

// add records what v firewalls (the context's "_" fields).
func (v evalView) add(x lisp.Value) {
	if v.hide {
		v.learn(x)
	}
}

// tool wraps a tool so that the view learns what its results firewall.
func (v evalView) tool(f lisp.ToolFunc) lisp.ToolFunc {
	if !v.hide {
		return f
	}
	return func(ctx context.Context, args *lisp.Map) (any, error) {
		res, err := f(ctx, args)
		if err != nil {
			return nil, err
		}
		x, err := lisp.FromGo(res)
		if err != nil {
			return nil, err
		}
		v.learn(x)
		return x, nil
	}
}

// redaction is the printers' redaction: nil when the view hides nothing.
// Take it after the run whose values it prints: it scrubs the texts known
// when it is taken.
func (v evalView) redaction() *lisp.Redaction {
	if !v.hide {
		return nil
	}
	return v.veil.Redaction()
}

// text is t scrubbed of firewalled text.
func (v evalView) text(t string) string {
	if !v.hide {
		return t
	}
	return v.veil.Scrub(t)
}

// output is a run's println output, scrubbed of firewalled text (it was
// printed with the redaction of the run's start).
func (v evalView) output(lines []string) []string {
	if !v.hide {
		return lines
	}
	return v.veil.ScrubLines(lines)
}

// render prints a value as EDN or JSON, failing when the text would be
// longer than the memory limit l gives the program, or would take longer
// to print than its time limit: a program can build in a few steps a value
// whose printed form would not fit in memory (shared structure). Its
// errors are *lisp.Error values, with their kind.
func (v evalView) render(ctx context.Context, x lisp.Value, asJSON bool, l lisp.Limits) (string, error) {
	bound := printBound(l)
	red := v.redaction()
	var out string
	if asJSON {
		b, err := lisp.ToJSONRedacted(x, red)
		if err != nil {
			return "", err
		}
		out = string(b)
	} else {
		// Printed within the program's time as within its memory: a value
		// of shared structure prints for seconds before it reaches bound.
		pctx, cancel := printContext(ctx, l)
		defer cancel()
		s, err := lisp.FormatValueContext(pctx, x, lisp.PrintOptions{MaxChars: bound + 1, Redact: red})
		if err != nil {
			return "", err
		}
		out = s
	}
	if len(out) > bound {
		return "", valueTooLarge(bound)
	}
	if !asJSON {
		// As ptc run prints a value: a copy the printer's pieces held
		// too short to tell is caught in the whole text. (JSON keeps its
		// form: its strings were scrubbed one by one.)
		out = v.text(out)
	}
	return out, nil
}

// printError writes an error of a program's run as printError does,
// scrubbed of firewalled text (a type error quotes the value it got).
func (v evalView) printError(w io.Writer, err error) {
	var le *lisp.Error
	if errors.As(err, &le) {
		fmt.Fprintln(w, v.text(le.Detailed()))
		return
	}
	fmt.Fprintln(w, v.text(err.Error()))
}
