package validate

// shiftRef is a simulated finite-N edge stored as the reference of the
// finite-n-shift case: T*(N, 100)(1−λ)² of N servers (k dispatchers, load
// λ, horizon 100), where half the simulated runs from the empty start tip
// within 100 refresh periods (the logistic fit of fluid edge --simulate:
// seven periods within ±10% of the escape chain's edge, two refinements,
// 16 runs each), with its 95% profile interval [Lo, Hi]. The references
// come from runs of their own, not from the case's: the noisy map's edge
// is checked against simulations it was never fitted to. Their cost (CPU,
// one core): 4 s (k = 5, λ = 0.8, N = 50) to 44 s (k = 5, λ = 0.9,
// N = 100) at N ≤ 100, 85 s, 158 s and 427 s at N = 800 for k = 5,
// λ = 0.8, k = 3, λ = 0.9 and k = 5, λ = 0.9, and 157 s, 425 s and
// 1,134 s at N = 2,000.
type shiftRef struct {
	K       int
	Load    float64
	N       int
	Edge    float64 // simulated T*(N, 100)(1−λ)²
	Lo, Hi  float64 // its 95% interval
	Samples int     // runs behind the fit (periods × runs a period)
	// Command produced the reference (fluid v0.4.0-dev at commit 1dda485,
	// the simulator's tipping definition farm.TipWatch).
	Command string
}

// shiftRefs are the references of finite-n-shift, by system and N.
var shiftRefs = []shiftRef{
	{K: 5, Load: 0.9, N: 50, Edge: 3.28492, Lo: 3.24175, Hi: 3.32353, Samples: 144, Command: "fluid edge -k 5 --load 0.9 --servers 50 --simulate --reps 16 --seed 7 --json"},
	{K: 5, Load: 0.9, N: 100, Edge: 3.13630, Lo: 3.10349, Hi: 3.16511, Samples: 144, Command: "fluid edge -k 5 --load 0.9 --servers 100 --simulate --reps 16 --seed 7 --json"},
	{K: 5, Load: 0.9, N: 800, Edge: 2.96315, Lo: 2.95247, Hi: 2.97401, Samples: 144, Command: "fluid edge -k 5 --load 0.9 --servers 800 --simulate --reps 16 --seed 7 --json"},
	{K: 5, Load: 0.9, N: 2000, Edge: 2.94160, Lo: 2.93308, Hi: 2.94996, Samples: 144, Command: "fluid edge -k 5 --load 0.9 --servers 2000 --simulate --reps 16 --seed 7 --json"},
	{K: 3, Load: 0.9, N: 50, Edge: 1.07739, Lo: 1.05703, Hi: 1.09525, Samples: 144, Command: "fluid edge -k 3 --load 0.9 --servers 50 --simulate --reps 16 --seed 7 --json"},
	{K: 3, Load: 0.9, N: 100, Edge: 1.03250, Lo: 1.02028, Hi: 1.04541, Samples: 144, Command: "fluid edge -k 3 --load 0.9 --servers 100 --simulate --reps 16 --seed 7 --json"},
	{K: 3, Load: 0.9, N: 800, Edge: 1.00656, Lo: 1.00271, Hi: 1.01042, Samples: 144, Command: "fluid edge -k 3 --load 0.9 --servers 800 --simulate --reps 16 --seed 7 --json"},
	{K: 3, Load: 0.9, N: 2000, Edge: 1.00038, Lo: 0.99631, Hi: 1.00533, Samples: 144, Command: "fluid edge -k 3 --load 0.9 --servers 2000 --simulate --reps 16 --seed 7 --json"},
	{K: 5, Load: 0.8, N: 50, Edge: 3.46453, Lo: 3.41598, Hi: 3.51612, Samples: 144, Command: "fluid edge -k 5 --load 0.8 --servers 50 --simulate --reps 16 --seed 7 --json"},
	{K: 5, Load: 0.8, N: 100, Edge: 3.39121, Lo: 3.36059, Hi: 3.42034, Samples: 144, Command: "fluid edge -k 5 --load 0.8 --servers 100 --simulate --reps 16 --seed 7 --json"},
	{K: 5, Load: 0.8, N: 800, Edge: 3.21544, Lo: 3.20465, Hi: 3.22777, Samples: 144, Command: "fluid edge -k 5 --load 0.8 --servers 800 --simulate --reps 16 --seed 7 --json"},
	{K: 5, Load: 0.8, N: 2000, Edge: 3.20353, Lo: 3.19483, Hi: 3.21332, Samples: 144, Command: "fluid edge -k 5 --load 0.8 --servers 2000 --simulate --reps 16 --seed 7 --json"},
}
