// Package upstream is an MCP server for tests of the mcp package's client:
// tools with structured, text, JSON-as-text, error, slow, crashing and
// secret results, and any number of generated tools for catalog and
// pagination tests. Its cmd/upstream runs it over stdio.
package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure the server.
type Options struct {
	// Tools is the number of generated tools, tool_000 to tool_<N-1>.
	Tools int
	// PageSize is the size of a tools/list page. Default 4, so that
	// listings are paginated.
	PageSize int
	// Started, when set, is called when slow starts.
	Started func()
	// Cancelled, when set, is called with the context's error when slow
	// ends because its context did (the client cancelled the call).
	Cancelled func(error)
	// Latency is how long each generated tool takes to answer, as a
	// remote API would (0: at once).
	Latency time.Duration
	// Crash is what the crash tool does: os.Exit(3) in cmd/upstream. Nil:
	// crash is an error result ("crash: nothing to crash"); in process,
	// use a Crashable transport and pass its Crash.
	Crash func()
}

// Topic is the word of generated tool i's description, "Looks up
// <topic> record <i>.": weather, invoice, calendar, repository, ticket,
// payment, email, database, translation, inventory, then again.
func Topic(i int) string {
	topics := [...]string{"weather", "invoice", "calendar", "repository", "ticket", "payment", "email", "database", "translation", "inventory"}
	return topics[i%len(topics)]
}

// Secret is the token the secret tool returns.
const Secret = "s3cr3t"

