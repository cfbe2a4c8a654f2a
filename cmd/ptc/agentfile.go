package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
	"github.com/ptc-go/ptc/template"
)

// An agent file defines an agent for "ptc run": a Markdown file whose front
// matter, between two "---" lines, holds the settings as "key: value"
// lines, and whose body is the prompt. docs/cli.md describes the format;
// agentKeys lists the keys.
//
//	---
//	signature: (articles [{title :string, body :string}]) -> {digest :string}
//	max-turns: 4
//	limits:
//	  timeout: 2s
//	context: articles.json
//	---
//	Summarize the articles in ctx/articles in three sentences.
//
// The front matter looks like YAML but is a small, strict subset read
// here: a value is the rest of its line, taken literally (quotes are
// optional: "..." with JSON escapes, '...' as is), "|" starts a block of
// indented lines, and only limits: holds nested keys. So signatures,
// whose braces and colons YAML would read as a mapping, need no quoting.

// agentFile is an agent definition read from a file.
type agentFile struct {
	name string // the file's name as given, for messages
	dir  string // the directory relative paths start from
	cfg  agent.Config
	// model is the model reference the file asks for ("" when none).
	model string
	// contextSignature describes the context (agent.Options.ContextSignature).
	contextSignature string
	// context is the context: inline data or a file (nil: none).
	context *fmValue
	// mcp names the MCP configuration file of the agent's tools (nil: none).
	mcp *fmValue
	// llmTimeoutSet, llmRetriesSet and missionTimeoutSet say whether the
	// file chose them (the CLI's defaults for real models apply otherwise).
	llmTimeoutSet, llmRetriesSet, missionTimeoutSet bool
	// keys are the settings as read, for positions in later errors.
	keys map[string]*fmValue
	// prompt is where the prompt is: the body, or the prompt key's value.
	prompt *fmValue
}

// filePos is a position in an agent file: 1-based line and column (in
// characters).
type filePos struct{ line, col int }

// agentFileError is an error at a position of an agent file.
type agentFileError struct {
	file string
	pos  filePos
	msg  string
	// cause is the error behind msg, for errKind (an *os.PathError is an
	// io_error), when there is one.
	cause error
}

func (e *agentFileError) Unwrap() error { return e.cause }

// Error says where and what: a message may quote a short piece of the
// file (a key, a value, at most 40 characters), never a line, and is
// bounded whatever a parser it passes on quotes (the file may come from
// elsewhere: see docs/cli.md).
func (e *agentFileError) Error() string {
	msg := clipMessage(e.msg, maxFileMessage)
	if e.pos.line == 0 {
		return e.file + ": " + msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.file, e.pos.line, e.pos.col, msg)
}

// maxFileMessage bounds the message of an error in a file (its position
// apart).
const maxFileMessage = 300

// fmValue is one "key: value" of the front matter.
type fmValue struct {
	key    string
	keyPos filePos
	// text is the value: the rest of the line (unquoted), or the lines of a
	// | block joined by newlines with their indentation removed.
	text string
	pos  filePos // where the value's text starts
	// block: text comes from a | block whose lines start at pos.line and
	// are indented by pos.col-1 columns.
	block bool
	// children are the nested "key: value" lines of a key with no value
	// of its own (limits:).
	children []*fmValue
	// nested: the key has indented lines under it (children or a block).
	nested bool
}

// at maps a 1-based line and column inside the value's text to the file.
func (v *fmValue) at(line, col int) filePos {
	if line < 1 {
		line = 1
	}
	if col < 1 {
		col = 1
	}
	if v.block {
		return filePos{v.pos.line + line - 1, v.pos.col + col - 1}
	}
	if line > 1 { // cannot happen on one line; keep the value's start
		return v.pos
	}
	return filePos{v.pos.line, v.pos.col + col - 1}
}

// keySpec is one key an agent file may set.
type keySpec struct {
	name string
	set  func(af *agentFile, v *fmValue) error
}

