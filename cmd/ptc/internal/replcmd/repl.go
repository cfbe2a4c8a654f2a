package replcmd

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

const Banner = "PTC-Lisp REPL: defs persist between inputs; *1 *2 *3 are the last values.\n" +
	"Type :help for commands and keys, :doc NAME for a builtin, Ctrl-D to quit.\n"

// Run runs ptc repl with args in env: a line editor on a terminal,
// plain lines otherwise. It returns the exit status.
func Run(env *base.Env, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
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
	s := &Session{Stdout: stdout, Stderr: stderr, CtxVal: ctxVal, Limits: *limits}
	if *mcpPath != "" {
		// The servers live as long as the session; connecting is the only
		// wait a Ctrl-C ends before the first prompt.
		s.View = load.NewEvalView(!*unredacted)
		s.View.Add(ctxVal)
		ctx, cancel := base.SignalContext(env)
		mt, status := load.OpenMCPTools(ctx, env, "repl", *mcpPath, s.View, stderr)
		cancel()
		if mt == nil {
			return status
		}
		defer mt.Close()
		s.Tools, s.toolInfos = mt.Caller, mt.Infos
	}
	if t := openReplTerminal(stdin, stdout); t != nil {
		if err := t.makeRaw(); err == nil {
			defer t.restore()
			return RunEditor(s, EditorConfig{
				In:       stdin,
				Out:      stdout,
				Width:    t.width,
				color:    os.Getenv("NO_COLOR") == "",
				HistPath: HistoryPath(*histFlag),
				paste:    true,
			})
		}
	}
	return s.runPlain(stdin, base.IsTerminal(stdin))
}

// Session is the state the inputs of one REPL share.
type Session struct {
	Stdout, Stderr io.Writer
	CtxVal         *lisp.Map
	Limits         lisp.Limits
	Tools          lisp.ToolCaller // the tools of --mcp (tests set their own)
	toolInfos      []mcp.ToolInfo  // what :tools lists
	View           load.EvalView   // how values and output show (--mcp: firewalled)

	ns     *lisp.Namespace
	values []lisp.Value // *1 *2 *3
	quit   bool

	// interruptible runs an evaluation so that Ctrl-C cancels its context,
	// and reports whether it did; nil runs it uninterrupted.
	interruptible func(run func(ctx context.Context)) bool
}

// EditorConfig wires the line editor to its streams.
type EditorConfig struct {
	In       io.Reader
	Out      io.Writer  // where the editor draws
	Width    func() int // nil: 80 columns
	color    bool
	HistPath string // "": history in memory only
	paste    bool   // turn the terminal's bracketed paste on
}

// RunEditor runs the REPL with the line editor: out is a terminal in
// raw mode (or a test's buffer), and the session's output gets "\r\n".
func RunEditor(s *Session, cfg EditorConfig) int {
	in := newReplInput(cfg.In)
	defer in.close()
	s.Stdout = &replCRLFWriter{w: s.Stdout}
	s.Stderr = &replCRLFWriter{w: s.Stderr}
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
		out:         cfg.Out,
		width:       cfg.Width,
		hist:        LoadHistory(cfg.HistPath, HistoryLimit),
		prompt:      "ptc> ",
		contPrompt:  "...> ",
		color:       cfg.color,
		submit:      s.submits,
		completions: s.completer,
	}
	if cfg.paste {
		fmt.Fprint(cfg.Out, "\x1b[?2004h")
		defer fmt.Fprint(cfg.Out, "\x1b[?2004l")
	}
	fmt.Fprint(s.Stdout, Banner)
	for !s.quit {
		src, err := ed.readForm()
		switch {
		case errors.Is(err, errReplInterrupt), errors.Is(err, errReplDiscard):
			continue
		case errors.Is(err, io.EOF):
			return base.ExitOK
		case err != nil:
			fmt.Fprintf(s.Stderr, "ptc repl: %v\n", err)
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
func (s *Session) submits(src string) bool {
	if _, _, ok := findCommand(src); ok {
		return true
	}
	return !Incomplete(src + "\n")
}

// runPlain reads lines without editing, for pipes and scripts (and for a
// terminal that cannot be put in raw mode); interactive prints prompts.
func (s *Session) runPlain(stdin io.Reader, interactive bool) int {
	prompt := func(cont bool) {
		if !interactive {
			return
		}
		if cont {
			fmt.Fprint(s.Stdout, "...> ")
		} else {
			fmt.Fprint(s.Stdout, "ptc> ")
		}
	}
	if interactive {
		fmt.Fprint(s.Stdout, Banner)
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
				fmt.Fprintf(s.Stderr, "ptc repl: %v\n", err)
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
		if Incomplete(src) {
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
			base.PrintError(s.Stderr, err)
		}
	}
	if interactive {
		fmt.Fprintln(s.Stdout)
	}
	return base.ExitOK
}

// input handles one complete input: a command or a program.
func (s *Session) input(src string) {
	if c, arg, ok := findCommand(src); ok {
		c.run(s, arg)
		return
	}
	s.eval(src)
}

// options are the run options of the session's next evaluation.
func (s *Session) options() lisp.Options {
	return lisp.Options{Input: s.CtxVal, Namespace: s.ns, History: s.values, Limits: s.Limits, Tools: s.Tools,
		Redact: s.View.Redaction()}
}

// run evaluates src, interruptibly when the session can be interrupted.
func (s *Session) run(src string) (res *lisp.Result, interrupted bool, err error) {
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
func (s *Session) eval(src string) {
	start := time.Now()
	res, interrupted, err := s.run(src)
	s.show(res, err, interrupted && errors.Is(err, lisp.Cancelled), time.Since(start))
}

// show prints the outcome of a run and updates the session.
func (s *Session) show(res *lisp.Result, err error, interrupted bool, took time.Duration) {
	for _, line := range s.View.Output(res.Output) {
		fmt.Fprintln(s.Stdout, line)
	}
	if res.Namespace != nil {
		s.ns = res.Namespace
	}
	switch {
	case interrupted:
		fmt.Fprintf(s.Stderr, "interrupted after %s; the session keeps its earlier defs\n", took.Round(time.Millisecond))
	case err != nil:
		s.View.PrintError(s.Stderr, err)
	case res.Status == lisp.Failed:
		out, err := s.View.Render(context.Background(), res.Value, false, s.Limits)
		if err != nil {
			out = err.Error()
		}
		fmt.Fprintf(s.Stderr, "fail: %s\n", out)
	default:
		out, err := s.View.Render(context.Background(), res.Value, false, s.Limits)
		if err != nil {
			fmt.Fprintf(s.Stderr, "ptc repl: %v\n", err)
		} else {
			fmt.Fprintln(s.Stdout, out)
		}
		s.values = append([]lisp.Value{res.Value}, s.values...)
		if len(s.values) > 3 {
			s.values = s.values[:3]
		}
	}
}

// Incomplete reports whether src ends inside a form (an unclosed delimiter
// or string), so the REPL should read more lines.
func Incomplete(src string) bool {
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
