package replcmd

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/lisp"
)

// replCommand is a REPL command: a line that starts with its name.
type replCommand struct {
	name    string
	aliases []string
	args    string
	help    string
	run     func(s *Session, arg string)
}

// replCommands lists the commands; a function rather than a variable
// because :help, one of them, lists them all.
func replCommands() []replCommand {
	return []replCommand{
		{name: ":help", aliases: []string{":h", ":?"}, help: "this help: commands and keys", run: (*Session).cmdHelp},
		{name: ":doc", args: "NAME", help: "a builtin's or special form's documentation and an example", run: (*Session).cmdDoc},
		{name: ":apropos", aliases: []string{":find"}, args: "TEXT", help: "the names and docs that mention TEXT", run: (*Session).cmdApropos},
		{name: ":defs", help: "the session's defs and their values", run: (*Session).cmdDefs},
		{name: ":tools", help: "the tools of --mcp's servers: call one as (tool/NAME {...})", run: (*Session).cmdTools},
		{name: ":time", args: "FORM", help: "evaluate FORM and report its time and evaluation steps", run: (*Session).cmdTime},
		{name: ":load", args: "FILE", help: "evaluate a file in the session (its defs persist)", run: (*Session).cmdLoad},
		{name: ":reset", help: "forget the defs and *1 *2 *3", run: (*Session).cmdReset},
		{name: ":quit", aliases: []string{":q", ":exit"}, help: "leave the REPL (as Ctrl-D on an empty line)", run: (*Session).cmdQuit},
	}
}

// findCommand recognizes a command line: a known command name first (a
// keyword that names no command is evaluated as one).
func findCommand(src string) (c *replCommand, arg string, ok bool) {
	src = strings.TrimSpace(src)
	if !strings.HasPrefix(src, ":") {
		return nil, "", false
	}
	name, arg, _ := strings.Cut(src, " ")
	if i := strings.IndexAny(name, "\t\n"); i >= 0 {
		name, arg = name[:i], src[i:]
	}
	arg = strings.TrimSpace(arg)
	cmds := replCommands()
	for i := range cmds {
		c := &cmds[i]
		if c.name == name {
			return c, arg, true
		}
		for _, a := range c.aliases {
			if a == name {
				return c, arg, true
			}
		}
	}
	return nil, "", false
}

const replKeys = `Keys (when the input is a terminal):
  Enter                 evaluate the form, or open a new line while brackets are unbalanced
  Alt-Enter             a new line even when the form is complete
  Left Right  Ctrl-B Ctrl-F      move by character; Alt-B Alt-F, Ctrl-Left Ctrl-Right by word
  Home End    Ctrl-A Ctrl-E      start or end of the line (again: of the whole input)
  Up Down                        the line above or below; on the first or last line, history
  Ctrl-P Ctrl-N                  older or newer input from the history
  Ctrl-R                search the history as you type (Ctrl-R again: older; Esc: give up)
  Tab                   complete a name: builtins, your defs, ctx/ keys, commands
  Backspace Delete      delete a character (Ctrl-D inside the input too)
  Ctrl-U Ctrl-K         delete to the start or the end of the line
  Ctrl-W Alt-D          delete the word before or after the cursor; Ctrl-Y puts back the last deletion
  Ctrl-T                swap the two characters at the cursor
  Ctrl-L                clear the screen
  Ctrl-C                clear the input; during an evaluation, interrupt it (defs are kept)
  Ctrl-D                quit on an empty input; at the end of an unfinished form, discard it
History is kept in %s (--history FILE, or PTC_HISTORY=off to keep none).
`

func (s *Session) cmdHelp(string) {
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range replCommands() {
		name := c.name
		if c.args != "" {
			name += " " + c.args
		}
		if len(c.aliases) > 0 {
			name += " (" + strings.Join(c.aliases, " ") + ")"
		}
		fmt.Fprintf(&b, "  %-24s %s\n", name, c.help)
	}
	b.WriteString("Anything else is PTC-Lisp: defs persist, *1 *2 *3 are the last three values.\n\n")
	where := HistoryPath("")
	if where == "" {
		where = "no file"
	}
	fmt.Fprintf(&b, replKeys, where)
	fmt.Fprint(s.Stdout, b.String())
}

func (s *Session) cmdDoc(arg string) {
	if arg == "" {
		fmt.Fprintln(s.Stderr, "usage: :doc NAME, as in :doc map (:apropos TEXT searches)")
		return
	}
	fmt.Fprint(s.Stdout, s.docText(arg))
}

// docText is what :doc prints for name.
func (s *Session) docText(name string) string {
	if d, ok := lisp.LookupDoc(name); ok {
		return replDocFormat(d)
	}
	if v, ok := s.ns.Get(name); ok {
		return fmt.Sprintf("%s is defined in this session: %s\n", name, s.preview(v, 200))
	}
	// Every builtin has an entry (lisp's TestDocsCoverBuiltins checks it).
	// The analyzer knows the names PTC-Lisp leaves out on purpose, and why.
	// (Only a lone symbol is run: evaluating it has no effect.)
	if strings.IndexFunc(name, replDelimiter) >= 0 {
		return fmt.Sprintf("no documentation for %s: :doc takes one name\n", name)
	}
	if _, err := lisp.Run(context.Background(), name, lisp.Options{}); err != nil {
		var le *lisp.Error
		if errors.As(err, &le) && le.Kind == lisp.UnboundVar && strings.Contains(le.Message, "not available") {
			return le.Message + "\n"
		}
	}
	msg := fmt.Sprintf("no documentation for %s", name)
	if near := replNearest(name, 3); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, ", ") + "?"
	}
	return msg + "\n"
}