// agentKeys are the keys of the front matter, in the order docs/cli.md
// lists them.
var agentKeys = []keySpec{
	{"description", func(af *agentFile, v *fmValue) error { af.cfg.Description = v.text; return nil }},
	{"prompt", func(af *agentFile, v *fmValue) error { af.cfg.Prompt, af.prompt = v.text, v; return nil }},
	{"signature", func(af *agentFile, v *fmValue) error { af.cfg.Signature = v.text; return nil }},
	{"model", func(af *agentFile, v *fmValue) error { af.model = v.text; return nil }},
	{"max-turns", func(af *agentFile, v *fmValue) error {
		return intValue(v, 1, math.MaxInt32, &af.cfg.MaxTurns)
	}},
	{"turn-budget", func(af *agentFile, v *fmValue) error {
		return intValue(v, 1, math.MaxInt32, &af.cfg.TurnBudget)
	}},
	{"mission-timeout", func(af *agentFile, v *fmValue) error {
		d, err := durationValue(v)
		// 0: the CLI's default; negative (none, -1): no limit.
		af.cfg.MissionTimeout, af.missionTimeoutSet = d, d != 0
		return err
	}},
	{"llm-timeout", func(af *agentFile, v *fmValue) error {
		d, err := durationValue(v)
		af.cfg.LLMTimeout, af.llmTimeoutSet = d, true
		return err
	}},
	{"llm-retries", func(af *agentFile, v *fmValue) error {
		var n int
		err := intValue(v, 0, 100, &n)
		af.cfg.LLMRetry.MaxAttempts, af.llmRetriesSet = n+1, true
		return err
	}},
	{"llm-retry-delay", func(af *agentFile, v *fmValue) error {
		d, err := durationValue(v)
		if err == nil && d <= 0 {
			err = valueErr(v, "want a positive duration, as 500ms or 2s")
		}
		af.cfg.LLMRetry.BaseDelay = d
		return err
	}},
	{"memory-limit", func(af *agentFile, v *fmValue) error {
		n, err := sizeValue(v)
		if err == nil && n > math.MaxInt32 {
			err = valueErr(v, "is too large")
		}
		if n < 0 {
			n = math.MaxInt32 // -1: as good as no limit
		}
		af.cfg.MemoryLimit = int(n)
		return err
	}},
	{"float-precision", func(af *agentFile, v *fmValue) error {
		if err := intValue(v, -1, 15, &af.cfg.FloatPrecision); err != nil {
			return err
		}
		if af.cfg.FloatPrecision == 0 {
			return valueErr(v, "0 is not available (for the agent, 0 means the default, 2): write -1 for no rounding, or round in the program")
		}
		return nil
	}},
	{"limits", func(af *agentFile, v *fmValue) error { return af.setLimits(v) }},
	{"system-prefix", func(af *agentFile, v *fmValue) error { af.cfg.SystemPrompt.Prefix = v.text; return nil }},
	{"system-suffix", func(af *agentFile, v *fmValue) error { af.cfg.SystemPrompt.Suffix = v.text; return nil }},
	{"language", func(af *agentFile, v *fmValue) error {
		if v.text != "default" && v.text != "compact" {
			return valueErr(v, "want default or compact, got "+quoteShort(v.text))
		}
		af.cfg.SystemPrompt.Language = v.text
		return nil
	}},
	{"context", func(af *agentFile, v *fmValue) error {
		if strings.TrimSpace(v.text) == "" {
			return valueErr(v, "wants a file name or inline data ({...})")
		}
		af.context = v
		return nil
	}},
	{"context-signature", func(af *agentFile, v *fmValue) error { af.contextSignature = v.text; return nil }},
	{"mcp", func(af *agentFile, v *fmValue) error {
		if strings.TrimSpace(v.text) == "" {
			return valueErr(v, "wants an MCP configuration file (an mcpServers JSON file)")
		}
		af.mcp = v
		return nil
	}},
}

