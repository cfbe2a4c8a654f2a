// Command upstream runs the test MCP server of package upstream over
// stdio, for the mcp package's subprocess tests. Its crash tool exits
// with status 3.
package main

import (
	"context"
	"flag"
	"log"
	"os"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ptc-go/ptc/mcp/internal/upstream"
)

func main() {
	tools := flag.Int("tools", 0, "the number of generated tools")
	flag.Parse()
	srv := upstream.New(upstream.Options{Tools: *tools, Crash: func() { os.Exit(3) }})
	if err := srv.Run(context.Background(), &mcpsdk.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
