package signature

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/ptc-go/ptc/internal/gostruct"
	"github.com/ptc-go/ptc/lisp"
)

var (
	timeType          = reflect.TypeFor[time.Time]()
	jsonNumberType    = reflect.TypeFor[json.Number]()
	keywordType       = reflect.TypeFor[lisp.Keyword]()
	vectorType        = reflect.TypeFor[*lisp.Vector]()
	mapType           = reflect.TypeFor[*lisp.Map]()
	instantType       = reflect.TypeFor[lisp.Instant]()
	dateType          = reflect.TypeFor[lisp.Date]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
)

// TypeOf derives a signature type from a Go type, following the way
// lisp.FromGo converts values of that type:
//
//	string                                :string
//	bool                                  :bool
//	int*, uint*                           :int
//	float32, float64, json.Number         :float
//	time.Time, encoding.TextMarshaler     :string
//	[]byte                                :string (base64, as encoding/json)
//	[]T, [N]T                             [T]
//	map[string]V                          {:string V} (:map when V is an interface)
//	map[K]V, other keys                   :map
//	struct                                {field :type ...} by encoding/json field names
//	*T                                    T? (nil allowed)
//	interface types, json.Marshaler       :any
//	lisp.Keyword                          :keyword
//	*lisp.Map, *lisp.Vector               :map?, [:any]?
//
// Struct fields follow encoding/json: exported fields under their json tag
// names, "-" skipped, embedded structs promoted. A field is optional when
// it is a pointer or tagged omitempty or omitzero; a ",string" field is a
// :string. The tag desc:"..." gives a field its description. A struct or
// map type that contains itself becomes :map where it recurs, a slice type
// [:any], a pointer type :any?. Channels, functions and complex numbers
// are errors.
func TypeOf(t reflect.Type) (Type, error) {
	d := &deriver{visiting: map[reflect.Type]bool{}}
	return d.derive(t, "")
}

type deriver struct {
	visiting map[reflect.Type]bool
}

func (d *deriver) derive(t reflect.Type, path string) (Type, error) {
	if t == nil {
		return Type{}, nil
	}
	switch t {
	case timeType:
		return Type{Kind: String}, nil
	case jsonNumberType:
		return Type{Kind: Float}, nil
	case keywordType:
		return Type{Kind: Keyword}, nil
	case vectorType:
		return ListOf(Type{}).OrNil(), nil
	case mapType:
		return Type{Kind: Map, Optional: true}, nil
	case instantType, dateType:
		return Type{}, nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.Pointer:
		// A named type that contains itself without a struct between,
		// type Tree map[string]Tree: what it is where it recurs.
		if t.Name() != "" {
			if d.visiting[t] {
				switch t.Kind() {
				case reflect.Map:
					return Type{Kind: Map}, nil
				case reflect.Pointer:
					return Type{Optional: true}, nil
				}
				return ListOf(Type{}), nil
			}
			d.visiting[t] = true
			defer delete(d.visiting, t)
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		// Marshalers with pointer receivers; value receivers are handled
		// with the element type.
		e := t.Elem()
		if t.Implements(jsonMarshalerType) && !e.Implements(jsonMarshalerType) {
			return Type{Optional: true}, nil
		}
		if t.Implements(textMarshalerType) && !e.Implements(textMarshalerType) && !e.Implements(jsonMarshalerType) {
			return Type{Kind: String, Optional: true}, nil
		}
		et, err := d.derive(e, path)
		if err != nil {
			return Type{}, err
		}
		et.Optional = true
		return et, nil
	case reflect.Interface:
		return Type{}, nil
	}
	if t.Implements(jsonMarshalerType) {
		return Type{}, nil
	}
	if t.Implements(textMarshalerType) {
		return Type{Kind: String}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return Type{Kind: Bool}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return Type{Kind: Int}, nil
	case reflect.Float32, reflect.Float64:
		return Type{Kind: Float}, nil
	case reflect.String:
		return Type{Kind: String}, nil
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return Type{Kind: String}, nil
		}
		e, err := d.derive(t.Elem(), path+"[]")
		if err != nil {
			return Type{}, err
		}
		return ListOf(e), nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return Type{Kind: Map}, nil
		}
		e, err := d.derive(t.Elem(), path+"[]")
		if err != nil {
			return Type{}, err
		}
		if e.Kind == Any && !e.Optional {
			return Type{Kind: Map}, nil // map[string]any: any map
		}
		return MapOf(e), nil
	case reflect.Struct:
		if d.visiting[t] {
			return Type{Kind: Map}, nil
		}
		d.visiting[t] = true
		defer delete(d.visiting, t)
		return d.record(t, path)
	}
	where := ""
	if path != "" {
		where = " (at " + path + ")"
	}
	return Type{}, fmt.Errorf("signature: no signature type for the Go type %s%s", t, where)
}

func (d *deriver) record(t reflect.Type, path string) (Type, error) {
	fields := goFields(t)
	out := make([]Field, 0, len(fields))
	for _, f := range fields {
		p := f.Name
		if path != "" {
			p = path + "." + f.Name
		}
		ft, err := d.derive(f.typ, p)
		if err != nil {
			return Type{}, err
		}
		if f.AsString {
			switch ft.Kind {
			case Bool, Int, Float, String:
				ft.Kind = String
			}
		}
		if f.OmitEmpty {
			ft.Optional = true
		}
		out = append(out, Field{Name: f.Name, Type: ft, Description: f.desc})
	}
	return recordOf(out...), nil
}

// goField is a struct field as encoding/json sees it (internal/gostruct, so
// that signatures name fields exactly as FromGo converts them), with its
// type and its desc tag.
type goField struct {
	gostruct.Field
	typ  reflect.Type
	desc string
}

func goFields(t reflect.Type) []goField {
	fields := gostruct.Fields(t)
	out := make([]goField, len(fields))
	for i, f := range fields {
		sf := t.FieldByIndex(f.Index)
		out[i] = goField{Field: f, typ: sf.Type, desc: sf.Tag.Get("desc")}
	}
	return out
}
