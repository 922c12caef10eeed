// Package jackson computes the finite-N blocking probability of
// Join-the-Idle-Queue with several dispatchers exactly, from the product
// form of its closed Jackson (Gordon–Newell) network.
//
// The JIQ network and its published numbers are written out in
// docs/models.md#closed-jackson-network-at-finite-n.
//
// The tests hold an independent reference for it: a general closed
// product-form network solver (single-server, delay and load-dependent
// stations; visit ratios v = vP with gonum/mat; the product form
// π(n) = G(N)⁻¹ Π_i f_i(n_i), f_i(n) = v_i^n / Π_{k≤n} μ_i(k); Buzen's
// convolution arranged so that N = 10⁵ or 10⁷ neither overflows nor
// underflows, with the chains that omit one station giving
// P(n_i = 0) = G₋ᵢ(N)/G(N) to full relative accuracy) and exact Mean Value
// Analysis (Reiser–Lavenberg) beside it. Solve is checked against both, and
// against 30- and 50-digit arithmetic.
//
// # JIQ blocking at finite N
//
// In the blocking scenario of join-the-idle-queue the N tokens circulate
// among R + 1 stations: station 0 ("server busy") is a delay
// station with rate 1 per token; station r ("idle, token at dispatcher r")
// is a single server with rate α_r·λ·N; tokens go 0 → r with probability
// β_r and r → 0. So
//
//	π(n) ∝ (1/n₀!) Π_r (β_r/(α_r·λ·N))^{n_r},   n₀ + Σ_r n_r = N,
//
// and the blocking probability is B = Σ_r α_r·P(n_r = 0), which equals
// 1 − G(N−1)/(λN·G(N)). R = 1 is Erlang's loss formula (M/M/N/N with
// offered load λN). As N → ∞, B tends to max{1 − R·α_min, 1 − 1/λ}
// (Theorem 1) for basic JIQ; with equal loads it decays like
// (R − 1)/((1 − λ)N). Token exchange (ν > 0) breaks the product form
// (ErrNotProductForm).
//
// Solve evaluates this product form directly, in one level recursion of
// O(N·R) operations and O(R) memory (MaxWork bounds N·R; N = 10⁵, R = 10
// takes about 2.5 ms): the R geometric stations are convolved by Buzen's
// recursion with the infinite-server station's factor 1/n! folded in, in
// a scale where G never decreases, rescaled by exact powers of two. The
// pool with the largest β_r/α_r is convolved last, so the chain one step
// short of the end gives its P(n_r = 0) as a ratio of two positive
// numbers; every other pool's P(n_s = 0) exceeds that one by
// (ρ_max − ρ_s)·G(N−1)/G(N) ≥ 0, a sum with nothing to cancel. Blocking
// and every P(n_r = 0) keep their relative accuracy however small they
// are: within 3e-13 of 30- and 50-digit arithmetic in the tests, for N up
// to 10⁷ (probabilities below about 1e-280 read 0).
package jackson
