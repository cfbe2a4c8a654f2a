package mcpcmd

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/load"
	"github.com/ptc-go/ptc/cmd/ptc/internal/otelcli"
	"github.com/ptc-go/ptc/mcp"
)

const mcpUsage = `usage:
  ptc mcp tools --config FILE [--json]
  ptc mcp serve --config FILE [--http ADDR [--token-env VAR]] [--model REF] [--max-listed N] [limit flags]
run "ptc mcp COMMAND -h" for the flags of a command; docs/mcp.md tells the file's format
`

// Run runs ptc mcp COMMAND.
func Run(env *base.Env, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, base.UsageLine("mcp", "missing the subcommand: tools or serve"))
		return base.ExitUsage
	}
	switch args[0] {
	case "tools":
		return base.TermWrapped(stdout, stderr, func(stdout, stderr io.Writer) int { return cmdMCPTools(env, args[1:], stdout, stderr) })
	case "serve":
		// stdout may be the protocol's: only stderr is for a terminal.
		return base.TermWrapped(io.Discard, stderr, func(_, stderr io.Writer) int { return cmdMCPServe(env, args[1:], stdin, stdout, stderr) })
	case "help", "-h", "--help":
		fmt.Fprint(stdout, mcpUsage)
		return base.ExitOK
	}
	fmt.Fprintln(stderr, base.UsageLine("mcp", fmt.Sprintf("unknown subcommand %q: tools or serve", base.ClipText(args[0], 40))))
	return base.ExitUsage
}

// describeServer says how a server is reached, for people: the command
// without its arguments, the URL without its credentials and query, as
// ${NAME} in those may have put a secret there.
func describeServer(s mcp.Server) string {
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err != nil {
			return "http"
		}
		u.User, u.RawQuery, u.Fragment = nil, "", ""
		return base.TermLine("http: " + u.String())
	}
	if len(s.Command) == 0 {
		return "stdio"
	}
	more := ""
	if len(s.Command) > 1 {
		more = " with " + base.Plural(len(s.Command)-1, "argument")
	}
	return base.TermLine("stdio: " + s.Command[0] + more)
}

func cmdMCPTools(env *base.Env, args []string, stdout, stderr io.Writer) int {
	fs := base.NewFlagSet("mcp tools", stderr, "--config FILE [--json]")
	configPath := fs.String("config", "", "the MCP configuration `FILE` (an mcpServers JSON file)")
	asJSON := fs.Bool("json", false, "print the tools as a JSON array")
	if status, ok := base.ParseNoArgs(fs, args, stdout); !ok {
		return status
	}
	if *configPath == "" {
		return base.UsageError(fs, "missing --config FILE")
	}
	cfg, err := load.ReadMCPConfig(*configPath, env.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "ptc mcp tools: %v\n", err)
		return base.ExitUsage
	}
	ctx, cancel := base.SignalContext(env)
	defer cancel()
	ts, err := load.ConnectMCP(ctx, cfg, stderr, *asJSON)
	if err != nil {
		fmt.Fprintf(stderr, "ptc mcp tools: %v\n", err)
		return base.ExitFail
	}
	defer ts.Close()
	infos := ts.Infos()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if infos == nil {
			infos = []mcp.ToolInfo{}
		}
		if err := enc.Encode(infos); err != nil {
			fmt.Fprintf(stderr, "ptc mcp tools: %v\n", err)
			return base.ExitFail
		}
		return base.ExitOK
	}
	pins := ts.Pins()
	byServer := map[string][]mcp.ToolInfo{}
	for _, info := range infos {
		byServer[info.Server] = append(byServer[info.Server], info)
	}
	for i, s := range cfg.MCPServers() {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		list := byServer[s.Name]
		fmt.Fprintf(stdout, "%s (%s): %s\n", s.Name, describeServer(s), base.Plural(len(list), "tool"))
		fmt.Fprintf(stdout, "  pin: %s\n", pins[s.Name])
		for _, info := range list {
			// The server chose the names and texts: each stays on its line.
			fmt.Fprintf(stdout, "  tool/%s %s\n", base.TermLine(info.Name), base.TermLine(info.Signature))
			if d := base.FirstLineOf(info.Description); d != "" {
				fmt.Fprintf(stdout, "      %s\n", base.TermLine(base.ClipText(d, 100)))
			}
			for _, n := range info.Notes {
				fmt.Fprintf(stdout, "      note: %s\n", base.TermLine(base.ClipText(n, 100)))
			}
		}
	}
	return base.ExitOK
}

