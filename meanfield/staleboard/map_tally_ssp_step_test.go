package staleboard

import (
	"math"
	"testing"
)

// TestSSPStep checks one SSPRK(10,4) step of the joint law (sspStep: the
// in-place sweeps with their fused copy and combinations, the half-way
// fit, the row masses and the mean count's integral stepped with the law)
// against the textbook low-storage SSPRK(10,4) on the scatter form of the
// forward equation (deriv), with the same interpolated rates, and the
// integral as the same combination of η·E[q] over the stages' inputs. The
// law has uneven windows, rows at q = 0, and mass twelve rows and counts
// inside every window's edge, so that neither truncates (one step moves
// mass by at most ten): the two then sum the same terms in other orders,
// and agree to rounding (1e-13 relative on values of order one).
func TestSSPStep(t *testing.T) {
	const pad = 12
	lo := []int{0, 2, 0, 5, 0, 1}
	n := []int{8, 9, 4, 7, 12, 6}
	na := len(lo) + pad
	j := jointLaw{alo: 3, lo: make([]int, na), n: make([]int, na), off: make([]int, na), buf: sspStages / 2}
	tot := 0
	for i := range na {
		if i < len(lo) {
			j.lo[i], j.n[i] = max(0, lo[i]-pad), n[i]+2*pad
		} else {
			j.lo[i], j.n[i] = 0, 40+2*pad
		}
		j.off[i] = tot
		tot += j.n[i]
	}
	j.f = make([]float64, tot)
	for i := range lo {
		for c := range n[i] {
			q := lo[i] + c
			j.f[j.off[i]+q-j.lo[i]] = 0.5 + math.Sin(float64(7*i+3*c+1))/2
		}
	}
	r := sspRates{l0: make([]float64, na+sspStages), lm: make([]float64, na+sspStages), l1: make([]float64, na+sspStages)}
	for i := range r.l0 {
		r.l0[i] = 0.4 + 0.3*math.Sin(float64(i))
		r.lm[i] = 0.5 + 0.3*math.Cos(float64(i))
		r.l1[i] = 0.7 + 0.2*math.Sin(float64(2*i))
	}
	const h = 1.7
	// The textbook step: q1 = q2 = u; five Euler steps; q2 = q2/25 +
	// 9q1/25, q1 = 15q2 − 5q1; four Euler steps; u = q2 + 3q1/5 +
	// h/10·F(q1).
	ref := jointLaw{alo: j.alo, lo: append([]int(nil), j.lo...), n: append([]int(nil), j.n...), off: append([]int(nil), j.off...)}
	q1 := append([]float64(nil), j.f...)
	q2 := append([]float64(nil), j.f...)
	d := make([]float64, len(q1))
	eta := h / 6
	var I1, I2 float64
	var lbuf []float64
	for s := range sspStages {
		r.ro = 0
		l := r.at(sspTheta[s], na, &lbuf)
		e := ref.deriv(d, q1, l)
		if s == sspStages-1 {
			for c := range q1 {
				q1[c] = q2[c] + 0.6*q1[c] + h/10*d[c]
			}
			I1 = I2 + 0.6*I1 + h/10*e
			break
		}
		for c := range q1 {
			q1[c] += eta * d[c]
		}
		I1 += eta * e
		if s == 4 {
			for c := range q1 {
				q2[c] = q2[c]/25 + 9*q1[c]/25
				q1[c] = 15*q2[c] - 5*q1[c]
			}
			I2 = I2/25 + 9*I1/25
			I1 = 15*I2 - 5*I1
		}
	}
	var e0 float64
	for i := range na {
		e0 += rowMean(j.f[j.off[i]:j.off[i]+j.n[i]], j.lo[i])
	}
	r.rowMasses(&j)
	var ps projSpace
	integ, e1 := ps.sspStep(&j, &r, h, e0)
	// Compare cell by cell, by (row, count).
	val := func(l *jointLaw, f []float64, a, q int) float64 {
		i := a - l.alo
		if i < 0 || i >= l.rows() || q < l.lo[i] || q >= l.lo[i]+l.n[i] {
			return 0
		}
		return f[l.off[i]+q-l.lo[i]]
	}
	var want1 float64
	for i := range na {
		for c := range ref.n[i] {
			a, q := ref.alo+i, ref.lo[i]+c
			w := q1[ref.off[i]+c]
			want1 += float64(q) * w
			if g := val(&j, j.f, a, q); math.Abs(g-w) > 1e-13 {
				t.Fatalf("(A = %d, q = %d): %.17g, textbook %.17g", a, q, g, w)
			}
		}
	}
	if math.Abs(integ/(e0*h)-I1/(e0*h)) > 1e-13 || math.Abs(e1-want1) > 1e-13*want1 {
		t.Errorf("∫E[q] %.17g and E[q] %.17g, textbook %.17g and %.17g", integ, e1, I1, want1)
	}
	for i := range j.rows() {
		var s float64
		for _, v := range j.f[j.off[i] : j.off[i]+j.n[i]] {
			s += v
		}
		if math.Abs(r.m[i]-s) > 1e-13 {
			t.Errorf("row %d: stepped mass %.17g, the law's %.17g", j.alo+i, r.m[i], s)
		}
	}
}
