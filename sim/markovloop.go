package sim

import (
	"math"
	"math/bits"

	"github.com/fluidlb/fluid/farm"
)

// pcgStep is pcg.Uint64 (the same lines) on a state held in two variables, so that the
// fast path keeps its stream in registers for the whole loop (a method on
// a *pcg would keep it in memory: a load and a store per draw on the
// loop's critical path). The same state gives the same numbers.
func pcgStep(hi, lo uint64) (nhi, nlo, out uint64) {
	const (
		mulHi, mulLo = 2549297995355413924, 4865540595714422341
		incHi, incLo = 6364136223846793005, 1442695040888963407
		cheapMul     = 0xda942042e4dd58b5
	)
	h, l := bits.Mul64(lo, mulLo)
	h += hi*mulLo + lo*mulHi
	l, c := bits.Add64(l, incLo, 0)
	h, _ = bits.Add64(h, incHi, c)
	out = h ^ h>>32
	out *= cheapMul
	out ^= out >> 48
	return h, l, out * (l | 1)
}

// zigFinish completes an exponential draw (rng.exp) whose first 64-bit
// word u did not fall in the ziggurat's fast region (or gave exactly 0):
// the rest of rng.ziggurat's first iteration on u, then, on a rejection or
// an invalid value, a fresh rng.exp. The law is exp's.
func (r *rng) zigFinish(u uint64) float64 {
	j := uint32(u)
	i := uint8(u >> 32)
	x := float64(j) * float64(zigW[i])
	if j >= zigK[i] {
		if i == 0 {
			x = zigTail - math.Log(r.stdFloat64())
		} else if !(zigF[i]+float32(r.stdFloat64())*(zigF[i-1]-zigF[i]) < float32(math.Exp(-x))) {
			return r.exp()
		}
	}
	if x > 0 && x <= math.MaxFloat64 {
		return x
	}
	return r.exp()
}

// zigFast is the ziggurat's common case on the first word u of an
// exponential draw: the value, and whether it stands (the draw is in the
// layer's rectangle under the next layer and not exactly 0); otherwise
// rng.zigFinish(u) completes the draw.
func zigFast(u uint64) (float64, bool) {
	j := uint32(u)
	l := uint8(u >> 32)
	return float64(j) * float64(zigW[l]), j < zigK[l] && j != 0
}

// invBusy[b] is 1/b (b ≥ 1): the fast path multiplies by it where it
// would divide by the number of busy servers (the same value to within
// one rounding), for b up to 4,095.
var invBusy = func() (t [4096]float64) {
	for b := 1; b < len(t); b++ {
		t[b] = 1 / float64(b)
	}
	return t
}()

