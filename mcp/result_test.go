package mcp

import (
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ptc-go/ptc/lisp"
)

func TestResultValue(t *testing.T) {
	text := func(s string) mcpsdk.Content { return &mcpsdk.TextContent{Text: s} }
	for _, tc := range []struct {
		name string
		res  *mcpsdk.CallToolResult
		fw   []string
		want string
	}{
		{"structured wins over text", &mcpsdk.CallToolResult{StructuredContent: map[string]any{"n": 3.0, "f": 2.5}, Content: []mcpsdk.Content{text("ignored")}},
			nil, `{"f" 2.5, "n" 3}`},
		{"structured array", &mcpsdk.CallToolResult{StructuredContent: []any{1.0, "a", nil, true}}, nil, `[1 "a" nil true]`},
		{"text holding JSON", &mcpsdk.CallToolResult{Content: []mcpsdk.Content{text(` {"a": [1, 2.5, {"b": null}]} `)}}, nil,
			`{"a" [1 2.5 {"b" nil}]}`},
		{"text holding a JSON number", &mcpsdk.CallToolResult{Content: []mcpsdk.Content{text("42")}}, nil, `42`},
		{"plain text", &mcpsdk.CallToolResult{Content: []mcpsdk.Content{text("hello")}}, nil, `"hello"`},
		{"text that only starts like JSON", &mcpsdk.CallToolResult{Content: []mcpsdk.Content{text(`{"a": 1} and more`)}}, nil,
			`"{\"a\": 1} and more"`},
		{"several JSON texts", &mcpsdk.CallToolResult{Content: []mcpsdk.Content{text(`{"id":1}`), text(`{"id":2}`)}}, nil,
			`[{"id" 1} {"id" 2}]`},
		{"several texts, not all JSON, joined", &mcpsdk.CallToolResult{Content: []mcpsdk.Content{text(`{"id":1}`), text("two")}}, nil,
			`"{\"id\":1}\ntwo"`},
		{"no content", &mcpsdk.CallToolResult{}, nil, `nil`},
		{"audio alone", &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 1000)}}}, nil,
			`{"bytes" 1000, "mime_type" "audio/wav", "type" "audio"}`},
		{"embedded resources", &mcpsdk.CallToolResult{Content: []mcpsdk.Content{
			&mcpsdk.EmbeddedResource{Resource: &mcpsdk.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "body"}},
			&mcpsdk.EmbeddedResource{Resource: &mcpsdk.ResourceContents{URI: "file:///b.bin", Blob: []byte{1, 2, 3}}},
		}}, nil, `[{"mime_type" "text/plain", "text" "body", "type" "resource", "uri" "file:///a.txt"} {"bytes" 3, "type" "resource", "uri" "file:///b.bin"}]`},
		{"firewall on structured", &mcpsdk.CallToolResult{StructuredContent: map[string]any{"token": "t", "user": map[string]any{"key": "k", "name": "n"}}},
			[]string{"/token", "/user/key"}, `{"_token" "t", "user" {"_key" "k", "name" "n"}}`},
		{"firewall on JSON text, every key", &mcpsdk.CallToolResult{Content: []mcpsdk.Content{text(`{"secrets":{"a":1,"b":2},"x":3}`)}},
			[]string{"/secrets/*"}, `{"secrets" {"_a" 1, "_b" 2}, "x" 3}`},
		{"firewall keeps taken names", &mcpsdk.CallToolResult{StructuredContent: map[string]any{"k": 1.0, "_k": 2.0}},
			[]string{"/k"}, `{"__k" 1, "_k" 2}`},
		{"firewall on a missing path does nothing", &mcpsdk.CallToolResult{StructuredContent: map[string]any{"a": 1.0}},
			[]string{"/b/c", "/a/b", "/*/x"}, `{"a" 1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fw [][]string
			for _, p := range tc.fw {
				toks, err := parsePointer(p)
				if err != nil {
					t.Fatal(err)
				}
				fw = append(fw, toks)
			}
			v, err := resultValue(tc.res, fw, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := lisp.Print(v, lisp.PrintOptions{}); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestResultErrorText(t *testing.T) {
	res := &mcpsdk.CallToolResult{IsError: true, Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: " bad \n"}, &mcpsdk.TextContent{Text: "worse"}}}
	if got := resultErrorText(res); got != "bad\nworse" {
		t.Errorf("got %q", got)
	}
	if got := resultErrorText(&mcpsdk.CallToolResult{IsError: true}); !strings.Contains(got, "without a message") {
		t.Errorf("got %q", got)
	}
}

func TestParsePointer(t *testing.T) {
	toks, err := parsePointer("/a~1b/~0c/*/0")
	if err != nil || strings.Join(toks, "|") != "a/b|~c|*|0" {
		t.Errorf("%q %v", toks, err)
	}
	if _, err := parsePointer("a"); err == nil {
		t.Error("a pointer without a leading / parsed")
	}
	if _, err := compileFirewall(map[string][]string{"t": {""}}); err == nil {
		t.Error(`the pointer "" compiled`)
	}
}

func TestFirewallArrayIndex(t *testing.T) {
	v := []any{map[string]any{"s": 1}, map[string]any{"s": 2}}
	applyFirewall(v, []string{"1", "s"})
	applyFirewall(v, []string{"5", "s"})
	applyFirewall(v, []string{"01", "s"})
	if got := lisp.Print(mustFromGo(t, v), lisp.PrintOptions{}); got != `[{"s" 1} {"_s" 2}]` {
		t.Errorf("got %s", got)
	}
}

// mustFromGo converts test data that converts (lisp.FromGo), failing the
// test otherwise.
func mustFromGo(tb testing.TB, x any) lisp.Value {
	tb.Helper()
	v, err := lisp.FromGo(x)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}
