package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ptc-go/ptc/internal/textutil"
)

// Checking results against a tool's outputSchema. The MCP specification
// asks clients to validate structured results against the schema a tool
// declares; a server is a peer, and a program relies on the shape it was
// promised. A third-party validator would expand a schema's $refs as often
// as they occur, so that a small hostile schema could take exponential
// time on any result: this one spends from a budget proportional to the
// result's size, and a result it cannot check within it is refused too.
//
// Checked: type (integer is a number without a fraction), nullable (the
// OpenAPI flag), enum, const, properties, required, additionalProperties,
// patternProperties, minProperties, maxProperties, items (and its draft-4
// tuple form), prefixItems, minItems, maxItems, uniqueItems, minLength,
// maxLength (in characters), pattern (RE2 syntax; a pattern Go cannot
// compile is not checked), minimum, maximum, exclusiveMinimum,
// exclusiveMaximum (both drafts), multipleOf, allOf, anyOf, oneOf, not,
// if/then/else and local $refs. Not checked: format, and the rarer
// keywords (dependentRequired, contains, propertyNames...).

const (
	// validateBaseWork and validateWorkPerNode make the budget of one
	// check: the base plus so much per node of the result.
	validateBaseWork    = 10_000
	validateWorkPerNode = 50
	// validateMaxDepth bounds the nesting of a check (schemas referring
	// to themselves without going deeper into the value).
	validateMaxDepth = 256
)

// errValidateBudget is the error of a check that ran out of budget.
var errValidateBudget = errors.New("too costly to check")

// validator checks one value against one schema document.
type validator struct {
	root    map[string]any
	work    int
	limit   int
	depth   int
	path    []string
	regexps map[string]*regexp.Regexp // nil: the pattern does not compile
}

// validateOutput checks v (decoded with UseNumber) against schema (the
// decoded outputSchema). The error says where and how v differs.
func validateOutput(schema, v any) error {
	vd := &validator{limit: validateBaseWork + validateWorkPerNode*countNodes(v), path: []string{"result"},
		regexps: map[string]*regexp.Regexp{}}
	if m, ok := schema.(map[string]any); ok {
		vd.root = m
	}
	msg, err := vd.check(schema, v)
	if errors.Is(err, errValidateBudget) {
		return fmt.Errorf("the result could not be checked against the outputSchema: %w (more than %d steps)", err, vd.limit)
	}
	if err != nil {
		return fmt.Errorf("the result could not be checked against the outputSchema: %w", err)
	}
	if msg != "" {
		return errors.New(msg)
	}
	return nil
}

// countNodes counts the values in v.
func countNodes(v any) int {
	switch x := v.(type) {
	case map[string]any:
		n := 1
		for _, e := range x {
			n += countNodes(e)
		}
		return n
	case []any:
		n := 1
		for _, e := range x {
			n += countNodes(e)
		}
		return n
	}
	return 1
}

func (vd *validator) spend(n int) error {
	vd.work += n
	if vd.work > vd.limit {
		return errValidateBudget
	}
	return nil
}

// fail is the mismatch message at the current path.
func (vd *validator) fail(format string, a ...any) string {
	return strings.Join(vd.path, "") + ": " + fmt.Sprintf(format, a...)
}

// check returns "" when v is valid, else the first mismatch.
func (vd *validator) check(s, v any) (string, error) {
	if err := vd.spend(1); err != nil {
		return "", err
	}
	// A mismatch's message is made before returning: the path is restored
	// on every return, so that a failed alternative leaves it as it was.
	vd.depth++
	n := len(vd.path)
	defer func() {
		vd.depth--
		vd.path = vd.path[:n]
	}()
	if vd.depth > validateMaxDepth {
		return "", fmt.Errorf("the schema nests deeper than %d levels", validateMaxDepth)
	}
	switch x := s.(type) {
	case bool:
		if !x {
			return vd.fail("no value is valid here (schema false)"), nil
		}
		return "", nil
	case map[string]any:
		return vd.object(x, v)
	}
	return "", nil // not a schema: nothing to check
}

