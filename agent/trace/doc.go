// Package trace records what a mission did, for the people and tools
// outside the firewall: Print and PrintChain write a readable account of
// a Step (one box per turn: program, tool calls, output, result), Marshal
// and Unmarshal give it a stable JSON form ("ptc-trace", specified in
// docs/trace-format.md beside its golden file testdata/trace.golden.json),
// and NewSlogObserver and NewJSONLObserver record a mission's events as
// they happen, to a log/slog logger or as JSON Lines.
//
// Everything here is redacted as the LLM's view is: firewalled values are
// the placeholder <Firewalled> and texts are scrubbed of copies of
// firewalled text (agent.Step.Veil), unless Options.Unredacted or
// JSONOptions.Raw asks for the data as it is, for a developer's own
// terminal or audit files.
//
// The package imports agent, never the reverse: a mission runs without it.
package trace