// New returns the server.
func New(opts Options) *mcpsdk.Server {
	if opts.PageSize == 0 {
		opts.PageSize = 4
	}
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "upstream", Version: "v0.0.1"},
		&mcpsdk.ServerOptions{PageSize: opts.PageSize})

	s.AddTool(&mcpsdk.Tool{
		Name:        "echo",
		Description: "Returns its arguments.",
		InputSchema: raw(`{"type":"object","properties":{"text":{"type":"string","description":"what to echo"},
			"n":{"type":"integer"}},"required":["text"],"additionalProperties":true}`),
	}, func(_ context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		var args map[string]any
		if err := json.Unmarshal(argsOf(req), &args); err != nil {
			return nil, err
		}
		return &mcpsdk.CallToolResult{StructuredContent: args, Content: []mcpsdk.Content{text(string(argsOf(req)))}}, nil
	})

	s.AddTool(&mcpsdk.Tool{
		Name:         "add",
		Description:  "Adds two integers.",
		InputSchema:  raw(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`),
		OutputSchema: raw(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`),
	}, func(_ context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		var in struct{ A, B int64 }
		if err := json.Unmarshal(argsOf(req), &in); err != nil {
			return errorResult("add: " + err.Error()), nil
		}
		sum := in.A + in.B
		return &mcpsdk.CallToolResult{
			StructuredContent: map[string]any{"sum": sum},
			Content:           []mcpsdk.Content{text(fmt.Sprintf(`{"sum":%d}`, sum))},
		}, nil
	})

	s.AddTool(&mcpsdk.Tool{Name: "text_json", Description: "Returns JSON as text.", InputSchema: raw(`{"type":"object"}`)},
		func(context.Context, *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{
				text(`{"items":[{"id":1,"name":"one"},{"id":2,"name":"two"}],"total":2,"ratio":0.5}`)}}, nil
		})

	s.AddTool(&mcpsdk.Tool{Name: "text_plain", Description: "Returns a plain text.", InputSchema: raw(`{"type":"object"}`)},
		func(context.Context, *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{text("hello, world")}}, nil
		})

	s.AddTool(&mcpsdk.Tool{Name: "media", Description: "Returns an image, a text and a resource link.", InputSchema: raw(`{"type":"object"}`)},
		func(context.Context, *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			size := int64(42)
			return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{
				&mcpsdk.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG fake image bytes")},
				text("a caption"),
				&mcpsdk.ResourceLink{URI: "file:///r.txt", Name: "r.txt", MIMEType: "text/plain", Size: &size},
			}}, nil
		})

	s.AddTool(&mcpsdk.Tool{Name: "fail", Description: "Always fails.", InputSchema: raw(`{"type":"object"}`)},
		func(context.Context, *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			return errorResult("boom: bad input"), nil
		})

	s.AddTool(&mcpsdk.Tool{Name: "broken", Description: "Fails at the protocol level.", InputSchema: raw(`{"type":"object"}`)},
		func(context.Context, *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			return nil, errors.New("internal failure")
		})

	s.AddTool(&mcpsdk.Tool{Name: "slow", Description: "Blocks until cancelled.", InputSchema: raw(`{"type":"object"}`)},
		func(ctx context.Context, _ *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			if opts.Started != nil {
				opts.Started()
			}
			<-ctx.Done()
			if opts.Cancelled != nil {
				opts.Cancelled(ctx.Err())
			}
			return nil, ctx.Err()
		})

	s.AddTool(&mcpsdk.Tool{Name: "crash", Description: "Ends the server abruptly.", InputSchema: raw(`{"type":"object"}`)},
		func(ctx context.Context, _ *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			if opts.Crash == nil {
				return errorResult("crash: nothing to crash"), nil
			}
			opts.Crash()
			<-ctx.Done() // the connection is gone: no answer
			return nil, ctx.Err()
		})

	s.AddTool(&mcpsdk.Tool{
		Name:        "secret",
		Description: "Returns items with tokens.",
		InputSchema: raw(`{"type":"object"}`),
		OutputSchema: raw(`{"type":"object","properties":{"items":{"type":"array","items":{"type":"object",
			"properties":{"id":{"type":"integer"},"token":{"type":"string"}},"required":["id","token"]}}},"required":["items"]}`),
	}, func(context.Context, *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		return &mcpsdk.CallToolResult{
			StructuredContent: map[string]any{"items": []any{map[string]any{"id": 1, "token": Secret}}},
			Content:           []mcpsdk.Content{text(`{"items":[{"id":1,"token":"` + Secret + `"}]}`)},
		}, nil
	})

	s.AddTool(&mcpsdk.Tool{
		Name:        "env",
		Description: "Returns an environment variable and the working directory.",
		InputSchema: raw(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
	}, func(_ context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		var in struct{ Name string }
		if err := json.Unmarshal(argsOf(req), &in); err != nil {
			return errorResult(err.Error()), nil
		}
		wd, _ := os.Getwd()
		return &mcpsdk.CallToolResult{StructuredContent: map[string]any{"value": os.Getenv(in.Name), "cwd": wd}}, nil
	})

	for i := range opts.Tools {
		topic := Topic(i)
		s.AddTool(&mcpsdk.Tool{
			Name:        fmt.Sprintf("tool_%03d", i),
			Description: fmt.Sprintf("Looks up %s record %d.", topic, i),
			InputSchema: raw(`{"type":"object","properties":{"id":{"type":"integer","description":"the record"}}}`),
		}, func(ctx context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			var in struct{ ID int64 }
			_ = json.Unmarshal(argsOf(req), &in)
			if opts.Latency > 0 {
				t := time.NewTimer(opts.Latency)
				defer t.Stop()
				select {
				case <-t.C:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return &mcpsdk.CallToolResult{StructuredContent: map[string]any{"tool": i, "topic": topic, "id": in.ID}}, nil
		})
	}
	return s
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func text(s string) *mcpsdk.TextContent { return &mcpsdk.TextContent{Text: s} }

func errorResult(msg string) *mcpsdk.CallToolResult {
	return &mcpsdk.CallToolResult{IsError: true, Content: []mcpsdk.Content{text(msg)}}
}

func argsOf(req *mcpsdk.CallToolRequest) json.RawMessage {
	if req.Params == nil || len(req.Params.Arguments) == 0 {
		return json.RawMessage("{}")
	}
	return req.Params.Arguments
}

// Crashable wraps a server's transport so that Crash ends its connection
// abruptly, as the death of a server's process would.
type Crashable struct {
	Transport mcpsdk.Transport

	mu   sync.Mutex
	conn mcpsdk.Connection
}

// Connect implements mcpsdk.Transport.
func (c *Crashable) Connect(ctx context.Context) (mcpsdk.Connection, error) {
	conn, err := c.Transport.Connect(ctx)
	if err == nil {
		c.mu.Lock()
		c.conn = conn
		c.mu.Unlock()
	}
	return conn, err
}

// Crash closes the connection.
func (c *Crashable) Crash() {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if conn != nil {
		_ = conn.Close()
	}
}

// InMemory starts the server on an in-memory transport and returns the
// client's end. With crashable, the crash tool ends the connection.
func InMemory(ctx context.Context, opts Options, crashable bool) (mcpsdk.Transport, *mcpsdk.ServerSession, error) {
	serverT, clientT := mcpsdk.NewInMemoryTransports()
	var t mcpsdk.Transport = serverT
	if crashable {
		c := &Crashable{Transport: serverT}
		opts.Crash = c.Crash
		t = c
	}
	ss, err := New(opts).Connect(ctx, t, nil)
	if err != nil {
		return nil, nil, err
	}
	return clientT, ss, nil
}
