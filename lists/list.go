package lists

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxValues bounds the values one flag (one dimension of a grid) may
// expand to, and the entries of one vector value.
const MaxValues = 10_000

// MaxEntries bounds the numbers in all the values of a list of vectors
// (so that a short list of ranges cannot ask for MaxValues vectors of
// MaxValues entries each).
const MaxEntries = 100_000

// Kind is what a flag holds: the type of a grid dimension.
type Kind int

const (
	// Word is free text: a policy, a start, a size law (jsqd:2, half:110).
	Word Kind = iota
	// Int is a decimal integer.
	Int
	// Float is a finite decimal number.
	Float
	// Bool is true or false.
	Bool
	// FloatVector is a value that is itself a comma list of numbers
	// (--alpha 0.7,0.3): in a list, values are separated by ';'.
	FloatVector
	// IntVector is a value that is itself a comma list of integers.
	IntVector
)

var kindNames = [...]string{"word", "int", "float", "bool", "float-vector", "int-vector"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// ParseKind parses the name of a Kind (as String writes it).
func ParseKind(s string) (Kind, error) {
	for k, n := range kindNames {
		if n == s {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("lists: unknown kind %q", s)
}

// Vector reports whether a value of the kind is itself a comma list.
func (k Kind) Vector() bool { return k == FloatVector || k == IntVector }

// Numeric reports whether values of the kind are single numbers.
func (k Kind) Numeric() bool { return k == Int || k == Float }

// elem is the kind of a vector's entries.
func (k Kind) elem() Kind {
	if k == IntVector {
		return Int
	}
	return Float
}

// Value is one value of a flag, held in canonical form: the text passed to
// the command, and the number(s) it denotes.
type Value struct {
	kind Kind
	text string
	i    int64
	f    float64
	b    bool
	vec  []float64
	ivec []int64 // an IntVector's entries, exactly
}

// Kind is the value's kind.
func (v Value) Kind() Kind { return v.kind }

// String is the canonical text of the value (what the command is given).
func (v Value) String() string { return v.text }

// Int is the value of an Int.
func (v Value) Int() int64 { return v.i }

// Float is the value of a number (Int or Float) as a float64.
func (v Value) Float() float64 {
	if v.kind == Int {
		return float64(v.i)
	}
	return v.f
}

// Bool is the value of a Bool.
func (v Value) Bool() bool { return v.b }

// Vector is the entries of a FloatVector or IntVector.
func (v Value) Vector() []float64 { return v.vec }

// Ints is the entries of an IntVector, exactly (beyond 2⁵³ too).
func (v Value) Ints() []int64 { return v.ivec }

// ValueOf is the value holding x: an int64 is an Int, a float64 a Float
// (in canonical text, with no −0), a bool a Bool and a string a Word. Other
// types, and a NaN or infinite float64, are an error.
func ValueOf(x any) (Value, error) {
	switch x := x.(type) {
	case int64:
		return intValue(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return Value{}, fmt.Errorf("%v is not a finite number", x)
		}
		return floatValue(x), nil
	case bool:
		return Value{kind: Bool, text: strconv.FormatBool(x), b: x}, nil
	case string:
		return Value{kind: Word, text: x}, nil
	}
	return Value{}, fmt.Errorf("%v (%T) is not a number, boolean or string", x, x)
}

// Error is a malformed list or range given to a flag.
type Error struct {
	Flag  string // the flag's name, without dashes
	Input string // the text given
	Msg   string
}

func (e *Error) Error() string {
	return fmt.Sprintf("invalid --%s %q: %s", e.Flag, e.Input, e.Msg)
}

// Parse parses the list given to flag for values of the given kind,
// in the grammar shared by every flag of fluid (see the package
// documentation):
//
//	V            one value
//	V,V,…        a list
//	A..B         A, A+1, …, B (the step must land on B)
//	A..B:S       A, A+S, …, B (S > 0; must land on B within 1e-9·S)
//	A..B*F       A, A·F, A·F², … while ≤ B (F > 1; A > 0)
//
// Ranges are for Int and Float. Vector kinds separate values with ';'
// (each value a comma list in the same grammar). Float values from ranges
// are rounded to the decimals of A, B and S, so 0.80..0.95:0.05 gives 0.85
// and not 0.8500000000000001. At most MaxValues values.
func Parse(flag string, kind Kind, s string) ([]Value, error) {
	bad := func(format string, a ...any) error {
		return &Error{Flag: flag, Input: s, Msg: fmt.Sprintf(format, a...)}
	}
	if kind.Vector() {
		var out []Value
		entries := 0
		for _, item := range strings.Split(s, ";") {
			v, err := parseVector(kind, strings.TrimSpace(item))
			if err != nil {
				return nil, bad("%s", err)
			}
			out = append(out, v)
			if len(out) > MaxValues {
				return nil, bad("more than %d values (at most %d per flag)", MaxValues, MaxValues)
			}
			if entries += len(v.vec); entries > MaxEntries {
				return nil, bad("more than %d numbers in all (at most %d per flag)", MaxEntries, MaxEntries)
			}
		}
		return out, nil
	}
	var out []Value
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, bad("empty item")
		}
		vs, err := parseItem(kind, item, MaxValues-len(out))
		if err != nil {
			return nil, bad("%s", err)
		}
		out = append(out, vs...)
	}
	return out, nil
}

// ParseValue parses one value of the kind (no lists, no ranges; a vector
// is its comma list).
func ParseValue(kind Kind, s string) (Value, error) {
	s = strings.TrimSpace(s)
	switch kind {
	case Int:
		i, err := parseInt(s)
		if err != nil {
			return Value{}, err
		}
		return intValue(i), nil
	case Float:
		f, _, err := parseFloat(s)
		if err != nil {
			return Value{}, err
		}
		return floatValue(f), nil
	case Bool:
		return parseBool(s)
	case FloatVector, IntVector:
		return parseVector(kind, s)
	}
	if s == "" {
		return Value{}, fmt.Errorf("empty value")
	}
	return Value{kind: Word, text: s}, nil
}

// ParseInts parses a list of integers for flag (see Parse).
func ParseInts(flag, s string) ([]int, error) {
	vs, err := Parse(flag, Int, s)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(vs))
	for i, v := range vs {
		if int64(int(v.i)) != v.i {
			return nil, &Error{Flag: flag, Input: s, Msg: fmt.Sprintf("%d is out of range", v.i)}
		}
		out[i] = int(v.i)
	}
	return out, nil
}

