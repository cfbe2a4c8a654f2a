package mcp

// What the external tests read of the package's internals.
const (
	SearchToolName      = searchTool
	SearchSignature     = searchSignature
	MaxSearchLimit      = maxSearchLimit
	MaxReplyBytes       = maxReplyBytes
	DefaultMaxListPages = defaultMaxListPages
	DefaultMaxTools     = defaultMaxTools
	DefaultMaxToolChars = defaultMaxToolChars
	DefaultCodeModeName = defaultCodeModeName
	DefaultSchemaWork   = defaultSchemaWork
)

type SearchResult = searchResult

// Search is the catalog search mcp.search runs.
func (t *Toolset) Search(query string, limit int) []SearchResult { return t.search(query, limit) }
