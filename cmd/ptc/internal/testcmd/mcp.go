package testcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/cmd/ptc/internal/base"
	"github.com/ptc-go/ptc/cmd/ptc/internal/load"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/internal/evalrec"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/mcp"
)

// The MCP tools of an agent file, as ptc test --record saw them, for
// --replay to give the agent the same tools without their servers: the
// file DIR/mcp/TASK.json. The tools' results are in each run's recording
// (its recorded_tool_calls, trace.Recording.ToolCalls).
const (
	ToolsFormat     = "ptc-eval-mcp-tools"
	mcpToolsVersion = 1
	// maxRecordedTools bounds the tools of a recording.
	maxRecordedTools = 10_000
)

// kindMCPTools bounds a recording of MCP tools: the listings of several
// servers (16 MiB each, mcp.Limits.MaxListBytes).
var kindMCPTools = base.FileKind{Name: "a recording of MCP tools", Limit: evalrec.MaxSize}

// ToolsRecording is the file.
type ToolsRecording struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Task is the task (the agent file's name) whose tools these are.
	Task string `json:"task"`
	// Agent and MCP are the agent file and its MCP configuration, as
	// they were given, for people reading the recording.
	Agent string         `json:"agent,omitempty"`
	MCP   string         `json:"mcp,omitempty"`
	Tools []RecordedTool `json:"tools"`
}

// RecordedTool is an MCP tool as the agent had it (agent.Tool, which
// mcp.Toolset.Tools made): what a replay gives it. Server says where it
// came from.
type RecordedTool struct {
	Name              string            `json:"name"`
	Signature         string            `json:"signature,omitempty"`
	Description       string            `json:"description,omitempty"`
	FieldDescriptions map[string]string `json:"field_descriptions,omitempty"`
	Unlisted          bool              `json:"unlisted,omitempty"`
	// Server is the tool as its server listed it, with the firewall the
	// configuration gave it (nil for mcp.search, which ptc makes): for
	// people reading the recording; a replay uses the fields above.
	Server *recordedServerTool `json:"server,omitempty"`
}

type recordedServerTool struct {
	Server       string          `json:"server"`
	Tool         string          `json:"tool"`
	InputSchema  json.RawMessage `json:"input_schema,omitempty"`
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	Firewall     []string        `json:"firewall,omitempty"`
}

// mcpToolsPath is where the recording under dir keeps the MCP tools of a
// task.
func mcpToolsPath(dir, task string) string {
	return filepath.Join(dir, "mcp", evalrec.SafeName(task)+".json")
}

// mcpNotRecorded is the error a replayed tool call gets when the
// recording has no result for it.
func mcpNotRecorded(dir string) error {
	return fmt.Errorf("not recorded: the agent or its tools changed since %s was recorded (record it again)", dir)
}

// mcpTools gives the agent files with mcp: their tools (AddMCPTools). On
// failure it says why and returns the exit status.
func (t *Command) mcpTools(tasks []eval.Task) int {
	for i := range tasks {
		if err := t.AddMCPTools(&tasks[i]); err != nil {
			t.Stderr.Printf("ptc test: %v\n", err)
			return base.ExitUsage
		}
	}
	return base.ExitOK
}

// AddMCPTools gives a task whose agent file has mcp: its tools: the
// servers', recorded with --record; with --replay the recorded ones,
// which answer from each run's recording (no server started, no
// connection opened), unless --replay-mcp.
func (t *Command) AddMCPTools(task *eval.Task) error {
	f := t.Flags
	src := t.MCP[task.Name]
	if src.Config == "" {
		return nil
	}
	var tools map[string]agent.Tool
	if f.replay != "" && !f.replayMCP {
		var err error
		if tools, err = t.replayedTools(task.Name, src); err != nil {
			return fmt.Errorf("--replay %s: %w", f.replay, err)
		}
		// Equal calls of pmap get their recorded results in program
		// order: the same on every replay.
		task.Options.Sequential = true
	} else {
		mc, err := load.ReadMCPConfig(src.Config, t.Env.Getenv)
		if err != nil {
			return fmt.Errorf("%s: %w", src.Agent, err)
		}
		ts, err := load.ConnectMCP(t.Env.Ctx, mc, t.Stderr, f.Quiet)
		if err != nil {
			return fmt.Errorf("%s: %w", src.Agent, err)
		}
		t.closers = append(t.closers, func() { _ = ts.Close() })
		tools = ts.Tools(0)
		if f.record != "" {
			if err := t.recordTools(task.Name, src, mc, ts, tools); err != nil {
				return fmt.Errorf("--record: %w", err)
			}
			for name, tool := range tools {
				tool.Func = t.recordedCall(name, tool.Func)
				tools[name] = tool
			}
		}
	}
	// The in-process tools (the tests') over them, as ptc run does.
	maps.Copy(tools, task.Config.Tools)
	task.Config.Tools = tools
	return nil
}

