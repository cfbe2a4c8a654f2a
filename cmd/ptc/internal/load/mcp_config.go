package load

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/mcp"
)

// MCPConfig is an MCP configuration file: the MCP servers whose tools
// programs call (in the "mcpServers" form Claude Desktop, Cursor and
// others use, so an existing file works as it is), and for ptc mcp serve
// the agents it serves and its code-mode tool.
//
//	{
//	  "mcpServers": {
//	    "gh":   {"command": "github-mcp-server", "args": ["stdio"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
//	    "docs": {"url": "https://docs.example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"},
//	             "tools": ["search"], "firewall": {"search": ["/hits/*/internal_id"]}, "timeout": "30s"}
//	  },
//	  "agents":   [{"file": "agents/digest.md", "name": "digest", "model": "openai:gpt-4.1-mini"}],
//	  "codeMode": {"name": "run_program", "maxListed": 40, "limits": {"timeout": "10s", "max-tool-calls": 200}}
//	}
type MCPConfig struct {
	File    string // as given, for messages
	dir     string // relative paths start here
	Servers []mcpServerEntry
	Agents  []mcpAgentEntry
	Code    mcpCodeMode
}

type mcpServerEntry struct {
	name string
	mcp.Server
}

type mcpAgentEntry struct {
	File        string `json:"file"`
	Name        string `json:"name"`
	Model       string `json:"model"`
	Description string `json:"description"`
	// UpstreamTools gives the agent the tools of the file's servers.
	UpstreamTools bool `json:"upstreamTools"`
}

type mcpCodeMode struct {
	Disabled    bool
	Name        string
	Description string
	MaxListed   int
	Limits      lisp.Limits
}

// The file's JSON form. Unknown keys are errors (a misspelt "headres" must
// not silently send no header), except in a server entry, where hosts
// put keys of their own ("type": "stdio", "disabled", "autoApprove"...):
// those this file does not know are ignored.
type mcpConfigJSON struct {
	Servers  map[string]json.RawMessage `json:"mcpServers"`
	Agents   []mcpAgentEntry            `json:"agents"`
	CodeMode *struct {
		Disabled    bool                       `json:"disabled"`
		Name        string                     `json:"name"`
		Description string                     `json:"description"`
		MaxListed   int                        `json:"maxListed"`
		Limits      map[string]json.RawMessage `json:"limits"`
	} `json:"codeMode"`
}

type mcpServerJSON struct {
	Type           string              `json:"type"`
	Command        string              `json:"command"`
	Args           []string            `json:"args"`
	Env            map[string]string   `json:"env"`
	Cwd            string              `json:"cwd"`
	URL            string              `json:"url"`
	Headers        map[string]string   `json:"headers"`
	Tools          json.RawMessage     `json:"tools"`
	Firewall       map[string][]string `json:"firewall"`
	Timeout        string              `json:"timeout"`
	ConnectTimeout string              `json:"connectTimeout"`
	Pin            string              `json:"pin"`
	Limits         json.RawMessage     `json:"limits"`
	Disabled       bool                `json:"disabled"`
}

// defaultConnectTimeout bounds the connection to a server (the handshake
// and the tool listing) when its entry gives no connectTimeout: a server
// that never answers must not hold ptc forever.
const defaultConnectTimeout = 30 * time.Second

// mcpToolJSON is an entry of the object form of "tools".
type mcpToolJSON struct {
	// Description replaces the server's description of the tool.
	Description *string `json:"description"`
}

// mcpLimitsJSON is "limits": mcp.Limits.
type mcpLimitsJSON struct {
	MaxListPages int `json:"maxListPages"`
	MaxTools     int `json:"maxTools"`
	MaxListBytes int `json:"maxListBytes"`
	SchemaWork   int `json:"schemaWork"`
	MaxToolChars int `json:"maxToolChars"`
}

// serverNameRE is what a server's name may be: it prefixes its tools'
// names in programs (tool/gh.search), so it must read as part of a symbol.
var serverNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`) })

// varRefRE matches ${NAME} in a configuration value.
var varRefRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`) })

// ReadMCPConfig reads an MCP configuration file; getenv expands ${NAME}
// in commands, arguments, environments, URLs and headers.
func ReadMCPConfig(path string, getenv func(string) string) (*MCPConfig, error) {
	data, err := base.ReadBounded(path, base.KindMCPConfig)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no MCP configuration file %s", path)
		}
		return nil, err
	}
	return parseMCPConfig(path, filepath.Dir(path), data, getenv)
}

