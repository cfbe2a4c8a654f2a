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
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/internal/textutil"
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
	// exec.CommandContext when Connect runs and stopped by Close: its
	// stdin closed, SIGTERM 1 s later if it still runs, SIGKILL 1 s after.
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
	// ConnectTimeout bounds the handshake and the tool listing together,
	// and each reconnection (KindTimeout past it). Zero: no bound but
	// Connect's context.
	ConnectTimeout time.Duration

	// Descriptions replace the descriptions of tools, by MCP name, in what
	// agents and LLMs see (a peer's text may tell the model anything).
	// Naming a tool the server lacks is an error.
	Descriptions map[string]string
	// Pin, when set, is the catalog pin ("sha256:" and 64 hex digits,
	// Toolset.Pins) the kept tools must have; a server whose catalog
	// changed is refused (KindPin). See docs/mcp.md, "Trust".
	Pin string
	// Limits bound the listing and conversion of the tools and what each
	// adds to a system prompt. Zero fields take the defaults.
	Limits Limits
	// Warn receives what the client has to say about the server outside
	// of errors: that it reconnected, say. Nil: discarded. It may be
	// called from any goroutine, one call at a time per server.
	Warn func(msg string)
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

// serverConn is the connection to one server: its current session, which
// a reconnection replaces.
type serverConn struct {
	srv      Server
	lim      Limits // with defaults
	firewall map[string][][]string
	pin      string // the kept tools' catalog pin

	reconnect sync.Mutex     // held while the session is replaced
	retiring  sync.WaitGroup // sessions replaced, being closed

	mu     sync.Mutex
	closed bool     // Close was called
	cur    *session // the current session
}

// session is one MCP session with the server (one process, for a command).
type session struct {
	cs   *mcpsdk.ClientSession
	stop context.CancelFunc // ends the command's process, after a graceful close

	done    chan struct{} // closed when the session has ended
	doneErr error         // why, set before done is closed

	tooBig atomic.Int64 // HTTP replies cut at maxReplyBytes

	mu       sync.Mutex
	broken   bool // a call saw the connection closed
	tooLarge bool // ... because a reply was larger than the transport takes
}

// remoteTool is one MCP tool as an agent tool.
type remoteTool struct {
	conn      *serverConn
	info      ToolInfo
	sig       *signature.Signature // the whole conversion
	promptSig *signature.Signature // the form agents see (Limits.MaxToolChars)
	required  map[string]bool
	firewall  [][]string
	outSchema any    // the outputSchema results are checked against (nil: none)
	desc      string // the description for the agent (bounded)
	baseDesc  string // the server's description (or its replacement) alone, bounded
}

// Kind is what an *Error is about. A Kind is an error value for
// errors.Is, as lisp.Kind is: errors.Is(err, mcp.KindTimeout) is true for
// an *Error of that kind, however it is wrapped (a tool error of an agent
// run included).
type Kind string

func (k Kind) Error() string { return string(k) }

// Error kinds.
const (
	KindConfig    Kind = "config"            // an invalid Server
	KindConnect   Kind = "connect"           // starting or initializing the session failed
	KindList      Kind = "list_tools"        // listing the tools failed
	KindTool      Kind = "tool_error"        // the tool reported an error (isError): Message is its text
	KindClosed    Kind = "connection_closed" // the server went away (crashed, exited, closed)
	KindTimeout   Kind = "timeout"           // Server.CallTimeout or ConnectTimeout passed
	KindCancelled Kind = "cancelled"         // the caller's context ended
	KindProtocol  Kind = "protocol_error"    // the call failed at the protocol level
	KindArguments Kind = "bad_arguments"     // the arguments have no JSON form
	KindResult    Kind = "bad_result"        // the result could not be converted
	KindLimit     Kind = "limit"             // the listing passed a bound of Server.Limits
	KindPin       Kind = "pin_mismatch"      // the catalog does not have the pin of Server.Pin
	KindTooLarge  Kind = "reply_too_large"   // a reply was larger than the transport takes (16 MiB)
	KindOutput    Kind = "output_schema"     // a structured result contradicts the tool's outputSchema
)

// maxReplyBytes is the largest reply a server may send (16 MiB): the SDK's frame
// limit over stdio and in memory, and this package's over HTTP (the body
// of a JSON reply; an event of an event stream, the SDK's). A larger reply
// fails its call with KindTooLarge and closes the session, which the next
// call to the server opens again.
const maxReplyBytes = mcpsdk.DefaultMaxLineLength

