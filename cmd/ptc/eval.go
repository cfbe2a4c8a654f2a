package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/lisp/syntax"
)

func cmdEval(env *runEnv, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("eval", stderr, "[-c CONTEXT.json|.edn] [--json] [--mcp FILE [--unredacted]] (-e SOURCE... | FILE | -)")
	ctxPath := fs.String("c", "", "context file: JSON or EDN map, read as ctx/")
	var exprs repeatedString
	fs.Var(&exprs, "e", "program `source` to evaluate (instead of FILE); repeatable: each runs in order, sees the defs of those before it, and prints its value")
	asJSON := fs.Bool("json", false, "print the result as JSON instead of EDN (println output goes to stderr)")
	mcpPath := fs.String("mcp", "", "make the tools of the MCP servers in `FILE` (an mcpServers JSON file) callable as (tool/server.tool {...}); what they firewall prints as <Firewalled>, as in ptc run")
	unredacted := fs.Bool("unredacted", false, "with --mcp, show firewalled data as it is in the value, --json, println output and errors: for your own terminal only")
	limits := limitFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(fs, err, stdout)
	}
	var srcs []string
	switch {
	case len(pos) > 1:
		return usageError(fs, "takes one FILE, got %d arguments", len(pos))
	case len(pos) == 1 && len(exprs) > 0:
		return usageError(fs, "-e and FILE do not go together")
	case len(exprs) > 0:
		srcs = exprs
	case len(pos) == 1 && pos[0] == "-", len(pos) == 0 && !isTerminal(stdin):
		// A pipe without "-" too: echo '(+ 1 2)' | ptc eval.
		b, err := readBoundedFrom(stdin, kindProgram)
		if err != nil {
			fmt.Fprintf(stderr, "ptc eval: %v\n", fileError("standard input", err))
			return exitUsage
		}
		srcs = []string{string(b)}
	case len(pos) == 1:
		b, err := readBounded(pos[0], kindProgram)
		if err != nil {
			fmt.Fprintf(stderr, "ptc eval: %v\n", fileError(pos[0], err))
			return exitUsage
		}
		srcs = []string{string(b)}
	default:
		return usageError(fs, "missing the program: -e SOURCE, FILE, or - for standard input")
	}
	ctxVal, err := loadContext(*ctxPath)
	if err != nil {
		fmt.Fprintf(stderr, "ptc eval: %v\n", err)
		return exitUsage
	}
	ctx, cancel := signalContext(env)
	defer cancel()
	var tools lisp.ToolCaller
	var view evalView
	if *mcpPath != "" {
		view = newEvalView(!*unredacted)
		view.add(ctxVal)
		mt, status := openMCPTools(ctx, env, "eval", *mcpPath, view, stderr)
		if mt == nil {
			return status
		}
		defer mt.close()
		tools = mt.caller
	}
	// With --json, stdout holds the JSON values alone, for jq and friends.
	progOut := stdout
	if *asJSON {
		progOut = stderr
	}
	var ns *lisp.Namespace
	for _, src := range srcs {
		res, err := lisp.Run(ctx, src, lisp.Options{Context: ctxVal, Limits: *limits, Tools: tools, Namespace: ns,
			Redact: view.redaction()})
		for _, line := range view.output(res.Output) {
			fmt.Fprintln(progOut, line)
		}
		if err != nil {
			view.printError(stderr, err)
			return exitFail
		}
		out, err := view.render(ctx, res.Value, *asJSON, *limits)
		if err != nil {
			view.printError(stderr, err) // a memory_exceeded, as the program's own errors print
			return exitFail
		}
		if res.Status == lisp.Failed {
			fmt.Fprintf(stderr, "fail: %s\n", out)
			return exitFail
		}
		fmt.Fprintln(stdout, out)
		ns = res.Namespace
	}
	return exitOK
}

// valueTooLarge is the error of a value whose printed form exceeds bound.
func valueTooLarge(bound int) error {
	return &lisp.Error{Kind: lisp.MemoryExceeded, Message: fmt.Sprintf(
		"the value prints to more than %d bytes (the memory limit): print a part of it, or raise --max-memory", bound)}
}

// printContext bounds the printing of a program's value by the time the
// program had (Limits.Timeout), so that --timeout holds within twice its
// time for a value whose printed form is huge.
func printContext(ctx context.Context, l lisp.Limits) (context.Context, context.CancelFunc) {
	switch {
	case l.Timeout < 0:
		return ctx, func() {}
	case l.Timeout == 0:
		return context.WithTimeout(ctx, lisp.DefaultTimeout)
	}
	return context.WithTimeout(ctx, l.Timeout)
}

