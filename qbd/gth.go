package qbd

import "gonum.org/v1/gonum/mat"

// GTH returns the stationary distribution of the irreducible generator
// (or stochastic matrix) q by the Grassmann–Taksar–Heyman elimination
// (Operations Research 33, 1985): states are removed from the last to
// the first, each removal censoring the chain on the states left, with
// the outflow of the removed state computed as the sum of its
// off-diagonal rates rather than from the diagonal. No subtraction
// occurs, so every probability keeps full relative accuracy however
// small. Only the off-diagonal entries of q are read; the cost is n³/3.
// A reducible q whose censored state has no outflow gets probability 0
// from there on instead of a division by zero.
func GTH(q mat.Matrix) []float64 {
	n, _ := q.Dims()
	a := make([]float64, n*n)
	for i := range n {
		for j := range n {
			if i != j {
				a[i*n+j] = q.At(i, j)
			}
		}
	}
	for k := n - 1; k > 0; k-- {
		rk := a[k*n : k*n+k]
		var s float64
		for _, v := range rk {
			s += v
		}
		if s == 0 {
			for i := range k {
				a[i*n+k] = 0
			}
			continue
		}
		for i := range k {
			aik := a[i*n+k] / s
			a[i*n+k] = aik
			if aik == 0 {
				continue
			}
			ri := a[i*n : i*n+k]
			for j, v := range rk {
				ri[j] += aik * v
			}
		}
	}
	x := make([]float64, n)
	x[0] = 1
	sum := 1.0
	for k := 1; k < n; k++ {
		var v float64
		for i := range k {
			v += x[i] * a[i*n+k]
		}
		x[k] = v
		sum += v
	}
	for i := range x {
		x[i] /= sum
	}
	return x
}
