package workbench

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/internal/traceview"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

//go:embed ui
var uiFS embed.FS

// Options configure a workbench. The zero value serves no agent on a free
// port of 127.0.0.1, saving runs in .ptc-runs.
type Options struct {
	// Addr is host:port where Serve listens (port 0: a free one); New's
	// handler answers only requests whose Host names it or loopback with
	// its port. Default 127.0.0.1:0.
	Addr string
	// Agents are the agents the page offers, in this order.
	Agents []Agent
	// List, when set, is asked for the agents at each request instead of
	// Agents: for agents defined outside the program that may change
	// while it serves them (ptc dev's folder of agent files).
	List func(ctx context.Context) []Agent
	// Models resolves a run's model name (the page's choice, else the
	// agent's ModelName, else Model), once per run. Nil: the page cannot
	// choose a model; runs use the agent's Model.
	Models func(ctx context.Context, name string) (llm.Func, error)
	// Model is the model name of runs whose agent names none.
	Model string
	// Runs is the folder the runs are saved in, one file each (made on
	// the first run). Default .ptc-runs.
	Runs string
	// Token is the secret of the page's address; a random one (128 bits)
	// when "".
	Token string
	// Title names what the workbench serves at the top of the page (ptc
	// dev: its folder). Default "workbench".
	Title string
	// Log gets the workbench's messages: the address (Serve), a run that
	// could not be saved. Nil: os.Stderr.
	Log io.Writer
	// Name is how the workbench names itself in its messages (default
	// "workbench"; ptc dev: "ptc dev").
	Name string
	// Version is written in each saved run as the version that recorded
	// it ("ptc" field of the recording). Default "workbench".
	Version string
}

// Agent is an agent of the workbench: a Go agent (Config or Agent, with
// its Go tools, typed or not, and tools of MCP servers the program
// connected) or one read from elsewhere (Source).
type Agent struct {
	// Name identifies the agent on the page and in the saved runs; unique.
	// It may hold "/".
	Name string
	// Description says what it does (default: its Config's).
	Description string
	// Config is the agent; Agent, when set, is used instead.
	Config agent.Config
	Agent  *agent.Agent
	// Model is the model of its runs when neither the page nor ModelName
	// names one (Options.Models resolves names).
	Model llm.Func
	// ModelName is the model name of its runs when the page names none;
	// it is what the page shows. Default Options.Model.
	ModelName string
	// Input is the default input and context of its runs: a map with
	// string keys or a *lisp.Map. The page's form starts with its entries;
	// the form's values go over it.
	Input any
	// ContextSignature describes the context's types
	// (agent.Options.InputSignature).
	ContextSignature string
	// Cases are its test cases: the page runs them once each with the
	// chosen model, each case's input over Input.
	Cases []eval.Case
	// CasesError says why the cases could not be read, shown instead.
	CasesError string
	// File is where the agent comes from, shown beside its name ("" for
	// a Go agent).
	File string
	// Error, when set, is why the agent cannot run: the page shows it
	// instead of a form.
	Error error
	// MCP names where tools known only at run time come from (ptc dev: an
	// MCP configuration file); they are listed from the last saved run, or
	// on demand when Source is a ToolLister.
	MCP string
	// Source, when set, builds the agent of each run (see Source).
	Source Source
}

// Source is an agent defined outside the program, as ptc dev's agent
// files: the workbench asks it for the agent of each run, so that a run
// sees the definition as it is now. Its Agent's Config, Input and
// ContextSignature still describe it on the page.
type Source interface {
	// Mission returns what a run of the agent runs: the agent (with MCP
	// servers started for the run, closed by Close), its context, and
	// the text to record. edit, when not nil, is the page's edit of the
	// prompt and limits (only an Editor gets one): the run uses it,
	// the source stays as it is. An error that wraps ErrUnavailable (a
	// server the agent needs did not start) answers 502, another 400.
	Mission(ctx context.Context, edit *Edit) (*Mission, error)
	// Replay returns the agent of an offline replay of a saved run, from
	// the agent text the run recorded (Mission.Text); mcp says the run's
	// agent had tools of MCP servers (Mission.MCP), which a replay does
	// not start: the error then says how to replay it elsewhere. runFile
	// is the saved run's file.
	Replay(runFile, text string, mcp bool) (*agent.Agent, error)
}

