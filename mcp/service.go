package mcp

import (
	"context"
	"fmt"
	"net/http"
	"runtime/debug"
	"sync"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServiceOptions describe an MCP server made of ptc-go agents and tools.
type ServiceOptions struct {
	// Name is the server's name in the initialize handshake. Default "ptc".
	Name string
	// Version is the server's version. Default: the version of the
	// github.com/ptc-go/ptc module in the binary's build information, or
	// "dev".
	Version string
	// Instructions are sent to the client in the handshake, for its model:
	// when to use the server's tools.
	Instructions string
}

// Service serves agents, Go tools and code-mode tools over MCP, on the
// official SDK. Build one with NewService, add tools with AddAgent,
// AddTools and AddCodeMode, and serve it with Run (stdio, or any SDK
// transport) or Handler (streamable HTTP). Tools may be added while the
// service runs: connected clients are notified. A Service is safe for
// concurrent use; calls run concurrently.
type Service struct {
	srv *mcpsdk.Server

	mu    sync.Mutex
	names map[string]string // tool name -> what serves it, for messages

	handlerOnce sync.Once
	handler     http.Handler
}

// NewService returns a service with no tools.
func NewService(opts ServiceOptions) *Service {
	name := opts.Name
	if name == "" {
		name = "ptc"
	}
	version := opts.Version
	if version == "" {
		version = moduleVersion()
	}
	srv := mcpsdk.NewServer(&mcpsdk.Implementation{Name: name, Version: version},
		&mcpsdk.ServerOptions{Instructions: opts.Instructions})
	return &Service{srv: srv, names: map[string]string{}}
}

// modulePath is the path of this module, whose version NewService reports.
const modulePath = "github.com/ptc-go/ptc"

// moduleVersion returns the version of this module in the running binary,
// or "dev" (a build from a work tree, a test).
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := ""
	if bi.Main.Path == modulePath {
		v = bi.Main.Version
	} else {
		for _, d := range bi.Deps {
			if d.Path == modulePath {
				v = d.Version
				if d.Replace != nil && d.Replace.Version != "" {
					v = d.Replace.Version
				}
				break
			}
		}
	}
	if v == "" || v == "(devel)" {
		return "dev"
	}
	return v
}

// Run serves the service on transport t until ctx is done or the client
// leaves: a client that closes the connection ends Run with a nil error
// (or the transport's), a cancelled ctx with ctx.Err(). For a server
// launched by an MCP host over stdio, t is &mcpsdk.StdioTransport{}. Run
// serves one session; for several at once, use Handler.
func (s *Service) Run(ctx context.Context, t mcpsdk.Transport) error {
	if t == nil {
		return fmt.Errorf("mcp: Run: nil transport")
	}
	return s.srv.Run(ctx, t)
}

// Handler returns an http.Handler serving the service over MCP's
// streamable HTTP transport, any number of sessions at once. Mount it
// where the clients are told to connect ("/mcp"). Calls to Handler return
// the same handler.
func (s *Service) Handler() http.Handler {
	s.handlerOnce.Do(func() {
		s.handler = mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s.srv }, nil)
	})
	return s.handler
}

// SDK returns the underlying SDK server: to add prompts or resources, or
// middleware. Tools added there bypass the checks of AddAgent and the
// others, such as the refusal of duplicate names.
func (s *Service) SDK() *mcpsdk.Server { return s.srv }

// reserve claims tool names for what serves them ("an agent", "a Go
// tool"...): a name already served is an error, and then none is claimed.
func (s *Service) reserve(kind string, names ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	for _, n := range names {
		if err := validName(n); err != nil {
			return err
		}
		if prev, ok := s.names[n]; ok {
			return fmt.Errorf("mcp: the service already has a tool %q (%s)", n, prev)
		}
		if seen[n] {
			return fmt.Errorf("mcp: tool name %q given twice", n)
		}
		seen[n] = true
	}
	for _, n := range names {
		s.names[n] = kind
	}
	return nil
}

// release gives back names reserve claimed, when adding the tools failed.
func (s *Service) release(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		delete(s.names, n)
	}
}

// validName checks a name against MCP's rules for tool names: 1 to 128
// letters, digits, _, - and dots.
func validName(name string) error {
	if name == "" {
		return fmt.Errorf("mcp: a tool needs a name")
	}
	if len(name) > 128 {
		return fmt.Errorf("mcp: tool name %.20q... is longer than MCP's 128 characters", name)
	}
	for _, r := range name {
		ok := (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') || r == '_' || r == '-' || r == '.'
		if !ok {
			return fmt.Errorf("mcp: tool name %q has %q, which MCP tool names cannot have (letters, digits, _, - and .)", name, r)
		}
	}
	return nil
}
