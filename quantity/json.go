package quantity

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// CheckJSON is Check on an encoded document (a line of a sweep, a file a
// script wrote). Malformed JSON is an error.
func CheckJSON(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := decode(d)
	if err != nil {
		return fmt.Errorf("quantity: %w", err)
	}
	c := &checker{}
	c.walk("", "", v, Real, false)
	if o, ok := v.(*object); ok {
		c.relations("", o, nil)
	}
	if len(c.found) == 0 {
		return nil
	}
	return &Error{Violations: c.found}
}

// decode reads one JSON value into the tree, keeping the order of keys.
func decode(d *json.Decoder) (any, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch x := t.(type) {
	case json.Delim:
		switch x {
		case '{':
			o := &object{vals: map[string]any{}}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decode(d)
				if err != nil {
					return nil, err
				}
				o.set(k, v)
			}
			_, err := d.Token()
			return o, err
		case '[':
			a := []any{}
			for d.More() {
				v, err := decode(d)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := d.Token()
			return a, err
		}
	case json.Number:
		return x.Float64()
	}
	return t, nil
}
