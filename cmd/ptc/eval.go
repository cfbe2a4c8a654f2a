package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ptc-go/ptc/lisp"
)

func cmdEval(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("eval", stderr, "[-c CONTEXT.json|.edn] [--json] (-e SOURCE | FILE)")
	ctxPath := fs.String("c", "", "context file: JSON or EDN map, read as ctx/")
	var expr optionalString
	fs.Var(&expr, "e", "program `source` to evaluate (instead of FILE)")
	asJSON := fs.Bool("json", false, "print the result as JSON instead of EDN")
	limits := limitFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return usageStatus(err)
	}
	var src string
	switch {
	case expr.set && len(pos) == 0:
		src = expr.value
	case !expr.set && len(pos) == 1:
		b, err := os.ReadFile(pos[0])
		if err != nil {
			fmt.Fprintf(stderr, "ptc eval: %v\n", err)
			return exitUsage
		}
		src = string(b)
	default:
		fs.Usage()
		return exitUsage
	}
	ctxVal, err := loadContext(*ctxPath)
	if err != nil {
		fmt.Fprintf(stderr, "ptc eval: %v\n", err)
		return exitUsage
	}
	res, err := lisp.Run(context.Background(), src, lisp.Options{Context: ctxVal, Limits: *limits})
	for _, line := range res.Output {
		fmt.Fprintln(stdout, line)
	}
	if err != nil {
		printError(stderr, err)
		return exitFail
	}
	out, err := render(res.Value, *asJSON)
	if err != nil {
		fmt.Fprintf(stderr, "ptc eval: %v\n", err)
		return exitFail
	}
	if res.Status == lisp.Failed {
		fmt.Fprintf(stderr, "fail: %s\n", out)
		return exitFail
	}
	fmt.Fprintln(stdout, out)
	return exitOK
}

// render prints a value as EDN or JSON.
func render(v lisp.Value, asJSON bool) (string, error) {
	if asJSON {
		b, err := lisp.ToJSON(v)
		return string(b), err
	}
	return lisp.PrintString(v), nil
}

// printError writes an error with its position and a source snippet.
func printError(w io.Writer, err error) {
	var le *lisp.Error
	if errors.As(err, &le) {
		fmt.Fprintln(w, le.Detailed())
		return
	}
	fmt.Fprintln(w, err)
}

// loadContext reads a context file: .edn as PTC-Lisp data, else JSON.
func loadContext(path string) (*lisp.Map, error) {
	if path == "" {
		return lisp.NewMap(), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v lisp.Value
	if strings.EqualFold(filepath.Ext(path), ".edn") {
		v, err = lisp.ReadData(string(b))
	} else {
		v, err = lisp.ParseJSON(b)
	}
	if err != nil {
		return nil, fmt.Errorf("context %s: %w", path, err)
	}
	m, ok := v.(*lisp.Map)
	if !ok {
		return nil, fmt.Errorf("context %s: must be a map (a JSON object), got %s", path, lisp.TypeName(v))
	}
	return m, nil
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