// ParseFloats parses a list of numbers for flag (see Parse). It is the
// float counterpart of ParseInts for library callers; the fluid command
// itself keeps the parsed Values (Parse), which remember how each number
// was written.
func ParseFloats(flag, s string) ([]float64, error) {
	vs, err := Parse(flag, Float, s)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = v.f
	}
	return out, nil
}

// FormatFloat prints x canonically: the shortest decimal that reads back
// as x, in plain notation unless very large or small (as encoding/json
// prints numbers). 0.85 prints as 0.85, 1e6 as 1000000, 1e-7 as 1e-07.
func FormatFloat(x float64) string {
	if x == 0 {
		return "0" // also −0
	}
	abs := math.Abs(x)
	if abs < 1e-6 || abs >= 1e21 {
		return strconv.FormatFloat(x, 'e', -1, 64)
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

func intValue(i int64) Value {
	return Value{kind: Int, text: strconv.FormatInt(i, 10), i: i}
}

func floatValue(f float64) Value {
	if f == 0 {
		f = 0 // no −0
	}
	return Value{kind: Float, text: FormatFloat(f), f: f}
}

func parseBool(s string) (Value, error) {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return Value{}, fmt.Errorf("%q is not true or false", s)
	}
	return Value{kind: Bool, text: strconv.FormatBool(b), b: b}, nil
}

func parseVector(kind Kind, s string) (Value, error) {
	if s == "" {
		return Value{}, fmt.Errorf("empty value")
	}
	var vec []float64
	var ivec []int64
	var texts []string
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return Value{}, fmt.Errorf("empty entry in %q", s)
		}
		vs, err := parseItem(kind.elem(), item, MaxValues-len(vec))
		if err != nil {
			return Value{}, err
		}
		for _, v := range vs {
			vec = append(vec, v.Float())
			if kind == IntVector {
				ivec = append(ivec, v.i)
			}
			texts = append(texts, v.text)
		}
	}
	return Value{kind: kind, text: strings.Join(texts, ","), vec: vec, ivec: ivec}, nil
}

