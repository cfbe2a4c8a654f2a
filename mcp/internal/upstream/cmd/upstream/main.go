// Command upstream runs the test MCP server of package upstream over
// stdio, for the mcp package's subprocess tests. Its crash tool exits
// with status 3. With -hostile, it runs a misbehaving server of package
// hostile instead (see the modes below).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"log"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ptc-go/ptc/mcp/internal/hostile"
	"github.com/ptc-go/ptc/mcp/internal/upstream"
)

func main() {
	tools := flag.Int("tools", 0, "the number of generated tools")
	mode := flag.String("hostile", "", "misbehave: silent (never answers), endless-pages, bomb (a schema bomb tool), "+
		"oversize-once (the tool big replies with 17 MiB the first time: -state remembers it across restarts)")
	state := flag.String("state", "", "the file that remembers that oversize-once sent its large reply")
	stay := flag.Bool("stay", false, "keep running after standard input ends (as some servers do)")
	deaf := flag.Bool("deaf", false, "ignore SIGTERM, so only SIGKILL stops it")
	exitFile := flag.String("exitfile", "", "the file that says how it ended: eof (stdin closed) or term (SIGTERM)")
	pidFile := flag.String("pidfile", "", "the file to write its process id to")
	flag.Parse()
	if *pidFile != "" {
		_ = os.WriteFile(*pidFile, []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	if *deaf {
		signal.Ignore(syscall.SIGTERM)
	} else if *exitFile != "" {
		terms := make(chan os.Signal, 1)
		signal.Notify(terms, syscall.SIGTERM)
		go func() {
			<-terms
			_ = os.WriteFile(*exitFile, []byte("term"), 0o600)
			os.Exit(0)
		}()
	}
	if *mode != "" {
		if err := hostile.Serve(context.Background(), os.Stdin, os.Stdout, hostileOptions(*mode, *state)); err != nil {
			log.Fatal(err)
		}
		return
	}
	srv := upstream.New(upstream.Options{Tools: *tools, Crash: func() { os.Exit(3) }})
	if err := srv.Run(context.Background(), &mcpsdk.StdioTransport{}); err != nil && !*stay {
		log.Fatal(err)
	}
	if *stay {
		time.Sleep(time.Hour) // until a signal
	}
	if *exitFile != "" {
		_ = os.WriteFile(*exitFile, []byte("eof"), 0o600)
	}
}

func hostileOptions(mode, state string) hostile.Options {
	object := json.RawMessage(`{"type":"object"}`)
	switch mode {
	case "silent":
		return hostile.Options{Silent: true}
	case "endless-pages":
		return hostile.Options{EndlessPages: true}
	case "bomb":
		return hostile.Options{Tools: []hostile.Tool{{Name: "bomb", Description: "Explodes.", InputSchema: hostile.BombSchema(40, 3)}}}
	case "oversize-once":
		return hostile.Options{
			Tools: []hostile.Tool{{Name: "big", Description: "Too large, once.", InputSchema: object}},
			Call: func(string, json.RawMessage) json.RawMessage {
				if _, err := os.Stat(state); err != nil {
					_ = os.WriteFile(state, []byte("sent"), 0o600)
					return hostile.TextResult(strings.Repeat("x", 17<<20))
				}
				return hostile.TextResult("small")
			},
		}
	}
	log.Fatalf("unknown -hostile mode %q", mode)
	return hostile.Options{}
}
