package agent

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/signature"
)

// maxFingerprintDepth bounds the nesting of agents a fingerprint walks. New
// cannot build a cycle (an agent's tools exist before it does), so this is
// a guard, far above any MaxDepth an agent would run with.
const maxFingerprintDepth = 64

// fingerprintVersion is hashed first: a change of what is hashed, or how,
// changes every fingerprint instead of colliding with the old scheme.
const fingerprintVersion = "ptc-agent-fingerprint/1"

// Fingerprint returns a stable hash of everything the agent declares that
// changes what a recorded mission means when it runs again: "sha256:"
// followed by 64 hex digits. Equal definitions give equal fingerprints, in
// any process and whatever the order maps were built in.
//
// Covered: Name, Prompt, Signature, Description, FieldDescriptions,
// Presentation (its texts and bounds; LanguageFunc and Transform only as
// present or not), MaxTurns, MaxTreeTurns, MaxNesting, MaxAgentMemory,
// KeepMaps, MissionTimeout, LLMTimeout, LLMRetry (every field), Limits
// (every field), the model (an llm.Name by its name, an
// llm.Func only as "a Go function"), ToolCatalog, and every tool: its
// name, signature, description, Unlisted, and kind (Go function, typed
// function, agent, LLM tool, compiled agent). An agent or LLM tool adds its
// bound model, token limit, retries and the nested agent's own fingerprint
// (recursively); a compiled agent adds its program's source and its
// agent's fingerprint. Defaults are filled in first, so a zero field and
// its default are the same definition.
//
// Not covered: Go code. A change inside a tool's Func (or an llm.Func, a
// LanguageFunc or a Transform) under the same name, signature and
// description leaves the fingerprint as it was; so does a run's Options
// (Validation, the run's model, registry, budgets). A deployer who changes
// what a tool does changes its description (or the agent's Name) too, so
// that missions recorded with the old behaviour are not replayed by the new.
//
// It is computed once per agent and cached: an Agent is immutable.
func (a *Agent) Fingerprint() string {
	if a == nil {
		return ""
	}
	a.fpOnce.Do(func() { a.fp = a.fingerprint(0) })
	return a.fp
}

func (a *Agent) fingerprint(depth int) string {
	h := fpHasher{h: sha256.New()}
	h.str(fingerprintVersion)
	a.hashInto(&h, depth)
	return "sha256:" + hex.EncodeToString(h.h.Sum(nil))
}

// fpHasher writes length-prefixed fields, so that no two different field
// sequences encode to the same bytes ("ab","c" vs "a","bc").
type fpHasher struct {
	h   hash.Hash
	buf [8]byte
}

func (f *fpHasher) u64(v uint64) {
	binary.BigEndian.PutUint64(f.buf[:], v)
	f.h.Write(f.buf[:])
}

func (f *fpHasher) str(s string) {
	f.u64(uint64(len(s)))
	f.h.Write([]byte(s))
}

func (f *fpHasher) int(v int64)               { f.u64(uint64(v)) }
func (f *fpHasher) dur(d time.Duration)       { f.int(int64(d)) }
func (f *fpHasher) bool(b bool)               { f.str(strconv.FormatBool(b)) }
func (f *fpHasher) float(v float64)           { f.u64(math.Float64bits(v)) }
func (f *fpHasher) field(name string)         { f.str(name) }
func (f *fpHasher) present(fn bool, k string) { f.str(k); f.bool(fn) }

// strMap hashes a map in sorted key order.
func (f *fpHasher) strMap(m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	f.u64(uint64(len(keys)))
	for _, k := range keys {
		f.str(k)
		f.str(m[k])
	}
}

func (f *fpHasher) model(m llm.Model) {
	switch m := m.(type) {
	case nil:
		f.str("model:none")
	case llm.Name:
		f.str("model:name")
		f.str(string(m))
	case llm.Func:
		f.str("model:go-func")
	default:
		f.str("model:other")
	}
}

func (f *fpHasher) limits(l lisp.Limits) {
	f.field("Limits")
	f.dur(l.Timeout)
	f.int(l.MaxSteps)
	f.int(int64(l.MaxDepth))
	f.int(int64(l.MaxLoopIterations))
	f.int(int64(l.MaxOutputBytes))
	f.int(int64(l.MaxToolCalls))
	f.int(l.MaxMemory)
	f.int(int64(l.MaxParallel))
}

