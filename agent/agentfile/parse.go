package agentfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ptc-go/ptc/internal/textutil"
)

// value is one "key: value" of the front matter.
type value struct {
	key    string
	keyPos Pos
	// text is the value: the rest of the line (unquoted), or the lines of a
	// | block joined by newlines with their indentation removed.
	text string
	pos  Pos // where the value's text starts
	// block: text comes from a | block whose lines start at pos.Line and
	// are indented by pos.Col-1 columns.
	block bool
	// children are the nested "key: value" lines of a key with no value
	// of its own (limits:).
	children []*value
	// nested: the key has indented lines under it (children or a block).
	nested bool
}

// at maps a 1-based line and column inside the value's text to the file.
func (v *value) at(line, col int) Pos {
	if line < 1 {
		line = 1
	}
	if col < 1 {
		col = 1
	}
	if v.block {
		return Pos{v.pos.Line + line - 1, v.pos.Col + col - 1}
	}
	if line > 1 { // cannot happen on one line; keep the value's start
		return v.pos
	}
	return Pos{v.pos.Line, v.pos.Col + col - 1}
}

// keySpec is one key an agent file may set.
type keySpec struct {
	name string
	set  func(f *File, v *value) error
}

// agentKeys are the keys of the front matter, in the order docs/cli.md
// lists them.
var agentKeys = []keySpec{
	{"description", func(f *File, v *value) error { f.Config.Description = v.text; return nil }},
	{"prompt", func(f *File, v *value) error { f.Config.Prompt, f.prompt = v.text, v; return nil }},
	{"signature", func(f *File, v *value) error { f.Config.Signature = v.text; return nil }},
	{"model", func(f *File, v *value) error { f.Model = v.text; return nil }},
	{"mode", func(f *File, v *value) error {
		if v.text != "program" && v.text != "tools" && v.text != "text" {
			return valueErr(v, "want program, tools or text, got "+quoteShort(v.text))
		}
		f.Config.Mode = v.text
		return nil
	}},
	{"max-turns", func(f *File, v *value) error {
		return intValue(v, 1, math.MaxInt32, &f.Config.MaxTurns)
	}},
	{"turn-budget", func(f *File, v *value) error {
		return intValue(v, 1, math.MaxInt32, &f.Config.MaxTreeTurns)
	}},
	{"mission-timeout", func(f *File, v *value) error {
		d, err := durationValue(v)
		// 0: the default; negative (none, -1): no limit.
		f.Config.MissionTimeout = d
		return err
	}},
	{"llm-timeout", func(f *File, v *value) error {
		d, err := durationValue(v)
		f.Config.LLMTimeout = d
		return err
	}},
	{"llm-retries", func(f *File, v *value) error {
		var n int
		err := intValue(v, 0, 100, &n)
		f.Config.LLMRetry.MaxAttempts = n + 1
		return err
	}},
	{"llm-retry-delay", func(f *File, v *value) error {
		d, err := durationValue(v)
		if err == nil && d <= 0 {
			err = valueErr(v, "want a positive duration, as 500ms or 2s")
		}
		f.Config.LLMRetry.BaseDelay = d
		return err
	}},
	{"memory-limit", func(f *File, v *value) error {
		n, err := sizeValue(v)
		if err == nil && n > math.MaxInt32 {
			err = valueErr(v, "is too large")
		}
		if n < 0 {
			n = math.MaxInt32 // -1: as good as no limit
		}
		f.Config.MaxAgentMemory = int(n)
		return err
	}},
	{"float-precision", func(f *File, v *value) error {
		if err := intValue(v, -1, 15, &f.Config.Presentation.FloatPrecision); err != nil {
			return err
		}
		if f.Config.Presentation.FloatPrecision == 0 {
			return valueErr(v, "0 is not available (for the agent, 0 means the default, 2): write -1 for no rounding, or round in the program")
		}
		return nil
	}},
	{"limits", func(f *File, v *value) error { return f.setLimits(v) }},
	{"system-prefix", func(f *File, v *value) error { f.Config.Presentation.Prefix = v.text; return nil }},
	{"system-suffix", func(f *File, v *value) error { f.Config.Presentation.Suffix = v.text; return nil }},
	{"language", func(f *File, v *value) error {
		if v.text != "default" && v.text != "compact" && v.text != "minimal" {
			return valueErr(v, "want default or compact (or minimal, the seeds' name for compact), got "+quoteShort(v.text))
		}
		f.Config.Presentation.Language = v.text
		return nil
	}},
	{"context", func(f *File, v *value) error {
		if strings.TrimSpace(v.text) == "" {
			return valueErr(v, "wants a file name or inline data ({...})")
		}
		f.context = v
		return nil
	}},
	{"context-signature", func(f *File, v *value) error { f.InputSignature = v.text; return nil }},
	{"mcp", func(f *File, v *value) error {
		if strings.TrimSpace(v.text) == "" {
			return valueErr(v, "wants an MCP configuration file (an mcpServers JSON file)")
		}
		f.mcp = v
		return nil
	}},
	{"cases", func(f *File, v *value) error {
		if strings.TrimSpace(v.text) == "" {
			return valueErr(v, "wants a cases file (a .clj file holding [{:input … :expect …} …]) or the cases inline, as a | block")
		}
		f.cases = v
		return nil
	}},
}

