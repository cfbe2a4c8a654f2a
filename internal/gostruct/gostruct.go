package gostruct

import (
	"reflect"
	"slices"
	"strings"
)

// Field describes how a struct field appears as a map entry (lisp.FromGo)
// and in a signature derived from a Go type (package signature).
type Field struct {
	Name      string // the json name, or the Go name without a tag
	Index     []int  // for reflect.Value.FieldByIndex
	OmitEmpty bool   // ",omitempty" or ",omitzero": the entry may be absent
	AsString  bool   // ",string": the value is encoded as a string
}

// Fields lists the fields of a struct type the way encoding/json does:
// exported fields, json tag names, "-" skipped, embedded structs promoted
// (shallower wins, tagged wins on ties, ambiguous names dropped).
func Fields(t reflect.Type) []Field {
	type candidate struct {
		Field
		depth  int
		tagged bool
	}
	var all []candidate
	var walk func(t reflect.Type, index []int, depth int, visited map[reflect.Type]bool)
	walk = func(t reflect.Type, index []int, depth int, visited map[reflect.Type]bool) {
		if visited[t] {
			return
		}
		visited[t] = true
		defer delete(visited, t)
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			idx := append(slices.Clone(index), i)
			ft := sf.Type
			if sf.Anonymous && name == "" {
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft, idx, depth+1, visited)
					continue
				}
			}
			if !sf.IsExported() {
				continue
			}
			tagged := name != ""
			if name == "" {
				name = sf.Name
			}
			all = append(all, candidate{
				Field: Field{Name: name, Index: idx,
					OmitEmpty: strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,"),
					AsString:  strings.Contains(","+opts+",", ",string,")},
				depth: depth, tagged: tagged,
			})
		}
	}
	walk(t, nil, 0, map[reflect.Type]bool{})
	byName := map[string][]candidate{}
	var order []string
	for _, c := range all {
		if _, ok := byName[c.Name]; !ok {
			order = append(order, c.Name)
		}
		byName[c.Name] = append(byName[c.Name], c)
	}
	var fields []Field
	for _, name := range order {
		cs := byName[name]
		slices.SortStableFunc(cs, func(a, b candidate) int {
			if a.depth != b.depth {
				return a.depth - b.depth
			}
			if a.tagged != b.tagged {
				if a.tagged {
					return -1
				}
				return 1
			}
			return 0
		})
		if len(cs) > 1 && cs[0].depth == cs[1].depth && cs[0].tagged == cs[1].tagged {
			continue // ambiguous, as encoding/json
		}
		fields = append(fields, cs[0].Field)
	}
	return fields
}
