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
	// Default DefaultMaxListPages.
	MaxListPages int
	// MaxTools bounds the tools the server lists, all pages together
	// (before Server.Tools keeps some). Default DefaultMaxTools.
	MaxTools int
	// MaxListBytes bounds the size of the listing: the tools' names,
	// titles, descriptions and schemas as JSON, all pages together.
	// Default DefaultMaxListBytes.
	MaxListBytes int
	// SchemaWork bounds the work of converting one tool's schemas into a
	// signature and notes: one unit per schema node visited (a $ref
	// expanded counts its target each time), per keyword, alternative or
	// enum value read, and per 64 bytes of text produced. Past it, the
	// rest of the signature is :any, and a note says so. The server's
	// tools together get 20 times this. Default DefaultSchemaWork.
	SchemaWork int
	// MaxToolChars bounds the text one tool adds to an agent's system
	// prompt: its description with its notes, and its signature (shown
	// with its parameters' names). A signature that takes more than half
	// of it is shown shallower (records deeper than some level as :map,
	// and, if need be, only the first parameters); the description and
	// notes are cut to what is left. ToolInfo keeps everything. Default
	// DefaultMaxToolChars.
	MaxToolChars int
}

// The defaults of Limits.
const (
	DefaultMaxListPages = 100
	DefaultMaxTools     = 1000
	DefaultMaxListBytes = 16 << 20
	DefaultSchemaWork   = 10_000
	DefaultMaxToolChars = 4000
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
	def(&l.MaxListPages, DefaultMaxListPages)
	def(&l.MaxTools, DefaultMaxTools)
	def(&l.MaxListBytes, DefaultMaxListBytes)
	def(&l.SchemaWork, DefaultSchemaWork)
	def(&l.MaxToolChars, DefaultMaxToolChars)
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
