package farm

import "math"

// TipThreshold is the board mean above which a stale board with k
// dispatchers has tipped into the herd: max(0.2·T, λ/(1−λ)), for a refresh
// period T and load λ < 1.
//
// The definition is shared by the theory (iterating the refresh-period
// map) and the simulator (the empirical board at each refresh), so that
// both call the same thing a tip. Why these numbers: in the herd the two
// halves of the servers take turns holding about 0.8·T jobs, so its board
// mean is about 0.4·T, twice the threshold; every balanced state sits far
// below 0.1·T; and a board mean above λ/(1−λ) — what an M/M/1 queue holds
// on average, i.e. random dispatch — is worse than not looking at the
// board at all, which covers short refresh periods where 0.2·T is small.
// A run has tipped at the first refresh after the start whose board mean
// exceeds the threshold; the herd never lets go (the map and every
// simulation agree), so the first crossing is final.
func TipThreshold(period, load float64) float64 {
	return math.Max(0.2*period, load/(1-load))
}
