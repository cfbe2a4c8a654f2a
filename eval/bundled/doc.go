// Package bundled is ptc-go's own evaluation suite: tasks of the kinds
// agents here are for (aggregating tool data, joins with pmap, exploring
// an unknown shape, text and regex rules, dates, stateful folds,
// pagination with memory, firewalled fields, recovery from a tool's error,
// single-shot answers, composition, an MCP server's tools), on
// deterministic data and tools, with checks that a plausible wrong answer
// does not pass. "ptc test" runs it when it is given no agent file;
// docs/evals.md shows its table.
//
// Every task carries a reference solution: Reference is a model that
// answers each of the suite's requests with the program a competent model
// would write, so the suite runs offline (to show the report's format and
// to prove each task solvable and each check sound). Decoys are the wrong
// answers each task's checks must refuse.
package bundled
