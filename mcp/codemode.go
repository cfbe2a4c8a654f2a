package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/lisp"
)

// CodeModeOptions configure a code-mode tool (see AddCodeMode).
type CodeModeOptions struct {
	// Name is the tool's name. Default "run_program".
	Name string
	// Description replaces the first paragraph of the generated
	// description (what the tool is for); the language cheat-sheet and the
	// list of tools follow it.
	Description string
	// Limits bound each program. Zero fields take the interpreter's
	// defaults, but Timeout defaults to 5s, while its tools run too.
	Limits lisp.Limits
	// MaxListed is the number of tools the description lists (0: 30, as
	// for Toolset.Tools; negative: all); with more, it lists mcp.search
	// first, which finds the others.
	MaxListed int
}

// defaultCodeModeName is the code-mode tool's name by default.
const defaultCodeModeName = "run_program"

// searchTool is the name of the catalog search a program can use to find
// the tools the description does not list.
const searchTool = "mcp.search"

// AddCodeMode adds one tool that runs a PTC-Lisp program written by the
// client's model, with tools callable as (tool/name {...}): a whole
// workflow (search, fetch each hit, filter, aggregate) in one call, the
// intermediate data never passing through the model's context. It is the
// "code mode" of MCP, in process and in a sandbox: the program cannot
// reach the file system, the network or the host but through the tools,
// and every limit of opts.Limits holds.
//
// The tool's input is {program: string, context?: object}; the program
// reads the context as ctx/name. Its result's structuredContent is
// {value, output}: the JSON of the program's value (its last form, or the
// argument of (return v)) and the text it printed with println. Values
// under "_" keys are firewalled: programs use them in full (to pass a
// token on to another tool, say), but they never reach the client — they
// are left out of value, and shown as agent.Firewalled in output, where
// copies of them are scrubbed too.
//
// A program that fails (a syntax error, a runtime error, a broken limit,
// (fail v), a failing tool) is a tool error (isError) whose text has the
// error's kind, line:column, the offending line and a hint, so that the
// model can fix the program and call again. A program that reads a name
// it never defines is refused before it runs. When the client cancels the
// call, the program stops and its tool calls' contexts are cancelled.
//
// Tools are validated as agent.New validates them; names may have dots
// ("gh.search_issues"). Agents and LLM tools cannot be code-mode tools
// (their calls need a model): serve them with AddAgent or AddTools.
func (s *Service) AddCodeMode(tools map[string]agent.Tool, opts CodeModeOptions) error {
	name := opts.Name
	if name == "" {
		name = defaultCodeModeName
	}
	if err := validName(name); err != nil {
		return err
	}
	a, err := agent.New(agent.Config{
		Prompt: "Run the program of an MCP client.",
		Tools:  tools,
		Limits: opts.Limits,
		// The program's own Limits.Timeout and the client's context bound
		// a call, not an agent's MissionTimeout.
		MissionTimeout: -1,
	})
	if err != nil {
		return fmt.Errorf("mcp: AddCodeMode: %w", err)
	}
	if _, err := a.CompileSource("nil"); err != nil {
		return fmt.Errorf("mcp: AddCodeMode: %w", err)
	}
	cm := &codeMode{a: a}
	def := &mcpsdk.Tool{
		Name:         name,
		Description:  codeModeDescription(a.ToolSchemas(), opts),
		InputSchema:  codeModeInputSchema(),
		OutputSchema: codeModeOutputSchema(),
	}
	return s.add("a code-mode tool", []*mcpsdk.Tool{def}, []mcpsdk.ToolHandler{cm.handle})
}

// codeMode runs the programs of one code-mode tool.
type codeMode struct {
	a *agent.Agent // the tools and the limits; never calls an LLM
}

// codeModeInput is the tool's input.
type codeModeInput struct {
	Program *string         `json:"program"`
	Context json.RawMessage `json:"context"`
}

func (cm *codeMode) handle(ctx context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
	var in codeModeInput
	if req != nil && req.Params != nil && len(req.Params.Arguments) > 0 {
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return errorResult("invalid_arguments: the arguments must be an object {program: string, context?: object}: " + err.Error()), nil
		}
	}
	if in.Program == nil {
		return errorResult(`invalid_arguments: "program" is required: the text of a PTC-Lisp program`), nil
	}
	input := lisp.NewMap()
	if raw := strings.TrimSpace(string(in.Context)); raw != "" && raw != "null" {
		v, err := lisp.Read(raw, lisp.ReadOptions{Format: lisp.ReadJSON})
		if err != nil {
			return errorResult("invalid_arguments: context: " + err.Error()), nil
		}
		m, ok := v.(*lisp.Map)
		if !ok {
			return errorResult(fmt.Sprintf(`invalid_arguments: "context" must be an object, got %s`, lisp.TypeName(v))), nil
		}
		input = m
	}
	compiled, err := cm.a.CompileSource(*in.Program)
	if err != nil {
		return errorResult(compileErrorText(*in.Program, err)), nil
	}
	step, _ := compiled.Execute(ctx, input)
	output := step.Scrub(programOutput(step))
	if step.Fail != nil {
		msg := step.Scrub(failText(step.Fail))
		if output != "" {
			msg += "\n\nOutput before the error:\n" + output
		}
		return errorResult(msg), nil
	}
	value, err := publicValue(step, step.Return)
	if err != nil {
		return errorResult("the program's value has no JSON form: " + err.Error()), nil
	}
	data, err := marshalJSON(map[string]any{"value": value, "output": output})
	if err != nil {
		return errorResult("the program's value has no JSON form: " + err.Error()), nil
	}
	return &mcpsdk.CallToolResult{
		Content:           []mcpsdk.Content{&mcpsdk.TextContent{Text: string(data)}},
		StructuredContent: json.RawMessage(data),
	}, nil
}