// Error is a failure of an MCP server or of one of its tools. Use
// errors.As to get one from a tool error or from Connect's error.
type Error struct {
	Server  string // the server's Name
	Tool    string // the tool's MCP name; "" when not about one tool
	Kind    Kind   // KindTool, KindClosed...
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

// Is reports whether target is e's Kind: errors.Is(err, mcp.KindClosed).
func (e *Error) Is(target error) bool { k, ok := target.(Kind); return ok && e != nil && e.Kind == k }

// Connect connects to the servers, concurrently, and lists their tools
// (every page, within Server.Limits) and converts their schemas into
// signatures. On error it closes what it opened; the error names the
// server (errors.As an *Error; several failures are joined). ctx and
// Server.ConnectTimeout bound the connection and the listing only: the
// sessions live until Close.
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
	if s.ConnectTimeout < 0 {
		return bad("negative ConnectTimeout")
	}
	if err := s.Limits.check(); err != nil {
		return bad(err.Error())
	}
	if s.Pin != "" && !validPin(s.Pin) {
		return bad(fmt.Sprintf("Pin %q is not %s followed by 64 hex digits", s.Pin, pinPrefix))
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
	c := &serverConn{srv: s, lim: s.Limits.withDefaults(), firewall: fw}
	parent := ctx
	if d := s.ConnectTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	ss, err := c.open(ctx)
	if err != nil {
		if ctx.Err() != nil && parent.Err() == nil {
			return nil, nil, &Error{Server: s.Name, Kind: KindTimeout,
				Message: fmt.Sprintf("no answer to the handshake within %s (ConnectTimeout)", s.ConnectTimeout), Err: err}
		}
		return nil, nil, &Error{Server: s.Name, Kind: KindConnect, Message: "cannot connect", Err: err}
	}
	c.cur = ss
	tools, err := c.listTools(ctx)
	if err != nil {
		if ctx.Err() != nil && parent.Err() == nil {
			err = &Error{Server: s.Name, Kind: KindTimeout,
				Message: fmt.Sprintf("the tool listing did not end within %s (ConnectTimeout)", s.ConnectTimeout), Err: err}
		}
		return c, nil, err
	}
	return c, tools, nil
}

// open starts a session: the command's process, or an HTTP session, or
// a connection of the Transport.
func (c *serverConn) open(ctx context.Context) (*session, error) {
	s := c.srv
	ss := &session{done: make(chan struct{})}
	transport := s.Transport
	life, stop := context.WithCancel(context.Background())
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
		// A child the server started may hold its stderr open after it
		// exits: Wait must not wait for it.
		cmd.WaitDelay = stdioGrace
		// The SDK's default grace is 5 s: a server that ignores the end
		// of its stdin (server-everything) stalled every exit that long.
		transport = &mcpsdk.CommandTransport{Command: cmd, TerminateDuration: stdioGrace}
	case s.URL != "":
		hc := s.HTTPClient
		if hc == nil {
			hc = http.DefaultClient
		}
		base := hc.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		cp := *hc
		cp.Transport = &clientHeaders{base: base, headers: s.Headers, tooBig: &ss.tooBig}
		transport = &mcpsdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: &cp, MaxEventSize: -1}
	}
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "ptc-go", Version: "v1"}, nil)
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		stop()
		return nil, err
	}
	ss.cs, ss.stop = cs, stop
	go func() {
		ss.doneErr = cs.Wait()
		close(ss.done)
	}()
	return ss, nil
}