// keyAliases are the keys named after the agent.Config and agent.Options
// fields they set (issue 43), for the older keys they stand for: both
// spellings are accepted, and setting both is a duplicate.
var keyAliases = map[string]string{
	"max-tree-turns":   "turn-budget",
	"max-agent-memory": "memory-limit",
	"input":            "context",
	"input-signature":  "context-signature",
}

// limitKeys are the keys under limits:, named like the flags of ptc eval.
var limitKeys = []keySpec{
	{"timeout", func(f *File, v *value) error {
		d, err := durationValue(v)
		f.Config.Limits.Timeout = d
		return err
	}},
	{"max-steps", func(f *File, v *value) error {
		var n int
		err := intValue(v, -1, math.MaxInt, &n)
		f.Config.Limits.MaxSteps = int64(n)
		return err
	}},
	{"max-memory", func(f *File, v *value) error {
		n, err := sizeValue(v)
		f.Config.Limits.MaxMemory = n
		return err
	}},
	{"max-depth", func(f *File, v *value) error {
		return intValue(v, 0, math.MaxInt32, &f.Config.Limits.MaxDepth)
	}},
	{"max-loop", func(f *File, v *value) error {
		return intValue(v, -1, math.MaxInt32, &f.Config.Limits.MaxLoopIterations)
	}},
	{"max-output", func(f *File, v *value) error {
		n, err := sizeValue(v)
		if err == nil && n > math.MaxInt32 {
			err = valueErr(v, "is too large")
		}
		f.Config.Limits.MaxOutputBytes = int(n)
		return err
	}},
	{"max-tool-calls", func(f *File, v *value) error {
		return intValue(v, -1, math.MaxInt32, &f.Config.Limits.MaxToolCalls)
	}},
	{"max-parallel", func(f *File, v *value) error {
		return intValue(v, 0, 4096, &f.Config.Limits.MaxParallel)
	}},
}