// parseItem parses one comma-separated item: a value or a range, giving at
// most room values.
func parseItem(kind Kind, item string, room int) ([]Value, error) {
	switch kind {
	case Word:
		return []Value{{kind: Word, text: item}}, nil
	case Bool:
		v, err := parseBool(item)
		if err != nil {
			return nil, err
		}
		return []Value{v}, nil
	}
	tooMany := fmt.Errorf("more than %d values (at most %d per flag)", MaxValues, MaxValues)
	if room <= 0 {
		return nil, tooMany
	}
	lo, rest, isRange := strings.Cut(item, "..")
	if !isRange {
		v, err := ParseValue(kind, item)
		if err != nil {
			return nil, err
		}
		return []Value{v}, nil
	}
	hi, step, op := rest, "", byte(0)
	if i := strings.IndexAny(rest, ":*"); i >= 0 {
		hi, step, op = rest[:i], rest[i+1:], rest[i]
	}
	if kind == Int {
		return intRange(item, lo, hi, step, op, room)
	}
	return floatRange(item, lo, hi, step, op, room)
}

func intRange(item, lo, hi, step string, op byte, room int) ([]Value, error) {
	a, err := parseInt(lo)
	if err != nil {
		return nil, fmt.Errorf("range %q: %v", item, err)
	}
	b, err := parseInt(hi)
	if err != nil {
		return nil, fmt.Errorf("range %q: %v", item, err)
	}
	s := int64(1)
	if op != 0 {
		if s, err = parseInt(step); err != nil {
			return nil, fmt.Errorf("range %q: %v", item, err)
		}
	}
	if b < a {
		return nil, fmt.Errorf("range %q runs backwards", item)
	}
	tooMany := fmt.Errorf("range %q gives more than %d values (at most %d per flag)", item, room, MaxValues)
	var out []Value
	if op == '*' {
		if s < 2 {
			return nil, fmt.Errorf("range %q: factor %d must be an integer ≥ 2", item, s)
		}
		if a < 1 {
			return nil, fmt.Errorf("geometric range %q must start at 1 or more", item)
		}
		for v := a; ; v *= s {
			if len(out) == room {
				return nil, tooMany
			}
			out = append(out, intValue(v))
			if v > b/s { // the next would pass b (or overflow)
				return out, nil
			}
		}
	}
	if s < 1 {
		return nil, fmt.Errorf("range %q: step %d must be ≥ 1", item, s)
	}
	span := uint64(b) - uint64(a) // b ≥ a: no overflow in uint64
	if span%uint64(s) != 0 {
		return nil, fmt.Errorf("range %q: step %d does not land on %d", item, s, b)
	}
	if n := span / uint64(s); n >= uint64(room) {
		return nil, tooMany
	}
	for v := a; ; v += s {
		out = append(out, intValue(v))
		if v == b { // the step lands on b: v + s never passes it
			return out, nil
		}
	}
}

