package bestofd

import (
	"errors"
	"fmt"
	"math"

	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/outcome"
)

// errBudget ends a run that has spent its work budget.
var errBudget = errors.New("bestofd: work budget spent")

// orbit runs the period map for Attractor: it counts the evaluations and
// the state updates, stops at the work budget, reports progress, and
// records every period of plain iteration.
type orbit struct {
	pm          *periodMap
	set         *AttractorSettings
	est, before float64 // the run's estimate; the updates of smaller truncations
	load        float64
	evals       int
	record      bool     // plain iteration: keep each period
	series      []period // the periods of plain iteration
	last        period   // the last period evaluated
}

// period is what one evaluation of the map yields.
type period struct {
	meanQueue, boardMean   float64
	lost, lostTop, lostGia float64
}

func (o *orbit) work() float64 { return o.before + float64(o.pm.totalUpdates) }

// apply is the period map as the solvers see it.
func (o *orbit) apply(dst, x []float64) error {
	if o.work() > o.set.MaxWork {
		return errBudget
	}
	return o.eval(dst, x)
}

// eval applies the map once and records the period.
func (o *orbit) eval(dst, x []float64) error {
	pm := o.pm
	if err := pm.apply(dst, x); err != nil {
		return err
	}
	o.evals++
	var bm float64 // the board mean of x (whose mass is 1)
	for b, v := range pm.q {
		bm += float64(b) * v
	}
	o.last = period{meanQueue: pm.meanQueue, boardMean: bm, lost: pm.periodLost, lostTop: pm.periodLostTop, lostGia: pm.periodLostGiant}
	if o.record {
		o.series = append(o.series, o.last)
	}
	done := o.work()
	o.set.Report(int64(done), int64(math.Max(o.est, 1.05*done)), fmt.Sprintf("period %d", o.evals))
	return nil
}

// result is the attempt with the run's counts filled in.
func (o *orbit) result(st outcome.Status) *attempt {
	r := &attempt{}
	r.Status, r.Evaluations, r.Iterations = st, o.evals, o.evals
	r.States, r.Work = o.pm.ch.n, o.work()
	return r
}

// end is the attempt cut short by err: the budget (IterationLimit, the
// last Window periods of plain iteration averaged), the context
// (Interrupted, the periods of plain iteration averaged) or a failure.
func (o *orbit) end(err error) *attempt {
	switch {
	case errors.Is(err, errBudget):
		r := o.result(outcome.IterationLimit)
		o.average(r, o.set.Window)
		return r
	case errors.Is(err, errStopped):
		r := o.result(outcome.Interrupted)
		o.average(r, len(o.series))
		return r
	}
	return &attempt{err: err}
}

// average fills r with the averages of the last window periods of plain
// iteration (of the last period evaluated if there are none).
func (o *orbit) average(r *attempt, window int) {
	ps := o.series
	if len(ps) == 0 {
		if o.evals == 0 {
			return
		}
		ps = []period{o.last}
	}
	ps = ps[len(ps)-min(max(window, 1), len(ps)):]
	r.Averaged = len(ps)
	r.Min, r.Max = math.Inf(1), math.Inf(-1)
	for _, p := range ps {
		r.MeanQueue += p.meanQueue / float64(len(ps))
		r.BoardMean += p.boardMean / float64(len(ps))
		r.Min, r.Max = math.Min(r.Min, p.meanQueue/o.load), math.Max(r.Max, p.meanQueue/o.load)
		r.Lost = math.Max(r.Lost, p.lost)
		r.lostTop, r.lostGiants = math.Max(r.lostTop, p.lostTop), math.Max(r.lostGiants, p.lostGia)
	}
	r.Sojourn = r.MeanQueue / o.load
	var ss float64
	for _, p := range ps {
		d := p.meanQueue/o.load - r.Sojourn
		ss += d * d
	}
	if len(ps) > 1 {
		r.Spread = math.Sqrt(ss / float64(len(ps)-1))
	}
	r.Board = make([]float64, o.pm.ch.M+1)
	var total float64
	for _, v := range o.pm.q {
		total += v
	}
	for b, v := range o.pm.q {
		r.Board[b] = v / total
	}
}

// unsettled is the attempt of plain iteration that found no attractor:
// the average of its last Window periods, the board of the last.
func (o *orbit) unsettled() *attempt {
	r := o.result(outcome.NotSettled)
	o.average(r, o.set.Window)
	return r
}

// settled is the attempt that found att: each point of the cycle (the
// fixed point) is mapped once more, and the periods are averaged.
func (o *orbit) settled(att *fixedpoint.Attractor) *attempt {
	pm := o.pm
	o.record, o.series = true, nil
	dst := make([]float64, pm.ch.n)
	for _, x := range att.Points {
		if err := o.eval(dst, x); err != nil {
			return o.end(err)
		}
	}
	r := o.result(att.Status)
	o.average(r, len(att.Points))
	r.Cycle = att.Period
	pm.ch.levelSums(r.Board, att.Points[0])
	return r
}