// parse is Parse, and the parser's work: the bytes of lines it looked
// at, which the tests check grows as the file does.
func parse(name string, data []byte) (*File, int, error) {
	f := &File{Name: name, keys: map[string]*value{}}
	fail := func(p Pos, format string, args ...any) error {
		return &Error{File: name, Pos: p, Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) > MaxSize {
		return nil, 0, fail(Pos{}, "larger than %s, the bound of an agent file", FormatSize(MaxSize))
	}
	if !utf8.Valid(data) {
		return nil, 0, fail(Pos{}, "not UTF-8 text")
	}
	text := strings.TrimPrefix(string(data), "\ufeff")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	p := &fmParser{file: name, lines: lines}
	bodyStart := 0
	if len(lines) > 0 && strings.TrimRight(lines[0], " \t") == "---" {
		end := -1
		for i := 1; i < len(lines); i++ {
			p.look(i)
			if strings.TrimRight(lines[i], " \t") == "---" {
				end = i
				break
			}
		}
		if end < 0 {
			return nil, p.work, fail(Pos{1, 1}, "the front matter opened here has no closing --- line")
		}
		entries, err := p.entries(1, end, 0, 0)
		if err != nil {
			return nil, p.work, err
		}
		for _, e := range entries {
			if canon, ok := keyAliases[e.key]; ok {
				e.key = canon
			}
			spec, ok := findKey(agentKeys, e.key)
			if !ok {
				return nil, p.work, fail(e.keyPos, "unknown key %s%s", quoteShort(e.key), suggestKey(agentKeys, e.key))
			}
			if prev, dup := f.keys[e.key]; dup {
				return nil, p.work, fail(e.keyPos, "%s is set twice (first at %d:%d)", e.key, prev.keyPos.Line, prev.keyPos.Col)
			}
			if e.key != "limits" && len(e.children) > 0 {
				return nil, p.work, fail(e.children[0].keyPos, "%s takes a value, not nested keys (for text over several lines, write %s: | and indent the lines)", e.key, e.key)
			}
			f.keys[e.key] = e
			if err := spec.set(f, e); err != nil {
				var fe *Error
				if errors.As(err, &fe) && fe.File == "" {
					fe.File = name
				}
				return nil, p.work, err
			}
		}
		bodyStart = end + 1
	}
	// The body is the prompt, without the blank lines around it.
	for bodyStart < len(lines) && strings.TrimSpace(lines[bodyStart]) == "" {
		bodyStart++
	}
	body := strings.TrimRightFunc(strings.Join(lines[min(bodyStart, len(lines)):], "\n"), func(r rune) bool {
		return r == '\n' || r == ' ' || r == '\t'
	})
	if body != "" {
		if pv := f.keys["prompt"]; pv != nil {
			return nil, p.work, fail(pv.keyPos, "the prompt is both the prompt key and the text after the front matter: keep one")
		}
		f.Config.Prompt = body
		f.prompt = &value{key: "prompt", text: body, block: true, pos: Pos{bodyStart + 1, 1}, keyPos: Pos{bodyStart + 1, 1}}
	}
	if strings.TrimSpace(f.Config.Prompt) == "" {
		return nil, p.work, fail(Pos{}, "no prompt: write the mission after the front matter (or set prompt:)")
	}
	return f, p.work, nil
}

// fmParser reads the front matter's lines.
type fmParser struct {
	file  string
	lines []string
	work  int // the bytes of the lines looked at
}

// look counts a look at line i (a pass over its bytes).
func (p *fmParser) look(i int) { p.work += len(p.lines[i]) + 1 }

// maxFrontMatterDepth is how deep keys nest: the top keys and those under
// limits:. What is indented deeper is never valid, and is not parsed: it
// stands as one child, for the error (each level parsed would go over the
// lines below it again: deep indentation would take quadratic time).
const maxFrontMatterDepth = 1

// entries reads the "key: value" lines from lines[from:to], all indented
// by indent columns, at nesting depth depth.
func (p *fmParser) entries(from, to, indent, depth int) ([]*value, error) {
	lines := p.lines
	fail := func(pos Pos, format string, args ...any) error {
		return &Error{File: p.file, Pos: pos, Msg: fmt.Sprintf(format, args...)}
	}
	var out []*value
	for i := from; i < to; {
		line := lines[i]
		p.look(i)
		if skippable(line) {
			i++
			continue
		}
		ind, err := indentOf(line)
		if err != nil {
			return nil, fail(Pos{i + 1, ind + 1}, "%v", err)
		}
		if ind != indent {
			if indent == 0 {
				return nil, fail(Pos{i + 1, 1}, "unexpected indentation: only the lines of a | block and the keys under limits: are indented")
			}
			return nil, fail(Pos{i + 1, 1}, "this line is indented by %d spaces, the lines above by %d", ind, indent)
		}
		rest := line[ind:]
		colon := strings.IndexByte(rest, ':')
		key := strings.TrimRight(rest, " \t")
		if colon >= 0 {
			key = rest[:colon]
		}
		switch {
		case colon < 0:
			return nil, fail(Pos{i + 1, ind + 1}, "expected key: value, but the line has no colon")
		case !validKey(key):
			return nil, fail(Pos{i + 1, ind + 1}, "expected key: value, but what comes before the colon is not a key (letters, digits, -, _ and .)")
		}
		e := &value{key: key, keyPos: Pos{i + 1, ind + 1}}
		after := rest[colon+1:]
		val := strings.TrimLeft(after, " \t")
		col := ind + colon + 2 + (len(after) - len(val))
		val = strings.TrimRight(val, " \t")
		e.pos = Pos{i + 1, col}
		// The indented lines under the key, if any.
		j := i + 1
		for j < to && (strings.TrimSpace(lines[j]) == "" || leadingBlanks(lines[j]) > indent) {
			p.look(j)
			j++
		}
		for j > i+1 && strings.TrimSpace(lines[j-1]) == "" {
			p.look(j - 1)
			j-- // trailing blank lines belong to no one
		}
		nested := j > i+1
		switch {
		case val == "|" || val == "|-":
			if !nested {
				return nil, fail(e.pos, "%s: | starts a block, but no indented lines follow", key)
			}
			text, pos, err := p.blockText(i+1, j)
			if err != nil {
				return nil, fail(pos, "%v", err)
			}
			e.text, e.pos, e.block, e.nested = text, pos, true, true
		case nested:
			k := i + 1
			for strings.TrimSpace(lines[k]) == "" {
				k++
			}
			if val != "" {
				return nil, fail(Pos{k + 1, 1}, "unexpected indentation: %s already has a value on its line (for text over several lines, write %s: |)", key, key)
			}
			if depth >= maxFrontMatterDepth {
				// Too deep to be valid: one child, where the lines start.
				e.children, e.nested = []*value{{keyPos: Pos{k + 1, leadingBlanks(lines[k]) + 1}}}, true
				break
			}
			children, err := p.entries(i+1, j, leadingBlanks(lines[k]), depth+1)
			if err != nil {
				return nil, err
			}
			e.children, e.nested = children, true
		case strings.HasPrefix(val, `"`):
			var s string
			if err := json.Unmarshal([]byte(val), &s); err != nil {
				return nil, fail(e.pos, "%s: a quoted value is a JSON string, ending with \" (%v)", key, jsonMsg(err))
			}
			e.text = s
		case strings.HasPrefix(val, "'"):
			s, ok := singleQuoted(val)
			if !ok {
				return nil, fail(e.pos, "%s: a value in single quotes ends with ' (write '' for a quote inside)", key)
			}
			e.text = s
		default:
			e.text = val
		}
		out = append(out, e)
		i = j
	}
	return out, nil
}

// blockText reads the lines of a | block: their indentation (that of the
// first line) removed, trailing blank lines dropped.
func (p *fmParser) blockText(from, to int) (string, Pos, error) {
	lines := p.lines
	ind := firstIndent(lines, from, to)
	start := from
	for start < to && strings.TrimSpace(lines[start]) == "" {
		start++
	}
	var out []string
	for i := start; i < to; i++ {
		p.look(i)
		l := lines[i]
		if strings.TrimSpace(l) == "" {
			out = append(out, "")
			continue
		}
		n, err := indentOf(l)
		if err != nil {
			return "", Pos{i + 1, n + 1}, err
		}
		if n < ind {
			return "", Pos{i + 1, 1}, fmt.Errorf("this line of the block is indented less than its first line (%d spaces)", ind)
		}
		out = append(out, l[ind:])
	}
	return strings.Join(out, "\n"), Pos{start + 1, ind + 1}, nil
}

func firstIndent(lines []string, from, to int) int {
	for i := from; i < to; i++ {
		if strings.TrimSpace(lines[i]) != "" {
			return leadingBlanks(lines[i])
		}
	}
	return 0
}

// skippable: a blank line or a comment line (# first), outside blocks.
func skippable(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || strings.HasPrefix(t, "#")
}

func leadingBlanks(line string) int {
	return len(line) - len(strings.TrimLeft(line, " \t"))
}

// indentOf counts the leading spaces; a tab in the indentation is an error.
func indentOf(line string) (int, error) {
	n := leadingBlanks(line)
	if i := strings.IndexByte(line[:n], '\t'); i >= 0 {
		return i, errors.New("indent with spaces, not tabs")
	}
	return n, nil
}

func validKey(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func singleQuoted(s string) (string, bool) {
	if len(s) < 2 || !strings.HasSuffix(s, "'") {
		return "", false
	}
	inner := s[1 : len(s)-1]
	if strings.Count(strings.ReplaceAll(inner, "''", ""), "'") > 0 {
		return "", false
	}
	return strings.ReplaceAll(inner, "''", "'"), true
}

func findKey(specs []keySpec, key string) (keySpec, bool) {
	for _, s := range specs {
		if s.name == key {
			return s, true
		}
	}
	return keySpec{}, false
}

// suggestKey names the known key closest to an unknown one, if any is close.
func suggestKey(specs []keySpec, key string) string {
	if len(key) > 64 {
		key = "" // no typo: no suggestion (and no long work to find one)
	}
	norm := strings.ToLower(strings.NewReplacer("_", "-", ".", "-").Replace(key))
	best, bestD := "", 3
	for _, s := range specs {
		if s.name == norm {
			return fmt.Sprintf(" (did you mean %s?)", s.name)
		}
		if d := textutil.EditDistance(norm, s.name, bestD); d < bestD {
			best, bestD = s.name, d
		}
	}
	var names []string
	for _, s := range specs {
		names = append(names, s.name)
	}
	if best != "" {
		return fmt.Sprintf(" (did you mean %s?)", best)
	}
	return " (the keys are " + strings.Join(names, ", ") + ")"
}

func valueErr(v *value, msg string) error {
	return &Error{Pos: v.pos, Msg: v.key + ": " + msg}
}

// intValue reads a whole number between lo and hi (underscores allowed:
// 1_000_000).
func intValue(v *value, lo, hi int, dst *int) error {
	n, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(v.text), "_", ""), 10, 64)
	if err != nil || n < int64(lo) || n > int64(hi) {
		want := fmt.Sprintf("a whole number from %d to %d", lo, hi)
		switch {
		case hi >= math.MaxInt32:
			want = fmt.Sprintf("a whole number, %d or more", lo)
		}
		return valueErr(v, fmt.Sprintf("want %s, got %s", want, quoteShort(v.text)))
	}
	*dst = int(n)
	return nil
}

