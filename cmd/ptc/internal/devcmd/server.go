package devcmd

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/load"
	"github.com/ptc-go/ptc/cmd/ptc/internal/testcmd"
	"github.com/ptc-go/ptc/workbench"
)

// ptc dev is the workbench (package workbench) over a folder of agent
// files (docs/dev.md): this adapter reads the files, resolves models by
// name, starts an agent's MCP servers for each of its runs, edits and
// saves the prompt and limits, and says how to replay a run that had MCP
// tools. The page, the runs, the history and the security are the
// workbench's.

// Options are the options of a dev server.
type Options struct {
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

// devSource lists the agent files of the folder as the workbench's
// agents.
type devSource struct {
	env  *base.Env
	opts Options
	log  *base.SyncWriter
}

// NewServer returns the workbench of ptc dev over opts.Dir, serving
// under env.Ctx.
func NewServer(env *base.Env, opts Options) (*workbench.Workbench, error) {
	if opts.Dir == "" {
		opts.Dir = "."
	}
	if opts.Runs == "" {
		opts.Runs = filepath.Join(opts.Dir, ".ptc-runs")
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	src := &devSource{env: env, opts: opts, log: &base.SyncWriter{W: opts.Log}}
	return workbench.New(env.Ctx, workbench.Options{
		Addr:    opts.Addr,
		List:    src.list,
		Models:  env.OpenModel,
		Model:   opts.Model,
		Runs:    opts.Runs,
		Token:   opts.Token,
		Title:   opts.Dir,
		Name:    "ptc dev",
		Log:     src.log,
		Version: env.Version().String(),
	})
}

// list reads the agent files as the workbench's agents.
func (s *devSource) list(context.Context) []workbench.Agent {
	var out []workbench.Agent
	for _, f := range s.agentFiles() {
		out = append(out, s.describe(f))
	}
	return out
}

// relFile is the agent file's path below the folder, / separated.
func (s *devSource) relFile(f devAgentFile) string {
	rel, err := filepath.Rel(s.opts.Dir, f.path)
	if err != nil {
		return filepath.Base(f.path)
	}
	return filepath.ToSlash(rel)
}

// describe reads the agent file f.
func (s *devSource) describe(f devAgentFile) workbench.Agent {
	a := workbench.Agent{Name: f.name, File: s.relFile(f)}
	af, text, err := load.ReadAgentFile(f.path)
	if err != nil {
		a.Error = err
		return a
	}
	a.Source = &devFile{s: s, f: f, text: text}
	a.Description, a.ContextSignature = af.Config.Description, af.InputSignature
	// The model a run uses when the page names none: --model (the
	// workbench's Model), else the file's model:, else $PTC_MODEL, as for
	// ptc run.
	a.ModelName = base.FirstNonEmpty(af.Model, s.env.Getenv("PTC_MODEL"))
	a.MCP = base.FirstNonEmpty(s.opts.MCP, af.MCPFile())
	ctxMap, err := af.LoadContext()
	if err != nil {
		a.Error = err
		return a
	}
	a.Input = ctxMap
	cfg := af.CLIConfig()
	s.env.AddTools(&cfg)
	a.Config = cfg
	if a.Agent, err = af.NewAgent(cfg); err != nil {
		a.Error = err
		return a
	}
	if testcmd.HasCases(af) {
		cases, err := testcmd.LoadCases(af, f.path)
		if err != nil {
			a.CasesError = err.Error()
		}
		a.Cases = cases
	}
	return a
}

// devFile is an agent file as the workbench's Source: an Editor (the
// prompt and limits) and a ToolLister (its MCP servers').
type devFile struct {
	s    *devSource
	f    devAgentFile
	text []byte // as listed
}

// Mission reads the file again, applies the page's edit to its text (so
// that the recording holds the text that ran; the file stays as it is),
// and starts the agent's MCP servers for the run.
func (d *devFile) Mission(ctx context.Context, edit *workbench.Edit) (*workbench.Mission, error) {
	text, err := base.ReadBounded(d.f.path, base.KindAgentFile)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(d.f.path)
	var af *load.AgentFile
	if edit.Empty() {
		af, err = load.ParseAgentFile(d.f.path, dir, text)
	} else {
		text, af, err = (*devEdit)(edit).apply(d.f.path, dir, text)
	}
	if err != nil {
		return nil, err
	}
	m := &workbench.Mission{File: filepath.Base(d.f.path), Text: text, ContextSignature: af.InputSignature}
	cfg := af.CLIConfig()
	mc, err := load.AgentMCPConfig(d.s.env, af, d.s.opts.MCP)
	if err != nil {
		return nil, err
	}
	if mc != nil {
		ts, err := load.ConnectMCP(ctx, mc, d.s.log, true)
		if err != nil {
			return nil, devUnavailable{err}
		}
		m.Close = func() { _ = ts.Close() }
		cfg.Tools = ts.Tools(0)
		m.MCP = true
	}
	fail := func(err error) (*workbench.Mission, error) {
		if m.Close != nil {
			m.Close()
		}
		return nil, err
	}
	d.s.env.AddTools(&cfg)
	if m.Agent, err = af.NewAgent(cfg); err != nil {
		return fail(err)
	}
	if m.Context, err = af.LoadContext(); err != nil {
		return fail(err)
	}
	return m, nil
}

// Replay reads the recorded text as the agent file (its mcp: and context
// file relative to the agent file's folder). A replay starts no MCP
// server: for a run that had MCP tools the error gives the command that
// replays it.
func (d *devFile) Replay(runFile, text string, hadMCP bool) (*agent.Agent, error) {
	id := strings.TrimSuffix(filepath.Base(runFile), ".json")
	af, err := load.ParseAgentFile(filepath.Base(d.f.path)+" (recorded in "+id+")", filepath.Dir(d.f.path), []byte(text))
	if err != nil && !hadMCP {
		return nil, err
	}
	if hadMCP {
		// The agent's mcp: is relative to the agent file, not to the
		// recording: the command names the configuration it resolves to.
		how := "--replay-mcp"
		if err == nil && af.MCPPath() != "" {
			how = "--mcp " + shellQuote(af.MCPPath())
		}
		return nil, errors.New("run " + id + " had MCP tools: ptc dev replays start no MCP server (run ptc run --replay " +
			shellQuote(runFile) + " " + how + ")")
	}
	if af.Has("mcp") {
		return nil, errors.New("the agent has mcp: ptc dev replays start no MCP server")
	}
	cfg := af.CLIConfig()
	d.s.env.AddTools(&cfg)
	return af.NewAgent(cfg)
}

// Written is a limit's value as the file writes it (2s, 16MiB), not as
// Go prints it.
func (d *devFile) Written(limit string) string {
	key, ok := devLimitKeys[limit]
	if !ok {
		return ""
	}
	return newTextEditor(d.text).limit(key)
}

// Save writes the edited text back to the agent file, atomically, after
// parsing it.
func (d *devFile) Save(_ context.Context, e workbench.Edit) error {
	text, err := base.ReadBounded(d.f.path, base.KindAgentFile)
	if err != nil {
		return err
	}
	out, _, err := (*devEdit)(&e).apply(d.f.path, filepath.Dir(d.f.path), text)
	if err != nil {
		return err
	}
	st, err := os.Stat(d.f.path)
	if err != nil {
		return err
	}
	return base.WriteFileAtomic(d.f.path, out, st.Mode().Perm())
}

// ListTools starts the agent's MCP servers to list their tools (with the
// in-process ones), and stops them.
func (d *devFile) ListTools(ctx context.Context) ([]string, error) {
	af, _, err := load.ReadAgentFile(d.f.path)
	if err != nil {
		return nil, err
	}
	cfg := af.CLIConfig()
	mc, err := load.AgentMCPConfig(d.s.env, af, d.s.opts.MCP)
	if err != nil {
		return nil, err
	}
	if mc != nil {
		ts, err := load.ConnectMCP(ctx, mc, d.s.log, true)
		if err != nil {
			return nil, err
		}
		defer ts.Close()
		cfg.Tools = ts.Tools(0)
	}
	d.s.env.AddTools(&cfg)
	a, err := af.NewAgent(cfg)
	if err != nil {
		return nil, err
	}
	return a.ToolNames(), nil
}

// shellQuote quotes a path for a command a person copies into a shell:
// as it is when it holds only safe characters, else in single quotes.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:,=@", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// devUnavailable is an MCP server that did not start: the workbench
// answers 502, the message as it is.
type devUnavailable struct{ err error }

func (e devUnavailable) Error() string   { return e.err.Error() }
func (e devUnavailable) Unwrap() []error { return []error{e.err, workbench.ErrUnavailable} }
