package ordered

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

// Keys keep their document order at every depth; numbers stay
// json.Number; data after the value is an error.
func TestDecode(t *testing.T) {
	v, err := Decode([]byte(`{"b": 1, "a": {"z": [true, null, "x"], "y": 2.5}, "c": {}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Object{{"b", json.Number("1")}, {"a", Object{{"z", []any{true, nil, "x"}}, {"y", json.Number("2.5")}}}, {"c", Object{}}}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("got %#v", v)
	}
	if p := Plain(v).(map[string]any); p["a"].(map[string]any)["y"] != json.Number("2.5") {
		t.Errorf("plain: %#v", p)
	}
	for _, bad := range []string{`{"a": 1} 2`, `{"a"`, `[1,]`, ``} {
		t.Run(strconv.Quote(bad), func(t *testing.T) {
			if _, err := Decode([]byte(bad)); err == nil {
				t.Errorf("%q decodes", bad)
			}
		})
	}
}
