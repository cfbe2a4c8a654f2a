package mcp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/mcp"
	"github.com/ptc-go/ptc/mcp/internal/upstream"
)

// ExampleConnect connects to an MCP server (here in memory; a Command or
// a URL in real use) and calls one of its tools as an agent would.
func ExampleConnect() {
	ctx := context.Background()
	transport, _, err := upstream.InMemory(ctx, upstream.Options{}, false)
	if err != nil {
		log.Fatal(err)
	}
	ts, err := mcp.Connect(ctx, mcp.Server{
		Name:      "up",
		Transport: transport,
		Tools:     []string{"add", "echo", "secret"},
		Firewall:  map[string][]string{"secret": {"/items/*/token"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer ts.Close()

	for _, info := range ts.Infos() {
		fmt.Println(info.Name, info.Signature)
	}

	// agent.Config{Tools: ts.Tools(0)} lets programs
	// call (tool/up.add {:a 1 :b 2}); here, the Go way:
	tools := ts.Tools(0)
	sum, err := tools["up.add"].Func(ctx, lisp.NewMap(lisp.Keyword("a"), int64(1), lisp.Keyword("b"), int64(2)))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(lisp.Print(sum, lisp.PrintOptions{}))
	items, err := tools["up.secret"].Func(ctx, lisp.NewMap())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(lisp.Print(items, lisp.PrintOptions{}))
	// Output:
	// up.add (a :int, b :int) -> {sum :int}
	// up.echo (text :string, n :int?) -> :any
	// up.secret () -> {items [{id :int, _token :string}]}
	// {"sum" 3}
	// {"items" [{"_token" "s3cr3t", "id" 1}]}
}
