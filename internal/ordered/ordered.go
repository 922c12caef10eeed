// Package ordered decodes JSON keeping the keys of objects in document
// order, as sweep's grid points and the tidy tables of package table need
// (encoding/json's maps forget it).
package ordered

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Object is a JSON object with its keys in document order.
type Object []Field

// Field is one key of an Object and its value.
type Field struct {
	Key   string
	Value any
}

// Decode decodes one JSON value: objects as Object (keys in order),
// arrays as []any, numbers as json.Number, and strings, booleans and null
// as encoding/json does. Data after the value is an error.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after a JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var o Object
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o = append(o, Field{k.(string), v})
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			if o == nil {
				o = Object{}
			}
			return o, nil
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return a, nil
		}
		return nil, fmt.Errorf("unexpected %v in JSON", t)
	}
	return tok, nil
}

// Plain turns a decoded value back into encoding/json's types (objects as
// maps).
func Plain(v any) any {
	switch x := v.(type) {
	case Object:
		m := make(map[string]any, len(x))
		for _, f := range x {
			m[f.Key] = Plain(f.Value)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = Plain(e)
		}
		return a
	}
	return v
}
