package base

import (
	"context"
	"maps"
	"os"
	"runtime/debug"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
)

// Env is what commands get from the process besides their arguments
// and streams: the context missions run under, the environment, the way
// models are opened and the build information. Tests pass their own (a
// scripted model instead of a provider, a context they cancel).
type Env struct {
	Ctx       context.Context
	Getenv    func(string) string
	OpenModel func(ctx context.Context, ref string) (llm.Func, error)
	BuildInfo func() (*debug.BuildInfo, bool)
	// Interrupts: a SIGINT (Ctrl-C) cancels a running mission; a second
	// one ends the process. Only the process's own environment sets it.
	Interrupts bool
	// Tools are Go tools every agent of ptc run gets besides its MCP
	// tools: the tests' way to give an agent file tools in process.
	Tools map[string]agent.Tool
}

// ProcessEnv is the environment of the ptc process.
func ProcessEnv() *Env {
	return &Env{
		Ctx:        context.Background(),
		Getenv:     os.Getenv,
		OpenModel:  OpenModel,
		BuildInfo:  debug.ReadBuildInfo,
		Interrupts: true,
	}
}

// Exit statuses.
const (
	ExitOK    = 0
	ExitFail  = 1
	ExitUsage = 2
)

// ExitInterrupted is the exit status of a mission cancelled by Ctrl-C, as
// shells report a process ended by SIGINT.
const ExitInterrupted = 130

// AddTools gives cfg the in-process tools of env (the tests') besides its
// own.
func (env *Env) AddTools(cfg *agent.Config) {
	if len(env.Tools) == 0 {
		return
	}
	cfg.Tools = maps.Clone(cfg.Tools)
	if cfg.Tools == nil {
		cfg.Tools = map[string]agent.Tool{}
	}
	maps.Copy(cfg.Tools, env.Tools)
}
