package doctest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A Block is a fenced code block of a Markdown file.
type Block struct {
	File string // the file's path, as given to Parse
	Line int    // the line of the opening fence, 1-based
	Lang string // the info string after the fence: "sh", "go", "" …
	// Lines are the block's lines, without the fences.
	Lines []string
	// Marker is the argument of an "<!-- output of: CMD -->" comment on
	// the last non-blank line before the fence, or "".
	Marker string
}

// A Doc is a Markdown file's text and its blocks.
type Doc struct {
	File   string
	Lines  []string
	Blocks []Block
}

var markerRE = regexp.MustCompile(`^<!--\s*output of:\s*(.*?)\s*-->$`)

// Parse reads the fenced code blocks of a Markdown file.
func Parse(file string) (*Doc, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	d := &Doc{File: file, Lines: strings.Split(string(b), "\n")}
	var cur *Block
	for i, l := range d.Lines {
		fence := strings.HasPrefix(strings.TrimLeft(l, " "), "```")
		switch {
		case cur == nil && fence:
			cur = &Block{File: file, Line: i + 1, Lang: strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "`"))}
			for j := i - 1; j >= 0; j-- {
				prev := strings.TrimSpace(d.Lines[j])
				if prev == "" {
					continue
				}
				if m := markerRE.FindStringSubmatch(prev); m != nil {
					cur.Marker = m[1]
				}
				break
			}
		case cur != nil && fence:
			d.Blocks = append(d.Blocks, *cur)
			cur = nil
		case cur != nil:
			cur.Lines = append(cur.Lines, l)
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: a code block is never closed", file, cur.Line)
	}
	return d, nil
}

// Marked returns the block marked "<!-- output of: cmd -->", if any.
func (d *Doc) Marked(cmd string) (Block, bool) {
	for _, b := range d.Blocks {
		if b.Marker == cmd {
			return b, true
		}
	}
	return Block{}, false
}

// Replace writes lines in place of block b's lines in the file, keeping
// every other byte (the -update of a test whose figures moved).
func (d *Doc) Replace(b Block, lines []string) error {
	out := make([]string, 0, len(d.Lines)+len(lines))
	out = append(out, d.Lines[:b.Line]...)
	out = append(out, lines...)
	out = append(out, d.Lines[b.Line+len(b.Lines):]...)
	if err := os.WriteFile(d.File, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		return err
	}
	// Later blocks keep their lines when the count is the same (Refresh);
	// read the file again after a Replace that changes it.
	d.Lines = out
	return nil
}

// Gap is the line a shown output uses for "lines left out here".
const Gap = "…"

// durationRE matches a duration as Go prints one (1.2s, 691µs, 3ms, 2m3s).
var durationRE = regexp.MustCompile(`(\d+(\.\d+)?(ns|µs|us|ms|h|m|s))+\b`)

// MaskDurations replaces every duration in s with "⏱", so that output
// that shows how long something took compares equal from run to run. In a
// line that had one, runs of spaces after the indentation become one
// space: a table's columns move when a duration is longer.
func MaskDurations(s string) string {
	m := durationRE.ReplaceAllString(s, "⏱")
	if m == s {
		return s
	}
	body := strings.TrimLeft(m, " ")
	return m[:len(m)-len(body)] + strings.Join(strings.Fields(body), " ")
}

// numberRE matches a number as figures print one (1,234, 5.6, 78%).
var numberRE = regexp.MustCompile(`\d[\d,]*(\.\d+)?`)

// MaskNumbers replaces every number in s with "#": for output made of
// measurements (ptc bench), where the shape is the promise, not the figures.
func MaskNumbers(s string) string { return numberRE.ReplaceAllString(s, "#") }

// Match checks that the lines a document shows appear in got, in order:
// each run of shown lines between Gap lines must be found in got as
// consecutive lines, after the previous run. mask is applied to both sides
// first (nil for none). The error says which shown line was not found and
// what the output held there.
func Match(shown, got []string, mask func(string) string) error {
	if mask == nil {
		mask = func(s string) string { return s }
	}
	m := make([]string, len(got))
	for i, g := range got {
		m[i] = strings.TrimRight(mask(g), " ")
	}
	pos := 0
	for i := 0; i < len(shown); {
		if strings.TrimSpace(shown[i]) == Gap {
			i++
			continue
		}
		j := i
		for j < len(shown) && strings.TrimSpace(shown[j]) != Gap {
			j++
		}
		run := make([]string, j-i)
		for k := range run {
			run[k] = strings.TrimRight(mask(shown[i+k]), " ")
		}
		at := find(m, run, pos)
		if at < 0 {
			return mismatch(shown[i:j], got, m, run, pos)
		}
		pos = at + len(run)
		i = j
	}
	return nil
}