// ErrUnavailable marks an error of Source.Mission that is no fault of the
// request: a server the agent needs (an MCP server) did not start.
var ErrUnavailable = errors.New("unavailable")

// Mission is a run's agent, as a Source builds it.
type Mission struct {
	Agent *agent.Agent
	// Context is the run's context before the page's input goes over it.
	Context          *lisp.Map
	ContextSignature string
	// File and Text are recorded as the run's agent: the text is what
	// Source.Replay gets back.
	File string
	Text []byte
	// MCP: the agent has tools of MCP servers started for this run.
	MCP bool
	// Tools are the names of the agent's tools, the MCP ones included
	// (saved with the run: the page lists them until the next run).
	Tools []string
	// Close, when set, is called when the run ends, before its "done" event
	// is sent (a client that saw it may start the servers again).
	Close func()
}

// Edit is the page's edit of an agent's prompt and limits: "" or 0 or a
// nil map where it changes nothing.
type Edit struct {
	Prompt   string `json:"prompt"`
	MaxTurns int    `json:"max_turns"`
	// Limits are the limits changed, by their names on the page (timeout,
	// max_steps, max_memory, …; docs/dev.md), each a JSON number or
	// string ("90s", "16MiB").
	Limits map[string]json.RawMessage `json:"limits"`
}

// Empty reports whether the edit changes nothing.
func (e *Edit) Empty() bool {
	return e == nil || e.Prompt == "" && e.MaxTurns == 0 && len(e.Limits) == 0
}

// Editor is a Source whose prompt and limits the page may edit: a run
// then uses the edit (Source.Mission gets it) and Save writes it. The
// page shows the editor only for an agent whose Source is an Editor.
type Editor interface {
	Source
	// Written is how the source writes a limit (by its Edit.Limits name),
	// "" to show the agent's value.
	Written(limit string) string
	// Save writes the edit; the next runs see it.
	Save(ctx context.Context, e Edit) error
}

// ToolLister is a Source that can list its agent's tools on demand, at a
// cost (ptc dev's MCP agents start their servers): the page offers a
// button that says so, for an agent whose tools are not known.
type ToolLister interface {
	ListTools(ctx context.Context) ([]string, error)
}

// The page's cookie, with the workbench's port after it: browsers keep
// cookies per host, not per port, so two workbenches on one machine need
// cookies of their own, or opening the second would log the first out.
const tokenCookie = "ptc_dev_token_"

// The Content-Security-Policy of the app, and of the trace page, whose
// style and script are inline.
const (
	appCSP   = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'"
	traceCSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'"
)

// Bounds of the server.
const (
	maxBody     = 1 << 20 // a JSON request body
	maxRuns     = 4       // runs at once (429 beyond)
	maxEvents   = 10_000  // events a run keeps in memory...
	maxEventMem = 8 << 20 // ...and their bytes
	// maxRunFile bounds a saved run read back.
	maxRunFile = 256 << 20
)

// Workbench is the workbench's http.Handler: the page and its JSON API.
type Workbench struct {
	opts   Options
	token  string
	cookie string
	hosts  map[string]bool
	mux    *http.ServeMux
	log    *syncWriter

	// ctx is the workbench's: the runs live under it; Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	sem    chan struct{}

	mu    sync.Mutex
	runs  map[string]*liveRun // the runs of this workbench, running or recently ended
	ended []string            // the ids of the ended runs in runs, oldest first
}

