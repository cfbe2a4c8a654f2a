package mcp

import (
	"errors"
	"slices"
	"strings"

	"github.com/ptc-go/ptc/signature"
)

// Firewall pointers (Server.Firewall) name fields of a tool's result by
// JSON pointer (RFC 6901), with "*" standing for every element of an array
// or every key of an object: "/items/*/token". The fields they match are
// renamed "_" + name in the result (and in the output type of the tool's
// signature), which puts them behind the agent's firewall: programs read
// (:_token item), LLMs never see the value.

// parsePointer splits a JSON pointer into its unescaped tokens.
func parsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, errors.New("a JSON pointer starts with /")
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks, nil
}

// compileFirewall parses the pointers of Server.Firewall. A pointer must
// name a field: "" (the whole result) cannot be renamed.
func compileFirewall(fw map[string][]string) (map[string][][]string, error) {
	if len(fw) == 0 {
		return nil, nil
	}
	out := make(map[string][][]string, len(fw))
	for tool, ptrs := range fw {
		for _, p := range ptrs {
			toks, err := parsePointer(p)
			if err != nil {
				return nil, errors.New("firewall of tool " + tool + ": pointer " + p + ": " + err.Error())
			}
			if len(toks) == 0 {
				return nil, errors.New("firewall of tool " + tool + `: the pointer "" names the whole result, which has no name to hide; name its fields`)
			}
			out[tool] = append(out[tool], toks)
		}
	}
	return out, nil
}

// applyFirewall renames the fields path matches in v, decoded JSON
// (map[string]any, []any), in place. A field already named with a leading
// "_" is left alone; when "_name" is taken, more underscores are added.
func applyFirewall(v any, path []string) {
	if len(path) == 0 {
		return
	}
	tok, rest := path[0], path[1:]
	switch x := v.(type) {
	case []any:
		if tok == "*" {
			for _, e := range x {
				applyFirewall(e, rest)
			}
			return
		}
		if i, ok := pointerIndex(tok, len(x)); ok {
			applyFirewall(x[i], rest)
		}
	case map[string]any:
		var keys []string
		if tok == "*" {
			for k := range x {
				keys = append(keys, k)
			}
		} else if _, ok := x[tok]; ok {
			keys = []string{tok}
		}
		for _, k := range keys {
			if len(rest) > 0 {
				applyFirewall(x[k], rest)
				continue
			}
			if strings.HasPrefix(k, "_") {
				continue
			}
			nk := "_" + k
			for {
				if _, taken := x[nk]; !taken {
					break
				}
				nk = "_" + nk
			}
			x[nk] = x[k]
			delete(x, k)
		}
	}
}

// pointerIndex parses an array index token.
func pointerIndex(tok string, n int) (int, bool) {
	if tok == "" || len(tok) > 1 && tok[0] == '0' {
		return 0, false
	}
	i := 0
	for _, c := range tok {
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int(c-'0')
		if i >= n {
			return 0, false
		}
	}
	return i, true
}

// firewallType renames, in an output type, the record fields path
// matches, so that the signature shows programs the names the result
// will have (and LLMs, which see the public signature, not at all).
func firewallType(t signature.Type, path []string) signature.Type {
	if len(path) == 0 {
		return t
	}
	tok, rest := path[0], path[1:]
	switch t.Kind {
	case signature.List:
		if t.Elem == nil {
			return t
		}
		if _, isIndex := pointerIndex(tok, 1<<30); tok == "*" || isIndex {
			lt := signature.ListOf(firewallType(*t.Elem, rest))
			lt.Optional = t.Optional
			return lt
		}
	case signature.Map:
		// {:string :t}: "*" names every value; a single key's value
		// cannot be told apart in the type, nor can renamed keys.
		if t.Elem != nil && tok == "*" && len(rest) > 0 {
			mt := signature.MapOf(firewallType(*t.Elem, rest))
			mt.Optional = t.Optional
			return mt
		}
	case signature.Record:
		fields := make([]signature.Field, len(t.Fields))
		copy(fields, t.Fields)
		for i, f := range fields {
			if tok != "*" && f.Name != tok {
				continue
			}
			if len(rest) > 0 {
				fields[i].Type = firewallType(f.Type, rest)
			} else if !strings.HasPrefix(f.Name, "_") {
				nk := "_" + f.Name
				for slices.ContainsFunc(fields, func(g signature.Field) bool { return g.Name == nk }) {
					nk = "_" + nk
				}
				fields[i].Name = nk
			}
		}
		t.Fields = fields
	}
	return t
}
