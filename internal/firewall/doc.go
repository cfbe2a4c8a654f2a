// Package firewall keeps firewalled data out of every LLM-bound and
// human-facing text of package agent: it is the agent's security
// component, with the agent as its main caller (and the trace formats,
// which carry a firewall in their JSON form, and ptc eval's and ptc
// repl's view of MCP tools' results, a firewall of its own).
//
// # What is firewalled
//
// A value is firewalled when it sits under a key that starts with "_"
// (HiddenKey) in a mission's context (NewSet), in a tool's result or in a
// map a program built (Firewall.AddToolResult), or is the value of a
// memory var whose name starts with "_" (Firewall.AddMemory). A mission's
// Firewall also hides what the firewalls of the missions that called it
// hide (New's up), what the missions it called hid (Firewall.Absorb), and
// the copies of firewalled collections that coercion made
// (Firewall.MarkCopies).
//
// Atoms, volatiles and transients (lisp.Cell) change, so walks look
// inside them each time: what a cell holds is recorded as any value is,
// and a firewalled cell (under a "_" key or var) is hidden by identity
// with whatever it holds, now or after a later program changes it. Moved
// firewalls name places inside cells with an "@" step.
//
// # The guarantee
//
// Two mechanisms apply to every text the agent sends an LLM:
//
//   - printing (Firewall.Redaction: turn values, println output,
//     validation feedback) shows a firewalled collection and anything
//     inside it, a firewalled string of MinScrub bytes or more, and the
//     value of every "_" map entry as Placeholder;
//   - text (values once printed, output, error messages, the memory
//     report, the mission prompt) is scrubbed (Firewall.Scrub): every run
//     of bytes that holds a fragment of MinScrub bytes or more of a
//     firewalled text is replaced by Placeholder, widened to character
//     boundaries so that valid UTF-8 stays valid. The firewalled texts are
//     the firewalled strings and the printed forms of firewalled numbers
//     and keywords, each also in its escaped forms (as PTC-Lisp, Go and
//     JSON quote strings, once or twice over), so that copies a program
//     made with str, subs or format, and the echoes that error messages
//     cut and escape, are caught wherever they are cut.
//
// What a program computes from firewalled data (a transformation, a
// fragment shorter than MinScrub bytes, a sum) is found by running the
// program again on surrogates (Surrogate, SurrogateAll: the same type and
// size, another value at every position, in Variants variants whose
// distances from the value share no factor) with the real run's tool
// results replayed, and comparing what each run shows (Derive hides the
// elements that differ by their place: Redaction.Member; DeriveLines and
// DeriveText the words of output and messages). Sizes, types and map keys
// stay visible; a branch on a firewalled value is hidden where it changed
// what a shadow run showed. A scalar computed whole from firewalled data
// has no place to hide it by: Firewall.HideScalar hides it by its value
// wherever it prints (nil and booleans excepted), and HiddenScalars lists
// the scalars a value hides by place, for records that lose the places.
// The agent runs the shadow runs (agent/flow.go).
//
// Readers outside the mission (a person, a log, a trace, a client) see a
// Step through a Veil: the union of the firewalls of the Step and of the
// Steps it is shown inside. Veil.Redaction also scrubs every string and
// map key as it is printed; DataRedactor does the same for Go data (an
// error's details).
//
// # Moved firewalls
//
// A firewall hides collections by identity, which a value moved between
// processes loses. Marshal, MarshalVeil and Unmarshal carry a firewall as
// JSON (format Format): its texts, and the places of the hidden
// collections in the value. It fails closed: a place the value no longer
// has hides the innermost collection on the way to it, and a value too
// large to walk is hidden whole.
//
// # Bounds
//
// Every walk of a value is bounded: shared structure is walked once
// (WalkOnce), a cell once per walk (a cell can hold itself), depth is
// bounded, the JSON form's walk stops after a fixed number of visits, and
// the scrubbing index holds at most 1M windows of MinScrub bytes (beyond it, whole texts are still scrubbed and their
// fragments are not). Scrubbing a text costs a binary search of each
// index per byte.
package firewall
