package staleboard

import (
	"errors"
	"math"
	"sync/atomic"
	"time"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/parallel"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// PushModel is a push on a farm at one refresh period: the farm starts
// from Start, runs Push.At periods, and the push lands on its board then
// (farm.Push, in the words the simulator reads too). It is the problem of
// PushOrbit (where does one push end) and CriticalPush (the smallest push
// of its family that ends in the herd), the size of the trap door.
type PushModel struct {
	Model
	// Start is the farm's state at time 0 (default empty), in jobs or in
	// units of T (resolved at Period).
	Start farm.Start
	// Push is the disturbance: its kind, fraction and refresh. PushOrbit
	// lands it as given; CriticalPush searches its size and ignores Jobs
	// and PerPeriod.
	Push farm.Push
	// Servers is N for a push on one server (HotPush): the server is a
	// fraction 1/N of the board. Zero for the other kinds (N → ∞); at
	// most MaxServers.
	Servers int
	// OnBalanced lands the push on the balanced fixed point itself (a farm
	// that has run balanced for long) instead of on Start after Push.At
	// periods; Start and Push.At must then be zero. This is the
	// disturbance of the balanced state whose critical size vanishes at
	// the edge, where the balanced state's basin does.
	OnBalanced bool
}

// Validate checks the model; the *param.Error names the field.
func (m *PushModel) Validate() error {
	if err := m.Model.Validate(); err != nil {
		return err
	}
	if err := m.Start.Validate(); err != nil {
		return err
	}
	if m.Start.Kind == farm.Hot {
		return param.Errorf("Start", "%v: one hot server has no weight among infinitely many; give it as a push (hot:X) on a farm of Servers servers", m.Start)
	}
	if m.Push.IsZero() {
		return param.Errorf("Push", "no push: give its kind (backlog, spread or hot)")
	}
	if m.OnBalanced && (m.Push.At != 0 || !m.Start.IsEmpty()) {
		return param.Errorf("OnBalanced", "a push on the balanced state has no start (%v) and no refresh (%d) of its own", m.Start, m.Push.At)
	}
	p := m.Push
	if p.Jobs == 0 && p.PerPeriod == 0 {
		p.Jobs = 1 // CriticalPush sets the size
	}
	if err := p.Validate(); err != nil {
		return err
	}
	switch {
	case m.Push.Kind == farm.HotPush && (m.Servers < 2 || m.Servers > MaxServers):
		return param.Errorf("Servers", "N = %d: a push on one server needs the number of servers, 2..%d (it is a fraction 1/N of the board)", m.Servers, MaxServers)
	case m.Push.Kind != farm.HotPush && m.Servers != 0:
		return param.Errorf("Servers", "N = %d: only a push on one server (hot:X) is a finite fraction of the board; the others act on the N → ∞ board", m.Servers)
	}
	if m.Push.At > 0 {
		if err := m.checkWork("Push", m.Push.At, m.Period); err != nil {
			return err
		}
	}
	return nil
}

// Disturb is the board p after the push lands: a Backlog moves a fraction
// f of every class up by the push's jobs, a SpreadPush spreads every
// class over 0..S extra jobs (server i of N receives round(i·S/(N − 1)):
// as N → ∞ the ends weigh half as much as the levels between), a HotPush
// moves a fraction 1/servers. The push's jobs must be resolved (AtPeriod).
func Disturb(p []float64, push farm.Push, servers int) ([]float64, error) {
	if _, err := checkBoard(p); err != nil {
		return nil, err
	}
	if err := push.Validate(); err != nil {
		return nil, err
	}
	if push.PerPeriod > 0 {
		return nil, param.Errorf("Push", "%v is in units of T: resolve it at the period first (AtPeriod)", push)
	}
	if push.Kind == farm.HotPush && servers < 2 {
		return nil, param.Errorf("Servers", "a push on one server needs N ≥ 2 servers")
	}
	return disturb(p, push, float64(push.Jobs), servers), nil
}

// disturb is Disturb with b extra jobs, b ≥ 0 possibly fractional: a
// shift by b = i + u puts 1 − u of the mass i and u of it i + 1 up (the
// family is continuous in b, so bisection on it is).
func disturb(p []float64, push farm.Push, b float64, servers int) []float64 {
	if push.Kind == farm.SpreadPush {
		s := int(math.Round(b))
		if s == 0 {
			return append([]float64(nil), p...)
		}
		out := make([]float64, len(p)+s)
		for j := 0; j <= s; j++ {
			w := 1 / float64(s)
			if j == 0 || j == s {
				w /= 2
			}
			for q, x := range p {
				out[q+j] += w * x
			}
		}
		return out
	}
	f := push.Frac()
	if push.Kind == farm.HotPush {
		f = 1 / float64(servers)
	}
	i := int(math.Floor(b))
	u := b - float64(i)
	out := make([]float64, len(p)+i+2)
	for q, x := range p {
		out[q] += (1 - f) * x
		out[q+i] += f * (1 - u) * x
		out[q+i+1] += f * u * x
	}
	for len(out) > 1 && out[len(out)-1] == 0 {
		out = out[:len(out)-1]
	}
	return out
}

// OrbitEnd says where the orbit of a pushed board went.
type OrbitEnd int

const (
	// Undecided: neither within the periods iterated.
	Undecided OrbitEnd = iota
	// Recovered: back at the balanced fixed point (or at another balanced
	// fixed point, not herded).
	Recovered
	// TippedEnd: into the herd (farm.TipWatch).
	TippedEnd
)

func (e OrbitEnd) String() string {
	switch e {
	case Recovered:
		return "recovered"
	case TippedEnd:
		return "tipped"
	}
	return "undecided"
}

// MarshalText writes the end as its word.
func (e OrbitEnd) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// Orbit classification: an orbit has recovered when it is back within
// recoverTol of the balanced fixed point (‖·‖₁, relative to where it
// started, and at most 1e-6), or stands still (a step below stillTol)
// without being herded; it is undecided after maxOrbit periods.
const (
	recoverTol = 1e-6
	stillTol   = 1e-10
	maxOrbit   = 3000
	// settleTol: a herded orbit has settled on its attractor (a
	// two-cycle or a fixed point) when boards two periods apart are this
	// close (ℓ₁ between the board distributions, at most 2).
	settleTol = 1e-6
)

// classifier holds what classifying orbits at one period needs: the map
// (next boards only), the balanced fixed point and the tipping rule.
type classifier struct {
	mp    *Map
	home  []float64
	watch farm.TipWatch
	evals int
}

// newClassifier solves the balanced fixed point at the model's period;
// errNoBalanced when there is none (below the edge).
func newClassifier(m *Model) (*classifier, error) {
	full, err := NewMap(m)
	if err != nil {
		return nil, err
	}
	fp, evals, err := balancedAt(m, nil)
	c := &classifier{mp: full.boardOnly(), watch: farm.TipWatch{Period: m.Period, Load: m.Load}, evals: evals}
	if err != nil {
		return c, err
	}
	c.home = fp.Board[:support(fp.Board, 1e-18)]
	return c, nil
}

// classify iterates the map from p, the board just after a push of b
// jobs per server hit, until the orbit recovers, ends in the herd or runs
// out of periods; it returns the end and the periods to it (for a tip, to
// the refresh at which the watch saw it).
//
// A tip is confirmed, not taken at the watch's word: the orbit must then
// stay herded (farm.Herded at every refresh) until it settles (boards two
// periods apart within settleTol: a herded cycle or fixed point) or for
// confirmPeriods(b) refreshes, longer than the push's excess takes to
// drain at (1 − λ)·T a period. Where a herd exists (k ≥ 3) the first tip
// is final and the two agree; with two dispatchers there is no herd, and
// a push of several (1 − λ)·T flips between the halves for a few
// periods, herded by the watch, before it drains away.
func (c *classifier) classify(p []float64, b float64, canceled func() error) (OrbitEnd, int, error) {
	w := c.watch // a fresh copy: the push's own board is not counted
	d0 := l1(p, c.home)
	tol := math.Min(recoverTol, recoverTol*d0)
	confirm := c.confirmPeriods(b)
	tippedAt := 0
	var prev, prev2 []float64 // the boards one and two periods back
	for n := 1; n <= maxOrbit; n++ {
		if n%16 == 0 {
			if err := canceled(); err != nil {
				return Undecided, n - 1, err
			}
		}
		r, err := c.mp.Apply(p)
		c.evals++
		if err != nil {
			return Undecided, n - 1, err
		}
		step := l1(r.Next, p)
		prev2, prev, p = prev, p, r.Next
		herded := farm.Herded(p, c.mp.Period, c.mp.Load)
		if w.Next(p) && tippedAt == 0 {
			tippedAt = n
		}
		if !herded {
			tippedAt = 0 // a tip that let go: a drain, not the herd
		}
		switch {
		case l1(p, c.home) < tol || step < stillTol && !herded:
			return Recovered, n, nil
		case tippedAt > 0 && (n-tippedAt >= confirm || prev2 != nil && l1(p, prev2) < settleTol):
			return TippedEnd, tippedAt, nil
		}
	}
	return Undecided, maxOrbit, nil
}

// confirmPeriods is how long a tipped orbit must stay herded, after a
// push of b jobs per server hit, to count as in the herd: twice the
// periods its excess takes to drain at (1 − λ)·T a period, and 10 at
// least.
func (c *classifier) confirmPeriods(b float64) int {
	drain := (1 - c.mp.Load) * c.mp.Period
	return 10 + int(math.Ceil(2*b/drain))
}

// preBoard is the board on which the push lands: the balanced fixed
// point (OnBalanced), or the start resolved at T and iterated At periods.
func (c *classifier) preBoard(m *PushModel) ([]float64, error) {
	if m.OnBalanced {
		return c.home, nil
	}
	p, err := Board(m.Start.At(m.Period))
	if err != nil {
		return nil, err
	}
	for range m.Push.At {
		r, err := c.mp.Apply(p)
		c.evals++
		if err != nil {
			return nil, err
		}
		p = r.Next
	}
	return p, nil
}

// OrbitSettings control PushOrbit and CriticalPush; a nil pointer or a
// zero field means the documented default. Run: a cancelled Context stops
// the computation within 16 map evaluations (Status Interrupted, keeping
// the bracket found); Workers is the number of models CriticalTable
// computes at once; Progress is told of each finished model.
type OrbitSettings struct {
	outcome.Run
	// RelTol is the relative width of CriticalPush's bracket, Hi − Lo ≤
	// RelTol·Hi. Default 0.005; 1e-6..0.5.
	RelTol float64
	// MaxJobs is the largest push CriticalPush tries, in jobs per server
	// hit. Default max(4·T, 4,000); at most farm.MaxPushJobs.
	MaxJobs float64
}

func (s *OrbitSettings) normalized(T float64) (OrbitSettings, error) {
	var set OrbitSettings
	if s != nil {
		set = *s
	}
	set.RelTol = param.Or(set.RelTol, 0.005)
	set.MaxJobs = param.Or(set.MaxJobs, math.Max(4*T, 4000))
	if !(set.RelTol >= 1e-6 && set.RelTol <= 0.5) {
		return set, param.Errorf("RelTol", "%v, want 1e-6..0.5", set.RelTol)
	}
	if !(set.MaxJobs >= 1 && set.MaxJobs <= farm.MaxPushJobs) {
		return set, param.Errorf("MaxJobs", "%v jobs, want 1..%d", set.MaxJobs, farm.MaxPushJobs)
	}
	return set, nil
}

// OrbitResult is where one push ends. Status FixedPoint when it
// recovered, Cycle when it tipped (the herd is a cycle or a herded fixed
// point), NotSettled when undecided; NoEdge when there is no balanced
// state at the period (below the edge: every push ends in the herd).
// Evaluations counts the map evaluations, the balanced fixed point's
// included.
type OrbitResult struct {
	outcome.Outcome
	End OrbitEnd
	// Jobs is the push's size, in jobs per server hit; Periods the refresh
	// periods from the push to its end.
	Jobs    float64
	Periods int
	// BalancedMean is the board mean of the balanced fixed point (0 when
	// there is none).
	BalancedMean float64
}

// PushOrbit lands the model's push and follows the map until the orbit
// is back at the balanced fixed point or has tipped into the herd.
func PushOrbit(m *PushModel, s *OrbitSettings) (*OrbitResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	set, err := s.normalized(m.Period)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	push := m.Push.AtPeriod(m.Period)
	out := &OrbitResult{Jobs: float64(push.Jobs)}
	c, err := newClassifier(&m.Model)
	defer func() {
		if c != nil {
			out.Evaluations = c.evals
		}
		out.Elapsed = time.Since(t0)
	}()
	if errors.Is(err, errNoBalanced) {
		out.Status, out.End = outcome.NoEdge, TippedEnd
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	out.BalancedMean = Mean(c.home)
	pre, err := c.preBoard(m)
	if err != nil {
		return nil, err
	}
	end, n, err := c.classify(disturb(pre, push, out.Jobs, m.Servers), out.Jobs, canceled(set.Run))
	if set.Run.Stopped() {
		out.Status = outcome.Interrupted
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	out.End, out.Periods = end, n
	out.Status = map[OrbitEnd]outcome.Status{Recovered: outcome.FixedPoint, TippedEnd: outcome.Cycle, Undecided: outcome.NotSettled}[end]
	return out, nil
}

// canceled is the Run's cancellation as an error.
func canceled(r outcome.Run) func() error {
	return func() error { return r.Ctx().Err() }
}

// CriticalResult is the critical push b* of a family at one period: the
// smallest push whose orbit ends in the herd. Status Converged when
// bracketed to RelTol (Lo recovers, Hi tips); AboveRange when no push up
// to MaxJobs tips (Lo is then MaxJobs, Hi +Inf); NoEdge when there is no
// balanced state at T (below the edge: every push tips, Critical 0);
// NotSettled when an orbit in the bracket was undecided within 3,000
// periods (the bracket is kept as it was); Interrupted when the Context
// was cancelled. Evaluations counts the map evaluations.
type CriticalResult struct {
	outcome.Outcome
	// PushModel is the model, Push the family searched.
	PushModel
	// Critical is b* = (Lo + Hi)/2, in jobs per server hit; Scaled is
	// b*/T. Lo and Hi bracket it: the largest push found to recover and
	// the smallest found to tip.
	Critical, Scaled float64
	Lo, Hi           float64
	// Balanced is the balanced fixed point x* the orbits return to, and
	// BalancedMean its board mean (nil and 0 when there is none).
	Balanced     []float64
	BalancedMean float64
	// Orbits counts the orbits classified; TipPeriods is the periods the
	// orbit at Hi took to tip, RecoverPeriods those the orbit at Lo took
	// to recover (both grow near b*, where the orbit lingers at the saddle
	// on the basin's boundary).
	Orbits                     int
	TipPeriods, RecoverPeriods int
}

// CriticalPush finds b* for the model's push family by bisection on the
// push's size: from 0.1·T (doubled until it tips, up to MaxJobs) down to
// a bracket of relative width RelTol, each push classified by following
// the map until the orbit is back at the balanced fixed point or has
// tipped (farm.TipWatch). At the edge the balanced state's basin
// vanishes and b* → 0.
func CriticalPush(m *PushModel, s *OrbitSettings) (*CriticalResult, error) {
	out, err := CriticalTable([]PushModel{*m}, s)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// CriticalTable computes CriticalPush for every model, on up to
// s.Workers goroutines; results are in the order of models and do not
// depend on the number of workers. Every model is validated before any
// work starts.
func CriticalTable(models []PushModel, s *OrbitSettings) ([]*CriticalResult, error) {
	sets := make([]OrbitSettings, len(models))
	for i := range models {
		if err := models[i].Validate(); err != nil {
			return nil, err
		}
		set, err := s.normalized(models[i].Period)
		if err != nil {
			return nil, err
		}
		sets[i] = set
	}
	var run outcome.Run
	if s != nil {
		run = s.Run
	}
	out := make([]*CriticalResult, len(models))
	var done atomic.Int64
	err := parallel.For(len(models), run.Workers, nil, func(i int) error {
		r, err := critical(&models[i], &sets[i])
		if err != nil {
			return err
		}
		out[i] = r
		run.Report(done.Add(1), int64(len(models)), "")
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// critical is CriticalPush for one model with normalized settings.
func critical(m *PushModel, set *OrbitSettings) (*CriticalResult, error) {
	t0 := time.Now()
	res := &CriticalResult{PushModel: *m}
	res.Push.Jobs, res.Push.PerPeriod = 0, 0
	c, err := newClassifier(&m.Model)
	defer func() {
		if c != nil {
			res.Evaluations = c.evals
		}
		res.Elapsed = time.Since(t0)
	}()
	if errors.Is(err, errNoBalanced) {
		res.Status = outcome.NoEdge
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	res.Balanced, res.BalancedMean = c.home, Mean(c.home)
	pre, err := c.preBoard(m)
	if err != nil {
		return nil, err
	}
	stop := canceled(set.Run)
	try := func(b float64) (OrbitEnd, int, error) {
		res.Orbits++
		return c.classify(disturb(pre, m.Push, b, m.Servers), b, stop)
	}
	finish := func(st outcome.Status) (*CriticalResult, error) {
		res.Status = st
		if !math.IsInf(res.Hi, 1) {
			res.Critical = 0.5 * (res.Lo + res.Hi)
			res.Scaled = res.Critical / m.Period
		}
		return res, nil
	}
	stopped := func(err error) (*CriticalResult, error) {
		if set.Run.Stopped() {
			return finish(outcome.Interrupted)
		}
		return nil, err
	}
	// Bracket: double from 0.1·T until a push tips.
	lo, hi := 0.0, math.Min(0.1*m.Period, set.MaxJobs)
	for {
		end, n, err := try(hi)
		if err != nil {
			return stopped(err)
		}
		if end == Undecided {
			res.Lo, res.Hi = lo, hi
			return finish(outcome.NotSettled)
		}
		if end == TippedEnd {
			res.TipPeriods = n
			break
		}
		res.RecoverPeriods = n
		if hi >= set.MaxJobs {
			res.Lo, res.Hi = hi, math.Inf(1)
			return finish(outcome.AboveRange)
		}
		lo, hi = hi, math.Min(2*hi, set.MaxJobs)
	}
	for hi-lo > set.RelTol*hi {
		mid := 0.5 * (lo + hi)
		end, n, err := try(mid)
		if err != nil {
			res.Lo, res.Hi = lo, hi
			return stopped(err)
		}
		switch end {
		case TippedEnd:
			hi, res.TipPeriods = mid, n
		case Recovered:
			lo, res.RecoverPeriods = mid, n
		default:
			res.Lo, res.Hi = lo, hi
			return finish(outcome.NotSettled)
		}
	}
	res.Lo, res.Hi = lo, hi
	return finish(outcome.Converged)
}
