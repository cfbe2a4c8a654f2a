package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/signature"
)

// Server says how to reach one MCP server. Set exactly one of Command,
// URL and Transport.
type Server struct {
	// Name is the prefix of its tools' names: "gh" makes the server's
	// search_issues tool/gh.search_issues. Required: a letter, then
	// letters, digits, _ and -; no dots. "mcp" is reserved (mcp.search).
	Name string

	// Command is the command line of a stdio server, started with
	// exec.CommandContext when Connect runs and stopped by Close.
	Command []string
	// Env is extra environment for Command, on top of the host's.
	Env map[string]string
	// Dir is the working directory of Command ("": the host's).
	Dir string
	// Stderr receives the command's standard error (nil: discarded).
	Stderr io.Writer

	// URL is the endpoint of a streamable HTTP server.
	URL string
	// Headers are sent with every HTTP request (Authorization, say).
	Headers map[string]string
	// HTTPClient makes the requests (nil: http.DefaultClient).
	HTTPClient *http.Client

	// Transport reaches the server any other way (tests: in-memory).
	Transport mcpsdk.Transport

	// Tools keeps only these of the server's tools, by their MCP names.
	// Empty: all. Naming a tool the server does not have is an error.
	Tools []string
	// Firewall maps an MCP tool name to JSON pointers of result fields to
	// firewall ("/items/*/token"): they are renamed "_" + name, which
	// programs read and LLMs never see. See the package documentation.
	Firewall map[string][]string
	// CallTimeout bounds each call. Zero: no bound but the caller's context.
	CallTimeout time.Duration
}