func (vd *validator) object(s map[string]any, v any) (string, error) {
	if ref, ok := s["$ref"].(string); ok {
		if target, found := schemaResolve(vd.root, ref); found {
			if msg, err := vd.check(target, v); msg != "" || err != nil {
				return msg, err
			}
		}
		// An unresolved reference checks nothing; the other keywords
		// still apply (2019-09 and later).
	}
	if v == nil {
		if n, _ := s["nullable"].(bool); n {
			return "", nil
		}
	}
	if msg := vd.typeCheck(s, v); msg != "" {
		return msg, nil
	}
	if vals, ok := s["enum"].([]any); ok {
		if err := vd.spend(len(vals)); err != nil {
			return "", err
		}
		found := false
		for _, e := range vals {
			eq, err := vd.equal(e, v)
			if err != nil {
				return "", err
			}
			if eq {
				found = true
				break
			}
		}
		if !found {
			return vd.fail("%s is not one of the enum's values", preview(v)), nil
		}
	}
	if c, ok := s["const"]; ok {
		eq, err := vd.equal(c, v)
		if err != nil {
			return "", err
		}
		if !eq {
			return vd.fail("%s is not the const %s", preview(v), preview(c)), nil
		}
	}
	var msg string
	var err error
	switch x := v.(type) {
	case map[string]any:
		msg, err = vd.properties(s, x)
	case []any:
		msg, err = vd.items(s, x)
	case string:
		msg = vd.stringCheck(s, x)
	case json.Number, float64:
		msg = vd.numberCheck(s, v)
	}
	if msg != "" || err != nil {
		return msg, err
	}
	return vd.combinators(s, v)
}

// typeCheck checks "type".
func (vd *validator) typeCheck(s map[string]any, v any) string {
	var types []string
	switch t := s["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok {
				types = append(types, str)
			}
		}
	default:
		return ""
	}
	got := jsonKind(v)
	for _, t := range types {
		if t == got || t == "number" && got == "integer" {
			return ""
		}
	}
	return vd.fail("expected %s, got %s %s", strings.Join(types, " or "), got, preview(v))
}

// jsonKind is the JSON Schema type of a value; numbers without a
// fraction are integers.
func jsonKind(v any) string {
	switch x := v.(type) {
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		if f, err := x.Float64(); err == nil && f == math.Trunc(f) && !math.IsInf(f, 0) {
			return "integer"
		}
		return "number"
	}
	return jsonTypeOf(v)
}

func (vd *validator) properties(s map[string]any, m map[string]any) (string, error) {
	props, _ := s["properties"].(map[string]any)
	req, _ := s["required"].([]any)
	if err := vd.spend(len(req) + len(m)); err != nil {
		return "", err
	}
	for _, r := range req {
		if name, ok := r.(string); ok {
			if _, present := m[name]; !present {
				return vd.fail("the required field %q is missing", textutil.TruncateBytes(name, 100)), nil
			}
		}
	}
	if n, ok := schemaInt(s["minProperties"]); ok && len(m) < n {
		return vd.fail("%d fields, fewer than minProperties %d", len(m), n), nil
	}
	if n, ok := schemaInt(s["maxProperties"]); ok && len(m) > n {
		return vd.fail("%d fields, more than maxProperties %d", len(m), n), nil
	}
	patterns, _ := s["patternProperties"].(map[string]any)
	additional, hasAdditional := s["additionalProperties"]
	for _, k := range sortedKeys(m) {
		val := m[k]
		vd.path = append(vd.path, "."+textutil.TruncateBytes(k, 100))
		matched := false
		if sub, ok := props[k]; ok {
			matched = true
			if msg, err := vd.check(sub, val); msg != "" || err != nil {
				return msg, err
			}
		}
		if len(patterns) > 0 {
			if err := vd.spend(len(patterns)); err != nil {
				return "", err
			}
			for _, p := range sortedKeys(patterns) {
				if re := vd.regexp(p); re != nil && re.MatchString(k) {
					matched = true
					if msg, err := vd.check(patterns[p], val); msg != "" || err != nil {
						return msg, err
					}
				}
			}
		}
		if !matched && hasAdditional {
			if b, isBool := additional.(bool); isBool && !b {
				return vd.fail("a field the schema does not allow (additionalProperties false)"), nil
			} else if !isBool {
				if msg, err := vd.check(additional, val); msg != "" || err != nil {
					return msg, err
				}
			}
		}
		vd.path = vd.path[:len(vd.path)-1]
	}
	return "", nil
}