const mcpServeHelp = `
Serves MCP tools over stdio (for a host that starts ptc as a process, as
Claude Desktop does) or, with --http, over streamable HTTP at /mcp:

  - run_program (codeMode.name in the file): runs a PTC-Lisp program that
    calls the tools of the file's mcpServers, so the host does a whole
    workflow in one call; the tools' signatures are in its description.
  - one tool per entry of the file's agents: the agent's mission, its
    signature as the tool's input and output schemas.

Nothing but the protocol goes to stdout; messages go to stderr.

Over HTTP, clients must send "Authorization: Bearer TOKEN" when
$PTC_MCP_TOKEN (or the variable --token-env names) holds a TOKEN, of 16
characters or more; without one, only a loopback address (127.0.0.1,
[::1], localhost) is served.
`

func cmdMCPServe(env *base.Env, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: ptc mcp serve --config FILE [--http ADDR [--token-env VAR]] [--model REF] [--max-listed N] [limit flags]\n%s%s\nFlags:\n", mcpServeHelp, otelcli.Help)
		fs.PrintDefaults()
	}
	configPath := fs.String("config", "", "the MCP configuration `FILE`: upstream mcpServers, agents, codeMode")
	addr := fs.String("http", "", "serve streamable HTTP on `ADDR` (as 127.0.0.1:8080) instead of stdio")
	tokenEnv := fs.String("token-env", "", "with --http: the environment `VAR` holding the bearer token clients must send (default "+load.MCPTokenEnv+")")
	model := fs.String("model", "", "the model `REF` of agents whose entry and file name none (default $PTC_MODEL)")
	maxListed := fs.Int("max-listed", 0, "tools whose signatures the code-mode tool lists (default 30; -1: all); the rest are found with tool/mcp.search")
	quiet := fs.Bool("quiet", false, "print nothing but errors")
	limits := base.LimitFlags(fs)
	fs.Lookup("timeout").Usage = base.TurnTimeoutUsage()
	if status, ok := base.ParseNoArgs(fs, args, stdout); !ok {
		return status
	}
	if *configPath == "" {
		return base.UsageError(fs, "missing --config FILE")
	}
	token, err := serveToken(env, *addr, *tokenEnv)
	if err != nil {
		fmt.Fprintf(stderr, "ptc mcp serve: %v\n", err)
		return base.ExitUsage
	}
	logf := func(format string, a ...any) {
		if !*quiet {
			fmt.Fprintf(stderr, format, a...)
		}
	}
	cfg, err := load.ReadMCPConfig(*configPath, env.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "ptc mcp serve: %v\n", err)
		return base.ExitUsage
	}
	if *maxListed != 0 {
		cfg.Code.MaxListed = *maxListed
	}
	base.OverrideLimits(&cfg.Code.Limits, *limits)

	ctx, cancel := base.SignalContext(env)
	defer cancel()
	tel, err := otelcli.Start(ctx, env, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "ptc mcp serve: %v\n", err)
		return base.ExitUsage
	}
	defer func() {
		if err := tel.Shutdown(); err != nil {
			fmt.Fprintf(stderr, "ptc mcp serve: exporting to OpenTelemetry: %v\n", err)
		}
	}()
	ts, err := load.ConnectMCP(ctx, cfg, stderr, *quiet)
	if err != nil {
		fmt.Fprintf(stderr, "ptc mcp serve: %v\n", err)
		return base.ExitFail
	}
	defer ts.Close()

	svc, served, err := buildService(ctx, env, cfg, ts, *model, tel.Observers())
	if err != nil {
		fmt.Fprintf(stderr, "ptc mcp serve: %v\n", err)
		return base.ExitUsage
	}
	if *addr == "" {
		logf("serving %s over stdio\n", strings.Join(served, ", "))
		t := &mcpsdk.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
		if err := svc.Run(ctx, t); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
			fmt.Fprintf(stderr, "ptc mcp serve: %v\n", err)
			return base.ExitFail
		}
		return base.ExitOK
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "ptc mcp serve: %v\n", err)
		return base.ExitFail
	}
	mux := http.NewServeMux()
	auth := ""
	if token != "" {
		mux.Handle("/mcp", requireBearer(token, svc.Handler()))
		auth = " (clients send the bearer token)"
	} else {
		mux.Handle("/mcp", svc.Handler())
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	logf("serving %s at http://%s/mcp%s\n", strings.Join(served, ", "), ln.Addr(), auth)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		fmt.Fprintf(stderr, "ptc mcp serve: %v\n", err)
		return base.ExitFail
	case <-ctx.Done():
	}
	shut, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	_ = srv.Shutdown(shut)
	logf("stopped\n")
	return base.ExitOK
}

// minTokenLen is the shortest bearer token accepted.
const minTokenLen = 16