// ToolInfo describes one tool of a Toolset.
type ToolInfo struct {
	// Name is the agent tool's name, "server.tool".
	Name string `json:"name"`
	// Server is the server's Name; Tool the tool's own MCP name.
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// Description is the server's description followed by the notes.
	Description string `json:"description"`
	// Signature is the contract converted from the schemas.
	Signature string `json:"signature"`
	// InputSchema and OutputSchema are the server's schemas (nil: none).
	InputSchema  json.RawMessage `json:"input_schema,omitempty"`
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Notes are what the signature could not say ("status: one of open,
	// closed"), one per field path.
	Notes []string `json:"notes,omitempty"`
}

// Toolset is a set of connected MCP servers and their tools. Its methods
// are safe for concurrent use.
type Toolset struct {
	conns []*serverConn
	tools []*remoteTool // sorted by name

	closeOnce sync.Once
	closeErr  error
}

// serverConn is the session with one server.
type serverConn struct {
	srv      Server
	session  *mcpsdk.ClientSession
	firewall map[string][][]string
	stop     context.CancelFunc // ends the command's process, after a graceful close

	done    chan struct{} // closed when the session has ended
	doneErr error         // why, set before done is closed

	mu     sync.Mutex
	closed bool // Close was called
	broken bool // a call saw the connection closed
}

// remoteTool is one MCP tool as an agent tool.
type remoteTool struct {
	conn     *serverConn
	info     ToolInfo
	sig      *signature.Signature
	required map[string]bool
	firewall [][]string
	desc     string // the description for the agent (notes bounded)
	baseDesc string // the server's description alone
}

// Error kinds: what an *Error is about.
const (
	KindConfig    = "config"            // an invalid Server
	KindConnect   = "connect"           // starting or initializing the session failed
	KindList      = "list_tools"        // listing the tools failed
	KindTool      = "tool_error"        // the tool reported an error (isError): Message is its text
	KindClosed    = "connection_closed" // the server went away (crashed, exited, closed)
	KindTimeout   = "timeout"           // Server.CallTimeout passed
	KindCancelled = "cancelled"         // the caller's context ended
	KindProtocol  = "protocol_error"    // the call failed at the protocol level
	KindArguments = "bad_arguments"     // the arguments have no JSON form
	KindResult    = "bad_result"        // the result could not be converted
)

// Error is a failure of an MCP server or of one of its tools. Use
// errors.As to get one from a tool error or from Connect's error.
type Error struct {
	Server  string // the server's Name
	Tool    string // the tool's MCP name; "" when not about one tool
	Kind    string // KindTool, KindClosed...
	Message string
	Err     error // the underlying error, if any
}

// Error returns the message. A tool's own error (KindTool) is the
// server's text as it is; the others name the server:
//
//	mcp server gh: connection closed during the call of search_issues: EOF
func (e *Error) Error() string {
	if e.Kind == KindTool {
		return e.Message
	}
	s := "mcp server " + e.Server + ": " + e.Message
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Connect connects to the servers, concurrently, and lists their tools
// (every page) and converts their schemas into signatures. On error it
// closes what it opened; the error names the server (errors.As an
// *Error; several failures are joined). ctx bounds the connection and
// the listing only: the sessions live until Close.
func Connect(ctx context.Context, servers ...Server) (*Toolset, error) {
	seen := map[string]bool{}
	for _, s := range servers {
		if err := checkServer(s); err != nil {
			return nil, err
		}
		if seen[s.Name] {
			return nil, &Error{Server: s.Name, Kind: KindConfig, Message: "two servers have this name"}
		}
		seen[s.Name] = true
	}
	conns := make([]*serverConn, len(servers))
	tools := make([][]*remoteTool, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() {
			conns[i], tools[i], errs[i] = connectServer(ctx, s)
		})
	}
	wg.Wait()
	ts := &Toolset{}
	for _, c := range conns {
		if c != nil {
			ts.conns = append(ts.conns, c)
		}
	}
	if err := errors.Join(errs...); err != nil {
		_ = ts.Close()
		return nil, err
	}
	for _, list := range tools {
		ts.tools = append(ts.tools, list...)
	}
	sort.Slice(ts.tools, func(i, j int) bool { return ts.tools[i].info.Name < ts.tools[j].info.Name })
	return ts, nil
}

// checkServer validates a Server.
func checkServer(s Server) error {
	bad := func(msg string) error { return &Error{Server: s.Name, Kind: KindConfig, Message: msg} }
	if !validServerName(s.Name) {
		return &Error{Server: fmt.Sprintf("%q", s.Name), Kind: KindConfig,
			Message: "invalid name: a letter, then letters, digits, _ and - (it prefixes the tools' names)"}
	}
	if s.Name == "mcp" {
		return bad(`the name "mcp" is reserved (mcp.search)`)
	}
	n := 0
	for _, set := range []bool{len(s.Command) > 0, s.URL != "", s.Transport != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return bad("set exactly one of Command, URL and Transport")
	}
	if len(s.Command) > 0 && s.Command[0] == "" {
		return bad("empty command")
	}
	if s.CallTimeout < 0 {
		return bad("negative CallTimeout")
	}
	if _, err := compileFirewall(s.Firewall); err != nil {
		return bad(err.Error())
	}
	return nil
}

func validServerName(name string) bool {
	if name == "" {
		return false
	}
	for i, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// connectServer opens the session with one server and lists its tools.
// It returns the conn even on a listing error, for Connect to close.
func connectServer(ctx context.Context, s Server) (*serverConn, []*remoteTool, error) {
	fw, _ := compileFirewall(s.Firewall) // checked
	c := &serverConn{srv: s, firewall: fw, done: make(chan struct{})}
	transport := s.Transport
	life, stop := context.WithCancel(context.Background())
	c.stop = stop
	switch {
	case len(s.Command) > 0:
		cmd := exec.CommandContext(life, s.Command[0], s.Command[1:]...)
		cmd.Dir = s.Dir
		if len(s.Env) > 0 {
			keys := make([]string, 0, len(s.Env))
			for k := range s.Env {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			cmd.Env = os.Environ()
			for _, k := range keys {
				cmd.Env = append(cmd.Env, k+"="+s.Env[k])
			}
		}
		cmd.Stderr = s.Stderr
		transport = &mcpsdk.CommandTransport{Command: cmd}
	case s.URL != "":
		hc := s.HTTPClient
		if hc == nil {
			hc = http.DefaultClient
		}
		if len(s.Headers) > 0 {
			base := hc.Transport
			if base == nil {
				base = http.DefaultTransport
			}
			cp := *hc
			cp.Transport = &clientHeaders{base: base, headers: s.Headers}
			hc = &cp
		}
		transport = &mcpsdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: hc}
	}
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "ptc-go", Version: "v1"}, nil)
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		stop()
		return nil, nil, &Error{Server: s.Name, Kind: KindConnect, Message: "cannot connect", Err: err}
	}
	c.session = session
	go func() {
		c.doneErr = session.Wait()
		close(c.done)
	}()
	tools, err := c.listTools(ctx)
	if err != nil {
		return c, nil, err
	}
	return c, tools, nil
}

