package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/mcp"
)

// AgentMCPConfig reads the MCP configuration an agent gets: flagPath
// (--mcp) when given, else the agent file's mcp: (an error about which
// points at that key); nil when there is none.
func AgentMCPConfig(env *base.Env, af *AgentFile, flagPath string) (*MCPConfig, error) {
	path := base.FirstNonEmpty(flagPath, af.MCPPath())
	if path == "" {
		return nil, nil
	}
	mc, err := ReadMCPConfig(path, env.Getenv)
	if err != nil {
		var pe *os.PathError
		if flagPath == "" && errors.As(err, &pe) {
			err = &agentfile.Error{File: af.Name, Pos: af.Pos("mcp"), Msg: "mcp: " + err.Error(), Err: err}
		}
		return nil, err
	}
	return mc, nil
}

// ConnectMCP connects to the servers of cfg, saying so on stderr (unless
// quiet). No servers: an empty toolset.
func ConnectMCP(ctx context.Context, cfg *MCPConfig, stderr io.Writer, quiet bool) (*mcp.Toolset, error) {
	servers := cfg.MCPServers()
	if !quiet && len(servers) > 0 {
		names := make([]string, len(servers))
		for i, s := range servers {
			names[i] = s.Name
		}
		fmt.Fprintf(stderr, "connecting to %s\n", strings.Join(names, ", "))
	}
	// A server that fails to start usually says why on its stderr: keep
	// the end of it for the error.
	tails := make([]*tailBuffer, len(servers))
	var warnMu sync.Mutex
	for i := range servers {
		if len(servers[i].Command) > 0 && servers[i].Stderr == nil {
			tails[i] = &tailBuffer{max: 2048}
			servers[i].Stderr = tails[i]
		}
		// Said even with --quiet: a reconnection is not business as usual.
		servers[i].Warn = func(msg string) {
			warnMu.Lock()
			defer warnMu.Unlock()
			fmt.Fprintf(stderr, "warning: %s\n", msg)
		}
	}
	start := time.Now()
	ts, err := mcp.Connect(ctx, servers...)
	if err != nil {
		var sb strings.Builder
		for i, t := range tails {
			if said := t.String(); said != "" {
				fmt.Fprintf(&sb, "\n  %s's stderr: %s", servers[i].Name, strings.ReplaceAll(said, "\n", "\n    "))
			}
		}
		// The *mcp.Error stays in the chain, for errors.As.
		return nil, &stderrTailError{err: err, tail: sb.String()}
	}
	if !quiet && len(servers) > 0 {
		counts := map[string]int{}
		for _, info := range ts.Infos() {
			counts[info.Server]++
		}
		var parts []string
		for _, s := range servers {
			parts = append(parts, fmt.Sprintf("%s %s", s.Name, base.Plural(counts[s.Name], "tool")))
		}
		fmt.Fprintf(stderr, "connected in %s: %s\n", time.Since(start).Round(time.Millisecond), strings.Join(parts, ", "))
	}
	return ts, nil
}

// stderrTailError is Connect's error followed by what the servers wrote
// to their stderr.
type stderrTailError struct {
	err  error
	tail string
}

func (e *stderrTailError) Error() string { return e.err.Error() + e.tail }

func (e *stderrTailError) Unwrap() error { return e.err }

// MCPTokenEnv is the variable holding the bearer token of ptc mcp serve
// --http, unless --token-env names another.
const MCPTokenEnv = "PTC_MCP_TOKEN"

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String is what was kept, trimmed; "" for a nil buffer.
func (t *tailBuffer) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(strings.ToValidUTF8(string(t.buf), "?"))
}
