package lisp

import (
	"bytes"
	"encoding/json"
)

// JSON text in and out, under the names of the two libraries LLM-written
// Clojure reaches for: clojure.data.json (read-str, write-str) and cheshire
// (parse-string, generate-string). Both namespaces, and the alias json
// that programs use for either, are one namespace here, so that
// (require '[cheshire.core :as json]) and (require '[clojure.data.json :as
// json]) both work, and json/ works without a require. Reading is the
// decoder tool results go through (objects become maps with string keys);
// writing is ToJSON's encoding (keyword keys and values as their names,
// map keys in canonical order). Like str, they build values: nothing is
// hidden from the program.

func registerJSON(t *builtinTable) {
	t.add("json/read-str", 1, -1, func(th *thread, a []Value) (Value, error) {
		s, err := stringArg("json/read-str", a, 0)
		if err != nil {
			return nil, err
		}
		var keyFn Value
		if len(a)%2 == 0 {
			return nil, errorf(ArityError, "json/read-str expects a string and options in pairs, as (json/read-str s :key-fn keyword), got %d arguments", len(a))
		}
		for i := 1; i < len(a); i += 2 {
			switch a[i] {
			case Keyword("key-fn"):
				keyFn = a[i+1]
			case Keyword("eof-error?"), Keyword("eof-value"), Keyword("bigdec"):
				// They change nothing a whole-string read can show here.
			default:
				return nil, errorf(InvalidArgument, "json/read-str: option %s is not supported (only :key-fn)", Print(a[i], PrintOptions{}))
			}
		}
		return th.readJSON("json/read-str", s, keyFn)
	})
	t.add("json/parse-string", 1, 2, func(th *thread, a []Value) (Value, error) {
		s, err := stringArg("json/parse-string", a, 0)
		if err != nil {
			return nil, err
		}
		var keyFn Value
		if len(a) == 2 {
			switch k := a[1].(type) {
			case nil:
			case bool:
				if k {
					keyFn = Keyword("keyword") // cheshire's true: keyword keys
				}
			default:
				keyFn = k
			}
		}
		return th.readJSON("json/parse-string", s, keyFn)
	})
	write := func(name string) builtinFn {
		return func(th *thread, a []Value) (Value, error) {
			pretty := false
			for i := 1; i < len(a); i++ {
				// (generate-string v {:pretty true}), (write-str v :indent true)
				switch o := a[i].(type) {
				case *Map:
					p, _ := o.Get(Keyword("pretty"))
					pretty = pretty || truthy(p)
				case Keyword:
					if i+1 < len(a) && (o == "indent" || o == "pretty") {
						pretty = pretty || truthy(a[i+1])
						i++
					}
				}
			}
			if err := th.charge(1); err != nil {
				return nil, err
			}
			b, err := ToJSON(a[0], nil)
			if err != nil {
				return nil, errorf(InvalidArgument, "%s: %s", name, err.Error())
			}
			if pretty {
				var buf bytes.Buffer
				if json.Indent(&buf, b, "", "  ") == nil {
					b = buf.Bytes()
				}
			}
			return string(b), th.chargeString(len(b))
		}
	}
	t.add("json/write-str", 1, -1, write("json/write-str"))
	t.add("json/generate-string", 1, 2, write("json/generate-string"))
}

// readJSON decodes s, charged before it is decoded as if every two bytes
// made a value (the densest JSON, [0,0,…], does), with map keys passed
// through keyFn when it is set (keyword: keyword keys).
func (th *thread) readJSON(fn, s string, keyFn Value) (Value, error) {
	if err := th.scanned(len(s)); err != nil {
		return nil, err
	}
	if err := th.charge(int64(len(s)/2 + 1)); err != nil {
		return nil, err
	}
	v, err := parseJSON([]byte(s))
	if err != nil {
		return nil, classError(InvalidArgument, classRuntime, "%s: cannot read %s as JSON: %s", fn, brief(s), err.Error())
	}
	if keyFn == nil {
		return v, nil
	}
	return th.mapJSONKeys(v, keyFn)
}

// mapJSONKeys rebuilds the maps of a decoded JSON value with their keys
// passed through f. The value is a tree the decoder just made, bounded by
// the input: the walk is too.
func (th *thread) mapJSONKeys(v Value, f Value) (Value, error) {
	switch x := v.(type) {
	case *Map:
		keys := make([]Value, 0, x.Len())
		vals := make([]Value, 0, x.Len())
		for k, val := range x.All() {
			var nk Value
			var err error
			if f == Keyword("keyword") {
				if s, ok := k.(string); ok {
					nk = Keyword(s)
				} else {
					nk = k
				}
			} else if nk, err = th.call(f, []Value{k}); err != nil {
				return nil, err
			}
			nv, err := th.mapJSONKeys(val, f)
			if err != nil {
				return nil, err
			}
			keys, vals = append(keys, nk), append(vals, nv)
		}
		return mapFromEntries(keys, vals), nil
	case *Vector:
		items := x.Items()
		out := make([]Value, len(items))
		for i, it := range items {
			nv, err := th.mapJSONKeys(it, f)
			if err != nil {
				return nil, err
			}
			out[i] = nv
		}
		return NewVector(out), nil
	}
	return v, nil
}