// listTools lists the server's tools, page by page, and converts them.
func (c *serverConn) listTools(ctx context.Context) ([]*remoteTool, error) {
	var all []*mcpsdk.Tool
	params := &mcpsdk.ListToolsParams{}
	seen := map[string]bool{}
	for {
		res, err := c.session.ListTools(ctx, params)
		if err != nil {
			return nil, &Error{Server: c.srv.Name, Kind: KindList, Message: "cannot list the tools", Err: err}
		}
		all = append(all, res.Tools...)
		if res.NextCursor == "" {
			break
		}
		if seen[res.NextCursor] {
			return nil, &Error{Server: c.srv.Name, Kind: KindList, Message: "the server repeats a pagination cursor"}
		}
		seen[res.NextCursor] = true
		params = &mcpsdk.ListToolsParams{Cursor: res.NextCursor}
	}
	byName := map[string]*mcpsdk.Tool{}
	for _, t := range all {
		byName[t.Name] = t
	}
	keep := all
	if len(c.srv.Tools) > 0 {
		keep = nil
		var missing []string
		for _, name := range c.srv.Tools {
			if t, ok := byName[name]; ok {
				keep = append(keep, t)
			} else {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			return nil, &Error{Server: c.srv.Name, Kind: KindList, Message: "no tool " + strings.Join(missing, ", ") +
				" on the server (Server.Tools)"}
		}
	}
	for name := range c.srv.Firewall {
		if _, ok := byName[name]; !ok {
			return nil, &Error{Server: c.srv.Name, Kind: KindList, Message: "no tool " + name + " on the server (Server.Firewall)"}
		}
	}
	sort.Slice(keep, func(i, j int) bool { return keep[i].Name < keep[j].Name })
	used := map[string]bool{}
	var out []*remoteTool
	for _, t := range keep {
		if used[t.Name] {
			continue // a server listing a name twice
		}
		used[t.Name] = true
		rt, err := c.convertTool(t)
		if err != nil {
			return nil, err
		}
		out = append(out, rt)
	}
	// Sanitized names may collide: number the later ones.
	taken := map[string]bool{}
	for _, rt := range out {
		name := rt.info.Name
		for i := 2; taken[name]; i++ {
			name = fmt.Sprintf("%s_%d", rt.info.Name, i)
		}
		if name != rt.info.Name {
			rt.info.Notes = append(rt.info.Notes, "renamed "+name+": its name clashes with another tool's")
			rt.info.Description = toolDescription(rt.baseDesc, rt.info.Notes, len(rt.info.Notes))
			rt.desc = toolDescription(rt.baseDesc, rt.info.Notes, schemaNotesShown)
		}
		rt.info.Name = name
		taken[name] = true
	}
	return out, nil
}

// convertTool converts an MCP tool into a remoteTool.
func (c *serverConn) convertTool(t *mcpsdk.Tool) (*remoteTool, error) {
	name, renamed := remoteToolName(c.srv.Name, t.Name)
	conv := convertSchemas(t.InputSchema, t.OutputSchema)
	fw := c.firewall[t.Name]
	for _, p := range fw {
		conv.sig.Output = firewallType(conv.sig.Output, p)
	}
	sigText := conv.sig.String()
	sig, err := signature.Parse(sigText)
	if err != nil { // cannot happen: String renders what Parse reads
		return nil, &Error{Server: c.srv.Name, Tool: t.Name, Kind: KindList,
			Message: "the converted signature does not parse", Err: err}
	}
	notes := conv.notes
	if renamed {
		notes = append([]string{"MCP name " + t.Name}, notes...)
	}
	rt := &remoteTool{conn: c, sig: sig, required: conv.required, firewall: fw}
	rt.info = ToolInfo{Name: name, Server: c.srv.Name, Tool: t.Name, Signature: sigText, Notes: notes}
	if t.InputSchema != nil {
		rt.info.InputSchema, _ = json.Marshal(t.InputSchema)
	}
	if t.OutputSchema != nil {
		rt.info.OutputSchema, _ = json.Marshal(t.OutputSchema)
	}
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = strings.TrimSpace(t.Title)
	}
	rt.baseDesc = desc
	rt.info.Description = toolDescription(desc, notes, len(notes))
	rt.desc = toolDescription(desc, notes, schemaNotesShown)
	return rt, nil
}

