package farm

import (
	"math"
	"strconv"
	"strings"

	"github.com/fluidlb/fluid/internal/param"
)

// SizeKind names a job-size law; every one has mean 1.
type SizeKind int

const (
	// Exponential sizes (SCV 1).
	Exponential SizeKind = iota
	// Deterministic sizes: every job has size 1 (SCV 0).
	Deterministic
	// H2 is the balanced-means hyperexponential law (see H2Params) with squared
	// coefficient of variation SCV > 1.
	H2
	// Pareto is the Pareto (type I) law with shape a > 1 scaled to mean 1:
	// P(X > x) = (x_m/x)^a for x ≥ x_m = (a − 1)/a. Its SCV is 1/(a(a − 2))
	// for a > 2 and infinite for a ≤ 2.
	Pareto
)

// Sizes is a job-size law with mean 1.
type Sizes struct {
	Kind SizeKind
	// SCV is the squared coefficient of variation of H2 (> 1).
	SCV float64
	// Shape is the Pareto shape a (> 1).
	Shape float64
}

// String gives the words that ParseSizes reads: exp, det, h2:SCV or
// pareto:SHAPE.
func (s Sizes) String() string {
	switch s.Kind {
	case Deterministic:
		return "det"
	case H2:
		return "h2:" + strconv.FormatFloat(s.SCV, 'g', -1, 64)
	case Pareto:
		return "pareto:" + strconv.FormatFloat(s.Shape, 'g', -1, 64)
	}
	return "exp"
}

// ParseSizes parses exp, det, h2:SCV or pareto:SHAPE (any case).
func ParseSizes(s string) (Sizes, error) {
	name, arg, has := strings.Cut(strings.ToLower(s), ":")
	num := func() (float64, error) {
		// Decimal only, as every other number fluid reads: strconv alone
		// would also take hexadecimal (0x1p3) and digit separators.
		decimal := strings.Trim(arg, "0123456789.eE+-") == "" && arg != ""
		v, err := strconv.ParseFloat(arg, 64)
		if !has || !decimal || err != nil || !param.Finite(v) {
			return 0, param.Errorf("Sizes", "%q: %s needs a decimal number after the colon", s, name)
		}
		return v, nil
	}
	var z Sizes
	switch name {
	case "exp":
		z = Sizes{Kind: Exponential}
	case "det":
		z = Sizes{Kind: Deterministic}
	case "h2":
		v, err := num()
		if err != nil {
			return Sizes{}, err
		}
		z = Sizes{Kind: H2, SCV: v}
	case "pareto":
		v, err := num()
		if err != nil {
			return Sizes{}, err
		}
		z = Sizes{Kind: Pareto, Shape: v}
	default:
		return Sizes{}, param.Errorf("Sizes", "unknown sizes %q (want exp, det, h2:SCV or pareto:SHAPE)", s)
	}
	if (name == "exp" || name == "det") && has {
		return Sizes{}, param.Errorf("Sizes", "%q: %s takes no parameter", s, name)
	}
	return z, z.Validate()
}

// Validate checks the law's parameter (*param.Error naming Sizes).
func (s Sizes) Validate() error {
	switch s.Kind {
	case Exponential, Deterministic:
		return nil
	case H2:
		if !param.Finite(s.SCV) || s.SCV <= 1 {
			return param.Errorf("Sizes", "H2 needs SCV > 1, got %v (use exp for SCV 1)", s.SCV)
		}
		return nil
	case Pareto:
		if !param.Finite(s.Shape) || s.Shape <= 1 {
			return param.Errorf("Sizes", "Pareto needs shape > 1 for a finite mean, got %v", s.Shape)
		}
		return nil
	}
	return param.Errorf("Sizes", "unknown size kind %d", int(s.Kind))
}

// SquaredCV is the squared coefficient of variation (+Inf for a Pareto
// shape ≤ 2).
func (s Sizes) SquaredCV() float64 {
	switch s.Kind {
	case Deterministic:
		return 0
	case H2:
		return s.SCV
	case Pareto:
		if s.Shape <= 2 {
			return math.Inf(1)
		}
		return 1 / (s.Shape * (s.Shape - 2))
	}
	return 1
}
