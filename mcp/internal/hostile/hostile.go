// Package hostile is a scripted MCP server that misbehaves, for the tests
// of the mcp package's client and of ptc's CLI: it never answers, pages
// its tool list forever, lists too many tools or schemas that explode when
// expanded, sends replies larger than a transport's frame, or results that
// contradict their outputSchema. It speaks newline-delimited JSON-RPC by
// hand (the SDK's server would not misbehave), over any reader and writer:
// in memory (Transport) or over stdio (cmd/upstream -hostile).
package hostile

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one listed tool, its schemas as raw JSON.
type Tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// Options script the server.
type Options struct {
	// Silent: the server reads every message and answers none, the
	// initialize handshake included.
	Silent bool
	// Tools are listed, PageSize a page (0: all in one page).
	Tools    []Tool
	PageSize int
	// EndlessPages: every page has a next cursor, never seen before;
	// page n lists PageSize tools named p<n>_<i> (1 when PageSize is 0).
	EndlessPages bool
	// Call answers tools/call: the result object as JSON (nil: an error
	// result). Nil Call: every call echoes {"structuredContent": args}.
	Call func(name string, args json.RawMessage) json.RawMessage
	// Requests, when set, is called with the method of every request.
	Requests func(method string)
}

// Serve runs the server on r and w until r ends or ctx is done.
func Serve(ctx context.Context, r io.Reader, w io.Writer, opts Options) error {
	br := bufio.NewReaderSize(r, 1<<16)
	var wmu sync.Mutex
	send := func(v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		wmu.Lock()
		defer wmu.Unlock()
		_, err = w.Write(append(data, '\n'))
		return err
	}
	for ctx.Err() == nil {
		line, err := br.ReadBytes('\n')
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &msg) != nil || len(msg.ID) == 0 {
			continue // a notification
		}
		if opts.Requests != nil {
			opts.Requests(msg.Method)
		}
		if opts.Silent {
			continue
		}
		result, rpcErr := answer(msg.Method, msg.Params, opts)
		reply := map[string]any{"jsonrpc": "2.0", "id": msg.ID}
		if rpcErr != nil {
			reply["error"] = rpcErr
		} else {
			reply["result"] = result
		}
		if err := send(reply); err != nil {
			return err
		}
	}
	return ctx.Err()
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func answer(method string, params json.RawMessage, opts Options) (any, *rpcError) {
	switch method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(params, &p)
		return map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "hostile", "version": "v0"},
		}, nil
	case "ping":
		return map[string]any{}, nil
	case "tools/list":
		var p struct {
			Cursor string `json:"cursor"`
		}
		_ = json.Unmarshal(params, &p)
		return listPage(p.Cursor, opts), nil
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		_ = json.Unmarshal(params, &p)
		if opts.Call == nil {
			return map[string]any{"structuredContent": p.Arguments}, nil
		}
		if res := opts.Call(p.Name, p.Arguments); res != nil {
			return res, nil
		}
		return map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "no such tool"}}}, nil
	}
	return nil, &rpcError{Code: -32601, Message: "method not found: " + method}
}

func listPage(cursor string, opts Options) map[string]any {
	if opts.EndlessPages {
		var n int
		fmt.Sscanf(cursor, "c%d", &n)
		size := max(opts.PageSize, 1)
		tools := make([]Tool, size)
		for i := range tools {
			tools[i] = Tool{Name: fmt.Sprintf("p%d_%d", n, i), Description: "One more tool.",
				InputSchema: json.RawMessage(`{"type":"object"}`)}
		}
		return map[string]any{"tools": tools, "nextCursor": fmt.Sprintf("c%d", n+1)}
	}
	start := 0
	fmt.Sscanf(cursor, "c%d", &start)
	end := len(opts.Tools)
	if opts.PageSize > 0 {
		end = min(start+opts.PageSize, end)
	}
	start = min(start, end)
	page := map[string]any{"tools": opts.Tools[start:end]}
	if page["tools"] == nil || end == start {
		page["tools"] = []Tool{}
	}
	if end < len(opts.Tools) {
		page["nextCursor"] = fmt.Sprintf("c%d", end)
	}
	return page
}

// Transport is an in-memory transport to the server: each Connect starts a
// fresh session of it, as a restarted process would be, so that a client
// may reconnect. Sessions share Options (and whatever Call closes over).
func Transport(opts Options) mcpsdk.Transport { return &transport{opts: opts} }

type transport struct{ opts Options }

func (t *transport) Connect(ctx context.Context) (mcpsdk.Connection, error) {
	client, server := net.Pipe()
	go func() {
		_ = Serve(context.Background(), server, server, t.opts)
		_ = server.Close()
	}()
	return (&mcpsdk.IOTransport{Reader: client, Writer: client}).Connect(ctx)
}

// ManyTools returns n small tools named t0000, t0001...
func ManyTools(n int) []Tool {
	tools := make([]Tool, n)
	for i := range tools {
		tools[i] = Tool{Name: fmt.Sprintf("t%04d", i), Description: "A tool.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	}
	return tools
}

// BombSchema is an input schema of defs $defs, each of which references
// the next one fanout times: small as text (5.5 KB for 40 and 3), it
// expands into fanout^defs nodes.
func BombSchema(defs, fanout int) json.RawMessage {
	var sb strings.Builder
	sb.WriteString(`{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"required":["x"],"$defs":{`)
	for i := range defs {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `"d%d":`, i)
		if i == defs-1 {
			sb.WriteString(`{"type":"string","description":"the bottom"}`)
			continue
		}
		sb.WriteString(`{"type":"object","properties":{`)
		for j := range fanout {
			if j > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `"f%d":{"$ref":"#/$defs/d%d"}`, j, i+1)
		}
		sb.WriteString(`}}`)
	}
	sb.WriteString(`}}`)
	return json.RawMessage(sb.String())
}

// TextResult is a tools/call result of one text.
func TextResult(text string) json.RawMessage {
	data, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
	return data
}