// limitKeys are the keys under limits:, named like the flags of ptc eval.
var limitKeys = []keySpec{
	{"timeout", func(af *agentFile, v *fmValue) error {
		d, err := durationValue(v)
		af.cfg.Limits.Timeout = d
		return err
	}},
	{"max-steps", func(af *agentFile, v *fmValue) error {
		var n int
		err := intValue(v, -1, math.MaxInt, &n)
		af.cfg.Limits.MaxSteps = int64(n)
		return err
	}},
	{"max-memory", func(af *agentFile, v *fmValue) error {
		n, err := sizeValue(v)
		af.cfg.Limits.MaxMemory = n
		return err
	}},
	{"max-depth", func(af *agentFile, v *fmValue) error {
		return intValue(v, 0, math.MaxInt32, &af.cfg.Limits.MaxDepth)
	}},
	{"max-loop", func(af *agentFile, v *fmValue) error {
		return intValue(v, -1, math.MaxInt32, &af.cfg.Limits.MaxLoopIterations)
	}},
	{"max-output", func(af *agentFile, v *fmValue) error {
		n, err := sizeValue(v)
		if err == nil && n > math.MaxInt32 {
			err = valueErr(v, "is too large")
		}
		af.cfg.Limits.MaxOutputBytes = int(n)
		return err
	}},
	{"max-tool-calls", func(af *agentFile, v *fmValue) error {
		return intValue(v, -1, math.MaxInt32, &af.cfg.Limits.MaxToolCalls)
	}},
	{"max-parallel", func(af *agentFile, v *fmValue) error {
		return intValue(v, 0, 4096, &af.cfg.Limits.MaxParallel)
	}},
}

// readAgentFile reads and parses the agent file at path (at most
// kindAgentFile's bound).
func readAgentFile(path string) (*agentFile, []byte, error) {
	data, err := readBounded(path, kindAgentFile)
	if err != nil {
		return nil, nil, err
	}
	af, err := parseAgentFile(path, filepath.Dir(path), data)
	return af, data, err
}

// parseAgentFile parses an agent file's text. name is for messages; dir is
// where a context file named in it is looked for. Errors are
// *agentFileError values.
func parseAgentFile(name, dir string, data []byte) (*agentFile, error) {
	af, _, err := parseAgentFileWork(name, dir, data)
	return af, err
}