// serveToken returns the bearer token HTTP clients must send ("": none),
// and refuses to serve a non-loopback address without one: anyone who
// reaches the server runs programs with its tools, and agents with their
// models and keys.
func serveToken(env *base.Env, addr, tokenEnv string) (string, error) {
	if addr == "" {
		if tokenEnv != "" {
			return "", errors.New("--token-env is for --http")
		}
		return "", nil
	}
	name := tokenEnv
	if name == "" {
		name = load.MCPTokenEnv
	}
	token := env.Getenv(name)
	switch {
	case tokenEnv != "" && token == "":
		return "", fmt.Errorf("--token-env %s: $%s is not set", name, name)
	case token != "" && len(token) < minTokenLen:
		return "", fmt.Errorf("$%s holds a token of %d characters: use %d or more (openssl rand -hex 32 makes one)", name, len(token), minTokenLen)
	case token == "" && !LoopbackAddr(addr):
		return "", fmt.Errorf("refusing to serve %s without a token: anyone who reaches it could run programs with the tools; "+
			"set $%s (or the variable --token-env names) to a secret that clients send as \"Authorization: Bearer <token>\", "+
			"or serve on a loopback address (127.0.0.1:PORT)", addr, load.MCPTokenEnv)
	}
	return token, nil
}

// LoopbackAddr reports whether addr (host:port) listens on loopback only.
// An empty host listens on every interface; a host name other than
// localhost may resolve anywhere.
func LoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// requireBearer lets through the requests that carry the token
// ("Authorization: Bearer <token>"), compared in constant time (of
// SHA-256 digests, so that not even its length leaks); others get 401.
func requireBearer(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		got := sha256.Sum256([]byte(strings.TrimSpace(cred)))
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ptc"`)
			http.Error(w, "unauthorized: send the server's token as \"Authorization: Bearer <token>\"", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// buildService makes the MCP service cfg describes: the code-mode tool
// over the upstream tools (when there are any and it is not disabled) and
// one tool per agent. served names what it serves, for the log.
func buildService(ctx context.Context, env *base.Env, cfg *load.MCPConfig, ts *mcp.Toolset, model string, obs []agent.Observer) (*mcp.Service, []string, error) {
	v := env.Version()
	svc := mcp.NewService(mcp.ServiceOptions{Name: "ptc", Version: v.Version})
	tools := ts.Tools(cfg.Code.MaxListed)
	var served []string
	if !cfg.Code.Disabled && len(ts.Infos()) > 0 {
		err := svc.AddCodeMode(tools, mcp.CodeModeOptions{
			Name: cfg.Code.Name, Description: cfg.Code.Description,
			Limits: cfg.Code.Limits, MaxListed: cfg.Code.MaxListed,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("%s: codeMode: %v", cfg.File, err)
		}
		name := cfg.Code.Name
		if name == "" {
			name = "run_program"
		}
		served = append(served, fmt.Sprintf("%s (over %s)", name, base.Plural(len(ts.Infos()), "tool")))
	}
	for _, entry := range cfg.Agents {
		af, _, err := load.ReadAgentFile(entry.File)
		if err != nil {
			return nil, nil, err
		}
		acfg := af.CLIConfig()
		acfg.Name = entry.Name // in its spans (gen_ai.agent.name), events and traces
		if entry.Description != "" {
			acfg.Description = entry.Description // the MCP tool's description
		}
		if entry.UpstreamTools {
			acfg.Tools = tools
		}
		a, err := af.NewAgent(acfg)
		if err != nil {
			return nil, nil, err
		}
		ref := base.FirstNonEmpty(entry.Model, af.Model, model, env.Getenv("PTC_MODEL"))
		if ref == "" {
			return nil, nil, fmt.Errorf("agent %s: no model: give it in the entry (\"model\"), in its file (model:), with --model or $PTC_MODEL", entry.Name)
		}
		m, err := env.OpenModel(ctx, ref)
		if err != nil {
			return nil, nil, fmt.Errorf("agent %s: %v", entry.Name, err)
		}
		given, err := af.LoadContext()
		if err != nil {
			return nil, nil, err
		}
		opts := agent.Options{LLM: m, InputSignature: af.InputSignature, Observers: obs}
		if given.Len() > 0 {
			opts.Input = given
		}
		if err := svc.AddAgent(entry.Name, a, opts); err != nil {
			return nil, nil, fmt.Errorf("agent %s (%s): %v", entry.Name, entry.File, err)
		}
		served = append(served, fmt.Sprintf("%s (%s, %s)", entry.Name, af.Name, ref))
	}
	if len(served) == 0 {
		return nil, nil, fmt.Errorf("%s: nothing to serve: the file has no agents, and no mcpServers tools for the code-mode tool", cfg.File)
	}
	return svc, served, nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
