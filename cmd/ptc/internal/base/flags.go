package base

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// ParseFlags parses flags that may appear before or after the positional
// arguments, and returns the positional ones. Everything after "--" is
// positional. The flag package prints nothing: a caller hands an error
// to FlagError, which says it in one line (or prints the help for -h).
func ParseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
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

// ParseNoArgs parses the flags of a command that takes no positional
// argument. ok is false when the command must stop, with status its exit
// status (0 for -h, whose help goes to stdout).
func ParseNoArgs(fs *flag.FlagSet, args []string, stdout io.Writer) (status int, ok bool) {
	pos, err := ParseFlags(fs, args)
	if err != nil {
		return FlagError(fs, err, stdout), false
	}
	if len(pos) > 0 {
		return UsageError(fs, "unexpected argument %q", ClipText(pos[0], 40)), false
	}
	return ExitOK, true
}

// FlagError ends a command whose flags did not parse: -h (--help) prints
// the help to stdout, exit 0; any other error is a usage error.
func FlagError(fs *flag.FlagSet, err error, stdout io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		out := fs.Output()
		fs.SetOutput(stdout)
		defer fs.SetOutput(out)
		fs.Usage()
		return ExitOK
	}
	return UsageError(fs, "%s", err)
}

// UsageError prints a usage error of the command fs parses the flags of
// as one line on its output (stderr), "ptc CMD: what is wrong (ptc CMD
// -h for help)", and returns ExitUsage. The help itself is not printed:
// 80 lines of flags would bury the reason.
func UsageError(fs *flag.FlagSet, format string, a ...any) int {
	fmt.Fprintln(fs.Output(), UsageLine(fs.Name(), fmt.Sprintf(format, a...)))
	return ExitUsage
}

// OneArg says what is wrong with pos, the positional arguments of a
// command that takes one, what.
func OneArg(what string, pos []string) string {
	if len(pos) == 0 {
		return "missing " + what
	}
	return fmt.Sprintf("takes one %s, got %d arguments", what, len(pos))
}

// UsageLine is the one line of a usage error of the command cmd ("" for
// ptc itself).
func UsageLine(cmd, msg string) string {
	name := "ptc"
	if cmd != "" {
		name += " " + cmd
	}
	return fmt.Sprintf("%s: %s (%s -h for help)", name, TermLine(msg), name)
}

func NewFlagSet(name string, stderr io.Writer, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: ptc %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// IsTerminal reports whether r is an interactive terminal.
func IsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func TrimTrailingNewline(s string) string { return strings.TrimRight(s, "\n") }
