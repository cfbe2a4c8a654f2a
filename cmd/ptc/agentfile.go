package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/agentfile"
	"github.com/ptc-go/ptc/lisp"
)

// An agent file defines an agent for "ptc run" and "ptc mcp serve": the
// agentfile package reads it (docs/cli.md describes the format). What is
// the command line's own stays here: reading the file and those it names
// from the operating system with ptc's bounds (files.go), the defaults
// for real models, and where relative paths start.

// agentFile is an agent file read by ptc.
type agentFile struct {
	*agentfile.File
	dir string // the directory the paths it names start from
}

// readAgentFile reads and parses the agent file at path (at most
// kindAgentFile's bound).
func readAgentFile(path string) (*agentFile, []byte, error) {
	data, err := readBounded(path, kindAgentFile)
	if err != nil {
		return nil, nil, err
	}
	af, err := parseAgentFile(path, filepath.Dir(path), data)
	return af, data, err
}

// parseAgentFile parses an agent file's text. name is for messages; dir is
// where a file named in it is looked for. Errors are *agentfile.Error
// values.
func parseAgentFile(name, dir string, data []byte) (*agentFile, error) {
	f, err := agentfile.Parse(name, data)
	if err != nil {
		return nil, err
	}
	return &agentFile{File: f, dir: dir}, nil
}

// defaultMissionTimeout is ptc run's mission timeout for real models where
// the agent file does not choose: the agent package's 60 s is sized for
// its 5 s LLM calls, and would cut a mission shorter than one of the
// 2-minute calls defaultLLMTimeout allows.
const defaultMissionTimeout = 10 * time.Minute

// cliConfig is the agent's configuration with the command line's defaults
// for real models where the file does not choose (see defaultLLMTimeout).
func (af *agentFile) cliConfig() agent.Config {
	cfg := af.Config
	if !af.Has("llm-timeout") {
		cfg.LLMTimeout = defaultLLMTimeout
	}
	if !af.Has("llm-retries") {
		cfg.LLMRetry.MaxAttempts = defaultLLMAttempts
	}
	if cfg.MissionTimeout == 0 { // not set, or 0: the default
		cfg.MissionTimeout = defaultMissionTimeout
	}
	return cfg
}

// fileAgentName is the name of the agent an agent file defines: the
// file's name without its extension, orders for agents/orders.md.
func fileAgentName(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// path is a path the agent file names, relative to its directory.
func (af *agentFile) path(name string) string {
	if name != "" && !filepath.IsAbs(name) {
		name = filepath.Join(af.dir, name)
	}
	return name
}

// mcpPath is the MCP configuration file the agent file names ("" when
// none).
func (af *agentFile) mcpPath() string { return af.path(af.MCPFile()) }

// loadContext reads the context the file gives, inline or from a file
// next to it (as -c reads one); an empty map when there is none.
func (af *agentFile) loadContext() (*lisp.Map, error) {
	path := af.path(af.ContextFile())
	if path == "" {
		return af.Context()
	}
	m, err := loadContext(path)
	if err != nil {
		fail := func(msg string, cause error) error {
			return &agentfile.Error{File: af.Name, Pos: af.Pos("context"), Msg: msg, Err: cause}
		}
		var pe *os.PathError
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, fail(fmt.Sprintf("context: no file %s", path), nil)
		case errors.As(err, &pe) && (errors.Is(err, errNotRegular) || errors.Is(err, errTooLarge)):
			return nil, fail(fmt.Sprintf("context: %s: %v", path, pe.Err), pe)
		}
		return nil, err
	}
	return m, nil
}