func (vd *validator) items(s map[string]any, list []any) (string, error) {
	if n, ok := schemaInt(s["minItems"]); ok && len(list) < n {
		return vd.fail("%d items, fewer than minItems %d", len(list), n), nil
	}
	if n, ok := schemaInt(s["maxItems"]); ok && len(list) > n {
		return vd.fail("%d items, more than maxItems %d", len(list), n), nil
	}
	prefix, _ := s["prefixItems"].([]any)
	items, hasItems := s["items"]
	if tuple, isTuple := items.([]any); isTuple { // draft 4's tuple form
		prefix = tuple
		items, hasItems = s["additionalItems"]
	}
	for i, e := range list {
		var sub any
		switch {
		case i < len(prefix):
			sub = prefix[i]
		case hasItems:
			sub = items
		default:
			continue
		}
		vd.path = append(vd.path, "["+strconv.Itoa(i)+"]")
		if msg, err := vd.check(sub, e); msg != "" || err != nil {
			return msg, err
		}
		vd.path = vd.path[:len(vd.path)-1]
	}
	if u, _ := s["uniqueItems"].(bool); u && len(list) > 1 {
		seen := make(map[string]int, len(list))
		for i, e := range list {
			key, err := vd.canonical(e)
			if err != nil {
				return "", err
			}
			if j, dup := seen[key]; dup {
				return vd.fail("items %d and %d are equal (uniqueItems)", j, i), nil
			}
			seen[key] = i
		}
	}
	return "", nil
}

func (vd *validator) stringCheck(s map[string]any, str string) string {
	if n, ok := schemaInt(s["minLength"]); ok && utf8.RuneCountInString(str) < n {
		return vd.fail("%s is shorter than minLength %d", preview(str), n)
	}
	if n, ok := schemaInt(s["maxLength"]); ok && utf8.RuneCountInString(str) > n {
		return vd.fail("%s is longer than maxLength %d", preview(str), n)
	}
	if p, ok := s["pattern"].(string); ok {
		if re := vd.regexp(p); re != nil && !re.MatchString(str) {
			return vd.fail("%s does not match the pattern %s", preview(str), preview(p))
		}
	}
	return ""
}

func (vd *validator) numberCheck(s map[string]any, v any) string {
	f, ok := schemaFloat(v)
	if !ok {
		return ""
	}
	bound := func(key string, bad func(x, b float64) bool, what string) string {
		b, ok := schemaFloat(s[key])
		if ok && bad(f, b) {
			return vd.fail("%s is %s %s", preview(v), what, preview(s[key]))
		}
		return ""
	}
	checks := []struct {
		key  string
		bad  func(x, b float64) bool
		what string
	}{
		{"minimum", func(x, b float64) bool { return x < b }, "below the minimum"},
		{"maximum", func(x, b float64) bool { return x > b }, "above the maximum"},
		{"exclusiveMinimum", func(x, b float64) bool { return x <= b }, "not above the exclusiveMinimum"},
		{"exclusiveMaximum", func(x, b float64) bool { return x >= b }, "not below the exclusiveMaximum"},
	}
	for _, c := range checks {
		if msg := bound(c.key, c.bad, c.what); msg != "" {
			return msg
		}
	}
	// Draft 4: exclusiveMinimum/Maximum are flags on minimum/maximum.
	if ex, _ := s["exclusiveMinimum"].(bool); ex {
		if b, ok := schemaFloat(s["minimum"]); ok && f <= b {
			return vd.fail("%s is not above the exclusive minimum %s", preview(v), preview(s["minimum"]))
		}
	}
	if ex, _ := s["exclusiveMaximum"].(bool); ex {
		if b, ok := schemaFloat(s["maximum"]); ok && f >= b {
			return vd.fail("%s is not below the exclusive maximum %s", preview(v), preview(s["maximum"]))
		}
	}
	if m, ok := schemaFloat(s["multipleOf"]); ok && m > 0 {
		q := f / m
		if math.Abs(q-math.Round(q)) > 1e-9*math.Max(1, math.Abs(q)) {
			return vd.fail("%s is not a multiple of %s", preview(v), preview(s["multipleOf"]))
		}
	}
	return ""
}

