package staleboard

import (
	"math"
	"testing"
)

// deriv is the scatter form of the joint law's forward equation (the
// reference of rowStage's gather form): it writes the right side for the
// shape with values src at row rates lam into dst and returns E[q].
// jointDeriv writes the forward equation's right side for the joint law's
// shape with values src at row rates lam into dst and returns the mean
// count E[q] under src.
func (j *jointLaw) deriv(dst, src []float64, lam []float64) float64 {
	clear(dst)
	var mq float64
	na := j.rows()
	for i := range na {
		o, n, lo := j.off[i], j.n[i], j.lo[i]
		r := src[o : o+n]
		d := dst[o : o+n]
		l := lam[i]
		var up []float64
		ulo := 0
		if i+1 < na {
			up = dst[j.off[i+1] : j.off[i+1]+j.n[i+1]]
			ulo = j.lo[i+1]
		}
		for c, v := range r {
			if v == 0 {
				continue
			}
			q := lo + c
			mq += float64(q) * v
			a := l * v
			d[c] -= a
			if u := q + 1 - ulo; u >= 0 && u < len(up) {
				up[u] += a
			}
			if q > 0 {
				d[c] -= v
				if c > 0 {
					d[c-1] += v
				}
			}
		}
	}
	return mq
}

// TestStepJointFused checks the fused RK4 step (stepJoint, rowStage)
// against the textbook RK4 on the scatter form of the forward equation
// (deriv), on a law with uneven row windows, a row at q = 0 and rows
// whose windows do not cover the arrivals from below: the two sum the
// same terms in the same order up to the mean count's, so they agree to
// rounding (1e-14 relative allows a few ulps on sums of ~1e3 terms).
func TestStepJointFused(t *testing.T) {
	j := jointLaw{alo: 3, lo: []int{0, 2, 1, 5, 0}, n: []int{6, 9, 4, 7, 12}}
	j.off = make([]int, len(j.lo))
	tot := 0
	for i, n := range j.n {
		j.off[i] = tot
		tot += n
	}
	j.f = make([]float64, tot)
	for i := range j.f {
		j.f[i] = 0.5 + math.Sin(float64(3*i+1))/2
	}
	lam := []float64{0.7, 1.3, 0.2, 1.9, 0.5}
	const dt = 0.4
	ref := append([]float64(nil), j.f...)
	n := len(ref)
	k := [4][]float64{make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)}
	tmp := make([]float64, n)
	var m [4]float64
	for st := range 4 {
		src := ref
		if st > 0 {
			h := [4]float64{0, dt / 2, dt / 2, dt}[st]
			for i, v := range ref {
				tmp[i] = v + h*k[st-1][i]
			}
			src = tmp
		}
		m[st] = j.deriv(k[st], src, lam)
	}
	for i := range ref {
		ref[i] += dt / 6 * (k[0][i] + 2*k[1][i] + 2*k[2][i] + k[3][i])
	}
	wantInteg := dt / 6 * (m[0] + 2*m[1] + 2*m[2] + m[3])
	var ps projSpace
	integ := ps.stepJoint(&j, lam, dt)
	for i := range ref {
		if math.Abs(j.f[i]-ref[i]) > 1e-14*math.Max(1, math.Abs(ref[i])) {
			t.Fatalf("cell %d: fused %.17g, reference %.17g", i, j.f[i], ref[i])
		}
	}
	if math.Abs(integ/wantInteg-1) > 1e-14 {
		t.Errorf("∫E[q]: fused %.17g, reference %.17g", integ, wantInteg)
	}
}

// BenchmarkStepJoint is one RK4 step of a joint law of the size of a heavy
// class at T = 400 (50 rows of 150 counts).
func BenchmarkStepJoint(b *testing.B) {
	const rows, w = 50, 150
	j := jointLaw{alo: 100, lo: make([]int, rows), n: make([]int, rows), off: make([]int, rows)}
	lam := make([]float64, rows)
	for i := range rows {
		j.lo[i], j.n[i], j.off[i] = max(0, i-20), w, i*w
		lam[i] = 0.5 + float64(i)/rows
	}
	j.f = make([]float64, rows*w)
	for i := range j.f {
		j.f[i] = 1e-4 * (1 + math.Sin(float64(i)))
	}
	var ps projSpace
	for b.Loop() {
		ps.stepJoint(&j, lam, 1e-3)
	}
}
