package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/tracecmd"
)

// The server of "ptc dev": a local web app over the agent files of a
// folder (docs/cli.md). The page (devui) is the binary's own; the JSON API
// below it runs agents, saves every run as a recording in the runs folder
// and reads the history back from those files. Everything it returns is
// redacted as ptc run shows it without --unredacted.

//go:embed devui
var devUIFS embed.FS

// devTokenCookie, with the server's port after it, names the cookie that
// holds the token once the page was opened with it. Browsers keep cookies
// per host, not per port: two ptc dev servers on one machine need cookies
// of their own, or opening the second would log the first out.
const devTokenCookie = "ptc_dev_token_"

// The Content-Security-Policy of the app, and of the trace page, whose
// style and script are inline.
const (
	devAppCSP   = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'"
	devTraceCSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'"
)

// Bounds of the server.
const (
	devMaxBody     = 1 << 20 // a JSON request body
	devMaxRuns     = 4       // runs at once (429 beyond)
	devMaxEvents   = 10_000  // events a run keeps in memory...
	devMaxEventMem = 8 << 20 // ...and their bytes
)

// devOptions are the options of a dev server.
type devOptions struct {
	// Dir is the folder of agent files, as given; Runs the folder of the
	// recordings (default Dir/.ptc-runs).
	Dir, Runs string
	// Addr is the address the server listens on (host:port, the port
	// known): the Host headers it answers.
	Addr string
	// Model is --model; MCP is --mcp.
	Model, MCP string
	// Token is the secret of the URL; a random one when "".
	Token string
	// Log gets the MCP servers' messages (io.Discard when nil).
	Log io.Writer
}

// devServer is the server of ptc dev: an http.Handler.
type devServer struct {
	env   *base.Env
	opts  devOptions
	token string
	// cookie names the token's cookie: devTokenCookie and the port.
	cookie string
	hosts  map[string]bool
	mux    *http.ServeMux
	log    *base.SyncWriter

	// ctx is the server's: the runs live under it; shutdown cancels it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	sem    chan struct{}

	mu    sync.Mutex
	runs  map[string]*devRun // the runs of this server, running or recently ended
	ended []string           // the ids of the ended runs in runs, oldest first
}

// newDevServer returns the server of opts. Shutdown ends its runs.
func newDevServer(env *base.Env, opts devOptions) (*devServer, error) {
	if opts.Dir == "" {
		opts.Dir = "."
	}
	if opts.Runs == "" {
		opts.Runs = filepath.Join(opts.Dir, ".ptc-runs")
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
		return nil, fmt.Errorf("--addr %s: %v", opts.Addr, err)
	}
	s := &devServer{env: env, opts: opts, token: opts.Token, runs: map[string]*devRun{},
		sem: make(chan struct{}, devMaxRuns), hosts: map[string]bool{}, cookie: devTokenCookie + port}
	for _, h := range []string{"127.0.0.1", "localhost", "[::1]"} {
		s.hosts[h+":"+port] = true
	}
	s.hosts[net.JoinHostPort(host, port)] = true
	w := opts.Log
	if w == nil {
		w = io.Discard
	}
	s.log = &base.SyncWriter{W: w}
	s.ctx, s.cancel = context.WithCancel(env.Ctx)
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", static(devUIFS, "devui/index.html", "text/html; charset=utf-8"))
	m.HandleFunc("GET /app.js", static(devUIFS, "devui/app.js", "text/javascript; charset=utf-8"))
	m.HandleFunc("GET /style.css", static(devUIFS, "devui/style.css", "text/css; charset=utf-8"))
	// The trace page's helpers and style, which the page builds on.
	m.HandleFunc("GET /lib.js", static(tracecmd.ViewFS, "traceview/lib.js", "text/javascript; charset=utf-8"))
	m.HandleFunc("GET /trace.css", static(tracecmd.ViewFS, "traceview/style.css", "text/css; charset=utf-8"))
	m.HandleFunc("GET /runs/{id}/view", s.handleView)
	m.HandleFunc("GET /api/agents", s.handleAgents)
	m.HandleFunc("POST /api/agents/{name...}", s.handleAgentAction)
	m.HandleFunc("GET /api/runs", s.handleRuns)
	m.HandleFunc("POST /api/runs", s.handleStartRun)
	m.HandleFunc("GET /api/runs/{id}", s.handleRun)
	m.HandleFunc("GET /api/runs/{id}/events", s.handleEvents)
	m.HandleFunc("GET /api/runs/{id}/trace", s.handleTrace)
	m.HandleFunc("POST /api/runs/{id}/cancel", s.handleCancel)
	m.HandleFunc("POST /api/runs/{id}/replay", s.handleReplay)
	s.mux = m
	return s, nil
}