func floatRange(item, lo, hi, step string, op byte, room int) ([]Value, error) {
	a, da, err := parseFloat(lo)
	if err != nil {
		return nil, fmt.Errorf("range %q: %v", item, err)
	}
	b, db, err := parseFloat(hi)
	if err != nil {
		return nil, fmt.Errorf("range %q: %v", item, err)
	}
	s, ds := 1.0, 0
	if op != 0 {
		if s, ds, err = parseFloat(step); err != nil {
			return nil, fmt.Errorf("range %q: %v", item, err)
		}
	}
	if b < a {
		return nil, fmt.Errorf("range %q runs backwards", item)
	}
	tooMany := fmt.Errorf("range %q gives more than %d values (at most %d per flag)", item, room, MaxValues)
	var out []Value
	if op == '*' {
		if !(s > 1) {
			return nil, fmt.Errorf("range %q: factor %s must be > 1", item, FormatFloat(s))
		}
		if !(a > 0) {
			return nil, fmt.Errorf("geometric range %q must start above 0", item)
		}
		for i := 0; ; i++ {
			v := round(a*math.Pow(s, float64(i)), 'g', 12)
			if math.IsInf(v, 0) || v > b+math.Abs(b)*1e-9 {
				return out, nil
			}
			if len(out) == room {
				return nil, tooMany
			}
			out = append(out, floatValue(v))
		}
	}
	if !(s > 0) {
		return nil, fmt.Errorf("range %q: step %s must be > 0", item, FormatFloat(s))
	}
	n := (b - a) / s
	if math.IsInf(n, 0) || n >= float64(room) {
		return nil, tooMany
	}
	k := math.Round(n)
	if math.Abs(n-k) > 1e-9 {
		return nil, fmt.Errorf("range %q: step %s does not land on %s (%.6g steps from %s)", item, FormatFloat(s), FormatFloat(b), n, FormatFloat(a))
	}
	if k >= float64(room) { // n just below room rounds up to it: k+1 values
		return nil, tooMany
	}
	d := max(da, db, ds)
	for i := 0; i <= int(k); i++ {
		v := a + float64(i)*s
		if i == int(k) {
			v = b
		}
		out = append(out, floatValue(round(v, 'f', d)))
	}
	return out, nil
}

// round rounds x to prec digits (decimals for 'f', significant digits for
// 'g') through its decimal text, so that the result is the double nearest
// to the short decimal.
func round(x float64, format byte, prec int) float64 {
	y, err := strconv.ParseFloat(strconv.FormatFloat(x, format, prec, 64), 64)
	if err != nil {
		return x
	}
	return y
}

// parseInt parses a decimal integer: optional sign and digits only (010 is
// ten; no 0x, no underscores).
func parseInt(s string) (int64, error) {
	digits := s
	if digits != "" && (digits[0] == '+' || digits[0] == '-') {
		digits = digits[1:]
	}
	if !isDigits(digits) {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return i, nil
}

// parseFloat parses a finite decimal number (digits, optional fraction and
// exponent; no hexadecimal, no NaN or Inf) and returns it with the number
// of decimals it is written with (0.80 → 2, 5e-3 → 3, 1.5e2 → 0).
func parseFloat(s string) (float64, int, error) {
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
	}
	body := mant
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	ip, fp, hasPoint := strings.Cut(body, ".")
	e := 0
	ok := (ip != "" || fp != "") && (ip == "" || isDigits(ip)) && (!hasPoint || fp == "" || isDigits(fp))
	if ok && exp != "" {
		x := strings.TrimLeft(exp, "+-")
		ok = isDigits(x) && len(exp)-len(x) <= 1 && len(x) <= 4
		if ok {
			e, _ = strconv.Atoi(exp)
		}
	} else if strings.ContainsAny(s, "eE") {
		ok = false
	}
	if !ok {
		low := strings.ToLower(strings.TrimLeft(s, "+-"))
		if low == "nan" || low == "inf" || low == "infinity" {
			return 0, 0, fmt.Errorf("%s is not a finite number", s)
		}
		return 0, 0, fmt.Errorf("%q is not a number", s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, 0, fmt.Errorf("%q is out of range", s)
	}
	return f, max(0, min(len(fp)-e, 400)), nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
