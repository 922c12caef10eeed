package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fluidlb/fluid/lists"
)

// parseIntList parses a list of integers and ranges for the flag named
// flag, in the grammar every list flag of fluid shares (lists.Parse):
//
//	N          one value
//	A..B       A, A+1, …, B
//	A..B:S     A, A+S, …, B (S must land on B)
//	A..B*F     A, A·F, A·F², … while ≤ B (geometric, F ≥ 2)
func parseIntList(flag, s string) ([]int, error) {
	v, err := lists.ParseInts(flag, s)
	if err != nil {
		ex := map[string]string{"dispatchers": "2..10"}[flag]
		if ex == "" {
			ex = "10,100 or --" + flag + " 10..1000*10"
		}
		return nil, &usageError{err: fmt.Errorf("%w (e.g. --%s %s)", err, flag, ex)}
	}
	return v, nil
}

// listUsage turns a list error into a usage error naming the flag.
func listUsage(err error) error {
	var le *lists.Error
	if errors.As(err, &le) {
		return &usageError{err: err}
	}
	return err
}

// flagKind is the kind of value a flag holds (for a list flag, the
// kind of one value: declare binds them).
func flagKind(f *pflag.Flag) lists.Kind {
	if k, ok := listKindOf(f); ok {
		return k
	}
	if lv, ok := f.Value.(*listValue); ok {
		if lv.kind == lists.Float {
			return lists.FloatVector
		}
		return lists.IntVector
	}
	switch f.Value.Type() {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return lists.Int
	case "float32", "float64":
		return lists.Float
	case "bool":
		return lists.Bool
	case "float32Slice", "float64Slice":
		return lists.FloatVector
	case "intSlice", "int32Slice", "int64Slice", "uintSlice":
		return lists.IntVector
	}
	return lists.Word
}

// listType names, in help texts, the value of a string flag that holds a
// list the command runs through (-k of edge).
type listType struct{ pflag.Value }

func (listType) Type() string { return "list" }

// useListGrammar makes the numeric flags of the commands under root read
// the shared grammar: slice flags (--load of fluid edge, --alpha, --beta,
// --servers of fluid meanfield) take its lists and ranges, and scalar
// flags its numbers (decimal integers: 010 is ten; no NaN, Inf or
// hexadecimal).
func useListGrammar(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if _, ok := listKindOf(f); ok && f.Value.Type() == "string" {
				f.Value = listType{f.Value}
				return
			}
			switch f.Value.Type() {
			case "int", "int8", "int16", "int32", "int64":
				f.Value = &numberValue{Value: f.Value, kind: lists.Int}
				return
			case "uint", "uint8", "uint16", "uint32", "uint64":
				f.Value = &numberValue{Value: f.Value, unsigned: true}
				return
			case "float32", "float64":
				f.Value = &numberValue{Value: f.Value, kind: lists.Float}
				return
			}
			sv, ok := f.Value.(pflag.SliceValue)
			if !ok {
				return
			}
			var kind lists.Kind
			switch f.Value.Type() {
			case "float32Slice", "float64Slice":
				kind = lists.Float
			case "intSlice", "int32Slice", "int64Slice", "uintSlice":
				kind = lists.Int
			default:
				return
			}
			f.Value = &listValue{Value: f.Value, slice: sv, name: f.Name, kind: kind}
			// Help shows the default as the list one would type ("0.7,0.3",
			// not "[0.700000,0.300000]"; nothing for an empty one).
			f.DefValue = strings.Join(sv.GetSlice(), ",")
			if kind == lists.Float {
				vals, err := lists.Parse(f.Name, kind, f.DefValue)
				if err == nil {
					texts := make([]string, len(vals))
					for i, x := range vals {
						texts[i] = x.String()
					}
					f.DefValue = strings.Join(texts, ",")
				}
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// numberValue reads a scalar numeric flag in the shared grammar and hands
// the canonical number to the flag.
type numberValue struct {
	pflag.Value
	kind     lists.Kind
	unsigned bool
}

func (v *numberValue) Set(s string) error {
	if v.unsigned {
		t := strings.TrimSpace(s)
		if t == "" || strings.Trim(t, "0123456789") != "" {
			return fmt.Errorf("%q is not a decimal integer ≥ 0", s)
		}
		return v.Value.Set(t)
	}
	x, err := lists.ParseValue(v.kind, s)
	if err != nil {
		return err
	}
	return v.Value.Set(x.String())
}

// listValue parses a slice flag's list in the shared grammar and hands the
// canonical values to the slice. Like pflag's slices, the first use
// replaces the default and later ones append.
type listValue struct {
	pflag.Value
	slice pflag.SliceValue
	name  string
	kind  lists.Kind
	set   bool
}

// Type names the value in help texts: a list of numbers.
func (v *listValue) Type() string {
	if v.kind == lists.Int {
		return "ints"
	}
	return "floats"
}

func (v *listValue) Set(s string) error {
	vals, err := lists.Parse(v.name, v.kind, s)
	if err != nil {
		var le *lists.Error
		if errors.As(err, &le) {
			return errors.New(le.Msg) // pflag names the flag and the input
		}
		return err
	}
	texts := make([]string, len(vals))
	for i, x := range vals {
		texts[i] = x.String()
	}
	if !v.set {
		v.set = true
		return v.slice.Replace(texts)
	}
	for _, t := range texts {
		if err := v.slice.Append(t); err != nil {
			return err
		}
	}
	return nil
}

// kindHint describes, for help texts, what a flag of the kind takes in a
// sweep.
func kindHint(k lists.Kind) string {
	switch k {
	case lists.Int, lists.Float:
		return "list or range"
	case lists.Bool:
		return "true,false"
	case lists.FloatVector, lists.IntVector:
		return "'0.7,0.3;0.6,0.4' is two values"
	}
	return "comma list"
}

// joinNames lists names for messages: "a, b and c".
func joinNames(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
