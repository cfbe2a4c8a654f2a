package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/lisp/syntax"
)

func cmdRepl(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("repl", stderr, "[-c CONTEXT.json|.edn]")
	ctxPath := fs.String("c", "", "context file: JSON or EDN map, read as ctx/")
	limits := limitFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return usageStatus(err)
	}
	if len(pos) > 0 {
		fs.Usage()
		return exitUsage
	}
	ctxVal, err := loadContext(*ctxPath)
	if err != nil {
		fmt.Fprintf(stderr, "ptc repl: %v\n", err)
		return exitUsage
	}
	interactive := isTerminal(stdin)
	prompt := func(cont bool) {
		if !interactive {
			return
		}
		if cont {
			fmt.Fprint(stdout, "...> ")
		} else {
			fmt.Fprint(stdout, "ptc> ")
		}
	}
	if interactive {
		fmt.Fprintln(stdout, "PTC-Lisp REPL: defs persist between inputs; *1 *2 *3 are the last values; Ctrl-D quits.")
	}
	var ns *lisp.Namespace
	var history []lisp.Value
	in := bufio.NewReader(stdin)
	var buf strings.Builder
	prompt(false)
	for {
		line, err := in.ReadString('\n')
		if line == "" && err != nil {
			if err != io.EOF {
				fmt.Fprintf(stderr, "ptc repl: %v\n", err)
			}
			break
		}
		buf.WriteString(strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"))
		buf.WriteByte('\n')
		src := buf.String()
		if incomplete(src) {
			prompt(true)
			continue
		}
		buf.Reset()
		if strings.TrimSpace(src) == "" {
			prompt(false)
			continue
		}
		res, err := lisp.Run(context.Background(), src, lisp.Options{Context: ctxVal, Namespace: ns, History: history, Limits: *limits})
		for _, line := range res.Output {
			fmt.Fprintln(stdout, line)
		}
		ns = res.Namespace
		switch {
		case err != nil:
			printError(stderr, err)
		case res.Status == lisp.Failed:
			out, err := render(res.Value, false, printBound(*limits))
			if err != nil {
				out = err.Error()
			}
			fmt.Fprintf(stderr, "fail: %s\n", out)
		default:
			out, err := render(res.Value, false, printBound(*limits))
			if err != nil {
				fmt.Fprintf(stderr, "ptc repl: %v\n", err)
			} else {
				fmt.Fprintln(stdout, out)
			}
			history = append([]lisp.Value{res.Value}, history...)
			if len(history) > 3 {
				history = history[:3]
			}
		}
		prompt(false)
	}
	if buf.Len() > 0 {
		// Input ended inside a form: report it like any other error.
		if _, err := lisp.Compile(buf.String()); err != nil {
			printError(stderr, err)
		}
	}
	if interactive {
		fmt.Fprintln(stdout)
	}
	return exitOK
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
