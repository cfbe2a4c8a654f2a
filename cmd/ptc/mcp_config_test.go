package main

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestMCPConfig(t *testing.T) {
	vars := map[string]string{"GH_TOKEN": "tok-1", "DOCS_TOKEN": "tok-2"}
	getenv := func(k string) string { return vars[k] }
	dir := filepath.Join("some", "dir")
	cfg, err := parseMCPConfig("mcp.json", dir, []byte(`{
	  "mcpServers": {
	    "gh": {"command": "github-mcp-server", "args": ["stdio", "--token=${GH_TOKEN}"],
	           "env": {"GITHUB_TOKEN": "${GH_TOKEN}", "PLAIN": "a$b"}, "cwd": "work", "autoApprove": ["x"]},
	    "docs": {"type": "http", "url": "https://docs.example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"},
	             "tools": ["search"], "firewall": {"search": ["/hits/*/internal_id"]}, "timeout": "30s"},
	    "old": {"command": "x", "disabled": true}
	  },
	  "agents": [{"file": "agents/digest.md", "model": "openai:gpt-4.1-mini", "upstreamTools": true}],
	  "codeMode": {"name": "ptc", "maxListed": 12, "limits": {"timeout": "10s", "max-tool-calls": 200, "max-memory": "16MiB"}}
	}`), getenv)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.servers) != 2 || cfg.servers[0].name != "docs" || cfg.servers[1].name != "gh" {
		t.Fatalf("servers %+v: want docs and gh, sorted, without the disabled one", cfg.servers)
	}
	docs, gh := cfg.servers[0].Server, cfg.servers[1].Server
	if want := []string{"github-mcp-server", "stdio", "--token=tok-1"}; !reflect.DeepEqual(gh.Command, want) {
		t.Errorf("gh command %q, want %q", gh.Command, want)
	}
	if gh.Env["GITHUB_TOKEN"] != "tok-1" || gh.Env["PLAIN"] != "a$b" {
		t.Errorf("gh env %v: ${NAME} is expanded, a lone $ kept", gh.Env)
	}
	if gh.Dir != filepath.Join(dir, "work") {
		t.Errorf("gh dir %q: relative to the file's directory", gh.Dir)
	}
	if docs.URL != "https://docs.example.com/mcp" || docs.Headers["Authorization"] != "Bearer tok-2" ||
		docs.CallTimeout != 30*time.Second || !reflect.DeepEqual(docs.Tools, []string{"search"}) ||
		!reflect.DeepEqual(docs.Firewall["search"], []string{"/hits/*/internal_id"}) {
		t.Errorf("docs %+v", docs)
	}
	if len(cfg.agents) != 1 || cfg.agents[0].Name != "digest" || cfg.agents[0].File != filepath.Join(dir, "agents/digest.md") || !cfg.agents[0].UpstreamTools {
		t.Errorf("agents %+v: the name defaults to the file's, the path is relative to the config", cfg.agents)
	}
	if c := cfg.code; c.Name != "ptc" || c.MaxListed != 12 || c.Limits.Timeout != 10*time.Second ||
		c.Limits.MaxToolCalls != 200 || c.Limits.MaxMemory != 16<<20 {
		t.Errorf("codeMode %+v", c)
	}
}

func TestMCPConfigErrors(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"not JSON", `{"mcpServers": {"a": }`, `mcp.json: 1:22: invalid character '}'`},
		{"unknown top-level key", `{"mcpServer": {}}`, `unknown field "mcpServer"`},
		{"text after", `{} {}`, "text after the JSON object"},
		{"bad server name", `{"mcpServers": {"my.server": {"command": "x"}}}`, `"my.server" is not a usable server name`},
		{"neither", `{"mcpServers": {"a": {}}}`, "mcpServers.a: needs command (with args) or url"},
		{"both", `{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}`, "not both"},
		{"sse", `{"mcpServers": {"a": {"type": "sse", "url": "http://h/sse"}}}`, "is not supported: use the server's streamable HTTP endpoint"},
		{"bad type", `{"mcpServers": {"a": {"type": "ws", "url": "http://h"}}}`, `unknown type "ws"`},
		{"bad url", `{"mcpServers": {"a": {"url": "ftp://h"}}}`, "not an http:// or https:// address"},
		{"headers on a command", `{"mcpServers": {"a": {"command": "x", "headers": {"A": "b"}}}}`, "headers are for a url server"},
		{"env on a url", `{"mcpServers": {"a": {"url": "http://h", "env": {"A": "b"}}}}`, "args, env and cwd are for a command"},
		{"unset variables", `{"mcpServers": {"a": {"command": "x", "args": ["${NOPE}", "${ALSO}", "${NOPE}"]}}}`, "uses ${ALSO}, ${NOPE}, which is not set"},
		{"bad timeout", `{"mcpServers": {"a": {"command": "x", "timeout": "soon"}}}`, `timeout "soon" is not a duration`},
		{"agent without file", `{"agents": [{"name": "x"}]}`, "agents[0]: file is required"},
		{"agent twice", `{"agents": [{"file": "a.md"}, {"file": "b/a.md"}]}`, `agents[1]: the name "a" is used twice`},
		{"unknown limit", `{"codeMode": {"limits": {"max-step": 5}}}`, `unknown limit "max-step"`},
		{"bad limit", `{"codeMode": {"limits": {"timeout": 5}}}`, "timeout: 5 has no unit"},
		{"code mode named as an agent", `{"mcpServers": {"a": {"command": "x"}}, "agents": [{"file": "run_program.md"}]}`, `both named "run_program"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseMCPConfig("mcp.json", ".", []byte(tc.json), func(string) string { return "" })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