// printBound is the largest printed value a command prints: the run's
// memory limit, within lisp.MaxPrintBytes.
func printBound(l lisp.Limits) int {
	switch {
	case l.MaxMemory == 0:
		return min(lisp.DefaultMaxMemory, lisp.MaxPrintBytes)
	case l.MaxMemory < 0:
		return lisp.MaxPrintBytes
	}
	return int(min(l.MaxMemory, lisp.MaxPrintBytes))
}

// printError writes an error of a program's run as the interpreter
// formats it: "line:col: kind: message" and the source line with a caret.
// Every error of ptc eval has this form, "where: kind: message" (where is
// a file for the command's inputs), so that a caller can classify it.
func printError(w io.Writer, err error) {
	var le *lisp.Error
	if errors.As(err, &le) {
		fmt.Fprintln(w, le.Detailed())
		return
	}
	fmt.Fprintln(w, err)
}

// loadContext reads a context file: .edn as PTC-Lisp data, else JSON. A
// file that does not read (cut in the middle, a stray comma) is reported
// with the position of the problem: line:column and the byte offset, and
// what is wrong there, quoting at most a token of the file (never its
// line: an agent file from elsewhere may name /proc/self/environ).
func loadContext(path string) (*lisp.Map, error) {
	if path == "" {
		return lisp.NewMap(), nil
	}
	b, err := readBounded(path, kindContext)
	if err != nil {
		return nil, fileError("context "+path, err)
	}
	v, err := readData(b, strings.EqualFold(filepath.Ext(path), ".edn"))
	if err != nil {
		var de *dataError
		if errors.As(err, &de) && de.pos.IsValid() {
			return nil, &wrapError{err: de, msg: fmt.Sprintf("context %s:%d:%d (byte %d): %s", path,
				de.pos.Line, de.pos.Col, de.pos.Offset, de.msg)}
		}
		return nil, fmt.Errorf("context %s: %w", path, err)
	}
	m, ok := v.(*lisp.Map)
	if !ok {
		return nil, fmt.Errorf("context %s: %s: must be a map (a JSON object), got %s", path, lisp.TypeError, lisp.TypeName(v))
	}
	return m, nil
}

// kindIOError is the kind of a file that does not read.
const kindIOError = "io_error"

// fileError is a file that does not read, as "where: io_error: why"; it
// wraps err (errors.Is(err, os.ErrNotExist) holds, and errKind finds the
// *os.PathError).
func fileError(where string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return &wrapError{err: pe, msg: fmt.Sprintf("%s: %s: %s %s: %v", where, kindIOError, pe.Op, pe.Path, pe.Err)}
	}
	return fmt.Errorf("%s: %s: %w", where, kindIOError, err)
}

// wrapError is err told another way: msg.
type wrapError struct {
	err error
	msg string
}

func (e *wrapError) Error() string { return e.msg }
func (e *wrapError) Unwrap() error { return e.err }

// dataError is data that does not read, with where the problem is; msg
// starts with the kind, parse_error.
type dataError struct {
	pos syntax.Pos // zero when unknown
	msg string
}

func (e *dataError) Error() string {
	if !e.pos.IsValid() {
		return e.msg
	}
	return fmt.Sprintf("%d:%d (byte %d): %s", e.pos.Line, e.pos.Col, e.pos.Offset, e.msg)
}

// readData reads JSON, or EDN (PTC-Lisp data) when edn is set, as
// agentfile.ReadData does: syntax errors are *dataError values with their
// position, and a message that quotes at most a token of the data, safe
// for a terminal.
func readData(b []byte, edn bool) (lisp.Value, error) {
	v, err := agentfile.ReadData(b, edn)
	var de *agentfile.DataError
	if errors.As(err, &de) {
		pos := syntax.Pos{Offset: int32(de.Offset), Line: int32(de.Line), Col: int32(de.Col)}
		return nil, &dataError{pos: pos, msg: termLine(de.Msg)}
	}
	return v, err
}

// optionalString is a string flag that records whether it was given, so
// that -e "" (the empty program) differs from no -e at all.
type optionalString struct {
	value string
	set   bool
}

func (o *optionalString) String() string { return o.value }

func (o *optionalString) Set(s string) error {
	o.value, o.set = s, true
	return nil
}

// repeatedString is a flag that may be given several times: its values
// in order.
type repeatedString []string

func (r *repeatedString) String() string { return strings.Join(*r, " ") }

func (r *repeatedString) Set(s string) error {
	*r = append(*r, s)
	return nil
}

// readBoundedFrom reads r (standard input) whole, within kind's bound.
func readBoundedFrom(r io.Reader, kind fileKind) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, kind.limit+1))
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: "-", Err: err}
	}
	if int64(len(b)) > kind.limit {
		return nil, &os.PathError{Op: "read", Path: "-", Err: &tooLargeError{kind}}
	}
	return b, nil
}
