package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/tracecmd"
	"github.com/ptc-go/ptc/workbench"
)

const devSynopsis = `[DIR] [--addr 127.0.0.1:PORT] [--model REF] [--mcp FILE] [--runs DIR2] [--open]`

const devHelp = `
Serves a local web app over the agent files in DIR (default .): DIR/*.md
and DIR/*/*.md that start with a front matter (---). In it: each agent's
signature, tools and test cases; a form to run it with a model and watch
each turn live, or cancel it; the history of the runs, each saved as a
recording in DIR2 (default DIR/.ptc-runs) that "ptc trace view" and
"ptc run --replay" read, to open, replay offline or compare side by side;
its test cases as a table; the prompt and limits to edit and rerun (the
agent file is written only by Save).

The server listens on the loopback address only unless --addr says
otherwise, answers only with its own Host name, and wants the random
token of the address it prints: open that address (--open opens it). It
serves until interrupted (Ctrl-C), which cancels the running missions.
See docs/cli.md.

Flags:
`

func cmdDev(env *base.Env, args []string, stdout, stderr io.Writer) int {
	fs := base.NewFlagSet("dev", stderr, devSynopsis)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: ptc dev %s\n%s", devSynopsis, devHelp)
		fs.PrintDefaults()
	}
	addr := fs.String("addr", "127.0.0.1:0", "listen on `HOST:PORT` (port 0: a free one); a host other than loopback is reachable from the network")
	model := fs.String("model", "", "the model `REF` of runs (default: the agent file's model:, else $PTC_MODEL); the page may choose another")
	mcpPath := fs.String("mcp", "", "give every agent the tools of the MCP servers in `FILE` (default: each agent file's mcp:)")
	runs := fs.String("runs", "", "save the runs in `DIR2` (default DIR/.ptc-runs, made on the first run)")
	open := fs.Bool("open", false, "open the page in a browser ($BROWSER, else the system's)")
	pos, err := base.ParseFlags(fs, args)
	if err != nil {
		return base.FlagError(fs, err, stdout)
	}
	if len(pos) > 1 {
		return base.UsageError(fs, "takes one DIR, got %d arguments", len(pos))
	}
	dir := "."
	if len(pos) == 1 {
		dir = pos[0]
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return base.UsageError(fs, "%s is not a folder", dir)
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return base.UsageError(fs, "--addr %s: %v", *addr, err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "ptc dev: %v\n", err)
		return base.ExitFail
	}
	if !workbench.IsLoopback(host) {
		fmt.Fprintf(stderr, "ptc dev: warning: %s is not a loopback address: the server is reachable from the network (the token still guards it)\n", host)
	}
	ctx, cancel := context.WithCancel(env.Ctx)
	defer cancel()
	if env.Interrupts {
		stop := base.OnInterrupt(cancel)
		defer stop()
	}
	denv := *env
	denv.Ctx = ctx
	w, err := newDevServer(&denv, devOptions{Dir: dir, Runs: *runs, Addr: ln.Addr().String(), Model: *model, MCP: *mcpPath, Log: stderr})
	if err != nil {
		ln.Close()
		fmt.Fprintf(stderr, "ptc dev: %v\n", err)
		return base.ExitFail
	}
	fmt.Fprintf(stderr, "ptc dev: %s\n", w.URL())
	if *open {
		if err := tracecmd.OpenTarget(env, w.URL()); err != nil {
			fmt.Fprintf(stderr, "ptc dev: opening the page: %v\n", err)
		}
	}
	// Serve ends the runs (cancelled, saved) and the connections when ctx
	// ends.
	if err := w.Serve(ctx, ln); err != nil {
		fmt.Fprintf(stderr, "ptc dev: %v\n", err)
		return base.ExitFail
	}
	return base.ExitOK
}