// toolDescription appends the notes to a description, one "- note" line each,
// at most max of them.
func toolDescription(desc string, notes []string, max int) string {
	var sb strings.Builder
	sb.WriteString(desc)
	for i, n := range notes {
		if i == max {
			fmt.Fprintf(&sb, "\n- (%d more notes: see the tool's JSON Schema)", len(notes)-max)
			break
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString("- " + n)
	}
	return sb.String()
}

// remoteToolName is the agent name of an MCP tool: "server.tool", with the
// characters agent tool names cannot hold replaced by _ (renamed true).
func remoteToolName(server, tool string) (string, bool) {
	var sb strings.Builder
	prevDot := true // no leading dot
	for _, c := range tool {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '?', c == '!':
			sb.WriteRune(c)
			prevDot = false
		case c == '.' && !prevDot:
			sb.WriteRune(c)
			prevDot = true
		default:
			sb.WriteByte('_')
			prevDot = false
		}
	}
	s := sb.String()
	if strings.HasSuffix(s, ".") {
		s = s[:len(s)-1] + "_"
	}
	if s == "" {
		s = "_"
	}
	return server + "." + s, s != tool
}

// clientHeaders adds headers to every request.
type clientHeaders struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h *clientHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.base.RoundTrip(r)
}

// Infos describes the tools, sorted by name.
func (t *Toolset) Infos() []ToolInfo {
	out := make([]ToolInfo, len(t.tools))
	for i, rt := range t.tools {
		out[i] = rt.info
		out[i].Notes = append([]string(nil), rt.info.Notes...)
	}
	return out
}

// Close ends the sessions (and stops the commands). It is safe to call
// more than once; calls made after it fail with KindClosed.
func (t *Toolset) Close() error {
	t.closeOnce.Do(func() {
		errs := make([]error, len(t.conns))
		var wg sync.WaitGroup
		for i, c := range t.conns {
			wg.Go(func() { errs[i] = c.close() })
		}
		wg.Wait()
		t.closeErr = errors.Join(errs...)
	})
	return t.closeErr
}

// close ends the session: gracefully (stdin closed, then SIGTERM after a
// while, for a command), then by killing the process.
func (c *serverConn) close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	var err error
	if c.session != nil {
		// When the server ended the session first, the calls said so already.
		c.mu.Lock()
		ended := c.broken
		c.mu.Unlock()
		select {
		case <-c.done:
			ended = true
		default:
		}
		if cerr := c.session.Close(); cerr != nil && !ended && !connClosedErr(cerr) {
			err = &Error{Server: c.srv.Name, Kind: KindClosed, Message: "closing the session", Err: cerr}
		}
	}
	c.stop()
	return err
}

// connClosedErr reports errors that only say the connection is closed.
func connClosedErr(err error) bool {
	if errors.Is(err, mcpsdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) ||
		errors.Is(err, os.ErrClosed) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "closed") || strings.Contains(msg, "broken pipe") || strings.Contains(msg, "EOF")
}

