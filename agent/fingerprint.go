package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"sort"
	"strconv"

	"github.com/ptc-go/ptc/llm"
)

// Fingerprint identifies the agent's definition: 32 hex digits of a
// SHA-256 over everything the agent declares that changes what a recorded
// mission means when it runs again — its name, prompt, signature,
// description and field and context descriptions, its system prompt
// settings (Prefix, Suffix, Language, OutputFormat, Override; a
// LanguageFunc or Transform only as present), its limits (MaxTurns,
// TurnBudget, MaxDepth, MissionTimeout, LLMTimeout, LLMRetry, Limits,
// MemoryLimit, PromptLimit, Format, FloatPrecision, MapResults), its model
// (an llm.Name by its name, a Go function only as one), its tool catalog,
// and each tool: its name, signature, description, whether it is unlisted,
// and what answers it (a Go function, an agent or an LLM with its bound
// model, token limit and the nested agent's own fingerprint, a compiled
// agent with its program and definition).
//
// Go code is not part of it: a change inside a tool's Func, a
// LanguageFunc or a Transform under the same declarations leaves the
// fingerprint as it was. Two agents built from equal Configs have equal
// fingerprints; a zero field and the default it stands for count as
// different. It is computed once per agent (nested agents' included).
// Durable engines record it when a mission starts, to refuse running the
// mission with another version of its agent (see package temporal).
func (a *Agent) Fingerprint() string {
	if a == nil {
		return ""
	}
	a.fpOnce.Do(func() { a.fp = a.fingerprint() })
	return a.fp
}

func (a *Agent) fingerprint() string {
	h := sha256.New()
	c := a.cfg
	put(h, "name", c.Name)
	put(h, "prompt", c.Prompt)
	put(h, "signature", c.Signature)
	put(h, "description", c.Description)
	putMap(h, "field", c.FieldDescriptions)
	putMap(h, "context", c.ContextDescriptions)
	sp := c.SystemPrompt
	put(h, "system.prefix", sp.Prefix)
	put(h, "system.suffix", sp.Suffix)
	put(h, "system.language", sp.Language)
	put(h, "system.output", sp.OutputFormat)
	put(h, "system.override", sp.Override)
	put(h, "system.funcs", fmt.Sprint(sp.LanguageFunc != nil, sp.Transform != nil))
	put(h, "limits", fmt.Sprintf("turns=%d budget=%d depth=%d mission=%v llm=%v retry=%+v program=%+v memory=%d prompt=%+v format=%+v float=%d maps=%d",
		c.MaxTurns, c.TurnBudget, c.MaxDepth, c.MissionTimeout, c.LLMTimeout, c.LLMRetry, c.Limits, c.MemoryLimit,
		c.PromptLimit, c.Format, c.FloatPrecision, c.MapResults))
	put(h, "model", modelRef(c.LLM))
	catalog := make([]string, 0, len(c.ToolCatalog))
	for n := range c.ToolCatalog {
		catalog = append(catalog, n)
	}
	sort.Strings(catalog)
	for _, n := range catalog {
		e := c.ToolCatalog[n]
		put(h, "catalog", n+"\x00"+e.Signature+"\x00"+e.Description)
	}
	names := make([]string, 0, len(c.Tools))
	for n := range c.Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t := c.Tools[n]
		put(h, "tool", n)
		put(h, "tool.signature", t.Signature)
		put(h, "tool.description", t.Description)
		put(h, "tool.unlisted", strconv.FormatBool(t.Unlisted))
		switch {
		case t.nested != nil:
			// Agents are immutable and a tool holds an agent made before
			// it, so nested agents form no cycle; each is hashed once.
			put(h, "tool.nested", fmt.Sprintf("%s model=%s tokens=%d agent=%s", t.nested.kind, modelRef(t.nested.llm),
				t.nested.tokenLimit, t.nested.a.Fingerprint()))
		case t.compiled != nil:
			put(h, "tool.compiled", t.compiled.Source()+"\x00"+t.compiled.a.Fingerprint())
		default:
			put(h, "tool.func", strconv.FormatBool(t.Func != nil))
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// put writes one field, length-prefixed so that no two sequences of
// fields write the same bytes.
func put(h hash.Hash, key, value string) {
	fmt.Fprintf(h, "%d:%s%d:%s", len(key), key, len(value), value)
}

func putMap(h hash.Hash, key string, m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		put(h, key, k+"\x00"+m[k])
	}
}

// modelRef names a model for the fingerprint: an llm.Name by its name, a
// Go function only as one.
func modelRef(m llm.Model) string {
	switch m := m.(type) {
	case nil:
		return "none"
	case llm.Name:
		return "name:" + string(m)
	}
	return "go"
}
