package mcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/mcp"
	"github.com/ptc-go/ptc/mcp/internal/upstream"
)

func TestToolsListing(t *testing.T) {
	ts, _ := connectUp(t, upstream.Options{Tools: 20}, false, mcp.Server{}) // 31 tools
	for _, tc := range []struct {
		max      int
		unlisted bool
	}{
		{0, true}, // default 30 < 31
		{-1, false},
		{31, false},
		{5, true},
	} {
		tools := ts.Tools(tc.max)
		_, hasSearch := tools[mcp.SearchToolName]
		if hasSearch != tc.unlisted || tools["up.add"].Unlisted != tc.unlisted {
			t.Errorf("MaxListed %d: search %v, unlisted %v", tc.max, hasSearch, tools["up.add"].Unlisted)
		}
		want := 31
		if tc.unlisted {
			want++
		}
		if len(tools) != want {
			t.Errorf("MaxListed %d: %d tools", tc.max, len(tools))
		}
	}
	search := ts.Tools(0)[mcp.SearchToolName]
	if search.Signature != mcp.SearchSignature || !strings.Contains(search.Description, "among the 31 callable tools") {
		t.Errorf("search tool %+v", search)
	}
}

func TestSearch(t *testing.T) {
	ts, _ := connectUp(t, upstream.Options{Tools: 30}, false, mcp.Server{
		Firewall: map[string][]string{"secret": {"/items/*/token"}},
	})
	names := func(rs []mcp.SearchResult) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Name)
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		query string
		limit int
		want  string
	}{
		// name words beat description words; ties by name
		{"add", 0, "up.add"},
		{"invoice", 0, "up.tool_001 up.tool_011 up.tool_021"},
		{"INVOICE record", 2, "up.tool_001 up.tool_011"},
		// prefixes count, less
		{"invo", 0, "up.tool_001 up.tool_011 up.tool_021"},
		// the whole query in the name
		{"tool_02", 3, "up.tool_020 up.tool_021 up.tool_022"},
		{"text json", 0, "up.text_json up.text_plain up.media"},
		{"tokens", 0, "up.secret"},
		{"no such thing", 0, ""},
		{"", 3, "up.add up.broken up.crash"},
	} {
		if got := names(ts.Search(tc.query, tc.limit)); got != tc.want {
			t.Errorf("%q (limit %d): got %s, want %s", tc.query, tc.limit, got, tc.want)
		}
	}
	if n := len(ts.Search("", 1000)); n != 41 {
		t.Errorf("an empty query found %d tools, want all 41", n)
	}
	// The signature is the public one: no firewalled fields.
	rs := ts.Search("secret", 1)
	if len(rs) != 1 || rs[0].Signature != "() -> {items [{id :int}]}" || rs[0].Description != "Returns items with tokens." {
		t.Errorf("%+v", rs)
	}
	// The tool, as programs call it.
	v, err := ts.Tools(0)[mcp.SearchToolName].Func(context.Background(),
		lisp.NewMap(lisp.Keyword("query"), "calendar", lisp.Keyword("limit"), int64(1)))
	if err != nil {
		t.Fatal(err)
	}
	if got := lisp.Print(mustFromGo(t, v), lisp.PrintOptions{}); !strings.HasPrefix(got, `[{"description" "Looks up calendar record 2.`) ||
		!strings.Contains(got, `"name" "up.tool_002"`) {
		t.Errorf("search tool returned %s", got)
	}
}
