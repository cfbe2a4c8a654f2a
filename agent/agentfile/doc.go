// Package agentfile reads agent files: an agent defined as a Markdown
// file, its settings in a front matter between two "---" lines, its prompt
// after them. It is how "ptc run" and "ptc mcp serve" read their agents,
// and how a Go program loads the same files:
//
//	f, err := agentfile.Load(os.DirFS("agents"), "digest.md")
//	if err != nil { ... }            // an *Error: file:line:col: what
//	a, err := f.NewAgent(f.Config)   // agent.New, errors placed in the file
//	input, err := f.Context()        // the input the file gives, if any
//	step, _ := a.Run(ctx, agent.Options{LLM: model, Input: input,
//		InputSignature: f.InputSignature})
//
// The front matter looks like YAML but is a small, strict subset: a value
// is the rest of its line, taken literally (quotes are optional: "..."
// with JSON escapes, '...' as is), "|" starts a block of indented lines,
// and only limits: holds nested keys. So a signature, whose braces and
// colons YAML would read as a mapping, needs no quoting. docs/cli.md lists
// the keys.
//
// An agent file may come from elsewhere: its reading is bounded (MaxSize),
// the parser's work is linear in the file's size whatever its shape, and
// an error quotes at most 40 characters of the file (a message at most 300
// characters, on one line), never a line of it. The package reads no file
// but through the fs.FS given to Load, and starts nothing: the MCP
// configuration an agent file names (MCPFile) is for the caller to open.
package agentfile
