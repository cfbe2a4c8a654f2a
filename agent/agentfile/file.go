package agentfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
	"github.com/ptc-go/ptc/template"
)

// MaxSize bounds an agent file: Load reads no more, and Parse rejects a
// longer text.
const MaxSize = 1 << 20

// MaxContextSize bounds a context file Load's file system gives.
const MaxContextSize = 256 << 20

// File is an agent file, parsed.
type File struct {
	// Name is the file's name as given to Parse or Load, for messages.
	Name string
	// Config is the agent as the file defines it: what it does not set
	// stays zero, the agent package's default.
	Config agent.Config
	// Model is the model reference the file asks for (model:), "" when
	// none: which models there are is the caller's business.
	Model string
	// ContextSignature describes the context (context-signature:), for
	// agent.Options.InputSignature.
	InputSignature string

	keys    map[string]*value // the settings as read, for positions
	prompt  *value            // the body, or the prompt key's value
	context *value            // inline data or a file name (nil: none)
	mcp     *value            // the MCP configuration file (nil: none)
	cases   *value            // the test cases, inline or a file name (nil: none)
	fsys    fs.FS             // where Load read the file (nil after Parse)
}

// Pos is a position in an agent file: 1-based line and column (in
// characters). The zero Pos is the whole file.
type Pos struct{ Line, Col int }

// Error is an error in an agent file, at a position.
type Error struct {
	File string // the file's name, as given
	Pos  Pos    // zero when the error is about the whole file
	Msg  string // what is wrong, starting with the key at fault
	Err  error  // the error behind Msg, if any (a file that does not read)
}

func (e *Error) Unwrap() error { return e.Err }

// Error says where and what: Msg quotes at most 40 characters of the file
// (a key, a value), never a line, and is cut to 300 characters on one
// line, whatever a parser it passes on quotes.
func (e *Error) Error() string {
	msg := escapeControls(textutil.Clip(e.Msg, maxMessage))
	if e.Pos.Line == 0 {
		return e.File + ": " + msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Pos.Line, e.Pos.Col, msg)
}

// maxMessage bounds Error's message (its position apart).
const maxMessage = 300

// Parse parses an agent file's text. name is for messages. The file is
// not checked as an agent yet (NewAgent does), and what it names (a
// context file, an MCP configuration) is not read: Context reads no file
// of a File from Parse. Errors are *Error values.
func Parse(name string, data []byte) (*File, error) {
	f, _, err := parse(name, data)
	return f, err
}

// Load reads the agent file at name in fsys (at most MaxSize bytes) and
// parses it; Context then reads a context file it names from fsys too,
// relative to its directory. Errors are *Error values (one that does not
// read wraps the *fs.PathError).
func Load(fsys fs.FS, name string) (*File, error) {
	data, err := readBounded(fsys, name, MaxSize, "an agent file")
	if err != nil {
		return nil, &Error{File: name, Msg: err.Error(), Err: err}
	}
	f, err := Parse(name, data)
	if err != nil {
		return nil, err
	}
	f.fsys = fsys
	return f, nil
}

// readBounded reads name from fsys, a regular file or a pipe of at most
// limit bytes: a device or a file without end is an error, not memory.
func readBounded(fsys fs.FS, name string, limit int64, kind string) ([]byte, error) {
	file, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return nil, err
	}
	if m := st.Mode(); !m.IsRegular() && m&fs.ModeNamedPipe == 0 {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errNotRegular}
	}
	data, err := io.ReadAll(io.LimitReader(file, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("larger than %s, the bound of %s", FormatSize(limit), kind)}
	}
	return data, nil
}

// errNotRegular: a device, a socket, a directory, which Load does not read.
var errNotRegular = errors.New("not a regular file or a pipe")

// Has reports whether the front matter sets key (as "llm-timeout"; the
// prompt after the front matter counts as prompt).
func (f *File) Has(key string) bool {
	if canon, ok := keyAliases[key]; ok {
		key = canon
	}
	if key == "prompt" {
		return f.prompt != nil
	}
	return f.keys[key] != nil
}

// Pos is where key's value starts in the file (the zero Pos when the file
// does not set it): for the caller's errors about a value, such as an MCP
// configuration that does not open.
func (f *File) Pos(key string) Pos {
	if canon, ok := keyAliases[key]; ok {
		key = canon
	}
	v := f.keys[key]
	if key == "prompt" {
		v = f.prompt
	}
	if v == nil {
		return Pos{}
	}
	return v.pos
}