func parseMCPConfig(name, dir string, data []byte, getenv func(string) string) (*MCPConfig, error) {
	cfg := &MCPConfig{File: name, dir: dir}
	fail := func(format string, a ...any) error {
		// Bounded: a message may quote the file (a key, a name).
		return fmt.Errorf("%s: %s", name, base.ClipMessage(fmt.Sprintf(format, a...), base.MaxFileMessage))
	}
	var raw mcpConfigJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, fail("%s", JSONErrorAt(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail("text after the JSON object")
	}
	names := make([]string, 0, len(raw.Servers))
	for n := range raw.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !serverNameRE().MatchString(n) {
			return nil, fail("mcpServers: %q is not a usable server name: it prefixes its tools' names (tool/%s.search), so it must be a letter followed by letters, digits, - or _", n, n)
		}
		var sj mcpServerJSON
		if err := json.Unmarshal(raw.Servers[n], &sj); err != nil {
			return nil, fail("mcpServers.%s: %s", n, base.JSONMsg(err))
		}
		if sj.Disabled {
			continue
		}
		s, err := sj.server(n, dir, getenv)
		if err != nil {
			return nil, fail("mcpServers.%s: %v", n, err)
		}
		cfg.Servers = append(cfg.Servers, mcpServerEntry{name: n, Server: s})
	}
	seen := map[string]bool{}
	for i, a := range raw.Agents {
		if a.File == "" {
			return nil, fail("agents[%d]: file is required (an agent file, as ptc run reads)", i)
		}
		if !filepath.IsAbs(a.File) {
			a.File = filepath.Join(dir, a.File)
		}
		if a.Name == "" {
			a.Name = AgentName(a.File)
		}
		if seen[a.Name] {
			return nil, fail("agents[%d]: the name %q is used twice", i, a.Name)
		}
		seen[a.Name] = true
		cfg.Agents = append(cfg.Agents, a)
	}
	if cm := raw.CodeMode; cm != nil {
		cfg.Code = mcpCodeMode{Disabled: cm.Disabled, Name: cm.Name, Description: cm.Description, MaxListed: cm.MaxListed}
		if err := setLimits(&cfg.Code.Limits, cm.Limits); err != nil {
			return nil, fail("codeMode.limits: %v", err)
		}
	}
	if name := cmp.Or(cfg.Code.Name, "run_program"); !cfg.Code.Disabled && len(cfg.Servers) > 0 && seen[name] {
		return nil, fail("the code-mode tool and an agent are both named %q: rename one (codeMode.name, or the agent's name)", name)
	}
	return cfg, nil
}

// server checks an mcpServers entry and makes it an mcp.Server.
func (sj mcpServerJSON) server(name, dir string, getenv func(string) string) (mcp.Server, error) {
	s := mcp.Server{Name: name, Firewall: sj.Firewall, Pin: sj.Pin, ConnectTimeout: defaultConnectTimeout}
	if err := sj.tools(&s); err != nil {
		return s, err
	}
	var missing []string
	expand := func(v string) string {
		return varRefRE().ReplaceAllStringFunc(v, func(ref string) string {
			key := ref[2 : len(ref)-1]
			val := getenv(key)
			if val == "" {
				missing = append(missing, key)
			}
			return val
		})
	}
	switch sj.Type {
	case "", "stdio", "http", "streamable-http", "streamableHttp":
	case "sse":
		return s, errors.New(`"type": "sse" (the protocol's older HTTP transport) is not supported: use the server's streamable HTTP endpoint`)
	default:
		return s, fmt.Errorf("unknown type %q (want stdio or http)", sj.Type)
	}
	switch {
	case sj.Command != "" && sj.URL != "":
		return s, errors.New("give command (a process spoken to over stdio) or url (streamable HTTP), not both")
	case sj.Command != "":
		s.Command = append([]string{expand(sj.Command)}, mapStrings(sj.Args, expand)...)
		if len(sj.Env) > 0 {
			s.Env = make(map[string]string, len(sj.Env))
			for k, v := range sj.Env {
				s.Env[k] = expand(v)
			}
		}
		if sj.Cwd != "" {
			s.Dir = sj.Cwd
			if !filepath.IsAbs(s.Dir) {
				s.Dir = filepath.Join(dir, s.Dir)
			}
		}
	case sj.URL != "":
		if len(sj.Args) > 0 || len(sj.Env) > 0 || sj.Cwd != "" {
			return s, errors.New("args, env and cwd are for a command; a url server takes headers")
		}
		s.URL = expand(sj.URL)
		if !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") {
			// As written: expanded, it may hold a secret.
			return s, fmt.Errorf("url %s is not an http:// or https:// address", base.QuoteShort(sj.URL))
		}
		if len(sj.Headers) > 0 {
			s.Headers = make(map[string]string, len(sj.Headers))
			for k, v := range sj.Headers {
				s.Headers[k] = expand(v)
			}
		}
	default:
		return s, errors.New("needs command (with args) or url")
	}
	if sj.Command != "" && len(sj.Headers) > 0 {
		return s, errors.New("headers are for a url server")
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return s, fmt.Errorf("uses ${%s}, which is not set in the environment", strings.Join(dedupe(missing), "}, ${"))
	}
	if sj.Timeout != "" {
		d, err := time.ParseDuration(sj.Timeout)
		if err != nil || d < 0 {
			return s, fmt.Errorf("timeout %q is not a duration (as 30s or 2m)", sj.Timeout)
		}
		s.CallTimeout = d
	}
	if sj.ConnectTimeout != "" {
		d, err := time.ParseDuration(sj.ConnectTimeout)
		if err != nil || d <= 0 {
			return s, fmt.Errorf("connectTimeout %q is not a positive duration (as 30s or 2m)", sj.ConnectTimeout)
		}
		s.ConnectTimeout = d
	}
	if sj.Pin != "" && !mcpValidPin(sj.Pin) {
		return s, fmt.Errorf("pin %q is not %s followed by 64 hex digits (ptc mcp tools prints it)", sj.Pin, mcpPinPrefix)
	}
	if len(sj.Limits) > 0 {
		var l mcpLimitsJSON
		dec := json.NewDecoder(bytes.NewReader(sj.Limits))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return s, fmt.Errorf("limits: %s (known: maxListPages, maxTools, maxListBytes, schemaWork, maxToolChars)", strings.TrimPrefix(base.JSONMsg(err), "json: "))
		}
		s.Limits = mcp.Limits{MaxListPages: l.MaxListPages, MaxTools: l.MaxTools, MaxListBytes: l.MaxListBytes,
			SchemaWork: l.SchemaWork, MaxToolChars: l.MaxToolChars}
		for _, v := range []int{l.MaxListPages, l.MaxTools, l.MaxListBytes, l.SchemaWork, l.MaxToolChars} {
			if v < 0 {
				return s, errors.New("limits: a bound cannot be negative")
			}
		}
	}
	return s, nil
}