// failText is the text of a failed program: an interpreter error's
// message already starts with its position and kind
// ("2:6: type_error: ..."); a (fail v) has its reason put first.
func failText(f *agent.Fail) string {
	if _, ok := f.Details["kind"]; ok || strings.HasPrefix(f.Message, string(f.Reason)+":") {
		return f.Message
	}
	return string(f.Reason) + ": " + f.Message
}

// programOutput is the println output of the program's run, firewalled
// values shown as agent.Firewalled (not yet scrubbed).
func programOutput(step *agent.Step) string {
	var lines []string
	for _, t := range step.Trace {
		lines = append(lines, t.Output...)
	}
	return strings.Join(lines, "\n")
}

// unboundName finds the names in CompileSource's refusal of a program
// that reads names it never defines.
var unboundNames = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`it reads (.+?), which it never defines`) })

// compileErrorText explains why a program does not compile: a
// *lisp.Error's detailed text (position, snippet, hint), or, for a program
// that reads names it never defines, which names and where.
func compileErrorText(src string, err error) string {
	var le *lisp.Error
	if errors.As(err, &le) {
		return le.Detailed()
	}
	if m := unboundNames().FindStringSubmatch(err.Error()); m != nil {
		names := strings.Split(m[1], ", ")
		var sb strings.Builder
		for i, n := range names {
			if i > 0 {
				sb.WriteByte('\n')
			}
			line, col, ok := findSymbol(src, n)
			if !ok { // memory/x: a value stored by an earlier run
				if line, col, ok = findSymbol(src, "memory/"+n); ok {
					n = "memory/" + n
				}
			}
			if ok {
				fmt.Fprintf(&sb, "%d:%d: ", line, col)
			}
			fmt.Fprintf(&sb, "unbound_var: %s is not defined", n)
		}
		sb.WriteString("\nhint: a program runs on its own: define names with def, defn or let before using them, read the call's context as ctx/name, and call tools as (tool/name {...})")
		return sb.String()
	}
	if strings.Contains(err.Error(), "*1") || strings.Contains(err.Error(), "memory/get") {
		return "analysis_error: " + strings.TrimPrefix(err.Error(), "agent: ") +
			"\nhint: each call runs on its own, with no earlier results: compute everything in one program"
	}
	return "analysis_error: " + strings.TrimPrefix(err.Error(), "agent: ")
}

// findSymbol returns the 1-based line and column of the first occurrence
// of name in src as a whole symbol, outside strings and comments.
func findSymbol(src, name string) (line, col int, ok bool) {
	delim := func(b byte) bool {
		return strings.IndexByte(" \t\r\n()[]{}\",'`;@^~", b) >= 0
	}
	line, col = 1, 1
	inStr, inComment := false, false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case inComment:
			if c == '\n' {
				inComment = false
			}
		case inStr:
			if c == '\\' {
				i++
				col++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == ';':
			inComment = true
		case strings.HasPrefix(src[i:], name) && (i == 0 || delim(src[i-1])) &&
			(i+len(name) == len(src) || delim(src[i+len(name)])):
			return line, col, true
		}
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return 0, 0, false
}

func codeModeInputSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"program": map[string]any{
				"type":        "string",
				"description": "A PTC-Lisp program (Clojure syntax). Its last form's value is the result.",
			},
			"context": map[string]any{
				"type":        "object",
				"description": "Input data, read in the program as ctx/name.",
			},
		},
		"required": []string{"program"},
	}
}

func codeModeOutputSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"value":  map[string]any{"description": "The program's value, as JSON."},
			"output": map[string]any{"type": "string", "description": "What the program printed with println."},
		},
		"required": []string{"value", "output"},
	}
}

// codeModePurpose is the first paragraph of the description.
const codeModePurpose = "Runs a PTC-Lisp program in a sandbox. The program calls the tools listed below " +
	"and computes with their results, so a whole task (look up, fetch each item, filter, combine) takes " +
	"one call, and only the final value comes back to you. Returns {value, output}: the value of the " +
	"program's last form (or of (return v)) and what it printed with println. On an error, fix the " +
	"program and call again."