// MCPFile is the MCP configuration file the agent file names (mcp:), as
// written (relative to the agent file's directory unless absolute); ""
// when none. Connecting to its servers starts the commands it names: the
// caller decides.
func (f *File) MCPFile() string {
	if f.mcp == nil {
		return ""
	}
	return strings.TrimSpace(f.mcp.text)
}

// ContextFile is the context file the agent file names (context:), as
// written (relative to the agent file's directory unless absolute); ""
// when it gives none, or gives the context inline.
func (f *File) ContextFile() string {
	if f.context == nil || isInline(f.context.text) {
		return ""
	}
	return strings.TrimSpace(f.context.text)
}

func isInline(text string) bool { return strings.HasPrefix(strings.TrimSpace(text), "{") }

// Context is the context the file gives (context:): its inline data (JSON
// when it reads as JSON, else EDN), or the file it names, read from Load's
// file system (.edn as EDN, else JSON, at most MaxContextSize bytes); an
// empty map when it gives none. A File from Parse reads no file: read
// ContextFile yourself (Read (EDN) reads its data).
func (f *File) Context() (*lisp.Map, error) {
	v := f.context
	if v == nil {
		return lisp.NewMap(), nil
	}
	var val lisp.Value
	if isInline(v.text) {
		var err error
		if val, err = readInline(v.text); err != nil {
			var de *DataError
			if errors.As(err, &de) && de.Line > 0 {
				return nil, &Error{File: f.Name, Pos: v.at(de.Line, de.Col), Msg: "context: " + de.Msg}
			}
			return nil, &Error{File: f.Name, Pos: v.pos, Msg: "context: " + err.Error()}
		}
	} else {
		name := f.ContextFile()
		if f.fsys == nil {
			return nil, &Error{File: f.Name, Pos: v.pos, Msg: "context: " + quoteShort(name) + " is a file, and a File from Parse reads none: use Load"}
		}
		if !path.IsAbs(name) {
			name = path.Join(path.Dir(f.Name), name)
		}
		b, err := readBounded(f.fsys, name, MaxContextSize, "a context file")
		if err != nil {
			msg := fmt.Sprintf("context: %v", err)
			if errors.Is(err, fs.ErrNotExist) {
				msg = "context: no file " + name
			}
			return nil, &Error{File: f.Name, Pos: v.pos, Msg: msg, Err: err}
		}
		if val, err = ReadData(b, strings.EqualFold(path.Ext(name), ".edn")); err != nil {
			sep := ": "
			if de := (*DataError)(nil); errors.As(err, &de) && de.Line > 0 {
				sep = ":" // name:line:col
			}
			return nil, &Error{File: f.Name, Pos: v.pos, Msg: "context: " + name + sep + err.Error(), Err: err}
		}
	}
	m, ok := val.(*lisp.Map)
	if !ok {
		return nil, &Error{File: f.Name, Pos: v.pos, Msg: "context: must be a map, got " + lisp.TypeName(val)}
	}
	return m, nil
}

// readInline reads the inline context of an agent file: JSON when it is
// valid JSON, else EDN. When neither reads, the error is JSON's if the
// text looks like JSON ("key": ...), else EDN's.
func readInline(text string) (lisp.Value, error) {
	v, jerr := ReadData([]byte(text), false)
	if jerr == nil {
		return v, nil
	}
	v, eerr := ReadData([]byte(text), true)
	if eerr == nil {
		return v, nil
	}
	if strings.Contains(text, `":`) {
		return nil, jerr
	}
	return nil, eerr
}

// NewAgent makes the agent with agent.New from cfg, which is f.Config with
// the caller's additions (tools, defaults of its own), and checks the
// context signature. An error is an *Error that names the key at fault
// and where it is in the file (a mistake in the file, as a parse error
// is: it does not wrap agent.New's *agent.Fail).
func (f *File) NewAgent(cfg agent.Config) (*agent.Agent, error) {
	a, err := agent.New(cfg)
	if err == nil {
		if f.InputSignature != "" {
			if _, serr := signature.Parse(f.InputSignature); serr != nil {
				return nil, f.valueError(f.keys["context-signature"], serr)
			}
		}
		return a, nil
	}
	var ce *agent.Fail
	if !errors.As(err, &ce) {
		return nil, &Error{File: f.Name, Msg: err.Error(), Err: err}
	}
	key := map[string]string{
		"Prompt": "prompt", "Signature": "signature", "MaxTurns": "max-turns", "MaxAgentMemory": "memory-limit",
		"MaxTreeTurns": "turn-budget", "MissionTimeout": "mission-timeout", "Presentation.Language": "language",
	}[ce.Op]
	v := f.keys[key]
	if key == "prompt" {
		v = f.prompt
	}
	if v == nil {
		return nil, &Error{File: f.Name, Msg: ce.Message}
	}
	return nil, f.valueError(v, errors.Join(errors.New(ce.Message), ce.Unwrap()))
}