// tools reads "tools": a list of the tools to keep, or an object whose
// keys are the tools to keep and whose values may replace their
// descriptions: {"search": {"description": "Searches the docs."}}.
func (sj mcpServerJSON) tools(s *mcp.Server) error {
	raw := bytes.TrimSpace(sj.Tools)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil
	case raw[0] == '[':
		if err := json.Unmarshal(raw, &s.Tools); err != nil {
			return fmt.Errorf("tools: %s", base.JSONMsg(err))
		}
		return nil
	case raw[0] == '{':
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("tools: %s", base.JSONMsg(err))
		}
		for _, name := range mcpSortedKeys(m) {
			var tj mcpToolJSON
			dec := json.NewDecoder(bytes.NewReader(m[name]))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&tj); err != nil {
				return fmt.Errorf("tools.%s: %s (an object, with \"description\" to replace the server's)", name, strings.TrimPrefix(base.JSONMsg(err), "json: "))
			}
			s.Tools = append(s.Tools, name)
			if tj.Description != nil {
				if s.Descriptions == nil {
					s.Descriptions = map[string]string{}
				}
				s.Descriptions[name] = *tj.Description
			}
		}
		return nil
	}
	return errors.New(`tools: a list of tool names, or an object of tool names to {"description": "..."}`)
}

// mcpValidPin checks the form of a catalog pin.
func mcpValidPin(p string) bool {
	h, ok := strings.CutPrefix(p, mcpPinPrefix)
	if !ok || len(h) != 64 {
		return false
	}
	for _, c := range strings.ToLower(h) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func mcpSortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// setLimits reads limits named as ptc eval's flags ("timeout": "10s",
// "max-tool-calls": 200) through those flags, so both read values alike.
func setLimits(dst *lisp.Limits, raw map[string]json.RawMessage) error {
	fs := flag.NewFlagSet("limits", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	l := base.LimitFlags(fs)
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if fs.Lookup(k) == nil {
			var known []string
			fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
			return fmt.Errorf("unknown limit %q (known: %s)", k, strings.Join(known, ", "))
		}
		var v any
		if err := json.Unmarshal(raw[k], &v); err != nil {
			return fmt.Errorf("%s: %v", k, err)
		}
		text := fmt.Sprint(v)
		if f, ok := v.(float64); ok {
			text = fmt.Sprintf("%.0f", f)
		}
		if err := fs.Set(k, text); err != nil {
			return fmt.Errorf("%s: %v", k, err)
		}
	}
	*dst = *l
	return nil
}

// MCPServers returns the servers to connect to.
func (c *MCPConfig) MCPServers() []mcp.Server {
	out := make([]mcp.Server, len(c.Servers))
	for i, s := range c.Servers {
		out[i] = s.Server
	}
	return out
}

// JSONErrorAt places a JSON decoding error at its line and column.
func JSONErrorAt(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return strings.TrimPrefix(err.Error(), "json: ")
	}
	line, col := 1, 1
	// Offset counts the bytes read, the offending one included.
	for _, b := range data[:min(max(int(off)-1, 0), len(data))] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("%d:%d: %s", line, col, strings.TrimPrefix(err.Error(), "json: "))
}

func mapStrings(ss []string, f func(string) string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = f(s)
	}
	return out
}

func dedupe(sorted []string) []string {
	out := sorted[:0]
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// mcpPinPrefix starts a catalog pin: "sha256:" and 64 hex digits.
const mcpPinPrefix = "sha256:"