func (vd *validator) combinators(s map[string]any, v any) (string, error) {
	if all, ok := s["allOf"].([]any); ok {
		for _, sub := range all {
			if msg, err := vd.check(sub, v); msg != "" || err != nil {
				return msg, err
			}
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		alts, ok := s[kw].([]any)
		if !ok {
			continue
		}
		matches := 0
		for _, sub := range alts {
			msg, err := vd.check(sub, v)
			if err != nil {
				return "", err
			}
			if msg == "" {
				matches++
				if kw == "anyOf" || matches > 1 {
					break
				}
			}
		}
		switch {
		case matches == 0:
			return vd.fail("%s matches none of the %s alternatives", preview(v), kw), nil
		case kw == "oneOf" && matches > 1:
			return vd.fail("%s matches more than one of the oneOf alternatives", preview(v)), nil
		}
	}
	if not, ok := s["not"]; ok {
		msg, err := vd.check(not, v)
		if err != nil {
			return "", err
		}
		if msg == "" {
			return vd.fail("%s matches the schema of not", preview(v)), nil
		}
	}
	if cond, ok := s["if"]; ok {
		msg, err := vd.check(cond, v)
		if err != nil {
			return "", err
		}
		branch, has := s["then"]
		if msg != "" {
			branch, has = s["else"]
		}
		if has {
			return vd.check(branch, v)
		}
	}
	return "", nil
}

// regexp compiles a pattern once; nil if Go cannot compile it.
func (vd *validator) regexp(p string) *regexp.Regexp {
	if re, ok := vd.regexps[p]; ok {
		return re
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	vd.regexps[p] = re
	return re
}

// equal compares JSON values, numbers by value, paying for each node.
func (vd *validator) equal(a, b any) (bool, error) {
	if err := vd.spend(1); err != nil {
		return false, err
	}
	if fa, ok := schemaFloat(a); ok {
		fb, ok := schemaFloat(b)
		return ok && fa == fb, nil
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false, nil
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok {
				return false, nil
			}
			if eq, err := vd.equal(xv, yv); !eq || err != nil {
				return false, err
			}
		}
		return true, nil
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false, nil
		}
		for i := range x {
			if eq, err := vd.equal(x[i], y[i]); !eq || err != nil {
				return false, err
			}
		}
		return true, nil
	}
	return a == b, nil
}

// canonical is a JSON text of v equal for equal values (keys sorted,
// numbers as floats), for uniqueItems.
func (vd *validator) canonical(v any) (string, error) {
	if err := vd.spend(countNodes(v)); err != nil {
		return "", err
	}
	data, err := json.Marshal(normalizeNumbers(v))
	return string(data), err
}

func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeNumbers(e)
		}
		return out
	}
	return v
}

// schemaFloat is a JSON number as a float64.
func schemaFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// schemaInt is a non-negative JSON integer.
func schemaInt(v any) (int, bool) {
	f, ok := schemaFloat(v)
	if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

// preview shows a value in a message, briefly.
func preview(v any) string {
	var s string
	switch x := v.(type) {
	case string:
		s = strconv.Quote(textutil.TruncateBytes(x, 60))
		if len(x) > 60 {
			s += "…"
		}
		return s
	case map[string]any:
		return fmt.Sprintf("an object of %d fields", len(x))
	case []any:
		return fmt.Sprintf("an array of %d items", len(x))
	case nil:
		return "null"
	}
	data, _ := json.Marshal(v)
	return textutil.TruncateBytes(string(data), 60)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
