package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/lists"
)

// A flagRule declares, once, what a flag of a command is: the struct
// field it sets (the field a library's *param.Error names, so that the
// error can name the flag), the range of its value, whether it holds a
// list the command runs through itself, and the modes in which it has an
// effect. A flag given where it has none is refused before any work
// (exit status 2) with the reason: no flag is ever silently ignored.
type flagRule struct {
	flag  string     // the flag's name, without dashes
	field string     // the model or settings field it sets ("" none)
	rng   *flagRange // the range of its value, checked when it is given (nil: the model's Validate checks it)
	// list: the flag holds a list of values the command runs through
	// itself (one table row per value); a sweep makes each value a task.
	list *lists.Kind
	// when is nil for a flag that always has an effect; otherwise it
	// returns "" where the flag has one and, where it has none, why
	// ("applies with --simulate").
	when func() string
}

// flagRange is the range of a numeric flag: [lo, hi], each end open when
// its flag says so, with an example of a valid value for the message.
type flagRange struct {
	lo, hi         float64
	loOpen, hiOpen bool
	integer        bool
	example        string
}

// in is a closed range of integers.
func in(lo, hi int, example string) *flagRange {
	return &flagRange{lo: float64(lo), hi: float64(hi), integer: true, example: example}
}

// between is a range of reals; open says which ends are excluded ("(]",
// "[)", "()" or "[]").
func between(lo, hi float64, open, example string) *flagRange {
	return &flagRange{lo: lo, hi: hi, loOpen: open[0] == '(', hiOpen: open[1] == ')', example: example}
}

func (r *flagRange) String() string {
	num := func(x float64) string {
		if r.integer {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		return g(x)
	}
	if r.integer {
		return fmt.Sprintf("an integer in %s..%s", num(r.lo), num(r.hi))
	}
	lb, rb := "[", "]"
	if r.loOpen {
		lb = "("
	}
	if r.hiOpen {
		rb = ")"
	}
	return fmt.Sprintf("a number in %s%s, %s%s", lb, num(r.lo), num(r.hi), rb)
}

func (r *flagRange) holds(x float64) bool {
	if math.IsNaN(x) {
		return false
	}
	if x < r.lo || x > r.hi || (r.loOpen && x == r.lo) || (r.hiOpen && x == r.hi) {
		return false
	}
	return !r.integer || x == math.Trunc(x)
}

// maxWorkers bounds every --workers: goroutines computing at once.
const maxWorkers = 1024

// Annotation keys on a command and its flags.
const (
	fieldKey = "fluid.field." // + field → "--flag" (on the command)
	listKey  = "fluid.list"   // the lists.Kind of a list flag (on the flag)
)

// declare binds the rules of cmd's flags: the field → flag map that
// usage errors use, the list flags the sweep reads, and a check, before
// the command runs, of every flag given (its range and where it applies).
// Every rule names a flag of cmd (else declare panics: a bug caught by
// any test that builds the commands).
func declare(cmd *cobra.Command, rules ...flagRule) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	for _, r := range rules {
		f := cmd.Flags().Lookup(r.flag)
		if f == nil {
			panic("declare: " + cmd.Name() + " has no flag --" + r.flag)
		}
		if r.field != "" {
			cmd.Annotations[fieldKey+r.field] = flagName(f) + "\x00" + flagTyped(f)
		}
		if r.list != nil {
			if f.Annotations == nil {
				f.Annotations = map[string][]string{}
			}
			f.Annotations[listKey] = []string{strconv.Itoa(int(*r.list))}
		}
	}
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		for _, r := range rules {
			f := c.Flags().Lookup(r.flag)
			if !f.Changed {
				continue
			}
			if r.when != nil {
				if why := r.when(); why != "" {
					return usagef("%s has no effect here: %s", flagName(f), why)
				}
			}
			if r.rng != nil {
				x, err := strconv.ParseFloat(f.Value.String(), 64)
				if err != nil || !r.rng.holds(x) {
					return usagef("invalid %s: %s, want %s (e.g. %s %s)", flagName(f), f.Value.String(), r.rng, flagTyped(f), r.rng.example)
				}
			}
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}

// flagName is the flag as messages name it: --name, followed by its
// one-letter synonym where it has one ("--dispatchers (-k)").
func flagName(f *pflag.Flag) string {
	if f.Shorthand != "" {
		return "--" + f.Name + " (-" + f.Shorthand + ")"
	}
	return "--" + f.Name
}

// flagTyped is the flag as one types it in an example: -k, or --name.
func flagTyped(f *pflag.Flag) string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand
	}
	return "--" + f.Name
}

// listKindOf is the kind of one value of a list flag, if f is one.
func listKindOf(f *pflag.Flag) (lists.Kind, bool) {
	v, ok := f.Annotations[listKey]
	if !ok || len(v) != 1 {
		return 0, false
	}
	k, err := strconv.Atoi(v[0])
	return lists.Kind(k), err == nil
}

// kind is a pointer to k, for flagRule.list.
func kind(k lists.Kind) *lists.Kind { return &k }

// needs is a when for a flag that applies only where cond holds.
func needs(cond func() bool, why string) func() string {
	return func() string {
		if cond() {
			return ""
		}
		return why
	}
}

// paramUsage turns an invalid-parameter error from a solver into a usage
// error naming the flag that cmd declared for the field; other errors
// pass through unchanged. It is applied once, to whatever a command
// returns (run), so a command need not map its errors itself.
func paramUsage(cmd *cobra.Command, err error) error {
	var pe *param.Error
	if !errors.As(err, &pe) {
		return err
	}
	name, typed := pe.Param, pe.Param
	for c := cmd; c != nil; c = c.Parent() {
		if f, ok := c.Annotations[fieldKey+pe.Param]; ok {
			name, typed, _ = strings.Cut(f, "\x00")
			break
		}
	}
	msg := pe.Msg
	if !strings.Contains(msg, "e.g.") {
		if ex, ok := fieldExamples[pe.Param]; ok {
			msg += " (e.g. " + typed + " " + ex + ")"
		}
	}
	return &usageError{err: fmt.Errorf("invalid %s: %s", name, msg)}
}

// fieldExamples are valid values of the model fields, for the messages of
// errors that do not give one.
var fieldExamples = map[string]string{
	"Load": "0.9", "Alpha": "0.7,0.3", "Beta": "0.5,0.5", "Exchange": "4", "Servers": "100",
	"K": "5", "Period": "400", "Dispatchers": "5", "Sizes": "h2:10", "Policy": "jsqd:2",
	"Discipline": "fcfs", "Scenario": "queueing", "IMax": "200", "TailTol": "1e-12",
	"Start": "half:110", "Tally": "own", "Floor": "0.05", "MaxPeriod": "1e5", "Horizon": "1000",
	"Jobs": "100000", "Reps": "10", "Warmup": "10000", "Level": "0.95", "Tol": "1e-10",
	"MaxIter": "3000", "Until": "20", "Workers": "2", "CorrelationAge": "100", "D": "2",
	"Top": "0.05", // edge: the search range [floor, top] is empty
}
