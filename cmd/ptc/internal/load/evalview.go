package load

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	fwall "github.com/ptc-go/ptc/internal/firewall"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/mcp"
)

// MCPTools are the tools of an MCP configuration's servers, for ptc eval
// and ptc repl: a program calls them as an agent does,
// (tool/server.tool {...}), without a model.
type MCPTools struct {
	ts     *mcp.Toolset
	Caller lisp.Tools
	Infos  []mcp.ToolInfo
}

// OpenMCPTools reads the MCP configuration at path and connects to its
// servers; view learns what each tool's result firewalls. On failure it
// says why on stderr and returns nil with the exit status: base.ExitUsage for
// a configuration that does not read, base.ExitFail for a server that does not
// connect.
func OpenMCPTools(ctx context.Context, env *base.Env, cmd, path string, view EvalView, stderr io.Writer) (*MCPTools, int) {
	cfg, err := ReadMCPConfig(path, env.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "ptc %s: %v\n", cmd, err)
		return nil, base.ExitUsage
	}
	ts, err := ConnectMCP(ctx, cfg, stderr, false)
	if err != nil {
		fmt.Fprintf(stderr, "ptc %s: %v\n", cmd, err)
		return nil, base.ExitFail
	}
	// Every tool callable by name: a person trying tools needs no search.
	tools := ts.Tools(-1)
	caller := make(lisp.Tools, len(tools))
	for name, t := range tools {
		caller[name] = view.tool(lisp.ToolFunc(t.Func))
	}
	return &MCPTools{ts: ts, Caller: caller, Infos: ts.Infos()}, base.ExitOK
}

// Close ends the servers' sessions (and stops their commands).
func (m *MCPTools) Close() { m.ts.Close() }

// EvalView is how ptc eval and ptc repl show what a program gives. With
// --mcp (and without --unredacted) it is how ptc run shows a mission:
// through a firewall that learns what the tools' results and the context
// firewall (the fields an MCP configuration's "firewall" names, which
// arrive named with "_", and the "_" fields of results), so that their
// values, and copies of their text, show as <Firewalled> in the value,
// --json, println output, errors and the REPL's :defs. Otherwise as it
// is: the program and its data are the user's own. The zero EvalView
// shows everything.
type EvalView struct {
	hide  bool
	veil  fwall.Veil
	learn func(lisp.Value)
}

// NewEvalView returns the view of a command: firewalled when hide is set.
func NewEvalView(hide bool) EvalView {
	if !hide {
		return EvalView{}
	}
	fw := fwall.New(nil, nil)
	return EvalView{hide: true, veil: fwall.Veil{fw}, learn: fw.AddToolResult}
}

// Add records what v firewalls (the context's "_" fields).
func (v EvalView) Add(x lisp.Value) {
	if v.hide {
		v.learn(x)
	}
}

// tool wraps a tool so that the view learns what its results firewall.
func (v EvalView) tool(f lisp.ToolFunc) lisp.ToolFunc {
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

// Redaction is the printers' redaction: nil when the view hides nothing.
// Take it after the run whose values it prints: it scrubs the texts known
// when it is taken.
func (v EvalView) Redaction() *lisp.Redaction {
	if !v.hide {
		return nil
	}
	return v.veil.Redaction()
}

// Text is t scrubbed of firewalled text.
func (v EvalView) Text(t string) string {
	if !v.hide {
		return t
	}
	return v.veil.Scrub(t)
}

// Output is a run's println output, scrubbed of firewalled text (it was
// printed with the redaction of the run's start).
func (v EvalView) Output(lines []string) []string {
	if !v.hide {
		return lines
	}
	return v.veil.ScrubLines(lines)
}

// Render prints a value as EDN or JSON, failing when the text would be
// longer than the memory limit l gives the program, or would take longer
// to print than its time limit: a program can build in a few steps a value
// whose printed form would not fit in memory (shared structure). Its
// errors are *lisp.Error values, with their kind.
func (v EvalView) Render(ctx context.Context, x lisp.Value, asJSON bool, l lisp.Limits) (string, error) {
	bound := base.PrintBound(l)
	red := v.Redaction()
	var out string
	if asJSON {
		b, err := lisp.ToJSON(x, red)
		if err != nil {
			return "", err
		}
		out = string(b)
	} else {
		// Printed within the program's time as within its memory: a value
		// of shared structure prints for seconds before it reaches bound.
		pctx, cancel := base.PrintContext(ctx, l)
		defer cancel()
		s, err := lisp.PrintContext(pctx, x, lisp.PrintOptions{MaxChars: bound + 1, Redact: red})
		if err != nil {
			return "", err
		}
		out = s
	}
	if len(out) > bound {
		return "", base.ValueTooLarge(bound)
	}
	if !asJSON {
		// As ptc run prints a value: a copy the printer's pieces held
		// too short to tell is caught in the whole text. (JSON keeps its
		// form: its strings were scrubbed one by one.)
		out = v.Text(out)
	}
	return out, nil
}

// PrintError writes an error of a program's run as base.PrintError does,
// scrubbed of firewalled text (a type error quotes the value it got).
func (v EvalView) PrintError(w io.Writer, err error) {
	var le *lisp.Error
	if errors.As(err, &le) {
		fmt.Fprintln(w, v.Text(le.Detailed()))
		return
	}
	fmt.Fprintln(w, v.Text(err.Error()))
}