// codeModeCheatSheet is a compact reference of PTC-Lisp. Every
// parenthesized example is run by TestCodeModeCheatSheetRuns.
const codeModeCheatSheet = `PTC-Lisp: Clojure syntax and core functions; no Java, no I/O but the tools.
- Data: 42 1.5 "s" :kw nil true [1 2] {:a 1} #{1 2}. JSON maps have string keys; keywords find them: (:id row), (get-in r [:user :name]).
- Names: (let [x 1 y (inc x)] (* x y)), (def total 0), (defn twice [n] (* 2 n)), #(+ % 1), (fn [a b] (+ a b)).
- Flow: if when cond case and or not, (for [x [1 2 3] :when (odd? x)] x), (doseq [x [1 2]] (println x)), loop/recur.
- Sequences, all returned as vectors: (map inc [1 2]) filter remove reduce (sort-by :n > rows) group-by frequencies distinct take drop first last count some every? assoc update merge select-keys keys vals into.
- Helpers: (filter (where :state = "open") rows), (sum-by :n rows), (pluck :id rows), (max-by :n rows).
- Strings: (str "a" 1), (str/join ", " ["a" "b"]), (str/split "a,b" #","), (format "%.1f" 2.25), (subs "hello" 1 3), (str/includes? "abc" "b").
- Inputs: ctx/name reads the "context" argument.
- Tools: (tool/name {:arg 1}) returns data. Wrap a tool to map it: (mapv #(tool/name {:id %}) ids); (pmap #(tool/name {:id %}) ids) calls in parallel. A failing tool throws: (try (tool/name {:id 1}) (catch Exception e (ex-data e))) gives {:tool "name" :message "..."}; uncaught, it ends the program.
- End early: (return v), or (fail "why"), which is reported as an error.
- (println x) adds a line to output. Keep results small: return only what you need.`

// codeModeDescription builds the tool's description: its purpose, the
// cheat-sheet, and the tools with their signatures.
func codeModeDescription(tools []prompt.ToolSchema, opts CodeModeOptions) string {
	var sb strings.Builder
	purpose := codeModePurpose
	if strings.TrimSpace(opts.Description) != "" {
		purpose = strings.TrimSpace(opts.Description)
	}
	sb.WriteString(purpose)
	sb.WriteString("\n\n")
	sb.WriteString(codeModeCheatSheet)
	sb.WriteString("\n\n")

	limit := opts.MaxListed
	switch {
	case limit == 0:
		limit = defaultToolsListed
	case limit < 0:
		limit = len(tools)
	}
	// The catalog search first: it finds the tools that are not listed.
	var listed []prompt.ToolSchema
	hasSearch := false
	for _, t := range tools {
		if t.Name == searchTool {
			hasSearch = true
			listed = append(listed, t)
		}
	}
	for _, t := range tools {
		if len(listed) >= limit {
			break
		}
		if t.Name != searchTool && !t.Unlisted {
			listed = append(listed, t)
		}
	}
	if len(tools) == 0 {
		sb.WriteString("No tools are available: programs can only compute with the context.")
		return sb.String()
	}
	sb.WriteString("Tools:")
	for _, t := range listed {
		sb.WriteString("\n")
		sb.WriteString(toolLine(t))
	}
	if more := len(tools) - len(listed); more > 0 {
		if more == 1 {
			sb.WriteString("\n1 more tool is not listed here")
		} else {
			fmt.Fprintf(&sb, "\n%d more tools are not listed here", more)
		}
		if hasSearch {
			sb.WriteString(": find them with tool/" + searchTool + ", then call them by name")
		} else {
			sb.WriteString("; an unknown_tool error lists the names")
		}
		sb.WriteString(".")
	}
	return sb.String()
}

// toolLine is one tool in the description:
//
//   - tool/gh.search (query :string) -> [{id :int}]: Search issues.
func toolLine(t prompt.ToolSchema) string {
	var sb strings.Builder
	sb.WriteString("- tool/")
	sb.WriteString(t.Name)
	if t.Signature != "" {
		sb.WriteString(" ")
		sb.WriteString(t.Signature)
	}
	if d := briefDescription(t.Description); d != "" {
		sb.WriteString(": ")
		sb.WriteString(d)
	}
	return sb.String()
}

// maxToolDescription bounds each tool's description in the list.
const maxToolDescription = 160

// briefDescription is a description's first paragraph on one line, cut at
// maxToolDescription bytes (on a rune boundary).
func briefDescription(d string) string {
	d, _, _ = strings.Cut(strings.TrimSpace(d), "\n\n")
	d = textutil.OneLine(d)
	if len(d) <= maxToolDescription {
		return d
	}
	return strings.TrimRight(textutil.TruncateBytes(d, maxToolDescription), " ") + "…"
}
