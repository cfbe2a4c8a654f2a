package mcp

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
)

// ToolsOptions say how Toolset.Tools presents the tools.
type ToolsOptions struct {
	// MaxListed is how many tools the system prompt may list. With more,
	// every MCP tool is unlisted (agent.Tool.Unlisted) and one more tool,
	// mcp.search, finds them. 0: DefaultToolsListed; negative (-1): list
	// them all.
	MaxListed int
}

// DefaultToolsListed is ToolsOptions.MaxListed's default.
const DefaultToolsListed = 30

// SearchToolName is the name of the catalog's search tool.
const SearchToolName = "mcp.search"

// SearchSignature is the search tool's contract.
const SearchSignature = "(query :string, limit :int?) -> [{name :string, signature :string, description :string}]"

// Search limits: the default and the largest number of tools a search
// returns.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 50
)

// Tools returns the agent tools, keyed by name ("server.tool"), for
// agent.Config.Tools. When there are more than opts.MaxListed, they are
// all unlisted and the map also holds mcp.search (see Search).
func (t *Toolset) Tools(opts ToolsOptions) map[string]agent.Tool {
	limit := opts.MaxListed
	if limit == 0 {
		limit = DefaultToolsListed
	}
	unlisted := limit >= 0 && len(t.tools) > limit
	out := make(map[string]agent.Tool, len(t.tools)+1)
	for _, rt := range t.tools {
		out[rt.info.Name] = rt.agentTool(unlisted)
	}
	if unlisted {
		out[SearchToolName] = agent.Tool{
			Func:      t.searchFunc,
			Signature: SearchSignature,
			Description: "Finds the tools, among the " + strconv.Itoa(len(t.tools)) +
				" callable tools not listed here, whose name and description match the query's words; " +
				"returns their names, signatures and descriptions, best first. Then call one as (tool/<name> {...}).",
		}
	}
	return out
}

// SearchResult is one tool found by Search.
type SearchResult struct {
	Name        string `json:"name"`
	Signature   string `json:"signature"`
	Description string `json:"description"`
}

// Search finds tools by keywords, the work of mcp.search. The query and
// each tool's name and description (the server's, without the notes) are
// split into lower-case words (runs of letters and digits: search_issues
// is search and issues). A tool scores, for each distinct query word,
//
//	4 if it is a word of the name (the server's name included),
//	2 if a word of the name starts with it,
//	2 if it is a word of the description,
//	1 if a word of the description starts with it,
//
// the best that applies from each pair, plus 3 if the whole query, trimmed
// and lower-cased, occurs in the name. Tools scoring 0 are left out; the
// others come best first, ties by name. An empty query lists the tools by
// name. limit <= 0 is DefaultSearchLimit; it is capped at MaxSearchLimit.
// Signatures are shown as LLMs see them (firewalled fields left out).
func (t *Toolset) Search(query string, limit int) []SearchResult {
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	terms := catalogWords(query)
	uniq := terms[:0:0]
	seen := map[string]bool{}
	for _, w := range terms {
		if !seen[w] {
			seen[w] = true
			uniq = append(uniq, w)
		}
	}
	whole := strings.ToLower(strings.TrimSpace(query))
	type scored struct {
		rt    *remoteTool
		score int
	}
	var hits []scored
	for _, rt := range t.tools {
		score := 0
		if len(uniq) > 0 {
			score = catalogScore(uniq, whole, rt)
			if score == 0 {
				continue
			}
		}
		hits = append(hits, scored{rt, score})
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].rt.info.Name < hits[j].rt.info.Name
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]SearchResult, len(hits))
	for i, h := range hits {
		out[i] = SearchResult{Name: h.rt.info.Name, Signature: h.rt.promptSig.Public().String(), Description: h.rt.desc}
	}
	return out
}

// catalogScore scores one tool (see Search).
func catalogScore(terms []string, whole string, rt *remoteTool) int {
	name := catalogWords(rt.info.Name)
	desc := catalogWords(rt.baseDesc)
	score := 0
	for _, q := range terms {
		score += max(catalogMatch(q, name, 4, 2), catalogMatch(q, desc, 2, 1))
	}
	if whole != "" && strings.Contains(strings.ToLower(rt.info.Name), whole) {
		score += 3
	}
	return score
}

// catalogMatch scores a query word against words: exact if one equals
// it, prefix if one starts with it.
func catalogMatch(q string, words []string, exact, prefix int) int {
	best := 0
	for _, w := range words {
		switch {
		case w == q:
			return exact
		case strings.HasPrefix(w, q):
			best = prefix
		}
	}
	return best
}

// catalogWords splits text into lower-case words of letters and digits.
func catalogWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// searchFunc implements mcp.search.
func (t *Toolset) searchFunc(_ context.Context, args *lisp.Map) (any, error) {
	query, limit := "", 0
	if args != nil {
		if v, ok := args.Get(lisp.Keyword("query")); ok {
			query, _ = v.(string)
		}
		if v, ok := args.Get(lisp.Keyword("limit")); ok {
			if n, isInt := v.(int64); isInt {
				limit = int(n)
			}
		}
	}
	return t.Search(query, limit), nil
}