// connLost reports errors that say the connection is gone, as opposed to
// the server's answers (a *jsonrpc.Error) and other failures.
func connLost(err error) bool {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return false
	}
	for _, target := range []error{mcpsdk.ErrConnectionClosed, io.EOF, io.ErrUnexpectedEOF, io.ErrClosedPipe,
		net.ErrClosed, os.ErrClosed, syscall.EPIPE, syscall.ECONNRESET} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// call calls the tool: the arguments as a JSON object, the result
// converted (see the package documentation).
func (rt *remoteTool) call(ctx context.Context, args *lisp.Map) (any, error) {
	c := rt.conn
	fail := func(kind, msg string, err error) error {
		return &Error{Server: c.srv.Name, Tool: rt.info.Tool, Kind: kind, Message: msg, Err: err}
	}
	if err := c.unusable(); err != nil {
		return nil, fail(KindClosed, "connection closed, "+rt.info.Tool+" cannot be called", err)
	}
	c.mu.Lock()
	broken := c.broken
	c.mu.Unlock()
	if broken {
		// The session's end may not be known yet: fail fast all the same.
		return nil, fail(KindClosed, "connection closed, "+rt.info.Tool+" cannot be called", mcpsdk.ErrConnectionClosed)
	}
	arguments, err := rt.arguments(args)
	if err != nil {
		return nil, fail(KindArguments, "the arguments of "+rt.info.Tool+" have no JSON form", err)
	}
	callCtx := ctx
	if d := c.srv.CallTimeout; d > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	res, err := c.session.CallTool(callCtx, &mcpsdk.CallToolParams{Name: rt.info.Tool, Arguments: arguments})
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, fail(KindCancelled, "the call of "+rt.info.Tool+" was cancelled", ctx.Err())
		case callCtx.Err() != nil:
			return nil, fail(KindTimeout, fmt.Sprintf("%s timed out after %s (CallTimeout)", rt.info.Tool, c.srv.CallTimeout), nil)
		case c.unusable() != nil || connLost(err):
			if c.unusable() != nil || errors.Is(err, mcpsdk.ErrConnectionClosed) || errors.Is(err, io.EOF) {
				// The session is over (a reset HTTP request is not).
				c.mu.Lock()
				c.broken = true
				c.mu.Unlock()
			}
			return nil, fail(KindClosed, "connection closed during the call of "+rt.info.Tool, err)
		}
		return nil, fail(KindProtocol, "the call of "+rt.info.Tool+" failed", err)
	}
	if res.IsError {
		return nil, &Error{Server: c.srv.Name, Tool: rt.info.Tool, Kind: KindTool, Message: resultErrorText(res)}
	}
	v, err := resultValue(res, rt.firewall)
	if err != nil {
		return nil, fail(KindResult, "the result of "+rt.info.Tool+" cannot be converted", err)
	}
	return v, nil
}

// unusable returns why the session cannot take calls, nil if it can.
func (c *serverConn) unusable() error {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return errors.New("the toolset was closed")
	}
	select {
	case <-c.done:
		if c.doneErr != nil {
			return c.doneErr
		}
		return errors.New("the server ended the session")
	default:
		return nil
	}
}

// arguments converts a call's arguments into a JSON object. Keywords
// become strings; nil values of optional parameters are left out, since
// absent and nil mean the same to programs but not to every server.
func (rt *remoteTool) arguments(args *lisp.Map) (json.RawMessage, error) {
	if args == nil {
		return json.RawMessage("{}"), nil
	}
	g, err := lisp.ToGo(args)
	if err != nil {
		return nil, err
	}
	m, _ := g.(map[string]any)
	for k, v := range m {
		if v == nil && !rt.required[k] {
			delete(m, k)
		}
	}
	if m == nil {
		m = map[string]any{}
	}
	return json.Marshal(m)
}

// agentTool is the agent tool of the MCP tool.
func (rt *remoteTool) agentTool(unlisted bool) agent.Tool {
	return agent.Tool{
		Func:        rt.call,
		Signature:   rt.info.Signature,
		Description: rt.desc,
		Unlisted:    unlisted,
	}
}
