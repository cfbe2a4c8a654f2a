// Command ptc runs PTC-Lisp programs and agents from the command line.
//
//	ptc eval [-c CONTEXT.json|.edn] [--json] [--mcp FILE [--unredacted]] (-e SOURCE | FILE)
//	    Evaluate a program and print its value (EDN, or JSON with --json).
//	    println output goes to stdout first; errors go to stderr with their
//	    position and a source snippet. Exit status 1 for a program error or
//	    (fail ...), 2 for bad usage. --mcp makes the tools of MCP servers
//	    callable; what they firewall shows as <Firewalled>, as in ptc run,
//	    unless --unredacted.
//	ptc repl [-c CONTEXT] [--mcp FILE [--unredacted]]
//	    Read-eval-print loop: defs persist between inputs, *1 *2 *3 hold the
//	    last values, multi-line forms are read until they are complete.
//	ptc run AGENT_FILE [--model REF] [--mcp FILE] [-c CONTEXT] [--set NAME=VALUE]...
//	        [--json] [--record FILE | --replay FILE] [--trace FILE|-]
//	        [--events FILE] [--unredacted] [--quiet]
//	    Run the agent an agent file defines (Markdown: settings between ---
//	    lines, then the prompt) with a model (--model, the file's model:, or
//	    $PTC_MODEL). Each turn is printed to stderr as it happens: the
//	    program, its value or error, the tokens so far, the time. The value
//	    goes to stdout (or, with --json, the whole outcome as one JSON
//	    object). --record saves the conversation and the outcome; --replay
//	    runs the agent again offline from such a recording and reports the
//	    first request or outcome that differs. Ctrl-C cancels the mission.
//	    --mcp gives the agent the tools of MCP servers; --trace writes the
//	    trace as JSON (for ptc trace), --events streams the events as JSON
//	    Lines. What the agent firewalled shows as <Firewalled> in all of it;
//	    --unredacted shows it in the value, --json, --trace and --record.
//	    Exit status 0, 1
//	    (the mission failed, or a replay differs), 2 (bad usage or agent
//	    file), 130 (interrupted).
//	ptc test [AGENT_FILE|SUITE_DIR]... [--model REF]... [-n RUNS] [--json] [--junit FILE]
//	        [--record DIR | --replay DIR [--replay-mcp]] [--list]
//	    Run the test cases of agent files (or of ptc's bundled suite) on
//	    each model, check every answer and print pass@1, pass^N, turns,
//	    tokens, cost and latency. --record keeps every run's model replies,
//	    and the MCP tools of agent files with mcp: and their results (in
//	    clear); --replay runs again from them offline: no model called, no
//	    MCP server started unless --replay-mcp. --list lists the tasks and
//	    cases and connects to nothing. Exit status 0, 1 (a run failed), 2
//	    (bad usage, agent file or recording).
//	ptc conform FILE.jsonl
//	    Run conformance vectors; print each failure and end with
//	    "N passed, M failed".
//	ptc bench [-c CONTEXT] [-n RUNS] [--json] [limit flags] (-e SOURCE | FILE)
//	    Time a program from source text to result, as an agent turn runs
//	    it, and print the median and p90 per run and the allocations per run.
//	ptc trace print|view FILE [--unredacted]
//	    Print a trace file (ptc run --trace FILE) as text, or write it as a
//	    self-contained HTML page; a raw trace only with --unredacted.
//	ptc dev [DIR] [--addr HOST:PORT] [--model REF] [--mcp FILE] [--runs DIR2] [--open]
//	    Serve a local web app over the agent files of DIR: run them and
//	    watch each turn live, browse, replay and compare the saved runs,
//	    run their test cases, edit the prompt and limits.
//	ptc mcp tools|serve --config FILE
//	    List the tools of MCP servers; serve a code-mode tool and agents
//	    over MCP (stdio or streamable HTTP).
//	ptc models [--json]
//	    List the providers a --model reference can name, which key
//	    variables are set (never their values) and the servers they reach.
//	ptc version [--json]
//	    Print the module version, the commit it was built from (when the
//	    build recorded it) and the Go version.
//
// A context file (-c) is a JSON object, or an EDN map when its name ends in
// .edn; one that does not read is reported with the line, the column and
// the byte offset of the problem.
//
// docs/cli.md describes every command, the agent file format and the
// transcripts of --record. The command only parses flags and wires the
// library together: the interpreter is package
// github.com/ptc-go/ptc/lisp, the agents package
// github.com/ptc-go/ptc/agent.
//
// As in cmd/go, each command is a package under internal/ (runcmd,
// testcmd, evalcmd, replcmd, tracecmd, mcpcmd, modelscmd, benchcmd,
// conformcmd, versioncmd) with a Run function; internal/base holds what
// they share (the environment, flags, bounded file reads, terminal
// escaping), internal/load the agent files, contexts and MCP
// configurations. This package keeps the usage and the dispatch, and the
// adapter of ptc dev. docs/architecture.md describes the layout.
package main
