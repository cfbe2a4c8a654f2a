package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/load"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/lisp/syntax"
	"github.com/ptc-go/ptc/mcp"
)

const replBanner = "PTC-Lisp REPL: defs persist between inputs; *1 *2 *3 are the last values.\n" +
	"Type :help for commands and keys, :doc NAME for a builtin, Ctrl-D to quit.\n"

func cmdRepl(env *base.Env, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := base.NewFlagSet("repl", stderr, "[-c CONTEXT.json|.edn] [--history FILE|off] [--mcp FILE [--unredacted]]")
	ctxPath := fs.String("c", "", "context file: JSON or EDN map, read as ctx/")
	histFlag := fs.String("history", "", "`file` of the line editor's input history, or off (default $PTC_HISTORY, else ptc/history in the user config directory)")
	mcpPath := fs.String("mcp", "", "make the tools of the MCP servers in `FILE` (an mcpServers JSON file) callable as (tool/server.tool {...}); :tools lists them; what they firewall prints as <Firewalled>, as in ptc run")
	unredacted := fs.Bool("unredacted", false, "with --mcp, show firewalled data as it is in values, println output, errors and :defs: for your own terminal only")
	limits := base.LimitFlags(fs)
	if status, ok := base.ParseNoArgs(fs, args, stdout); !ok {
		return status
	}
	ctxVal, err := load.ReadContext(*ctxPath)
	if err != nil {
		fmt.Fprintf(stderr, "ptc repl: %v\n", err)
		return base.ExitUsage
	}
	s := &replSession{stdout: stdout, stderr: stderr, ctxVal: ctxVal, limits: *limits}
	if *mcpPath != "" {
		// The servers live as long as the session; connecting is the only
		// wait a Ctrl-C ends before the first prompt.
		s.view = load.NewEvalView(!*unredacted)
		s.view.Add(ctxVal)
		ctx, cancel := base.SignalContext(env)
		mt, status := load.OpenMCPTools(ctx, env, "repl", *mcpPath, s.view, stderr)
		cancel()
		if mt == nil {
			return status
		}
		defer mt.Close()
		s.tools, s.toolInfos = mt.Caller, mt.Infos
	}
	if t := openReplTerminal(stdin, stdout); t != nil {
		if err := t.makeRaw(); err == nil {
			defer t.restore()
			return runEditorRepl(s, replEditorConfig{
				in:       stdin,
				out:      stdout,
				width:    t.width,
				color:    os.Getenv("NO_COLOR") == "",
				histPath: replHistoryPath(*histFlag),
				paste:    true,
			})
		}
	}
	return s.runPlain(stdin, base.IsTerminal(stdin))
}

// replSession is the state the inputs of one REPL share.
type replSession struct {
	stdout, stderr io.Writer
	ctxVal         *lisp.Map
	limits         lisp.Limits
	tools          lisp.ToolCaller // the tools of --mcp (tests set their own)
	toolInfos      []mcp.ToolInfo  // what :tools lists
	view           load.EvalView   // how values and output show (--mcp: firewalled)

	ns     *lisp.Namespace
	values []lisp.Value // *1 *2 *3
	quit   bool

	// interruptible runs an evaluation so that Ctrl-C cancels its context,
	// and reports whether it did; nil runs it uninterrupted.
	interruptible func(run func(ctx context.Context)) bool
}

// replEditorConfig wires the line editor to its streams.
type replEditorConfig struct {
	in       io.Reader
	out      io.Writer  // where the editor draws
	width    func() int // nil: 80 columns
	color    bool
	histPath string // "": history in memory only
	paste    bool   // turn the terminal's bracketed paste on
}

// runEditorRepl runs the REPL with the line editor: out is a terminal in
// raw mode (or a test's buffer), and the session's output gets "\r\n".
func runEditorRepl(s *replSession, cfg replEditorConfig) int {
	in := newReplInput(cfg.in)
	defer in.close()
	s.stdout = &replCRLFWriter{w: s.stdout}
	s.stderr = &replCRLFWriter{w: s.stderr}
	s.interruptible = func(run func(ctx context.Context)) bool {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan struct{})
		go func() {
			defer close(done)
			run(ctx)
		}()
		interrupted := false
		in.whileRunning(done, func() {
			interrupted = true
			cancel()
		})
		return interrupted
	}
	ed := &lineEditor{
		in:          in,
		out:         cfg.out,
		width:       cfg.width,
		hist:        loadReplHistory(cfg.histPath, replHistoryLimit),
		prompt:      "ptc> ",
		contPrompt:  "...> ",
		color:       cfg.color,
		submit:      s.submits,
		completions: s.completer,
	}
	if cfg.paste {
		fmt.Fprint(cfg.out, "\x1b[?2004h")
		defer fmt.Fprint(cfg.out, "\x1b[?2004l")
	}
	fmt.Fprint(s.stdout, replBanner)
	for !s.quit {
		src, err := ed.readForm()
		switch {
		case errors.Is(err, errReplInterrupt), errors.Is(err, errReplDiscard):
			continue
		case errors.Is(err, io.EOF):
			return base.ExitOK
		case err != nil:
			fmt.Fprintf(s.stderr, "ptc repl: %v\n", err)
			return base.ExitFail
		}
		if strings.TrimSpace(src) == "" {
			continue
		}
		ed.hist.add(src)
		s.input(src)
	}
	return base.ExitOK
}