func find(hay, run []string, from int) int {
	for at := from; at+len(run) <= len(hay); at++ {
		ok := true
		for k := range run {
			if hay[at+k] != run[k] {
				ok = false
				break
			}
		}
		if ok {
			return at
		}
	}
	return -1
}

// mismatch reports the longest prefix of run found, and the line after it.
func mismatch(shown, got, masked, run []string, from int) error {
	best, bestAt := 0, -1
	for at := from; at < len(masked); at++ {
		k := 0
		for k < len(run) && at+k < len(masked) && masked[at+k] == run[k] {
			k++
		}
		if k > best {
			best, bestAt = k, at
		}
	}
	if bestAt < 0 {
		return fmt.Errorf("the output has no line %q\noutput:\n%s", shown[0], strings.Join(got, "\n"))
	}
	have := "(the output ends)"
	if bestAt+best < len(got) {
		have = fmt.Sprintf("%q", got[bestAt+best])
	}
	return fmt.Errorf("the doc shows %q where the output has %s\noutput:\n%s", shown[best], have, strings.Join(got, "\n"))
}

// A Command is a shell command a document shows: "$ ptc eval -e '(+ 1 2)'"
// in a transcript, with the output shown after it, or a line of a sh block.
type Command struct {
	Block Block
	Line  int      // the line of the command in the file, 1-based
	Text  string   // the command as written, continuation lines joined
	Args  []string // the words, after quotes and a trailing # comment
	// Output is what the document shows the command printing (only in a
	// "$ " transcript); nil when it shows nothing.
	Output []string
}

// ErrUnsupported is wrapped by Split for shell syntax it does not take
// (substitutions, pipes, redirections, variables).
var ErrUnsupported = errors.New("shell syntax a doc test does not run")

// Commands returns the commands of a block whose first word is one of
// progs ("ptc"; "go run ./cmd/ptc" counts as "ptc" when progs asks for it
// through alias). A "$ " prompt marks a transcript: the lines up to the
// next prompt are its output. In a block without prompts, every line that
// starts with a prog is a command (sh blocks). Lines of a block that are
// neither are left alone: a synopsis such as "ptc eval [-c FILE]" is only
// taken from sh blocks, where a doc writes commands.
func Commands(b Block, isCommand func(line string) bool) []Command {
	var out []Command
	transcript := false
	for _, l := range b.Lines {
		if strings.HasPrefix(l, "$ ") {
			transcript = true
		}
	}
	for i := 0; i < len(b.Lines); i++ {
		l := b.Lines[i]
		var text string
		switch {
		case transcript && strings.HasPrefix(l, "$ "):
			text = strings.TrimPrefix(l, "$ ")
		case !transcript && b.Lang == "sh" && isCommand(l):
			text = l
		default:
			continue
		}
		c := Command{Block: b, Line: b.Line + 1 + i}
		// Continuation lines: a trailing backslash, or a quote left open.
		for (strings.HasSuffix(text, "\\") || openQuote(text)) && i+1 < len(b.Lines) {
			i++
			if strings.HasSuffix(text, "\\") {
				text = strings.TrimSuffix(text, "\\") + " " + strings.TrimSpace(b.Lines[i])
			} else {
				text += "\n" + b.Lines[i]
			}
		}
		if !isCommand(text) {
			continue
		}
		c.Text = text
		if transcript {
			for i+1 < len(b.Lines) && !strings.HasPrefix(b.Lines[i+1], "$ ") {
				i++
				c.Output = append(c.Output, b.Lines[i])
			}
		}
		out = append(out, c)
	}
	return out
}

