package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/load"
	"github.com/ptc-go/ptc/workbench"
)

// devLimitKeys maps the API's limit names to the agent file's.
var devLimitKeys = map[string]string{
	"timeout": "timeout", "max_steps": "max-steps", "max_memory": "max-memory", "max_depth": "max-depth",
	"max_loop": "max-loop", "max_output": "max-output", "max_tool_calls": "max-tool-calls", "max_parallel": "max-parallel",
}

// devAgentFile is an agent file of the folder: its name (the path below
// the folder without .md, / separated) and its path.
type devAgentFile struct{ name, path string }

// agentFiles lists the agent files of the folder: DIR/*.md and
// DIR/*/*.md that start with a front matter (other Markdown is skipped).
func (s *devSource) agentFiles() []devAgentFile {
	var out []devAgentFile
	for _, pat := range []string{"*.md", "*/*.md"} {
		found, _ := filepath.Glob(filepath.Join(s.opts.Dir, pat))
		for _, p := range found {
			rel, err := filepath.Rel(s.opts.Dir, p)
			if err != nil || strings.HasPrefix(rel, ".") || !startsAsAgentFile(p) {
				continue
			}
			out = append(out, devAgentFile{name: filepath.ToSlash(strings.TrimSuffix(rel, ".md")), path: p})
		}
	}
	slices.SortFunc(out, func(a, b devAgentFile) int { return strings.Compare(a.name, b.name) })
	return out
}

// startsAsAgentFile reports whether the file at path is a regular file
// whose text starts with ---.
func startsAsAgentFile(path string) bool {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 6)
	n, _ := f.Read(b)
	return bytes.HasPrefix(bytes.TrimPrefix(b[:n], []byte("\ufeff")), []byte("---"))
}

// devEdit is what a run or a save changes in an agent file's text: the
// prompt, max-turns, limits (nil, 0: unchanged), as the page sends it.
type devEdit workbench.Edit

// apply returns text edited as e says, parsed (the parse error when it
// does not parse, the file untouched). The edited text must read back as
// e says: a prompt that would not (a prompt: key's block that cannot
// hold it) is refused.
func (e *devEdit) apply(name, dir string, text []byte) ([]byte, *load.AgentFile, error) {
	if e.MaxTurns < 0 {
		return nil, nil, errors.New("max_turns: want a positive number")
	}
	ed := newTextEditor(text)
	limits := slices.Sorted(maps.Keys(e.Limits))
	for _, k := range limits {
		key, ok := devLimitKeys[k]
		if !ok {
			return nil, nil, fmt.Errorf("limits: unknown limit %s (the limits are %s)", base.QuoteShort(k),
				strings.Join(slices.Sorted(maps.Keys(devLimitKeys)), ", "))
		}
		v, err := limitText(e.Limits[k])
		if err != nil {
			return nil, nil, fmt.Errorf("limits: %s: %v", k, err)
		}
		if v != "" {
			ed.setLimit(key, v)
		}
	}
	if e.MaxTurns > 0 {
		ed.set("max-turns", strconv.Itoa(e.MaxTurns))
	}
	if e.Prompt != "" {
		ed.setPrompt(e.Prompt)
	}
	out := ed.bytes()
	af, err := load.ParseAgentFile(name, dir, out)
	if err != nil {
		return nil, nil, err
	}
	if want := strings.TrimRight(strings.TrimLeft(strings.ReplaceAll(e.Prompt, "\r\n", "\n"), "\n"), " \t\n"); e.Prompt != "" && af.Config.Prompt != want {
		return nil, nil, errors.New("prompt: the edited prompt would not read back as written (in a prompt: key, its first line sets the indentation of the block: put the prompt after the front matter instead)")
	}
	if e.MaxTurns > 0 && af.Config.MaxTurns != e.MaxTurns {
		return nil, nil, errors.New("max_turns: the edit did not take")
	}
	return out, af, nil
}

// limitText is the text of a limit's value in the agent file: a JSON
// number or string, on one line ("" or null: unchanged).
func limitText(raw json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	switch v := v.(type) {
	case nil:
		return "", nil
	case float64:
		return strings.TrimSpace(string(raw)), nil
	case string:
		v = strings.TrimSpace(v)
		if strings.ContainsAny(v, "\r\n\"'|#:") || strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return "", fmt.Errorf("%s is not a limit's value (as 500ms, 16MiB or 1000)", base.QuoteShort(v))
		}
		return v, nil
	}
	return "", errors.New("want a number or a string (as 500ms, 16MiB)")
}