// recordTools writes the tools of a task under the --record directory.
func (t *Command) recordTools(task string, src MCPSource, mc *load.MCPConfig, ts *mcp.Toolset, tools map[string]agent.Tool) error {
	rec := ToolsRecording{Format: ToolsFormat, Version: mcpToolsVersion, Task: task, Agent: src.Agent, MCP: src.Config}
	infos := map[string]mcp.ToolInfo{}
	for _, in := range ts.Infos() {
		infos[in.Name] = in
	}
	firewalls := map[string]map[string][]string{}
	for _, s := range mc.Servers {
		firewalls[s.Name] = s.Firewall
	}
	for name, tool := range tools {
		rt := RecordedTool{Name: name, Signature: tool.Signature, Description: tool.Description,
			FieldDescriptions: tool.FieldDescriptions, Unlisted: tool.Unlisted}
		if in, ok := infos[name]; ok {
			rt.Server = &recordedServerTool{Server: in.Server, Tool: in.Tool, InputSchema: in.InputSchema,
				OutputSchema: in.OutputSchema, Firewall: firewalls[in.Server][in.Tool]}
		}
		rec.Tools = append(rec.Tools, rt)
	}
	sort.Slice(rec.Tools, func(i, j int) bool { return rec.Tools[i].Name < rec.Tools[j].Name })
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(false) // signatures read (a :int) -> :int
	enc.SetIndent("", "  ")
	if err := enc.Encode(rec); err != nil {
		return err
	}
	p := mcpToolsPath(t.Flags.record, task)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, data.Bytes(), 0o644); err != nil {
		return err
	}
	t.recordedMCP = true
	return nil
}

// recordedCall is an MCP tool whose calls are recorded in the recording
// of the run that makes them.
func (t *Command) recordedCall(name string, f agent.ToolFunc) agent.ToolFunc {
	return func(ctx context.Context, args *lisp.Map) (any, error) {
		k, ok := eval.RunKeyFrom(ctx)
		t.mu.Lock()
		r := t.recorders[k]
		t.mu.Unlock()
		if !ok || r == nil {
			return f(ctx, args)
		}
		return r.CallTool(ctx, name, f, args)
	}
}

// replayedTools reads the recorded MCP tools of a task and makes tools
// that answer from each run's recording.
func (t *Command) replayedTools(task string, src MCPSource) (map[string]agent.Tool, error) {
	dir := t.Flags.replay
	p := mcpToolsPath(dir, task)
	data, err := base.ReadBounded(p, kindMCPTools)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("no recording of the MCP tools of %s (%s): record it again with this ptc, "+
			"or pass --replay-mcp to connect to the servers of %s", src.Agent, p, src.Config)
	}
	if err != nil {
		return nil, err
	}
	rec, err := readMCPToolsRecording(data, task)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	tools := make(map[string]agent.Tool, len(rec.Tools))
	for _, rt := range rec.Tools {
		tools[rt.Name] = agent.Tool{Func: t.replayedCall(rt.Name), Signature: rt.Signature, Description: rt.Description,
			FieldDescriptions: rt.FieldDescriptions, Unlisted: rt.Unlisted}
	}
	// What the recording says must make tools an agent takes.
	if _, err := agent.New(agent.Config{Prompt: "replay", Tools: tools}); err != nil {
		return nil, fmt.Errorf("%s: the recorded tools: %s", p, base.ClipMessage(err.Error(), base.MaxFileMessage))
	}
	if !t.Flags.Quiet {
		t.Stderr.Printf("%s: %s from %s (no server started)\n", task, base.Plural(len(tools), "MCP tool"), p)
	}
	return tools, nil
}

// readMCPToolsRecording reads and checks a recording of MCP tools, which
// may come from elsewhere.
func readMCPToolsRecording(data []byte, task string) (*ToolsRecording, error) {
	var rec ToolsRecording
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("not a recording of MCP tools: %s", base.ClipMessage(load.JSONErrorAt(data, err), base.MaxFileMessage))
	}
	switch {
	case rec.Format != ToolsFormat || rec.Version < 1 || rec.Version > mcpToolsVersion:
		return nil, fmt.Errorf("not a %s of version %d (format %s, version %d)", ToolsFormat, mcpToolsVersion,
			base.ClipMessage(strconv.Quote(rec.Format), 60), rec.Version)
	case rec.Task != task:
		return nil, fmt.Errorf("the recorded tools are those of %s, not of %s (two tasks whose names make one file name: rename one)",
			base.ClipMessage(strconv.Quote(rec.Task), 80), strconv.Quote(task))
	case len(rec.Tools) == 0:
		return nil, errors.New("no tools recorded")
	case len(rec.Tools) > maxRecordedTools:
		return nil, fmt.Errorf("%d tools, over the bound of %d", len(rec.Tools), maxRecordedTools)
	}
	seen := make(map[string]bool, len(rec.Tools))
	for _, rt := range rec.Tools {
		if seen[rt.Name] {
			return nil, fmt.Errorf("tool %s is recorded twice", base.ClipMessage(strconv.Quote(rt.Name), 80))
		}
		seen[rt.Name] = true
	}
	return &rec, nil
}

// replayedCall is a recorded tool answered from the recording of the run
// that calls it.
func (t *Command) replayedCall(name string) agent.ToolFunc {
	return func(ctx context.Context, args *lisp.Map) (any, error) {
		k, _ := eval.RunKeyFrom(ctx)
		t.mu.Lock()
		p := t.replayers[k]
		t.mu.Unlock()
		if p == nil {
			return nil, mcpNotRecorded(t.Flags.replay)
		}
		v, err := p.CallTool(name, args)
		if errors.Is(err, evalrec.ErrNotRecorded) {
			// Not the arguments: they may hold what the firewall hides
			// from the model, which reads this.
			return nil, mcpNotRecorded(t.Flags.replay)
		}
		return v, err
	}
}

// MCPSource is where an agent file's MCP tools come from.
type MCPSource struct {
	Agent  string // the agent file
	Config string // its mcp: configuration file
}