// submits reports whether Enter submits src: a command, or a form whose
// brackets balance.
func (s *replSession) submits(src string) bool {
	if _, _, ok := findCommand(src); ok {
		return true
	}
	return !incomplete(src + "\n")
}

// runPlain reads lines without editing, for pipes and scripts (and for a
// terminal that cannot be put in raw mode); interactive prints prompts.
func (s *replSession) runPlain(stdin io.Reader, interactive bool) int {
	prompt := func(cont bool) {
		if !interactive {
			return
		}
		if cont {
			fmt.Fprint(s.stdout, "...> ")
		} else {
			fmt.Fprint(s.stdout, "ptc> ")
		}
	}
	if interactive {
		fmt.Fprint(s.stdout, replBanner)
		// Without raw mode Ctrl-C is a signal: it interrupts an evaluation,
		// and at the prompt it ends the REPL as usual.
		s.interruptible = func(run func(ctx context.Context)) bool {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			run(ctx)
			return ctx.Err() != nil
		}
	}
	in := bufio.NewReader(stdin)
	var buf strings.Builder
	prompt(false)
	for !s.quit {
		line, err := in.ReadString('\n')
		if line == "" && err != nil {
			if err != io.EOF {
				fmt.Fprintf(s.stderr, "ptc repl: %v\n", err)
			}
			break
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if buf.Len() == 0 {
			if _, _, ok := findCommand(line); ok {
				s.input(line)
				prompt(false)
				continue
			}
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		src := buf.String()
		if incomplete(src) {
			prompt(true)
			continue
		}
		buf.Reset()
		if strings.TrimSpace(src) != "" {
			s.input(src)
		}
		prompt(false)
	}
	if buf.Len() > 0 {
		// Input ended inside a form: report it like any other error.
		if _, err := lisp.Compile(buf.String()); err != nil {
			base.PrintError(s.stderr, err)
		}
	}
	if interactive {
		fmt.Fprintln(s.stdout)
	}
	return base.ExitOK
}

// input handles one complete input: a command or a program.
func (s *replSession) input(src string) {
	if c, arg, ok := findCommand(src); ok {
		c.run(s, arg)
		return
	}
	s.eval(src)
}

// options are the run options of the session's next evaluation.
func (s *replSession) options() lisp.Options {
	return lisp.Options{Context: s.ctxVal, Namespace: s.ns, History: s.values, Limits: s.limits, Tools: s.tools,
		Redact: s.view.Redaction()}
}

// run evaluates src, interruptibly when the session can be interrupted.
func (s *replSession) run(src string) (res *lisp.Result, interrupted bool, err error) {
	opts := s.options()
	do := func(ctx context.Context) { res, err = lisp.Run(ctx, src, opts) }
	if s.interruptible == nil {
		do(context.Background())
	} else {
		interrupted = s.interruptible(do)
	}
	return res, interrupted, err
}

// eval runs a program, prints its output and value, and keeps its defs.
func (s *replSession) eval(src string) {
	start := time.Now()
	res, interrupted, err := s.run(src)
	s.show(res, err, interrupted && errors.Is(err, lisp.Cancelled), time.Since(start))
}

// show prints the outcome of a run and updates the session.
func (s *replSession) show(res *lisp.Result, err error, interrupted bool, took time.Duration) {
	for _, line := range s.view.Output(res.Output) {
		fmt.Fprintln(s.stdout, line)
	}
	if res.Namespace != nil {
		s.ns = res.Namespace
	}
	switch {
	case interrupted:
		fmt.Fprintf(s.stderr, "interrupted after %s; the session keeps its earlier defs\n", took.Round(time.Millisecond))
	case err != nil:
		s.view.PrintError(s.stderr, err)
	case res.Status == lisp.Failed:
		out, err := s.view.Render(context.Background(), res.Value, false, s.limits)
		if err != nil {
			out = err.Error()
		}
		fmt.Fprintf(s.stderr, "fail: %s\n", out)
	default:
		out, err := s.view.Render(context.Background(), res.Value, false, s.limits)
		if err != nil {
			fmt.Fprintf(s.stderr, "ptc repl: %v\n", err)
		} else {
			fmt.Fprintln(s.stdout, out)
		}
		s.values = append([]lisp.Value{res.Value}, s.values...)
		if len(s.values) > 3 {
			s.values = s.values[:3]
		}
	}
}

// incomplete reports whether src ends inside a form (an unclosed delimiter
// or string), so the REPL should read more lines.
func incomplete(src string) bool {
	_, err := syntax.Read(src)
	list, ok := err.(syntax.ErrorList)
	if !ok || len(list) == 0 {
		return false
	}
	end := len(src)
	for _, e := range list {
		atEnd := int(e.Pos.Offset) >= end-1 && e.Opened.IsValid()
		if !atEnd && !strings.HasPrefix(e.Msg, "unterminated string") {
			return false
		}
	}
	return true
}
