package mcp

import "fmt"

// Limits bound what one MCP server can make the client do while it lists
// and converts its tools, and what each of its tools adds to an agent's
// system prompt. A server is a peer the host does not control: a hostile
// or broken one may page its tool list forever, list a million tools, or
// send a few kilobytes of JSON Schema that expand into billions of nodes.
// Zero fields take the defaults; a bound that is passed is an error
// (KindLimit) that names the server and the bound, or, for the schema and
// prompt bounds, a tool that is described less and says so in its notes:
// never a silent cut.
type Limits struct {
	// MaxListPages bounds the pages of the tools/list pagination.
	// Default 100.
	MaxListPages int
	// MaxTools bounds the tools the server lists, all pages together
	// (before Server.Tools keeps some). Default 1000.
	MaxTools int
	// MaxListBytes bounds the size of the listing: the tools' names,
	// titles, descriptions and schemas as JSON, all pages together.
	// Default 16 MiB.
	MaxListBytes int
	// SchemaWork bounds the work of converting one tool's schemas into a
	// signature and notes, in units (docs/mcp.md, "Hostile servers"); past it, the
	// rest is :any and a note says so. Default 10,000.
	SchemaWork int
	// MaxToolChars bounds the text one tool adds to an agent's system
	// prompt (docs/mcp.md, "Hostile servers"); ToolInfo keeps everything. Default
	// 4000.
	MaxToolChars int
}

// The defaults of Limits.
const (
	defaultMaxListPages = 100
	defaultMaxTools     = 1000
	defaultMaxListBytes = 16 << 20
	defaultSchemaWork   = 10_000
	defaultMaxToolChars = 4000
)

// serverSchemaWork is how many tools' worth of SchemaWork a server's
// tools get together.
const serverSchemaWork = 20

// withDefaults fills in the zero fields.
func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&l.MaxListPages, defaultMaxListPages)
	def(&l.MaxTools, defaultMaxTools)
	def(&l.MaxListBytes, defaultMaxListBytes)
	def(&l.SchemaWork, defaultSchemaWork)
	def(&l.MaxToolChars, defaultMaxToolChars)
	return l
}

// check reports a negative bound.
func (l Limits) check() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"MaxListPages", l.MaxListPages}, {"MaxTools", l.MaxTools}, {"MaxListBytes", l.MaxListBytes},
		{"SchemaWork", l.SchemaWork}, {"MaxToolChars", l.MaxToolChars}} {
		if f.v < 0 {
			return fmt.Errorf("negative Limits.%s", f.name)
		}
	}
	return nil
}