// Split splits a command line into words as a POSIX shell would, for the
// subset docs use: words, single and double quotes, backslash escapes, a
// trailing # comment. Anything else ($, `, |, <, >, ;, &) is ErrUnsupported.
func Split(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			return words, nil
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unclosed ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				switch {
				case s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0:
					i++
					cur.WriteByte(s[i])
				case s[i] == '$' || s[i] == '`':
					return nil, fmt.Errorf("%w: %q", ErrUnsupported, s)
				default:
					cur.WriteByte(s[i])
				}
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unclosed \" in %q", s)
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case strings.IndexByte("$`|<>;&()", c) >= 0:
			return nil, fmt.Errorf("%w: %q", ErrUnsupported, s)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// openQuote reports whether s ends inside a quoted string.
func openQuote(s string) bool {
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q == 0 && c == '#' && (i == 0 || s[i-1] == ' '):
			return false
		case q == 0 && (c == '\'' || c == '"'):
			q = c
		case q == '"' && c == '\\':
			i++
		case q != 0 && c == q:
			q = 0
		case q == 0 && c == '\\':
			i++
		}
	}
	return q != 0
}

// Files returns README.md and docs/*.md of the module at root.
func Files(root string) ([]string, error) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	return append([]string{filepath.Join(root, "README.md")}, docs...), nil
}

// InlineCommands returns the commands a document's prose shows in code
// spans, `go run ./cmd/ptc eval -c a.json b.ptc`, for which isCommand is
// true, with the line each is on.
func InlineCommands(d *Doc, isCommand func(string) bool) []Command {
	var out []Command
	inBlock := false
	for i, l := range d.Lines {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock {
			continue
		}
		parts := strings.Split(l, "`")
		for k := 1; k < len(parts); k += 2 {
			if isCommand(parts[k]) {
				out = append(out, Command{Block: Block{File: d.File, Line: i + 1}, Line: i + 1, Text: parts[k]})
			}
		}
	}
	return out
}

// Refresh returns shown with each run of lines between Gap lines replaced
// by the output lines it stands for: the run is found in got by its shape
// (numbers and durations masked), so figures that moved (tokens after a
// prompt edit) are brought up to date and nothing else changes. It fails
// when a run's shape is not in got: the doc then needs a person.
func Refresh(shown, got []string) ([]string, error) {
	shape := func(s string) string { return MaskNumbers(MaskDurations(s)) }
	m := make([]string, len(got))
	for i, g := range got {
		m[i] = strings.TrimRight(shape(g), " ")
	}
	out := append([]string(nil), shown...)
	pos := 0
	for i := 0; i < len(shown); {
		if strings.TrimSpace(shown[i]) == Gap {
			i++
			continue
		}
		j := i
		for j < len(shown) && strings.TrimSpace(shown[j]) != Gap {
			j++
		}
		run := make([]string, j-i)
		for k := range run {
			run[k] = strings.TrimRight(shape(shown[i+k]), " ")
		}
		at := find(m, run, pos)
		if at < 0 {
			return nil, mismatch(shown[i:j], got, m, run, pos)
		}
		for k := range run {
			// A line whose only change is a duration stays as written.
			if g := got[at+k]; MaskDurations(g) != MaskDurations(shown[i+k]) {
				out[i+k] = g
			}
		}
		pos = at + len(run)
		i = j
	}
	return out, nil
}

// CheckOutput checks the block that the module's README.md or a docs/*.md
// file marks "<!-- output of: cmd -->" against got, the output of running
// cmd: durations may differ, every other character must match (Match).
// With update, it rewrites the block's figures from got (Refresh) instead.
// root is the module's root directory.
func CheckOutput(t testing.TB, root, cmd, got string, update bool) {
	t.Helper()
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	gotLines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	found := 0
	for _, f := range files {
		d, err := Parse(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range d.Blocks {
			if b.Marker != cmd {
				continue
			}
			found++
			if update {
				fresh, err := Refresh(b.Lines, gotLines)
				if err != nil {
					t.Fatalf("%s:%d: cannot refresh the output of %s: %v", f, b.Line, cmd, err)
				}
				if err := d.Replace(b, fresh); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := Match(b.Lines, gotLines, MaskDurations); err != nil {
				t.Errorf("%s:%d: the output of %s is not what the doc shows (go test -run %s -update rewrites its figures):\n%v",
					f, b.Line, cmd, t.Name(), err)
			}
		}
	}
	if found == 0 {
		t.Errorf("no block of README.md or docs/*.md is marked <!-- output of: %s -->", cmd)
	}
}