// URL is the address to open, with the token: on 127.0.0.1 when the
// server listens on every address.
func (s *devServer) URL() string {
	addr := s.opts.Addr
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
			addr = net.JoinHostPort("127.0.0.1", port)
		}
	}
	return "http://" + addr + "/?token=" + s.token
}

// shutdown cancels the runs and waits for them (and their recordings).
func (s *devServer) shutdown() {
	s.cancel()
	s.wg.Wait()
}

// ServeHTTP checks the request (Host, origin, token) and serves it.
func (s *devServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", devAppCSP)
	h.Set("Cache-Control", "no-store")
	// DNS rebinding: a page of another site that resolves its name to
	// 127.0.0.1 sends its own Host.
	if !s.hosts[r.Host] {
		http.Error(w, "ptc dev: unknown Host "+base.ClipText(r.Host, 60), http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
			http.Error(w, "ptc dev: cross-origin request refused", http.StatusForbidden)
			return
		}
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			http.Error(w, "ptc dev: cross-site request refused", http.StatusForbidden)
			return
		}
	}
	if r.URL.Path == "/" && r.URL.Query().Has("token") {
		if !s.tokenOK(r.URL.Query().Get("token")) {
			s.unauthorized(w, r)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: s.cookie, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if !s.authorized(r) {
		s.unauthorized(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *devServer) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

func (s *devServer) authorized(r *http.Request) bool {
	if c, err := r.Cookie(s.cookie); err == nil && s.tokenOK(c.Value) {
		return true
	}
	if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && s.tokenOK(b) {
		return true
	}
	return false
}

func (s *devServer) unauthorized(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "<!DOCTYPE html>\n<title>ptc dev</title>\n<p>Open the address ptc dev printed (it holds the token: http://…/?token=…).</p>\n")
		return
	}
	http.Error(w, "ptc dev: unauthorized: open the address ptc dev printed, or send Authorization: Bearer TOKEN", http.StatusUnauthorized)
}

// static serves the file name of fsys, one of the binary's own.
func static(fsys embed.FS, name, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := fsys.ReadFile(name)
		if err != nil {
			http.Error(w, "ptc dev: "+name+" is not in this binary", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.Write(b)
	}
}

// devRunID is the form of a run's id: its start time and 4 random hex
// digits (a replay started in the same second has other ones).
var devRunID = regexp.MustCompile(`^[0-9]{8}-[0-9]{6}-[0-9a-f]{4}$`)

// runID reads the {id} of the path; it writes the error when the id is
// not one (no path of the file system is built from anything else).
func runID(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("id")
	if !devRunID.MatchString(id) {
		writeError(w, http.StatusBadRequest, "not a run id: "+base.ClipText(id, 40))
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

// readJSON reads a JSON request body (application/json, at most
// devMaxBody bytes, one value, no unknown field) into v. optional: an
// empty body leaves v as it is.
func readJSON(w http.ResponseWriter, r *http.Request, v any, optional bool) bool {
	if optional && r.ContentLength == 0 {
		return true
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "the body must be JSON, with Content-Type: application/json")
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, devMaxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", devMaxBody))
			return false
		}
		writeError(w, http.StatusBadRequest, "the body: "+base.ClipText(err.Error(), 200))
		return false
	}
	if dec.More() {
		writeError(w, http.StatusBadRequest, "the body holds more than one JSON value")
		return false
	}
	return true
}

// isLoopback reports whether the host of an address is a loopback one.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