// New returns the workbench of opts, serving under ctx: its runs end
// with it, or with Close. Serve it at opts.Addr (with http.Server, or
// Serve).
func New(ctx context.Context, opts Options) (*Workbench, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Runs == "" {
		opts.Runs = ".ptc-runs"
	}
	if opts.Title == "" {
		opts.Title = "workbench"
	}
	if opts.Name == "" {
		opts.Name = "workbench"
	}
	if opts.Version == "" {
		opts.Version = "workbench"
	}
	if opts.Log == nil {
		opts.Log = os.Stderr
	}
	if opts.Token == "" {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		opts.Token = hex.EncodeToString(b)
	}
	host, port, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("workbench: address %s: %v", opts.Addr, err)
	}
	w := &Workbench{opts: opts, token: opts.Token, runs: map[string]*liveRun{},
		sem: make(chan struct{}, maxRuns), hosts: map[string]bool{}, cookie: tokenCookie + port,
		log: &syncWriter{w: opts.Log}}
	for _, h := range []string{"127.0.0.1", "localhost", "[::1]"} {
		w.hosts[h+":"+port] = true
	}
	w.hosts[net.JoinHostPort(host, port)] = true
	w.ctx, w.cancel = context.WithCancel(ctx)
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", static(uiFile("index.html"), "text/html; charset=utf-8"))
	m.HandleFunc("GET /app.js", static(uiFile("app.js"), "text/javascript; charset=utf-8"))
	m.HandleFunc("GET /style.css", static(uiFile("style.css"), "text/css; charset=utf-8"))
	// The trace page's helpers and style, which the page builds on.
	m.HandleFunc("GET /lib.js", static(traceview.Lib(), "text/javascript; charset=utf-8"))
	m.HandleFunc("GET /trace.css", static(traceview.Style(), "text/css; charset=utf-8"))
	m.HandleFunc("GET /runs/{id}/view", w.handleView)
	m.HandleFunc("GET /api/agents", w.handleAgents)
	m.HandleFunc("POST /api/agents/{name...}", w.handleAgentAction)
	m.HandleFunc("GET /api/runs", w.handleRuns)
	m.HandleFunc("POST /api/runs", w.handleStartRun)
	m.HandleFunc("GET /api/runs/{id}", w.handleRun)
	m.HandleFunc("GET /api/runs/{id}/events", w.handleEvents)
	m.HandleFunc("GET /api/runs/{id}/trace", w.handleTrace)
	m.HandleFunc("POST /api/runs/{id}/cancel", w.handleCancel)
	m.HandleFunc("POST /api/runs/{id}/replay", w.handleReplay)
	w.mux = m
	return w, nil
}

func uiFile(name string) []byte {
	b, _ := uiFS.ReadFile("ui/" + name) // embedded: it is there
	return b
}

// URL is the address to open, with the token (on 127.0.0.1 when Addr is
// every address's).
func (w *Workbench) URL() string {
	addr := w.opts.Addr
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
			addr = net.JoinHostPort("127.0.0.1", port)
		}
	}
	return "http://" + addr + "/?token=" + w.token
}

// Token is the secret the page's address carries; a client of the JSON
// API sends it as "Authorization: Bearer TOKEN".
func (w *Workbench) Token() string { return w.token }

// Close cancels the running missions and waits until they are saved.
// Runs started after it are refused.
func (w *Workbench) Close() {
	w.cancel()
	w.wg.Wait()
}

// Serve serves the workbench of opts at opts.Addr until ctx ends (then
// it cancels the running missions, waits until they are saved, and
// returns nil). It writes the address to open, with its token, to
// opts.Log, and a warning when Addr is not a loopback one.
func Serve(ctx context.Context, opts Options) error {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return fmt.Errorf("workbench: address %s: %v", opts.Addr, err)
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return err
	}
	opts.Addr = ln.Addr().String()
	w, err := New(ctx, opts)
	if err != nil {
		ln.Close()
		return err
	}
	if !IsLoopback(host) {
		w.log.printf("%s: warning: %s is not a loopback address: the server is reachable from the network (the token still guards it)\n", w.opts.Name, host)
	}
	w.log.printf("%s: %s\n", w.opts.Name, w.URL())
	return w.Serve(ctx, ln)
}