// textEditor edits an agent file's lines: it replaces or adds front
// matter keys and the prompt, and leaves every other line as it is.
type textEditor struct {
	lines []string
	nl    string // "\r" on a file with CRLF line ends
	bom   string
	// end is the index of the closing --- (0: no front matter).
	end int
}

func newTextEditor(text []byte) *textEditor {
	s := string(text)
	e := &textEditor{}
	if rest, ok := strings.CutPrefix(s, "\ufeff"); ok {
		e.bom, s = "\ufeff", rest
	}
	e.lines = strings.Split(s, "\n")
	if strings.HasSuffix(e.lines[0], "\r") {
		e.nl = "\r"
	}
	if strings.TrimRight(e.lines[0], " \t\r") == "---" {
		for i := 1; i < len(e.lines); i++ {
			if strings.TrimRight(e.lines[i], " \t\r") == "---" {
				e.end = i
				break
			}
		}
	}
	if e.end == 0 { // no front matter: make an empty one
		e.lines = append([]string{"---" + e.nl, "---" + e.nl}, e.lines...)
		e.end = 1
	}
	return e
}

func (e *textEditor) bytes() []byte { return []byte(e.bom + strings.Join(e.lines, "\n")) }

// entry finds the key at indentation indent in lines[from:to]: its line
// and the end of its indented lines.
func (e *textEditor) entry(key string, indent, from, to int) (int, int, bool) {
	for i := from; i < to; i++ {
		l := strings.TrimRight(e.lines[i], "\r")
		if leadingBlanks(l) != indent || !strings.HasPrefix(l[indent:], key+":") {
			continue
		}
		j := i + 1
		for j < to && (strings.TrimSpace(e.lines[j]) == "" || leadingBlanks(e.lines[j]) > indent) {
			j++
		}
		for j > i+1 && strings.TrimSpace(e.lines[j-1]) == "" {
			j--
		}
		return i, j, true
	}
	return 0, 0, false
}

func (e *textEditor) splice(i, j int, with ...string) {
	e.lines = slices.Replace(e.lines, i, j, with...)
	e.end += len(with) - (j - i)
}

// set sets a top-level key to a one-line value.
func (e *textEditor) set(key, value string) {
	line := key + ": " + value + e.nl
	if i, j, ok := e.entry(key, 0, 1, e.end); ok {
		e.splice(i, j, line)
		return
	}
	e.splice(e.end, e.end, line)
}

// setLimit sets a key under limits:.
func (e *textEditor) setLimit(key, value string) {
	i, j, ok := e.entry("limits", 0, 1, e.end)
	if !ok {
		e.splice(e.end, e.end, "limits:"+e.nl, "  "+key+": "+value+e.nl)
		return
	}
	indent := 2
	for k := i + 1; k < j; k++ {
		if !skippable(e.lines[k]) {
			indent = leadingBlanks(e.lines[k])
			break
		}
	}
	line := strings.Repeat(" ", indent) + key + ": " + value + e.nl
	if ci, cj, ok := e.entry(key, indent, i+1, j); ok {
		e.splice(ci, cj, line)
		return
	}
	e.splice(j, j, line)
}

// limit is the text of a limit's value on its line ("" when the file
// does not set it so).
func (e *textEditor) limit(key string) string {
	i, j, ok := e.entry("limits", 0, 1, e.end)
	if !ok {
		return ""
	}
	for k := i + 1; k < j; k++ {
		l := strings.TrimSpace(strings.TrimRight(e.lines[k], "\r"))
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			v, _, _ = strings.Cut(v, " #")
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

// setPrompt sets the prompt: the prompt: key's value as a | block when
// the file has one, else the text after the front matter.
func (e *textEditor) setPrompt(prompt string) {
	plines := strings.Split(strings.ReplaceAll(prompt, "\r\n", "\n"), "\n")
	if i, j, ok := e.entry("prompt", 0, 1, e.end); ok {
		block := []string{"prompt: |" + e.nl}
		for _, l := range plines {
			if strings.TrimSpace(l) == "" {
				block = append(block, e.nl)
				continue
			}
			block = append(block, "  "+l+e.nl)
		}
		e.splice(i, j, block...)
		return
	}
	body := e.lines[e.end+1:]
	lead := 0
	for lead < len(body) && strings.TrimSpace(body[lead]) == "" {
		lead++
	}
	out := append(slices.Clone(body[:lead]), plines...)
	for k := lead; k < len(out); k++ {
		out[k] += e.nl
	}
	out = append(out, "")
	e.lines = append(e.lines[:e.end+1], out...)
}

func leadingBlanks(line string) int { return len(line) - len(strings.TrimLeft(line, " \t")) }

// skippable: a blank line or a comment line of the front matter.
func skippable(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || strings.HasPrefix(t, "#")
}
