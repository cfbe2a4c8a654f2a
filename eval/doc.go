// Package eval measures agents against models: how often a model solves
// a task with ptc-go, in how many turns, at what cost, and whether a
// change of prompt or model helped. It is what "ptc test" runs.
//
// A Task is an agent (its Config) and its Cases: an input and the checks
// its answer must pass (Equals, Subset, Within, Satisfies with a
// PTC-Lisp predicate, Fails, or a Go check with Passes). Run runs every case on every
// Variant (a model, optionally with another language profile) Config.Runs
// times and returns a Report: per case and variant the passes, pass@1
// (the chance one run passes) and pass^N (all N runs passed), turns and
// turns that failed, tokens, cost when the model's Price is known, and
// latency; WriteTable prints it for a person, WriteJSON and WriteJUnit
// for machines.
//
//	rep, err := eval.Run(ctx, tasks, eval.Config{
//		Variants: []eval.Variant{{Name: "mini", Model: model}},
//		Runs:     3,
//	})
//	rep.WriteTable(os.Stdout, eval.TableOptions{})
//
// Cases can be written in PTC-Lisp (ParseCases), as agent files carry
// them. Config.Wrap gives each run its own model (a recording, a replay)
// and RunKeyFrom tells a tool the runs share which run is calling it:
// "ptc test --record/--replay" and package eval/evaltest use them to
// record runs as ptc-trace recordings (docs/trace-format.md) and replay
// them offline, each request answered by key, parallel calls included
// (docs/evals.md).
//
// The package imports only the standard library and ptc-go's core
// packages. A returned value is compared within a bound of work (a
// program's value may share its parts), and a failing check, a panicking
// Go check or a failed mission fails its run, never the others.
package eval
