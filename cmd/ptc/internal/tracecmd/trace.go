package tracecmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/trace"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/internal/traceview"
)

const traceSynopsis = `print FILE [--full] [--replies] [--no-children] [--no-timings] [--unredacted]
       ptc trace view FILE [-o OUT.html] [--open] [--unredacted]`

const traceHelp = `
Reads a trace file, the JSON that "ptc run --trace FILE" writes (and
trace.Marshal): "ptc trace print" prints it as text, as --trace -
does at the end of a run; "ptc trace view" writes one self-contained HTML
page (no network needed) that shows the outcome, a timeline of the turns
and of the nested agents, and each turn's program, output, tool calls and
value, and opens it in a browser with --open ($BROWSER, else the system's).

A trace written raw (ptc run --unredacted, trace.JSONOptions.Raw)
holds what the mission firewalled: both commands refuse it unless given
--unredacted, and the page then says, at its top, that it shows
unredacted values.
`

// Run runs ptc trace print or ptc trace view with args in env and
// returns its exit status.
func Run(env *base.Env, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, base.UsageLine("trace", "missing the subcommand: print or view"))
		return base.ExitUsage
	}
	switch args[0] {
	case "print":
		return cmdTracePrint(args[1:], stdout, stderr)
	case "view":
		return cmdTraceView(env, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprintf(stdout, "usage: ptc trace %s\n%s", traceSynopsis, traceHelp)
		return base.ExitOK
	}
	fmt.Fprintln(stderr, base.UsageLine("trace", fmt.Sprintf("unknown subcommand %q: print or view", base.ClipText(args[0], 40))))
	return base.ExitUsage
}

// ReadTraceFile reads and checks a trace file. A raw one is refused
// unless unredacted.
func ReadTraceFile(path string, unredacted bool) ([]byte, *agent.Step, error) {
	data, err := base.ReadBounded(path, base.KindTraceFile)
	if err != nil {
		return nil, nil, err
	}
	step, err := trace.Unmarshal(data)
	if err != nil {
		// The reader's message may quote the file: bounded, on one line.
		return nil, nil, &base.WrapError{Err: err, Msg: path + ": " + base.ClipMessage(err.Error(), base.MaxFileMessage)}
	}
	if !unredacted && traceIsRaw(data) {
		return nil, nil, fmt.Errorf("%s is a raw trace: it holds the mission's firewalled data unredacted; "+
			"pass --unredacted to show it anyway (for your own eyes only), or write it redacted (ptc run --trace without --unredacted)", path)
	}
	return data, step, nil
}

// traceIsRaw reports whether a trace file was written raw ("redacted":
// false).
func traceIsRaw(data []byte) bool { return traceview.IsRaw(data) }

func cmdTracePrint(args []string, stdout, stderr io.Writer) int {
	fs := base.NewFlagSet("trace print", stderr, "FILE [--full] [--replies] [--no-children] [--no-timings] [--unredacted]")
	var opts trace.Options
	fs.BoolVar(&opts.Full, "full", false, "print values whole, without cutting them")
	fs.BoolVar(&opts.Replies, "replies", false, "add the model's whole reply to each turn, and the feedback it was sent when a Go program ran the mission with agent.TraceConversation")
	fs.BoolVar(&opts.NoChildren, "no-children", false, "leave out the turns of agents called as tools")
	fs.BoolVar(&opts.NoTimings, "no-timings", false, "leave out durations and token counts")
	fs.BoolVar(&opts.Unredacted, "unredacted", false, "print a raw trace (one written with firewalled data), which is refused otherwise")
	pos, err := base.ParseFlags(fs, args)
	if err != nil {
		return base.FlagError(fs, err, stdout)
	}
	if len(pos) != 1 {
		return base.UsageError(fs, "%s", base.OneArg("FILE", pos))
	}
	_, step, err := ReadTraceFile(pos[0], opts.Unredacted)
	if err != nil {
		fmt.Fprintf(stderr, "ptc trace print: %v\n", err)
		return base.ExitFail
	}
	if err := trace.Print(stdout, step, opts); err != nil {
		fmt.Fprintf(stderr, "ptc trace print: %v\n", err)
		return base.ExitFail
	}
	return base.ExitOK
}