func (s *Session) cmdApropos(arg string) {
	if arg == "" {
		fmt.Fprintln(s.Stderr, "usage: :apropos TEXT, as in :apropos sort")
		return
	}
	text := strings.ToLower(arg)
	seen := map[string]bool{}
	var lines []string
	for _, d := range lisp.Docs() {
		if strings.Contains(d.Name, text) || strings.Contains(strings.ToLower(d.Text), text) {
			seen[d.Name] = true
			lines = append(lines, fmt.Sprintf("%-22s %s", d.Name, replFirstSentence(d.Text)))
		}
	}
	var others []string
	for _, n := range append(replBuiltinNames(), replSpecialForms...) {
		if strings.Contains(n, text) && !seen[n] && !replDocumented(n) {
			seen[n] = true
			others = append(others, n)
		}
	}
	sort.Strings(lines)
	sort.Strings(others)
	if len(lines) == 0 && len(others) == 0 {
		fmt.Fprintf(s.Stdout, "nothing mentions %q\n", arg)
		return
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if len(others) > 0 {
		b.WriteString("also: " + strings.Join(others, " ") + "\n")
	}
	fmt.Fprint(s.Stdout, b.String())
}

func (s *Session) cmdDefs(string) {
	names := s.ns.Names()
	if len(names) == 0 {
		fmt.Fprintln(s.Stdout, "no defs yet: (def x 1) or (defn f [x] …) makes one")
		return
	}
	var b strings.Builder
	for _, n := range names {
		v, _ := s.ns.Get(n)
		fmt.Fprintf(&b, "%s = %s\n", n, s.preview(v, 70))
	}
	fmt.Fprint(s.Stdout, b.String())
}

func (s *Session) cmdTime(arg string) {
	if arg == "" {
		fmt.Fprintln(s.Stderr, "usage: :time FORM, as in :time (reduce + (range 1000000))")
		return
	}
	start := time.Now()
	res, interrupted, err := s.run(arg)
	took := time.Since(start)
	s.show(res, err, interrupted && errors.Is(err, lisp.Cancelled), took)
	fmt.Fprintf(s.Stderr, "; %s, %d steps\n", took.Round(time.Microsecond), res.Steps)
}

func (s *Session) cmdLoad(arg string) {
	if arg == "" {
		fmt.Fprintln(s.Stderr, "usage: :load FILE")
		return
	}
	b, err := base.ReadBounded(arg, base.KindProgram)
	if err != nil {
		fmt.Fprintf(s.Stderr, "ptc repl: %v\n", err)
		return
	}
	s.eval(string(b))
}

func (s *Session) cmdReset(string) {
	s.ns, s.values = nil, nil
	fmt.Fprintln(s.Stdout, "defs and *1 *2 *3 forgotten")
}

func (s *Session) cmdQuit(string) { s.quit = true }

// preview prints v on one line, cut to about n bytes, as the session's
// view shows it.
func (s *Session) preview(v lisp.Value, n int) string {
	out := s.View.Text(lisp.Print(v, lisp.PrintOptions{MaxChars: n + 1, Redact: s.View.Redaction()}))
	out = strings.ReplaceAll(out, "\n", " ")
	return textutil.ClipBytes(out, n)
}

// replNearest returns up to n documented or builtin names close to name.
func replNearest(name string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	var cands []cand
	seen := map[string]bool{}
	limit := max(1, min(3, len(name)/3+1))
	consider := func(c string) {
		if seen[c] {
			return
		}
		seen[c] = true
		if d := textutil.EditDistanceRunes(name, c, limit+1); d <= limit {
			cands = append(cands, cand{c, d})
		}
	}
	for _, d := range lisp.Docs() {
		consider(d.Name)
	}
	for _, b := range replBuiltinNames() {
		consider(b)
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].d != cands[j].d {
			return cands[i].d < cands[j].d
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for i := 0; i < len(cands) && i < n; i++ {
		out = append(out, cands[i].name)
	}
	return out
}

// cmdTools lists the tools of the session's MCP servers with their
// signatures and the first line of their descriptions.
func (s *Session) cmdTools(string) {
	if len(s.toolInfos) == 0 {
		fmt.Fprintln(s.Stdout, "no tools: start the REPL with --mcp FILE to call the tools of MCP servers")
		return
	}
	var b strings.Builder
	for _, t := range s.toolInfos {
		fmt.Fprintf(&b, "tool/%s %s\n", base.TermLine(t.Name), base.TermLine(t.Signature))
		if d := base.FirstLineOf(t.Description); d != "" {
			fmt.Fprintf(&b, "  %s\n", base.TermLine(base.ClipText(d, 200)))
		}
	}
	fmt.Fprint(s.Stdout, b.String())
}
