package mcp_test

import (
	"context"
	"fmt"
	"log"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/mcp"
)

// A code-mode server: the client's model sends one program that calls the
// tools as often as it needs and returns only the answer.
func ExampleService_AddCodeMode() {
	temps := map[string]int{"Oslo": 4, "Rome": 19, "Paris": 12}
	tools := map[string]agent.Tool{
		"weather.get": {
			Func: func(ctx context.Context, args *lisp.Map) (any, error) {
				city, _ := args.Get(lisp.Keyword("city"))
				return map[string]any{"city": city, "temp_c": temps[city.(string)]}, nil
			},
			Signature:   "(city :string) -> {city :string, temp_c :int}",
			Description: "Current temperature of a city.",
		},
	}
	s := mcp.NewService(mcp.ServiceOptions{Name: "weather"})
	if err := s.AddCodeMode(tools, mcp.CodeModeOptions{}); err != nil {
		log.Fatal(err)
	}

	// A real server runs s.Run(ctx, &mcpsdk.StdioTransport{}), or serves
	// s.Handler() over HTTP. Here a client connects in memory.
	ctx := context.Background()
	st, ct := mcpsdk.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "host", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "run_program", Arguments: map[string]any{
		"program": `(let [temps (mapv #(tool/weather.get {:city %}) ctx/cities)]
  (println "checked" (count temps) "cities")
  (:city (max-by :temp_c temps)))`,
		"context": map[string]any{"cities": []string{"Oslo", "Rome", "Paris"}},
	}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcpsdk.TextContent).Text)
	_ = cs.Close()
	<-done
	// Output: {"output":"checked 3 cities","value":"Rome"}
}