// parseAgentFileWork is parseAgentFile, and the parser's work: the bytes of
// lines it looked at, which the tests check grows as the file does.
func parseAgentFileWork(name, dir string, data []byte) (*agentFile, int, error) {
	af := &agentFile{name: name, dir: dir, keys: map[string]*fmValue{}}
	fail := func(p filePos, format string, args ...any) error {
		return &agentFileError{file: name, pos: p, msg: fmt.Sprintf(format, args...)}
	}
	if int64(len(data)) > kindAgentFile.limit {
		return nil, 0, fail(filePos{}, "%v", &tooLargeError{kindAgentFile})
	}
	if !utf8.Valid(data) {
		return nil, 0, fail(filePos{}, "not UTF-8 text")
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
			return nil, p.work, fail(filePos{1, 1}, "the front matter opened here has no closing --- line")
		}
		entries, err := p.entries(1, end, 0, 0)
		if err != nil {
			return nil, p.work, err
		}
		for _, e := range entries {
			spec, ok := findKey(agentKeys, e.key)
			if !ok {
				return nil, p.work, fail(e.keyPos, "unknown key %s%s", quoteShort(e.key), suggestKey(agentKeys, e.key))
			}
			if prev, dup := af.keys[e.key]; dup {
				return nil, p.work, fail(e.keyPos, "%s is set twice (first at %d:%d)", e.key, prev.keyPos.line, prev.keyPos.col)
			}
			if e.key != "limits" && len(e.children) > 0 {
				return nil, p.work, fail(e.children[0].keyPos, "%s takes a value, not nested keys (for text over several lines, write %s: | and indent the lines)", e.key, e.key)
			}
			af.keys[e.key] = e
			if err := spec.set(af, e); err != nil {
				return nil, p.work, af.fixErr(err)
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
		if pv := af.keys["prompt"]; pv != nil {
			return nil, p.work, fail(pv.keyPos, "the prompt is both the prompt key and the text after the front matter: keep one")
		}
		af.cfg.Prompt = body
		af.prompt = &fmValue{key: "prompt", text: body, block: true, pos: filePos{bodyStart + 1, 1}, keyPos: filePos{bodyStart + 1, 1}}
	}
	if strings.TrimSpace(af.cfg.Prompt) == "" {
		return nil, p.work, fail(filePos{}, "no prompt: write the mission after the front matter (or set prompt:)")
	}
	return af, p.work, nil
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
func (p *fmParser) entries(from, to, indent, depth int) ([]*fmValue, error) {
	lines := p.lines
	fail := func(pos filePos, format string, args ...any) error {
		return &agentFileError{file: p.file, pos: pos, msg: fmt.Sprintf(format, args...)}
	}
	var out []*fmValue
	for i := from; i < to; {
		line := lines[i]
		p.look(i)
		if skippable(line) {
			i++
			continue
		}
		ind, err := indentOf(line)
		if err != nil {
			return nil, fail(filePos{i + 1, ind + 1}, "%v", err)
		}
		if ind != indent {
			if indent == 0 {
				return nil, fail(filePos{i + 1, 1}, "unexpected indentation: only the lines of a | block and the keys under limits: are indented")
			}
			return nil, fail(filePos{i + 1, 1}, "this line is indented by %d spaces, the lines above by %d", ind, indent)
		}
		rest := line[ind:]
		colon := strings.IndexByte(rest, ':')
		key := strings.TrimRight(rest, " \t")
		if colon >= 0 {
			key = rest[:colon]
		}
		switch {
		case colon < 0:
			return nil, fail(filePos{i + 1, ind + 1}, "expected key: value, but the line has no colon")
		case !validKey(key):
			return nil, fail(filePos{i + 1, ind + 1}, "expected key: value, but what comes before the colon is not a key (letters, digits, -, _ and .)")
		}
		e := &fmValue{key: key, keyPos: filePos{i + 1, ind + 1}}
		after := rest[colon+1:]
		val := strings.TrimLeft(after, " \t")
		col := ind + colon + 2 + (len(after) - len(val))
		val = strings.TrimRight(val, " \t")
		e.pos = filePos{i + 1, col}
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
				return nil, fail(filePos{k + 1, 1}, "unexpected indentation: %s already has a value on its line (for text over several lines, write %s: |)", key, key)
			}
			if depth >= maxFrontMatterDepth {
				// Too deep to be valid: one child, where the lines start.
				e.children, e.nested = []*fmValue{{keyPos: filePos{k + 1, leadingBlanks(lines[k]) + 1}}}, true
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
func (p *fmParser) blockText(from, to int) (string, filePos, error) {
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
			return "", filePos{i + 1, n + 1}, err
		}
		if n < ind {
			return "", filePos{i + 1, 1}, fmt.Errorf("this line of the block is indented less than its first line (%d spaces)", ind)
		}
		out = append(out, l[ind:])
	}
	return strings.Join(out, "\n"), filePos{start + 1, ind + 1}, nil
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
		if d := editDistance(norm, s.name); d < bestD {
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

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func valueErr(v *fmValue, msg string) error {
	return &agentFileError{pos: v.pos, msg: v.key + ": " + msg}
}

// intValue reads a whole number between lo and hi (underscores allowed:
// 1_000_000).
func intValue(v *fmValue, lo, hi int, dst *int) error {
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
func durationValue(v *fmValue) (time.Duration, error) {
	var d durationFlag
	if strings.TrimSpace(v.text) == "none" {
		return -1, nil
	}
	if err := d.Set(strings.TrimSpace(v.text)); err != nil {
		return 0, valueErr(v, fmt.Sprintf("%v, got %s", err, quoteShort(v.text)))
	}
	return time.Duration(d), nil
}

// sizeValue reads a size as --max-memory does: 64MiB, 500KB, -1.
func sizeValue(v *fmValue) (int64, error) {
	n, err := parseSize(v.text)
	if err != nil {
		return 0, valueErr(v, fmt.Sprintf("%v, got %s", err, quoteShort(v.text)))
	}
	return n, nil
}

// setLimits reads the keys under limits:.
func (af *agentFile) setLimits(v *fmValue) error {
	if len(v.children) == 0 {
		if strings.TrimSpace(v.text) != "" || v.block {
			return valueErr(v, "write each limit on its own indented line under limits:, as timeout: 2s")
		}
		return nil
	}
	seen := map[string]*fmValue{}
	for _, c := range v.children {
		spec, ok := findKey(limitKeys, c.key)
		if !ok {
			return &agentFileError{pos: c.keyPos, msg: fmt.Sprintf("unknown limit %s%s", quoteShort(c.key), suggestKey(limitKeys, c.key))}
		}
		if prev := seen[c.key]; prev != nil {
			return &agentFileError{pos: c.keyPos, msg: fmt.Sprintf("limits: %s is set twice (first at %d:%d)", c.key, prev.keyPos.line, prev.keyPos.col)}
		}
		if len(c.children) > 0 {
			return &agentFileError{pos: c.children[0].keyPos, msg: "limits: " + c.key + " takes a value, not nested keys"}
		}
		seen[c.key] = c
		c.key = "limits: " + c.key
		if err := spec.set(af, c); err != nil {
			return err
		}
	}
	return nil
}

// fixErr gives an error from a key's setter the file's name.
func (af *agentFile) fixErr(err error) error {
	var fe *agentFileError
	if errors.As(err, &fe) && fe.file == "" {
		fe.file = af.name
	}
	return err
}

// newAgent validates the definition with agent.New. Its errors name the
// key at fault and where it is in the file.
func (af *agentFile) newAgent(cfg agent.Config) (*agent.Agent, error) {
	a, err := agent.New(cfg)
	if err == nil {
		if af.contextSignature != "" {
			if _, serr := signature.Parse(af.contextSignature); serr != nil {
				return nil, af.valueError(af.keys["context-signature"], serr)
			}
		}
		return a, nil
	}
	var ce *agent.ConfigError
	if !errors.As(err, &ce) {
		return nil, &agentFileError{file: af.name, msg: err.Error()}
	}
	key := map[string]string{
		"Prompt": "prompt", "Signature": "signature", "MaxTurns": "max-turns", "MemoryLimit": "memory-limit",
		"TurnBudget": "turn-budget", "MissionTimeout": "mission-timeout", "SystemPrompt": "language",
	}[ce.Field]
	v := af.keys[key]
	if key == "prompt" {
		v = af.prompt
	}
	if v == nil {
		return nil, &agentFileError{file: af.name, msg: ce.Message}
	}
	return nil, af.valueError(v, errors.Join(errors.New(ce.Message), ce.Err))
}

// valueError places an error about a value (a signature that does not
// parse, a placeholder) at its position in the file.
func (af *agentFile) valueError(v *fmValue, err error) error {
	pos := v.pos
	msg := err.Error()
	var se *signature.ParseError
	var te *template.Error
	var ne *template.NotInSignatureError
	switch {
	case errors.As(err, &se):
		pos = v.at(se.Line, se.Col)
		msg = withHint(se.Msg, se.Hint)
	case errors.As(err, &te):
		pos = v.at(te.Line, te.Col)
		msg = withHint(te.Msg, te.Hint)
	case errors.As(err, &ne) && len(ne.Placeholders) > 0:
		pos = v.at(ne.Placeholders[0].Line, ne.Placeholders[0].Col)
		msg = ne.Error() + " (the signature's parameters are what placeholders may name)"
	}
	if i := strings.Index(msg, "\n"); i >= 0 {
		msg = msg[:i] // errors.Join's second line repeats the first
	}
	label := v.key
	if label == "prompt" && af.keys["prompt"] == nil {
		label = "prompt (the text after the front matter)"
	}
	return &agentFileError{file: af.name, pos: pos, msg: label + ": " + msg}
}

// defaultMissionTimeout is ptc run's mission timeout for real models where
// the agent file does not choose: the agent package's 60 s is sized for
// its 5 s LLM calls, and would cut a mission shorter than one of the
// 2-minute calls defaultLLMTimeout allows.
const defaultMissionTimeout = 10 * time.Minute

// cliConfig is the agent's configuration with the command line's defaults
// for real models where the file does not choose (see defaultLLMTimeout).
func (af *agentFile) cliConfig() agent.Config {
	cfg := af.cfg
	if !af.llmTimeoutSet {
		cfg.LLMTimeout = defaultLLMTimeout
	}
	if !af.llmRetriesSet {
		cfg.LLMRetry.MaxAttempts = defaultLLMAttempts
	}
	if !af.missionTimeoutSet {
		cfg.MissionTimeout = defaultMissionTimeout
	}
	return cfg
}

// mcpPath is the MCP configuration file the agent file names, relative
// to the agent file's directory ("" when none).
func (af *agentFile) mcpPath() string {
	if af.mcp == nil {
		return ""
	}
	path := strings.TrimSpace(af.mcp.text)
	if !filepath.IsAbs(path) {
		path = filepath.Join(af.dir, path)
	}
	return path
}

// loadContext reads the context the file gives, inline or from a file
// next to it; an empty map when there is none.
func (af *agentFile) loadContext() (*lisp.Map, error) {
	v := af.context
	if v == nil {
		return lisp.NewMap(), nil
	}
	text := strings.TrimSpace(v.text)
	if strings.HasPrefix(text, "{") {
		val, err := readInlineData(v.text)
		if err != nil {
			var de *dataError
			if errors.As(err, &de) && de.pos.IsValid() {
				return nil, &agentFileError{file: af.name, pos: v.at(int(de.pos.Line), int(de.pos.Col)),
					msg: "context: " + de.msg}
			}
			return nil, &agentFileError{file: af.name, pos: v.pos, msg: "context: " + err.Error()}
		}
		m, ok := val.(*lisp.Map)
		if !ok {
			return nil, &agentFileError{file: af.name, pos: v.pos, msg: "context: must be a map, got " + lisp.TypeName(val)}
		}
		return m, nil
	}
	path := text
	if !filepath.IsAbs(path) {
		path = filepath.Join(af.dir, path)
	}
	m, err := loadContext(path)
	if err != nil {
		var pe *os.PathError
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, &agentFileError{file: af.name, pos: v.pos, msg: fmt.Sprintf("context: no file %s", path)}
		case errors.As(err, &pe) && (errors.Is(err, errNotRegular) || errors.Is(err, errTooLarge)):
			return nil, &agentFileError{file: af.name, pos: v.pos, msg: fmt.Sprintf("context: %s: %v", path, pe.Err), cause: pe}
		}
		return nil, err
	}
	return m, nil
}

// readInlineData reads the inline context of an agent file: JSON when it
// is valid JSON, else EDN. When neither reads, the error is JSON's if the
// text looks like JSON ("key": ...), else EDN's.
func readInlineData(text string) (lisp.Value, error) {
	v, jerr := readData([]byte(text), false)
	if jerr == nil {
		return v, nil
	}
	v, eerr := readData([]byte(text), true)
	if eerr == nil {
		return v, nil
	}
	if strings.Contains(text, `":`) || strings.Contains(text, `": `) {
		return nil, jerr
	}
	return nil, eerr
}

func withHint(msg, hint string) string {
	if hint == "" {
		return msg
	}
	return msg + " (" + hint + ")"
}

func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

func jsonMsg(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Error()
	}
	return err.Error()
}