// listTools lists the server's tools, page by page within the limits,
// and converts them.
func (c *serverConn) listTools(ctx context.Context) ([]*remoteTool, error) {
	name := c.srv.Name
	limit := func(format string, a ...any) error {
		return &Error{Server: name, Kind: KindLimit, Message: fmt.Sprintf(format, a...)}
	}
	var all []*mcpsdk.Tool
	params := &mcpsdk.ListToolsParams{}
	seen := map[string]bool{}
	schemas := map[*mcpsdk.Tool][2]json.RawMessage{}
	size := 0
	for pages := 1; ; pages++ {
		res, err := c.cur.cs.ListTools(ctx, params)
		if err != nil {
			return nil, &Error{Server: name, Kind: KindList, Message: "cannot list the tools", Err: err}
		}
		for _, t := range res.Tools {
			var in, out json.RawMessage
			if t.InputSchema != nil {
				in, _ = json.Marshal(t.InputSchema)
			}
			if t.OutputSchema != nil {
				out, _ = json.Marshal(t.OutputSchema)
			}
			schemas[t] = [2]json.RawMessage{in, out}
			size += len(t.Name) + len(t.Title) + len(t.Description) + len(in) + len(out)
		}
		all = append(all, res.Tools...)
		switch {
		case len(all) > c.lim.MaxTools:
			return nil, limit("lists more than %d tools (Limits.MaxTools): a server this large needs a higher bound", c.lim.MaxTools)
		case size > c.lim.MaxListBytes:
			return nil, limit("lists more than %d bytes of tools (Limits.MaxListBytes), after %d tools", c.lim.MaxListBytes, len(all))
		}
		if res.NextCursor == "" {
			break
		}
		if pages == c.lim.MaxListPages {
			return nil, limit("the tool list goes on past %d pages (Limits.MaxListPages), after %d tools", pages, len(all))
		}
		if seen[res.NextCursor] {
			return nil, &Error{Server: name, Kind: KindList, Message: "the server repeats a pagination cursor"}
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
		for _, tn := range c.srv.Tools {
			if t, ok := byName[tn]; ok {
				keep = append(keep, t)
			} else {
				missing = append(missing, tn)
			}
		}
		if len(missing) > 0 {
			return nil, &Error{Server: name, Kind: KindList, Message: "no tool " + strings.Join(missing, ", ") +
				" on the server (Server.Tools)"}
		}
	}
	for _, field := range []struct {
		what  string
		names map[string]bool
	}{{"Firewall", mapKeys(c.srv.Firewall)}, {"Descriptions", mapKeys(c.srv.Descriptions)}} {
		for _, tn := range sortedKeys(field.names) {
			if _, ok := byName[tn]; !ok {
				return nil, &Error{Server: name, Kind: KindList, Message: "no tool " + tn + " on the server (Server." + field.what + ")"}
			}
		}
	}
	sort.Slice(keep, func(i, j int) bool { return keep[i].Name < keep[j].Name })
	used := map[string]bool{}
	uniq := keep[:0:0]
	for _, t := range keep {
		if !used[t.Name] { // a server listing a name twice
			used[t.Name] = true
			uniq = append(uniq, t)
		}
	}
	c.pin = catalogPin(uniq)
	if c.srv.Pin != "" && !strings.EqualFold(c.srv.Pin, c.pin) {
		return nil, &Error{Server: name, Kind: KindPin, Message: fmt.Sprintf(
			"the tool catalog changed since it was pinned: its pin is now %s, not %s (Server.Pin); "+
				"review its tools before pinning it again", c.pin, c.srv.Pin)}
	}
	// The server's tools share a conversion budget, so that a thousand
	// schema bombs cost as much as twenty.
	left := c.lim.SchemaWork * serverSchemaWork
	out := make([]*remoteTool, 0, len(uniq))
	for _, t := range uniq {
		work := min(c.lim.SchemaWork, left)
		rt, used, err := c.convertTool(ctx, t, schemas[t], work)
		if err != nil {
			return nil, err
		}
		left = max(left-used, 0)
		out = append(out, rt)
	}
	// Sanitized names may collide: number the later ones.
	taken := map[string]bool{}
	for _, rt := range out {
		tn := rt.info.Name
		for i := 2; taken[tn]; i++ {
			tn = fmt.Sprintf("%s_%d", rt.info.Name, i)
		}
		if tn != rt.info.Name {
			rt.info.Notes = append(rt.info.Notes, "renamed "+tn+": its name clashes with another tool's")
			rt.info.Description = toolDescription(rt.baseDesc, rt.info.Notes, len(rt.info.Notes))
			rt.info.Name = tn
			rt.fitPrompt(c.lim.MaxToolChars)
		}
		taken[tn] = true
	}
	return out, nil
}

func mapKeys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// convertTool converts an MCP tool into a remoteTool, spending at most
// work units on its schemas; used is what it spent.
func (c *serverConn) convertTool(ctx context.Context, t *mcpsdk.Tool, schemas [2]json.RawMessage, work int) (rt *remoteTool, used int, err error) {
	name, renamed := remoteToolName(c.srv.Name, t.Name)
	conv, err := convertSchemas(ctx, t.InputSchema, t.OutputSchema, work)
	if err != nil {
		return nil, 0, &Error{Server: c.srv.Name, Tool: t.Name, Kind: KindCancelled,
			Message: "the conversion of " + t.Name + "'s schemas was cancelled", Err: err}
	}
	if work < c.lim.SchemaWork && conv.work > work {
		conv.notes[0] = fmt.Sprintf("schema: not converted in full: the server's tools together used up their "+
			"%d units of work (20 times Limits.SchemaWork); the parts not converted are :any or left out", c.lim.SchemaWork*serverSchemaWork)
	}
	fw := c.firewall[t.Name]
	for _, p := range fw {
		conv.sig.Output = firewallType(conv.sig.Output, p)
	}
	sigText := conv.sig.String()
	sig, err := signature.Parse(sigText)
	if err != nil { // cannot happen: String renders what Parse reads
		return nil, 0, &Error{Server: c.srv.Name, Tool: t.Name, Kind: KindList,
			Message: "the converted signature does not parse", Err: err}
	}
	notes := conv.notes
	if renamed {
		notes = append([]string{"MCP name " + schemaCut(t.Name)}, notes...)
	}
	rt = &remoteTool{conn: c, sig: sig, required: conv.required, firewall: fw, outSchema: t.OutputSchema}
	rt.info = ToolInfo{Name: name, Server: c.srv.Name, Tool: t.Name, Signature: sigText, Notes: notes,
		InputSchema: schemas[0], OutputSchema: schemas[1]}
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = strings.TrimSpace(t.Title)
	}
	if d, ok := c.srv.Descriptions[t.Name]; ok {
		desc = strings.TrimSpace(d)
	}
	rt.info.Description = toolDescription(desc, notes, len(notes))
	rt.baseDesc = textutil.TruncateBytes(desc, c.lim.MaxToolChars)
	rt.fitPrompt(c.lim.MaxToolChars)
	return rt, conv.work, nil
}