// markovLoop simulates events until the measured jobs are done or the
// pause is reached (fast path); it may be called again after a pause to
// go on, with the same result as a run without the pause.
//
// The two event streams are run by the next-reaction method (Gibson and
// Bruck, J. Phys. Chem. A 104, 2000): the arrivals keep their next time
// ta, drawn at each arrival; the departures, of rate B (the busy
// servers), keep theirs, td, drawn afresh after each departure and, when
// an arrival makes an idle server busy, rescaled to the new rate as
// td ← now + (td − now)·B/(B + 1) (the remaining time is exponential of
// rate B by memorylessness, so the rescaled one is of rate B + 1). This
// is the chain exactly, with one exponential per event and no uniform to
// tell the kinds apart. A departure leaves a busy server chosen uniformly.
//
// Two choices are taken from draws made for something else, exactly or
// with a bias below 2⁻³²: the tie-break of best of two from a bit of the
// next arrival's exponential that the ziggurat does not read (exact), and
// the second server of best of two (or, under PS, the departing job at
// the server) from the low word of the multiply that chose the first,
// which given the first is uniform on a grid of spacing n: the choice
// among m is then off by at most n·m/2⁶⁴ relative, kept below 2⁻³²
// (beyond, a fresh draw). Round robin, JSQ and best of D > 2 route with
// the dispatchers' own code (and draws).
//
// The observations are the general engine's (measurement.arrival and
// departure, with no blocking and no JIQ): the same values summed in the
// same order into the same totals and job series.
func (e *engine) markovLoop() {
	c := &e.cfg
	m := &e.measure
	d := &e.dispatchers
	fcfs := c.Discipline == farm.FCFS
	n := e.n
	policy := c.Policy.Kind
	pair := policy == farm.JSQd && c.Policy.D == 2
	replacement := c.Policy.Replacement
	// Best of two draws its second server among second = n (with
	// replacement) or n − 1 others, from a fresh word when n·second > 2³².
	second := uint64(n) - uint64(b2i(!replacement))
	freshSecond := uint64(n)*second > 1<<32
	meanInter := 1 / e.arrivalRate
	warm, measured, pauseAt := m.warmupJobs, m.measuredJobs, m.pauseAt
	ql, servers, pos := e.queueLen, e.servers, e.busy.pos
	list := e.busy.list[:cap(e.busy.list)]
	nb := len(e.busy.list)
	now, ta, td := e.now, e.nextArrival, e.nextDeparture
	sh, sl := e.rng.src.hi, e.rng.src.lo
	done, arrivals, events := m.done, e.arrivals, e.events
	// The replication's totals (measurement.tot) and the job series'
	// batch in progress (Series.Pending), in variables: the sums of
	// floating-point values as such, the counts (whole numbers, exact in a
	// float64 below 2⁵³) as integers: observed arrivals, those sent to a
	// busy server, and among the observed departures those sent to a busy
	// server and those of slowdown above SlowdownTailAt.
	tSojourn, tSlowdown, tDelay := m.tot.sojourn, m.tot.slowdown, m.tot.delay
	var nArrivals, nBusyArr, nBusyDep, nTail int64
	done0 := done
	jobs := m.jobs
	var bSoj, bSlow, bDelay float64
	var sums []float64
	var s0 [nChannels]float64
	var pend, room, limit, busyAt, tailAt int64
	load := func() {
		sums, room = jobs.Pending()
		copy(s0[:], sums)
		bSoj, bSlow, bDelay = s0[chSojourn], s0[chSlowdown], s0[chDelay]
		pend, busyAt, tailAt = 0, nBusyDep, nTail
		limit = min(room, pauseAt-jobs.Count())
	}
	flush := func() {
		sums[chServed] = s0[chServed] + float64(pend)
		sums[chSojourn], sums[chSlowdown], sums[chDelay] = bSoj, bSlow, bDelay
		sums[chSlowTail] = s0[chSlowTail] + float64(nTail-tailAt)
		sums[chBusy] = s0[chBusy] + float64(nBusyDep-busyAt)
		jobs.Commit(pend)
	}
	load()
	inf := math.Inf(1)
	for !e.abandoned && done < measured && pend < limit {
		events++
		if td < ta {
			// A departure from a uniformly chosen busy server.
			now = td
			var u uint64
			sh, sl, u = pcgStep(sh, sl)
			k, rest := bits.Mul64(u, uint64(nb))
			i := int(list[k])
			q := int(ql[i])
			s := &servers[i]
			var j job
			var size, delay float64
			if fcfs {
				j = s.jobs[s.head]
				size = now - s.serviceStart
				delay = s.serviceStart - j.arrival
				s.head = (s.head + 1) & (len(s.jobs) - 1)
				s.serviceStart = now
			} else {
				s.virtual += (now - s.virtualAt) / float64(q)
				s.virtualAt = now
				x := 0
				if q > 1 {
					if uint64(nb)*uint64(q) > 1<<32 {
						sh, sl, rest = pcgStep(sh, sl)
					}
					h, _ := bits.Mul64(rest, uint64(q))
					x = int(h)
				}
				j = s.jobs[x]
				s.jobs[x] = s.jobs[q-1]
				size = s.virtual - j.finishTag
				delay = now - j.arrival - size
			}
			ql[i] = int32(q - 1)
			if policy == farm.JSQ {
				d.live.dec(i)
			}
			// Server i leaves the busy set if it is now idle (q = 1),
			// without a branch: list[p] is i and pos[last] is nb − 1
			// unless they change.
			{
				p, last := pos[i], list[nb-1]
				idle := q == 1
				li, pl, pi := int32(i), int32(nb-1), p
				if idle {
					li, pl, pi = last, p, -1
				}
				list[p] = li
				pos[last] = pl
				pos[i] = pi
				nb -= b2i(idle)
			}
			if nb > 0 {
				var u uint64
				sh, sl, u = pcgStep(sh, sl)
				x, ok := zigFast(u)
				if !ok {
					e.rng.src = pcg{sh, sl}
					x = e.rng.zigFinish(u)
					sh, sl = e.rng.src.hi, e.rng.src.lo
				}
				if nb < len(invBusy) {
					td = now + x*invBusy[nb]
				} else {
					td = now + x/float64(nb)
				}
			} else {
				td = inf
			}
			if j.flags&flagObserved != 0 {
				soj := now - j.arrival
				slow := soj / size
				tSojourn += soj
				tSlowdown += slow
				tDelay += delay
				bSoj += soj
				bSlow += slow
				bDelay += delay
				nTail += int64(b2i(soj > SlowdownTailAt*size))
				nBusyDep += int64(j.flags & flagBusy >> 1)
				done++
				if pend++; pend == room {
					flush()
					load()
				}
			}
			continue
		}

		// An arrival.
		now = ta
		var spare uint64
		sh, sl, spare = pcgStep(sh, sl)
		x, ok := zigFast(spare)
		if !ok {
			e.rng.src = pcg{sh, sl}
			x = e.rng.zigFinish(spare)
			sh, sl = e.rng.src.hi, e.rng.src.lo
		}
		ta = now + x*meanInter
		id := arrivals
		arrivals++
		if id == warm {
			m.startMeasuring(now)
		}
		if id&0xffff == 0 && id > 0 {
			if e.progress != nil {
				e.progress(0x10000)
			}
			if c.Stopped() {
				e.abandoned = true
			}
		}
		var i int
		switch {
		case pair:
			var u uint64
			sh, sl, u = pcgStep(sh, sl)
			a, rest := bits.Mul64(u, uint64(n))
			if freshSecond {
				sh, sl, rest = pcgStep(sh, sl)
			}
			b, _ := bits.Mul64(rest, second)
			if !replacement {
				b += uint64(b2i(b >= a)) // b uniform on the others
			}
			// b if shorter, or as long and the spare bit (bit 63 of the
			// arrival's word, which the ziggurat does not read) is set.
			va, vb := ql[a], ql[b]
			i = int(a) + (int(b)-int(a))*(b2i(vb < va)|b2i(vb == va)&int(spare>>63))
		case policy == farm.Random:
			var u uint64
			sh, sl, u = pcgStep(sh, sl)
			h, _ := bits.Mul64(u, uint64(n))
			i = int(h)
		default:
			// Round robin, JSQ and best of D > 2: the dispatchers' own
			// code, on the stream put back in e.rng.
			e.rng.src = pcg{sh, sl}
			r := 0
			if k := c.Dispatchers; k > 1 && policy == farm.RoundRobin {
				if e.cumAlpha == nil {
					r = e.rng.intn(k)
				} else {
					r = pick(e.cumAlpha, e.rng.float64())
				}
			}
			i, _ = d.route(r, now)
			sh, sl = e.rng.src.hi, e.rng.src.lo
		}
		q := int(ql[i])
		var flags uint8
		if id >= warm && id-warm < measured {
			nArrivals++
			busy := b2i(q > 0)
			nBusyArr += int64(busy)
			flags = flagObserved | uint8(busy)*flagBusy
		}
		s := &servers[i]
		if fcfs {
			if q == len(s.jobs) {
				s.growRing()
			}
			s.jobs[(s.head+q)&(len(s.jobs)-1)] = job{arrival: now, flags: flags}
			if q == 0 {
				s.serviceStart = now
			}
		} else {
			s.arrivePS(q, now)
			s.jobs[q] = job{arrival: now, finishTag: s.virtual, flags: flags}
		}
		ql[i] = int32(q + 1)
		if policy == farm.JSQ {
			d.live.inc(i)
		}
		if q == 0 {
			pos[i] = int32(nb)
			list[nb] = int32(i)
			if nb == 0 {
				var u uint64
				sh, sl, u = pcgStep(sh, sl)
				x, ok := zigFast(u)
				if !ok {
					e.rng.src = pcg{sh, sl}
					x = e.rng.zigFinish(u)
					sh, sl = e.rng.src.hi, e.rng.src.lo
				}
				td = now + x
			} else {
				if nb < len(invBusy)-1 {
					td = now + (td-now)*(float64(nb)*invBusy[nb+1])
				} else {
					td = now + (td-now)*(float64(nb)/float64(nb+1))
				}
			}
			nb++
		}
	}
	flush()
	e.now, e.nextArrival, e.nextDeparture = now, ta, td
	e.rng.src = pcg{sh, sl}
	e.busy.list = list[:nb]
	m.done, e.arrivals, e.events = done, arrivals, events
	t := &m.tot
	t.sojourn, t.slowdown, t.delay = tSojourn, tSlowdown, tDelay
	t.arrivals += float64(nArrivals)
	t.busy += float64(nBusyArr)
	t.served += float64(done - done0)
	t.slowTail += float64(nTail)
}
