package mcp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/signature"
)

// What one MCP tool adds to an agent's system prompt is bounded by
// Limits.MaxToolChars: the agent lists a tool as
//
//	(tool/gh.search {:query ... :limit ...}) ; description and notes
//	  (query :string, limit :int?) -> [{id :int}]
//
// so its cost is its name, its parameters' names, its description and its
// signature. The signature may take half of the bound; past it, it is
// shown shallower. The description and notes get what is left.

// promptSignatureCost is what sig costs in the prompt: its text and its
// parameters' names again, in the call line.
func promptSignatureCost(sig *signature.Signature) int {
	n := len(sig.Public().String())
	for _, p := range sig.Params {
		n += len(p.Name) + len(" : ...")
	}
	return n
}

// fitSignature returns sig, or a shallower form of it whose prompt cost is
// at most limit, and a note saying what was left out ("" when nothing was).
// Shallower: types nested deeper than some depth become :map (records),
// [:any] (lists of records) or stay as they are (scalars); at depth 0,
// parameters keep their names and kinds only. When even that is too long,
// only the first parameters are kept: programs may still pass the others,
// since records accept fields their type does not list.
func fitSignature(sig *signature.Signature, limit int) (*signature.Signature, string) {
	if promptSignatureCost(sig) <= limit {
		return sig, ""
	}
	deepest := 0
	for _, p := range sig.Params {
		deepest = max(deepest, typeDepth(p.Type))
	}
	deepest = max(deepest, typeDepth(sig.Output))
	for d := deepest - 1; d >= 0; d-- {
		cut := &signature.Signature{Params: make([]signature.Field, len(sig.Params)), Output: cutType(sig.Output, d)}
		for i, p := range sig.Params {
			cut.Params[i] = signature.Field{Name: p.Name, Type: cutType(p.Type, d), Description: p.Description}
		}
		if promptSignatureCost(cut) <= limit {
			return cut, fmt.Sprintf("signature shortened for the prompt: types nested deeper than %d levels shown as :map or [:any]", d)
		}
	}
	// Depth 0 is still too long: keep the first parameters that fit
	// (each one's cost over-estimated, to add them up in one pass).
	cut := &signature.Signature{Output: cutType(sig.Output, 0)}
	cost := promptSignatureCost(cut)
	for _, p := range sig.Params {
		f := signature.Field{Name: p.Name, Type: cutType(p.Type, 0)}
		c := len(strconv.Quote(p.Name)) + len(f.Type.String()) + len(", ") + len(p.Name) + len(" : ...")
		if cost+c > limit {
			break
		}
		cut.Params = append(cut.Params, f)
		cost += c
	}
	if promptSignatureCost(cut) > limit {
		cut.Output = signature.Type{Kind: signature.Any}
	}
	return cut, fmt.Sprintf("signature shortened for the prompt: %d of %d parameters shown, types at the top level only; "+
		"the others may be passed all the same", len(cut.Params), len(sig.Params))
}

// typeDepth is how deep records and lists nest in t (a scalar: 0).
func typeDepth(t signature.Type) int {
	switch t.Kind {
	case signature.Record:
		d := 0
		for _, f := range t.Fields {
			d = max(d, typeDepth(f.Type))
		}
		return d + 1
	case signature.List:
		if t.Elem != nil {
			return typeDepth(*t.Elem) + 1
		}
		return 1
	case signature.Map:
		if t.Elem != nil { // {:string :t}
			return typeDepth(*t.Elem) + 1
		}
	}
	return 0
}

// cutType replaces what nests deeper than depth: a record or a map from
// strings by :map, a list by [:any]. Optional and firewall marks are kept.
func cutType(t signature.Type, depth int) signature.Type {
	switch t.Kind {
	case signature.Record:
		if depth <= 0 {
			return signature.Type{Kind: signature.Map, Optional: t.Optional}
		}
		fields := make([]signature.Field, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = signature.Field{Name: f.Name, Type: cutType(f.Type, depth-1), Description: f.Description}
		}
		r := signature.Type{Kind: signature.Record, Fields: fields}
		r.Optional = t.Optional
		return r
	case signature.List:
		if t.Elem == nil {
			return t
		}
		if depth <= 0 {
			l := signature.ListOf(signature.Type{Kind: signature.Any})
			l.Optional = t.Optional
			return l
		}
		l := signature.ListOf(cutType(*t.Elem, depth-1))
		l.Optional = t.Optional
		return l
	case signature.Map:
		if t.Elem == nil {
			return t
		}
		if depth <= 0 {
			return signature.Type{Kind: signature.Map, Optional: t.Optional}
		}
		m := signature.MapOf(cutType(*t.Elem, depth-1))
		m.Optional = t.Optional
		return m
	}
	return t
}

// fitDescription cuts a tool's description (with its notes) to limit bytes,
// on a line or rune boundary, saying so.
func fitDescription(desc string, limit int) string {
	if len(desc) <= limit {
		return desc
	}
	const tail = "\n- (description cut to fit the prompt: Limits.MaxToolChars; ToolInfo has all of it)"
	room := limit - len(tail)
	if room <= 0 {
		return ""
	}
	cut := textutil.TruncateBytes(desc, room)
	if i := strings.LastIndexByte(cut, '\n'); i > room/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " \n") + tail
}