// fitPrompt makes the form agents see of the tool: its signature and
// description with its notes, within limit characters of a system prompt
// (see Limits.MaxToolChars).
func (rt *remoteTool) fitPrompt(limit int) {
	notes := rt.info.Notes
	sig, note := fitSignature(rt.sig, limit/2)
	if note != "" {
		notes = append([]string{note}, notes...)
	}
	rt.promptSig = sig
	// The call line and the signature's line: "(tool/name {...}) ; " and
	// "\n  " and "\n".
	const frame = 20
	room := limit - promptSignatureCost(sig) - len(rt.info.Name) - frame
	rt.desc = fitDescription(toolDescription(rt.baseDesc, notes, schemaNotesShown), room)
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

// clientHeaders adds headers to every request, and bounds replies to
// maxReplyBytes: the body of a JSON reply (which the SDK reads whole), and
// each event of an event stream (the SDK's own bound, disabled, would not
// tell the call why it failed).
type clientHeaders struct {
	base    http.RoundTripper
	headers map[string]string
	tooBig  *atomic.Int64 // counts the replies cut
}

func (h *clientHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	resp, err := h.base.RoundTrip(r)
	if err == nil && resp.Body != nil {
		stream := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
		resp.Body = &replyLimiter{ReadCloser: resp.Body, stream: stream, tooBig: h.tooBig}
	}
	return resp, err
}

// errReplyTooLarge ends the reading of an HTTP reply over maxReplyBytes.
var errReplyTooLarge = fmt.Errorf("mcp: reply larger than %d bytes", maxReplyBytes)

// replyLimiter fails a body, or an event of an event stream, larger than
// maxReplyBytes.
type replyLimiter struct {
	io.ReadCloser
	stream  bool // an event stream: the bound is per event
	n       int  // the bytes of the body, or of the current event
	newline bool // the last byte (\r aside) ended a line
	tooBig  *atomic.Int64
	failed  bool
}

func (l *replyLimiter) Read(p []byte) (int, error) {
	if l.failed {
		return 0, errReplyTooLarge
	}
	n, err := l.ReadCloser.Read(p)
	if !l.stream {
		l.n += n
	} else {
		for _, b := range p[:n] {
			switch {
			case b == '\n' && l.newline: // a blank line ends an event
				l.n = 0
			case b == '\n':
				l.newline = true
			case b != '\r':
				l.newline = false
			}
			l.n++
		}
	}
	if l.n > maxReplyBytes {
		l.failed = true
		if l.tooBig != nil {
			l.tooBig.Add(1)
		}
		return 0, errReplyTooLarge
	}
	return n, err
}

// replyTooLarge reports errors that say a reply was over a transport's
// bound: the SDK's frame limit (stdio, in memory), its event limit (SSE),
// or ours (an HTTP body). The SDK's errors are not exported: their texts
// are matched (a test checks them).
func replyTooLarge(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "exceeded the configured maximum line length") ||
		strings.Contains(msg, "SSE event exceeded") || strings.Contains(msg, errReplyTooLarge.Error())
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

// Pins returns each server's catalog pin, by server name: the value of
// Server.Pin that accepts the tools it has now (see Server.Pin).
func (t *Toolset) Pins() map[string]string {
	out := make(map[string]string, len(t.conns))
	for _, c := range t.conns {
		out[c.srv.Name] = c.pin
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

// close ends the current session.
func (c *serverConn) close() error {
	c.mu.Lock()
	c.closed = true
	ss := c.cur
	c.mu.Unlock()
	defer c.retiring.Wait()
	if ss == nil {
		return nil
	}
	if err := ss.close(); err != nil {
		return &Error{Server: c.srv.Name, Kind: KindClosed, Message: "closing the session", Err: err}
	}
	return nil
}

// stdioGrace is how long closing a stdio server waits after closing its
// stdin before SIGTERM, and after SIGTERM before SIGKILL.
const stdioGrace = time.Second

// close ends the session: gracefully (stdin closed, then SIGTERM after
// stdioGrace, for a command), then by killing the process. An error only
// says the session was ended by the server, not here; a server stopped
// by our own signal is no error.
func (ss *session) close() error {
	ss.mu.Lock()
	ended := ss.broken
	ss.mu.Unlock()
	select {
	case <-ss.done:
		ended = true
	default:
	}
	var err error
	// When the server ended the session first, the calls said so already.
	if cerr := ss.cs.Close(); cerr != nil && !ended && !connClosedErr(cerr) && !stoppedBySignal(cerr) {
		err = cerr
	}
	ss.stop()
	return err
}

// stoppedBySignal reports an exit by SIGTERM or SIGKILL: close sent it.
func stoppedBySignal(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && (ws.Signal() == syscall.SIGTERM || ws.Signal() == syscall.SIGKILL)
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
	fail := func(kind Kind, msg string, err error) error {
		return &Error{Server: c.srv.Name, Tool: rt.info.Tool, Kind: kind, Message: msg, Err: err}
	}
	ss, err := c.session(ctx, rt.info.Tool)
	if err != nil {
		return nil, err
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
	cut := ss.tooBig.Load()
	res, err := ss.cs.CallTool(callCtx, &mcpsdk.CallToolParams{Name: rt.info.Tool, Arguments: arguments})
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, fail(KindCancelled, "the call of "+rt.info.Tool+" was cancelled", ctx.Err())
		case callCtx.Err() != nil:
			return nil, fail(KindTimeout, fmt.Sprintf("%s timed out after %s (CallTimeout)", rt.info.Tool, c.srv.CallTimeout), nil)
		case replyTooLarge(err) || replyTooLarge(ss.ended()) || ss.tooBig.Load() != cut:
			// The transport gave up on the session: the next call opens
			// another.
			ss.mu.Lock()
			ss.broken, ss.tooLarge = true, true
			ss.mu.Unlock()
			return nil, fail(KindTooLarge, fmt.Sprintf("the reply to %s was larger than %d bytes (maxReplyBytes), "+
				"which closed the connection; the next call reconnects", rt.info.Tool, maxReplyBytes), err)
		case ss.ended() != nil || connLost(err):
			if ss.ended() != nil || errors.Is(err, mcpsdk.ErrConnectionClosed) || errors.Is(err, io.EOF) {
				// The session is over (a reset HTTP request is not).
				ss.mu.Lock()
				ss.broken = true
				ss.mu.Unlock()
			}
			return nil, fail(KindClosed, "connection closed during the call of "+rt.info.Tool, err)
		}
		return nil, fail(KindProtocol, "the call of "+rt.info.Tool+" failed", err)
	}
	if res.IsError {
		return nil, &Error{Server: c.srv.Name, Tool: rt.info.Tool, Kind: KindTool, Message: resultErrorText(res)}
	}
	var check func(any) error
	if rt.outSchema != nil {
		check = func(v any) error { return validateOutput(rt.outSchema, v) }
	}
	v, err := resultValue(res, rt.firewall, check)
	if err != nil {
		var mismatch *outputMismatch
		if errors.As(err, &mismatch) {
			return nil, fail(KindOutput, "the result of "+rt.info.Tool+" does not match its outputSchema", mismatch.err)
		}
		return nil, fail(KindResult, "the result of "+rt.info.Tool+" cannot be converted", err)
	}
	return v, nil
}

// session returns the session a call uses: the current one, or, when a
// reply too large ended it, a new one. A session that ended otherwise
// (the server crashed or left) fails the call at once.
func (c *serverConn) session(ctx context.Context, tool string) (*session, error) {
	closedErr := func(err error) error {
		return &Error{Server: c.srv.Name, Tool: tool, Kind: KindClosed, Message: "connection closed, " + tool + " cannot be called", Err: err}
	}
	c.mu.Lock()
	closed, ss := c.closed, c.cur
	c.mu.Unlock()
	if closed {
		return nil, closedErr(errors.New("the toolset was closed"))
	}
	ss.mu.Lock()
	broken, tooLarge := ss.broken, ss.tooLarge
	ss.mu.Unlock()
	switch {
	case tooLarge:
		return c.reopen(ctx, ss, tool)
	case broken:
		// The session's end may not be known yet: fail fast all the same.
		return nil, closedErr(mcpsdk.ErrConnectionClosed)
	}
	if err := ss.ended(); err != nil {
		if replyTooLarge(err) {
			return c.reopen(ctx, ss, tool)
		}
		return nil, closedErr(err)
	}
	return ss, nil
}

// reopen replaces old, which a reply too large ended, by a new session
// (a new process, for a command), and warns that it did.
func (c *serverConn) reopen(ctx context.Context, old *session, tool string) (*session, error) {
	c.reconnect.Lock()
	defer c.reconnect.Unlock()
	c.mu.Lock()
	closed, cur := c.closed, c.cur
	c.mu.Unlock()
	if closed {
		return nil, &Error{Server: c.srv.Name, Tool: tool, Kind: KindClosed, Message: "connection closed, " + tool + " cannot be called",
			Err: errors.New("the toolset was closed")}
	}
	if cur != old {
		return cur, nil // another call reconnected
	}
	octx := ctx
	if d := c.srv.ConnectTimeout; d > 0 {
		var cancel context.CancelFunc
		octx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	ss, err := c.open(octx)
	if err != nil {
		return nil, &Error{Server: c.srv.Name, Tool: tool, Kind: KindConnect,
			Message: "cannot reconnect after a reply too large, " + tool + " cannot be called", Err: err}
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		_ = ss.close()
		return nil, &Error{Server: c.srv.Name, Tool: tool, Kind: KindClosed, Message: "connection closed, " + tool + " cannot be called",
			Err: errors.New("the toolset was closed")}
	}
	c.cur = ss
	c.retiring.Add(1) // before close can Wait: it sees closed, or this
	c.mu.Unlock()
	// The old process may be stuck writing the rest of its reply: it is
	// stopped at once, not gracefully, and out of the call's way.
	go func() {
		defer c.retiring.Done()
		old.stop()
		_ = old.close()
	}()
	how := "a new session"
	if len(c.srv.Command) > 0 {
		how = "its process restarted"
	}
	c.warn(fmt.Sprintf("mcp server %s: reconnected (%s) after a reply larger than %d bytes", c.srv.Name, how, maxReplyBytes))
	return ss, nil
}

func (c *serverConn) warn(msg string) {
	if c.srv.Warn != nil {
		c.srv.Warn(msg)
	}
}

// ended returns why the session ended, nil if it has not.
func (ss *session) ended() error {
	select {
	case <-ss.done:
		if ss.doneErr != nil {
			return ss.doneErr
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

// agentTool is the agent tool of the MCP tool, in its prompt form.
func (rt *remoteTool) agentTool(unlisted bool) agent.Tool {
	return agent.Tool{
		Func:        rt.call,
		Signature:   rt.promptSig.String(),
		Description: rt.desc,
		Unlisted:    unlisted,
	}
}