// Serve serves w on ln (which listens at its Options.Addr) until ctx
// ends or the server fails; then it closes w (Close) and the connections.
// It returns nil when ctx ended.
func (w *Workbench) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: w, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-served:
	}
	// The runs end (cancelled) and their streams with them; then the
	// connections.
	w.Close()
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	if serr := srv.Shutdown(sctx); serr != nil && !errors.Is(serr, context.DeadlineExceeded) && err == nil {
		err = serr
	}
	srv.Close()
	return err
}

// IsLoopback reports whether host (of an address) is a loopback one.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ServeHTTP checks the request (Host, origin, token) and serves it.
func (w *Workbench) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	h := rw.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", appCSP)
	h.Set("Cache-Control", "no-store")
	// DNS rebinding: a page of another site that resolves its name to
	// 127.0.0.1 sends its own Host.
	if !w.hosts[r.Host] {
		http.Error(rw, w.opts.Name+": unknown Host "+textutil.Clip(r.Host, 60), http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
			http.Error(rw, w.opts.Name+": cross-origin request refused", http.StatusForbidden)
			return
		}
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			http.Error(rw, w.opts.Name+": cross-site request refused", http.StatusForbidden)
			return
		}
	}
	if r.URL.Path == "/" && r.URL.Query().Has("token") {
		if !w.tokenOK(r.URL.Query().Get("token")) {
			w.unauthorized(rw, r)
			return
		}
		http.SetCookie(rw, &http.Cookie{Name: w.cookie, Value: w.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		http.Redirect(rw, r, "/", http.StatusSeeOther)
		return
	}
	if !w.authorized(r) {
		w.unauthorized(rw, r)
		return
	}
	w.mux.ServeHTTP(rw, r)
}

func (w *Workbench) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(w.token)) == 1
}

func (w *Workbench) authorized(r *http.Request) bool {
	if c, err := r.Cookie(w.cookie); err == nil && w.tokenOK(c.Value) {
		return true
	}
	if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && w.tokenOK(b) {
		return true
	}
	return false
}

func (w *Workbench) unauthorized(rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/" {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		rw.WriteHeader(http.StatusUnauthorized)
		io.WriteString(rw, "<!DOCTYPE html>\n<title>"+html.EscapeString(w.opts.Name)+"</title>\n<p>Open the address "+html.EscapeString(w.opts.Name)+" printed (it holds the token: http://…/?token=…).</p>\n")
		return
	}
	http.Error(rw, w.opts.Name+": unauthorized: open the address "+w.opts.Name+" printed, or send Authorization: Bearer TOKEN", http.StatusUnauthorized)
}

// static serves b, one of the package's own files.
func static(b []byte, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write(b)
	}
}

// runIDForm is the form of a run's id: its start time and 4 random hex
// digits (a replay started in the same second has other ones).
var runIDForm = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{8}-[0-9]{6}-[0-9a-f]{4}$`) })

// runID reads the {id} of the path; it writes the error when the id is
// not one (no path of the file system is built from anything else).
func runID(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("id")
	if !runIDForm().MatchString(id) {
		writeError(w, http.StatusBadRequest, "not a run id: "+textutil.Clip(id, 40))
		return "", false
	}
	return id, true
}

// writeJSON writes v with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, code int, msg string) {
	b, _ := json.Marshal(map[string]string{"error": msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

// readJSON reads a JSON request body (application/json, at most maxBody
// bytes, one value, no unknown field) into v. optional: an empty body
// leaves v as it is.
func readJSON(w http.ResponseWriter, r *http.Request, v any, optional bool) bool {
	if optional && r.ContentLength == 0 {
		return true
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "the body must be JSON, with Content-Type: application/json")
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", maxBody))
			return false
		}
		writeError(w, http.StatusBadRequest, "the body: "+textutil.Clip(err.Error(), 200))
		return false
	}
	if dec.More() {
		writeError(w, http.StatusBadRequest, "the body holds more than one JSON value")
		return false
	}
	return true
}

// syncWriter serializes writes to the log.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) printf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.w, format, args...)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func quoteShort(s string) string { return fmt.Sprintf("%q", textutil.Clip(s, 40)) }
