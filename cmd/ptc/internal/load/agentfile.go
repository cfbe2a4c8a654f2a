package load

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/lisp"
)

// An agent file defines an agent for "ptc run" and "ptc mcp serve": the
// agentfile package reads it (docs/cli.md describes the format). What is
// the command line's own stays here: reading the file and those it names
// from the operating system with ptc's bounds (base.ReadBounded), the defaults
// for real models, and where relative paths start.

// AgentFile is an agent file read by ptc.
type AgentFile struct {
	*agentfile.File
	dir string // the directory the paths it names start from
}

// ReadAgentFile reads and parses the agent file at path (at most
// base.KindAgentFile's bound).
func ReadAgentFile(path string) (*AgentFile, []byte, error) {
	data, err := base.ReadBounded(path, base.KindAgentFile)
	if err != nil {
		return nil, nil, err
	}
	af, err := ParseAgentFile(path, filepath.Dir(path), data)
	return af, data, err
}

// ParseAgentFile parses an agent file's text. name is for messages; dir is
// where a file named in it is looked for. Errors are *agentfile.Error
// values.
func ParseAgentFile(name, dir string, data []byte) (*AgentFile, error) {
	f, err := agentfile.Parse(name, data)
	if err != nil {
		return nil, err
	}
	return &AgentFile{File: f, dir: dir}, nil
}

// DefaultMissionTimeout is ptc run's mission timeout for real models where
// the agent file does not choose: the agent package's 60 s is sized for
// its 5 s LLM calls, and would cut a mission shorter than one of the
// 2-minute calls DefaultLLMTimeout allows.
const DefaultMissionTimeout = 10 * time.Minute

// CLIConfig is the agent's configuration with the command line's defaults
// for real models where the file does not choose (see DefaultLLMTimeout).
func (af *AgentFile) CLIConfig() agent.Config {
	cfg := af.Config
	if !af.Has("llm-timeout") {
		cfg.LLMTimeout = DefaultLLMTimeout
	}
	if !af.Has("llm-retries") {
		cfg.LLMRetry.MaxAttempts = DefaultLLMAttempts
	}
	if cfg.MissionTimeout == 0 { // not set, or 0: the default
		cfg.MissionTimeout = DefaultMissionTimeout
	}
	return cfg
}

// AgentName is the name of the agent an agent file defines: the
// file's name without its extension, orders for agents/orders.md.
func AgentName(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// Path is a path the agent file names, relative to its directory.
func (af *AgentFile) Path(name string) string {
	if name != "" && !filepath.IsAbs(name) {
		name = filepath.Join(af.dir, name)
	}
	return name
}

// MCPPath is the MCP configuration file the agent file names ("" when
// none).
func (af *AgentFile) MCPPath() string { return af.Path(af.MCPFile()) }

// LoadContext reads the context the file gives, inline or from a file
// next to it (as -c reads one); an empty map when there is none.
func (af *AgentFile) LoadContext() (*lisp.Map, error) {
	path := af.Path(af.ContextFile())
	if path == "" {
		return af.Context()
	}
	m, err := ReadContext(path)
	if err != nil {
		fail := func(msg string, cause error) error {
			return &agentfile.Error{File: af.Name, Pos: af.Pos("context"), Msg: msg, Err: cause}
		}
		var pe *os.PathError
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, fail(fmt.Sprintf("context: no file %s", path), nil)
		case errors.As(err, &pe) && (errors.Is(err, base.ErrNotRegular) || errors.Is(err, base.ErrTooLarge)):
			return nil, fail(fmt.Sprintf("context: %s: %v", path, pe.Err), pe)
		}
		return nil, err
	}
	return m, nil
}

// The defaults of ptc run for real models, where the agent file does not
// choose: the agent's own defaults (an LLM call bounded by the turn's 5 s,
// no retries) suit scripted models in tests, not providers.
const (
	DefaultLLMTimeout  = 2 * time.Minute
	DefaultLLMAttempts = 3 // two retries of rate limits, timeouts, server errors
)