// valueError places an error about a value (a signature that does not
// parse, a placeholder) at its position in the file.
func (f *File) valueError(v *value, err error) *Error {
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
	if label == "prompt" && f.keys["prompt"] == nil {
		label = "prompt (the text after the front matter)"
	}
	return &Error{File: f.Name, Pos: pos, Msg: label + ": " + msg}
}

func withHint(msg, hint string) string {
	if hint == "" {
		return msg
	}
	return msg + " (" + hint + ")"
}

// quoteShort quotes a piece of the file for a message: at most 40
// characters of it, Go-quoted (so on one line, escaped).
func quoteShort(s string) string { return fmt.Sprintf("%q", textutil.Clip(s, 40)) }

// escapeControls escapes the ASCII controls of s (a newline among them) as
// \u00XX, so that a message stays on its line.
func escapeControls(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var sb strings.Builder
	for _, r := range s {
		if isControl(r) {
			fmt.Fprintf(&sb, `\u%04x`, r)
		} else {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// CasesFile is the cases file the agent file names (cases:), as written
// (relative to the agent file's directory unless absolute); "" when it
// names none or gives the cases inline.
func (f *File) CasesFile() string {
	if f.cases == nil || strings.HasPrefix(strings.TrimSpace(f.cases.text), "[") {
		return ""
	}
	return strings.TrimSpace(f.cases.text)
}

// CasesSuffix ends the name of the file that holds an agent file's test
// cases when its front matter names none: digest.md's are in
// digest.cases.clj beside it.
const CasesSuffix = ".cases.clj"

// maxCasesSize bounds a cases file: the 4 MiB eval.ParseCases reads.
const maxCasesSize = 4 << 20

// Cases are the agent's test cases (see eval.ParseCases for how they are
// written): inline (cases: followed by a | block holding a vector), in the
// file cases: names (relative to the agent file), or, when the front
// matter has no cases:, in the file beside it named like it with
// CasesSuffix. Nil when there are none. A File from Parse reads no file.
// An error is an *Error at the case's line in the agent file, or an
// *eval.CaseError in the cases file.
func (f *File) Cases() ([]eval.Case, error) {
	v := f.cases
	if v != nil && strings.HasPrefix(strings.TrimSpace(v.text), "[") {
		cases, err := eval.ParseCases(f.Name, v.text)
		var ce *eval.CaseError
		if errors.As(err, &ce) {
			pos := v.pos
			if ce.Line > 0 {
				pos = v.at(ce.Line, ce.Col)
			}
			return nil, &Error{File: f.Name, Pos: pos, Msg: "cases: " + ce.Message, Err: err}
		}
		return cases, err
	}
	var name string
	switch {
	case v != nil:
		name = strings.TrimSpace(v.text)
		if f.fsys == nil {
			return nil, &Error{File: f.Name, Pos: v.pos, Msg: "cases: " + quoteShort(name) + " is a file, and a File from Parse reads none: use Load"}
		}
		if !path.IsAbs(name) {
			name = path.Join(path.Dir(f.Name), name)
		}
	case f.fsys == nil:
		return nil, nil
	default:
		name = strings.TrimSuffix(f.Name, path.Ext(f.Name)) + CasesSuffix
		if _, err := fs.Stat(f.fsys, name); err != nil {
			return nil, nil
		}
	}
	b, err := readBounded(f.fsys, name, maxCasesSize, "a cases file")
	if err != nil {
		msg := fmt.Sprintf("cases: %v", err)
		if errors.Is(err, fs.ErrNotExist) {
			msg = "cases: no file " + name
		}
		e := &Error{File: f.Name, Msg: msg, Err: err}
		if v != nil {
			e.Pos = v.pos
		}
		return nil, e
	}
	return eval.ParseCases(name, string(b))
}