func (f *fpHasher) retry(r llm.RetryPolicy) {
	f.field("LLMRetry")
	f.int(int64(r.MaxAttempts))
	f.int(int64(r.Backoff))
	f.dur(r.BaseDelay)
	f.dur(r.MaxDelay)
	f.dur(r.MaxRetryAfter)
	f.float(r.Jitter)
	// Retryable is a set of classes: order does not matter.
	cls := make([]string, len(r.Retryable))
	for i, c := range r.Retryable {
		cls[i] = string(c)
	}
	sort.Strings(cls)
	f.u64(uint64(len(cls)))
	for _, c := range cls {
		f.str(c)
	}
}

func (a *Agent) hashInto(f *fpHasher, depth int) {
	c := a.cfg
	f.field("Name")
	f.str(c.Name)
	f.field("Prompt")
	f.str(c.Prompt)
	f.field("Signature")
	if a.sig != nil {
		// The parsed form: spacing of the source does not matter.
		f.str(a.sig.String())
	} else {
		f.str("")
	}
	f.field("Description")
	f.str(c.Description)
	f.field("FieldDescriptions")
	f.strMap(c.FieldDescriptions)
	f.field("ContextDescriptions")
	sp := c.Presentation
	f.strMap(sp.InputDescriptions)
	f.field("SystemPrompt")
	f.str(sp.Prefix)
	f.str(sp.Suffix)
	f.str(sp.Language)
	f.str(sp.OutputFormat)
	f.str(sp.Override)
	f.present(sp.LanguageFunc != nil, "LanguageFunc")
	f.present(sp.Transform != nil, "Transform")
	f.field("PromptLimit")
	f.int(int64(sp.SystemMaxChars))
	f.int(int64(sp.InputItems))
	f.int(int64(sp.InputChars))
	f.field("Format")
	f.int(int64(sp.FeedbackLimit))
	f.int(int64(sp.FeedbackMaxChars))
	f.int(int64(sp.HistoryMaxBytes))
	f.int(int64(sp.ResultLimit))
	f.int(int64(sp.ResultMaxChars))
	f.field("Turns")
	f.int(int64(c.MaxTurns))
	f.int(int64(c.MaxTreeTurns))
	f.int(int64(c.MaxNesting))
	f.field("Memory")
	f.int(int64(c.MaxAgentMemory))
	f.int(int64(boolInt(c.KeepMaps)))
	f.field("Timeouts")
	f.dur(c.MissionTimeout)
	f.dur(c.LLMTimeout)
	f.retry(c.LLMRetry)
	f.limits(c.Limits)
	f.field("FloatPrecision")
	f.int(int64(sp.FloatPrecision))
	f.field("LLM")
	f.model(c.LLM)
	f.field("Retries")
	f.int(int64(a.retries))
	f.field("ToolCatalog")
	f.u64(uint64(len(a.catalog)))
	for _, name := range a.catalog { // sorted by New
		e := c.ToolCatalog[name]
		f.str(name)
		f.str(e.Signature)
		f.str(e.Description)
	}
	f.field("Tools")
	f.u64(uint64(len(a.names)))
	for _, name := range a.names { // sorted by New
		a.tools[name].hashInto(f, depth)
	}
}

func (bt *boundTool) hashInto(f *fpHasher, depth int) {
	f.str(bt.name)
	if bt.sig != nil {
		f.str(bt.sig.String())
	} else {
		f.str("")
	}
	desc := bt.desc
	if bt.sig != nil {
		// Field descriptions (FieldDescriptions, a typed tool's desc tags)
		// are shown to the model; a tool without them keeps the
		// fingerprint it had before they could be given.
		plain := bt.sig.Render(signature.RenderOptions{})
		if full := bt.sig.Render(signature.RenderOptions{Descriptions: true}); full != plain {
			desc += "\x00" + full
		}
	}
	f.str(desc)
	f.bool(bt.unlisted)
	switch {
	case bt.nested != nil:
		f.str("kind:" + bt.nested.kind)
		f.model(bt.nested.llm)
		f.int(int64(bt.nested.tokenLimit))
		f.str(nestedFingerprint(bt.nested.a, depth))
	case bt.compiled != nil:
		f.str("kind:compiled")
		f.str(bt.compiled.prog.Source())
		f.str(nestedFingerprint(bt.compiled.a, depth))
	case bt.typ != nil:
		f.str("kind:typed-go-func")
	default:
		f.str("kind:go-func")
	}
}

// nestedFingerprint is a nested agent's fingerprint, or a marker past the
// depth guard.
func nestedFingerprint(a *Agent, depth int) string {
	if depth+1 >= maxFingerprintDepth {
		return "nesting-too-deep"
	}
	return a.fingerprint(depth + 1)
}

// boolInt is 1 for true: KeepMaps hashes as the MapResults value it
// replaced (0 MergeMaps, 1 KeepMaps), so fingerprints do not change.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
