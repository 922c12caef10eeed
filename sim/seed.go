package sim

// SubSeed is the seed of run n of an experiment whose own seed is base:
// base·1,000,003 + n. Base seeds 1, 2, … so own disjoint blocks of
// 1,000,003 seeds (1,000,003 is prime), and the runs of one experiment,
// numbered below a million, never share a stream with those of another
// base seed. fluid validate derives every case's simulations with it, and
// the tipping experiment its edges (package tipping).
func SubSeed(base, n uint64) uint64 { return base*1_000_003 + n }