// durationValue reads a duration as the --timeout flag does: 500ms, 2s,
// 1m; 0 for the default and -1 for none.
func durationValue(v *value) (time.Duration, error) {
	if strings.TrimSpace(v.text) == "none" {
		return -1, nil
	}
	d, err := ParseDuration(strings.TrimSpace(v.text))
	if err != nil {
		return 0, valueErr(v, fmt.Sprintf("%v, got %s", err, quoteShort(v.text)))
	}
	return d, nil
}

// sizeValue reads a size as --max-memory does: 64MiB, 500KB, -1.
func sizeValue(v *value) (int64, error) {
	n, err := ParseSize(v.text)
	if err != nil {
		return 0, valueErr(v, fmt.Sprintf("%v, got %s", err, quoteShort(v.text)))
	}
	return n, nil
}

// setLimits reads the keys under limits:.
func (f *File) setLimits(v *value) error {
	if len(v.children) == 0 {
		if strings.TrimSpace(v.text) != "" || v.block {
			return valueErr(v, "write each limit on its own indented line under limits:, as timeout: 2s")
		}
		return nil
	}
	seen := map[string]*value{}
	for _, c := range v.children {
		spec, ok := findKey(limitKeys, c.key)
		if !ok {
			return &Error{Pos: c.keyPos, Msg: fmt.Sprintf("unknown limit %s%s", quoteShort(c.key), suggestKey(limitKeys, c.key))}
		}
		if prev := seen[c.key]; prev != nil {
			return &Error{Pos: c.keyPos, Msg: fmt.Sprintf("limits: %s is set twice (first at %d:%d)", c.key, prev.keyPos.Line, prev.keyPos.Col)}
		}
		if len(c.children) > 0 {
			return &Error{Pos: c.children[0].keyPos, Msg: "limits: " + c.key + " takes a value, not nested keys"}
		}
		seen[c.key] = c
		c.key = "limits: " + c.key
		if err := spec.set(f, c); err != nil {
			return err
		}
	}
	return nil
}

func jsonMsg(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Error()
	}
	return err.Error()
}
