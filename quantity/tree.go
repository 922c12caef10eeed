package quantity

import (
	"encoding"
	"reflect"
	"strings"
)

// object is a JSON object of a document with its keys in order; values
// are float64 (every number, NaN and ±Inf kept), string, bool, nil,
// []any or *object.
type object struct {
	keys []string
	vals map[string]any
}

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// tree turns a Go value into the tree that encoding/json would write,
// following its rules for field names, embedding, omitempty, pointers,
// maps and text marshalers, but keeping non-finite numbers (which
// encoding/json refuses to write) so that they can be reported.
func tree(v reflect.Value) any {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.CanInterface() {
		if m, ok := v.Interface().(encoding.TextMarshaler); ok {
			b, err := m.MarshalText()
			if err != nil {
				return "!" + err.Error()
			}
			return string(b)
		}
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(v.Uint())
	case reflect.Bool:
		return v.Bool()
	case reflect.String:
		return v.String()
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		fallthrough
	case reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = tree(v.Index(i))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		o := &object{vals: map[string]any{}}
		it := v.MapRange()
		for it.Next() {
			o.set(keyString(it.Key()), tree(it.Value()))
		}
		return o
	case reflect.Struct:
		o := &object{vals: map[string]any{}}
		addFields(o, v)
		return o
	}
	return nil
}

func keyString(k reflect.Value) string {
	if k.Kind() == reflect.String {
		return k.String()
	}
	if t, ok := tree(k).(string); ok {
		return t
	}
	return ""
}

// addFields adds the JSON fields of struct v to o; embedded structs
// without a name of their own add theirs (the outer field wins a clash,
// as in encoding/json).
func addFields(o *object, v reflect.Value) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := v.Field(i)
		if f.Anonymous && name == "" {
			ev := fv
			for ev.Kind() == reflect.Pointer {
				if ev.IsNil() {
					break
				}
				ev = ev.Elem()
			}
			if ev.Kind() == reflect.Struct {
				inner := &object{vals: map[string]any{}}
				addFields(inner, ev)
				for _, k := range inner.keys {
					if _, ok := o.vals[k]; !ok {
						o.set(k, inner.vals[k])
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(opts, "omitempty") && fv.IsZero() {
			continue
		}
		o.set(name, tree(fv))
	}
}
