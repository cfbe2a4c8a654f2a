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

// defaultToolsListed is the default of Tools' maxListed.
const defaultToolsListed = 30

// searchSignature is the search tool's contract.
const searchSignature = "(query :string, limit :int?) -> [{name :string, signature :string, description :string}]"

// Search limits: the default and the largest number of tools a search
// returns.
const (
	defaultSearchLimit = 10
	maxSearchLimit     = 50
)

// Tools returns the agent tools, keyed by name ("server.tool"), for
// agent.Config.Tools. maxListed is how many tools the system prompt may
// list (0: 30; negative: all). With more, every MCP tool is unlisted
// (agent.Tool.Unlisted) and one more tool, mcp.search, finds them by
// keywords over their names and descriptions (docs/mcp.md, "Large
// catalogs").
func (t *Toolset) Tools(maxListed int) map[string]agent.Tool {
	limit := maxListed
	if limit == 0 {
		limit = defaultToolsListed
	}
	unlisted := limit >= 0 && len(t.tools) > limit
	out := make(map[string]agent.Tool, len(t.tools)+1)
	for _, rt := range t.tools {
		out[rt.info.Name] = rt.agentTool(unlisted)
	}
	if unlisted {
		out[searchTool] = agent.Tool{
			Func:      t.searchFunc,
			Signature: searchSignature,
			Description: "Finds the tools, among the " + strconv.Itoa(len(t.tools)) +
				" callable tools not listed here, whose name and description match the query's words; " +
				"returns their names, signatures and descriptions, best first. Then call one as (tool/<name> {...}).",
		}
	}
	return out
}

// searchResult is one tool found by search.
type searchResult struct {
	Name        string `json:"name"`
	Signature   string `json:"signature"`
	Description string `json:"description"`
}

// search finds tools by keywords, the work of mcp.search (docs/mcp.md,
// "Large catalogs"). The query and
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
// name. limit <= 0 is defaultSearchLimit; it is capped at maxSearchLimit.
// Signatures are shown as LLMs see them (firewalled fields left out).
func (t *Toolset) search(query string, limit int) []searchResult {
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	limit = min(limit, maxSearchLimit)
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
	out := make([]searchResult, len(hits))
	for i, h := range hits {
		out[i] = searchResult{Name: h.rt.info.Name, Signature: h.rt.promptSig.Public().String(), Description: h.rt.desc}
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
	return t.search(query, limit), nil
}