func cmdTraceView(env *base.Env, args []string, stdout, stderr io.Writer) int {
	fs := base.NewFlagSet("trace view", stderr, "FILE [-o OUT.html] [--open] [--unredacted]")
	out := fs.String("o", "", "write the page to `OUT.html` (default: FILE with the extension .html)")
	open := fs.Bool("open", false, "open the page in a browser ($BROWSER, else the system's)")
	unredacted := fs.Bool("unredacted", false, "write the page of a raw trace (one written with firewalled data), which is refused otherwise; the page says it shows unredacted values")
	pos, err := base.ParseFlags(fs, args)
	if err != nil {
		return base.FlagError(fs, err, stdout)
	}
	if len(pos) != 1 {
		return base.UsageError(fs, "%s", base.OneArg("FILE", pos))
	}
	in := pos[0]
	dest := *out
	if dest == "" {
		dest = strings.TrimSuffix(in, filepath.Ext(in)) + ".html"
	}
	if abs(dest) == abs(in) {
		fmt.Fprintf(stderr, "ptc trace view: the page would overwrite the trace %s: give -o OUT.html\n", in)
		return base.ExitUsage
	}
	data, _, err := ReadTraceFile(in, *unredacted)
	if err != nil {
		fmt.Fprintf(stderr, "ptc trace view: %v\n", err)
		return base.ExitFail
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, data, filepath.Base(in)); err != nil {
		fmt.Fprintf(stderr, "ptc trace view: %v\n", err)
		return base.ExitFail
	}
	if err := os.WriteFile(dest, page.Bytes(), 0o644); err != nil {
		fmt.Fprintf(stderr, "ptc trace view: %v\n", err)
		return base.ExitFail
	}
	fmt.Fprintf(stdout, "%s\n", dest)
	if *open {
		if err := openBrowser(env, dest); err != nil {
			fmt.Fprintf(stderr, "ptc trace view: opening %s: %v\n", dest, err)
			return base.ExitFail
		}
	}
	return base.ExitOK
}

func abs(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}

// openBrowser opens path with $BROWSER, else the system's opener. It does
// not wait for the browser.
func openBrowser(env *base.Env, path string) error { return OpenTarget(env, abs(path)) }

// OpenTarget opens a file or a URL with $BROWSER, else the system's
// opener, without waiting for the browser.
func OpenTarget(env *base.Env, file string) error {
	var cmd *exec.Cmd
	switch b := env.Getenv("BROWSER"); {
	case b != "":
		fields := strings.Fields(b)
		cmd = exec.Command(fields[0], append(fields[1:], file)...)
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", file)
	case runtime.GOOS == "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", file)
	default:
		cmd = exec.Command("xdg-open", file)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }() // reap it, without waiting here
	return nil
}

// WriteHTML writes the page that shows a trace (internal/traceview,
// which ptc dev's workbench serves too).
func WriteHTML(w io.Writer, traceJSON []byte, title string) error {
	return traceview.WriteHTML(w, traceJSON, title)
}

// CheckTracePath checks, before a mission runs, that its trace can be
// written to path: a directory to write it in, and no file there that is
// not a trace (--trace takes a value: "ptc run --trace agent.md" must not
// overwrite the agent file).
func CheckTracePath(path string) error {
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return fmt.Errorf("no directory %s to write it in", filepath.Dir(path))
	}
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if !startsAsTrace(io.LimitReader(f, 4096)) {
		return errors.New("the file exists and is not a ptc trace: refusing to overwrite it (give --trace a new file name, or - to print the trace)")
	}
	return nil
}

// startsAsTrace reports whether r starts as trace.Marshal's JSON does:
// {"format": "ptc-trace", ... (read token by token: a large trace need not
// be read whole).
func startsAsTrace(r io.Reader) bool {
	dec := json.NewDecoder(r)
	want := []json.Token{json.Delim('{'), "format", trace.Format}
	for _, w := range want {
		tok, err := dec.Token()
		if err != nil || tok != w {
			return false
		}
	}
	return true
}

// WriteTraceFile writes step's trace as indented JSON, redacted unless
// unredacted.
func WriteTraceFile(path string, step *agent.Step, unredacted bool) error {
	data, err := trace.Marshal(step, trace.JSONOptions{Indent: "  ", Raw: unredacted})
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
