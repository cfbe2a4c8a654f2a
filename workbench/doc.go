// Package workbench serves a local web page to develop agents on: run an
// agent with inputs from a form and watch its turns arrive live, cancel
// it, browse every run since (each saved as a file), open one as a trace,
// replay it offline, put two side by side, and run the agent's test
// cases. It is the page of "ptc dev", for agents a Go program builds
// itself: with Go tools, typed (agent.NewTool) or not, and tools of MCP
// servers the program connected (mcp.Toolset.Tools).
//
//	err := workbench.Serve(ctx, workbench.Options{
//		Agents: []workbench.Agent{{
//			Name:   "weather",
//			Config: agent.Config{Prompt: "Tell the weather of {{city}}.", Signature: "(city :string) -> {temp_c :float}",
//				Tools: map[string]agent.Tool{"weather": agent.NewTool("Weather of a city.", weather)}},
//			Input: map[string]any{"city": "Oslo"},
//			Cases: []eval.Case{{Name: "oslo", Input: map[string]any{"city": "Oslo"}}},
//		}},
//		Models: func(ctx context.Context, name string) (llm.Func, error) { return provider.Open(ctx, name, provider.Options{}) },
//		Model:  "openai:gpt-4.1-mini",
//	})
//	// workbench: http://127.0.0.1:41235/?token=9f4c…   (open it)
//
// Serve listens (on 127.0.0.1 and a free port by default) until its
// context ends; New returns the http.Handler to serve elsewhere. Models
// resolves the model the page names for each run (a new model per run, so
// a scripted one starts over); an agent's Model is used when no name is
// given. Runs are saved in Options.Runs (.ptc-runs): recordings in the
// ptc-trace format that "ptc trace view" shows and "ptc run --replay"
// replays.
//
// The page is for the person at the keyboard: it listens on the loopback
// interface unless told otherwise, wants the random token of the address
// it prints (moved into an HttpOnly, SameSite=Strict cookie), refuses
// requests whose Host is not its own (DNS rebinding) and changes sent
// from another origin, serves its page under a Content-Security-Policy
// that lets it load nothing from elsewhere, and shows and saves a run as
// a trace does: the values the mission firewalled (the "_" fields) as
// <Firewalled>.
//
// An agent defined outside the program gives a Source instead, which
// builds the agent of each run; ptc dev's agent files are one. A Source
// that is an Editor lets the page edit the prompt and limits and save
// them; one that is a ToolLister lists the tools of an agent whose tools
// are known only once its MCP servers start (Agent.MCP), on demand. Such
// an agent's tools are otherwise listed from its last saved run.
//
// docs/dev.md describes the page; "From a Go program" there, and
// examples/workbench, this package.
package workbench
