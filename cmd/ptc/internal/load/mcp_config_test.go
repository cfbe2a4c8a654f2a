package load

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ptc-go/ptc/mcp"
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
	if len(cfg.Servers) != 2 || cfg.Servers[0].name != "docs" || cfg.Servers[1].name != "gh" {
		t.Fatalf("servers %+v: want docs and gh, sorted, without the disabled one", cfg.Servers)
	}
	docs, gh := cfg.Servers[0].Server, cfg.Servers[1].Server
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
	if len(cfg.Agents) != 1 || cfg.Agents[0].Name != "digest" || cfg.Agents[0].File != filepath.Join(dir, "agents/digest.md") || !cfg.Agents[0].UpstreamTools {
		t.Errorf("agents %+v: the name defaults to the file's, the path is relative to the config", cfg.Agents)
	}
	if c := cfg.Code; c.Name != "ptc" || c.MaxListed != 12 || c.Limits.Timeout != 10*time.Second ||
		c.Limits.MaxToolCalls != 200 || c.Limits.MaxMemory != 16<<20 {
		t.Errorf("codeMode %+v", c)
	}
	// No connectTimeout: the CLI's 30s, so that a silent server cannot
	// hold ptc forever.
	if gh.ConnectTimeout != 30*time.Second || docs.ConnectTimeout != 30*time.Second {
		t.Errorf("connect timeouts %s, %s: want 30s by default", gh.ConnectTimeout, docs.ConnectTimeout)
	}
}

// The keys that bound a server and pin or replace what it says.
func TestMCPConfigTrust(t *testing.T) {
	pin := "sha256:" + strings.Repeat("ab", 32)
	cfg, err := parseMCPConfig("mcp.json", ".", []byte(`{"mcpServers": {"docs": {"url": "https://docs.example.com/mcp",
	  "tools": {"search": {"description": "Searches the docs."}, "fetch": {}},
	  "pin": "`+pin+`", "connectTimeout": "5s",
	  "limits": {"maxListPages": 3, "maxTools": 40, "maxListBytes": 100000, "schemaWork": 500, "maxToolChars": 1000}}}}`),
		func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Servers[0].Server
	if !reflect.DeepEqual(s.Tools, []string{"fetch", "search"}) || !reflect.DeepEqual(s.Descriptions, map[string]string{"search": "Searches the docs."}) {
		t.Errorf("tools %q, descriptions %q: the object's keys are kept, its descriptions replace the server's", s.Tools, s.Descriptions)
	}
	if s.Pin != pin || s.ConnectTimeout != 5*time.Second {
		t.Errorf("pin %q, connect timeout %s", s.Pin, s.ConnectTimeout)
	}
	if want := (mcp.Limits{MaxListPages: 3, MaxTools: 40, MaxListBytes: 100000, SchemaWork: 500, MaxToolChars: 1000}); s.Limits != want {
		t.Errorf("limits %+v, want %+v", s.Limits, want)
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
		{"bad connect timeout", `{"mcpServers": {"a": {"command": "x", "connectTimeout": "0s"}}}`, `connectTimeout "0s" is not a positive duration`},
		{"bad pin", `{"mcpServers": {"a": {"command": "x", "pin": "md5:abc"}}}`, `pin "md5:abc" is not sha256: followed by 64 hex digits`},
		{"unknown limit of a server", `{"mcpServers": {"a": {"command": "x", "limits": {"maxPages": 3}}}}`, `limits: unknown field "maxPages"`},
		{"negative limit", `{"mcpServers": {"a": {"command": "x", "limits": {"maxTools": -1}}}}`, "limits: a bound cannot be negative"},
		{"tools neither list nor object", `{"mcpServers": {"a": {"command": "x", "tools": "all"}}}`, "tools: a list of tool names, or an object"},
		{"unknown key of a tool", `{"mcpServers": {"a": {"command": "x", "tools": {"t": {"desc": "x"}}}}}`, `tools.t: unknown field "desc"`},
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
