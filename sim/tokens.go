package sim

// tokenPools are the join-the-idle-queue tokens: every idle server has
// exactly one token, held by one dispatcher. A server that goes idle sends
// its token to dispatcher r with probability β_r; a dispatcher with tokens
// sends a job to the server of a uniformly random one of them, using it up.
// Each pool is an unordered array with every server's position in it, so
// that giving, taking and revoking a token cost O(1).
//
// The zero value (pools nil) is the state of the other policies: no tokens.
type tokenPools struct {
	rng   *rng
	pools [][]int32 // pools[r]: the servers whose tokens dispatcher r holds
	// holder[i] is the dispatcher holding server i's token, −1 if none;
	// slot[i] is the token's position in pools[holder[i]].
	holder, slot []int32
	cumBeta      []float64 // cumulative token shares β (see cumulative)
}

// newTokenPools returns c's token pools, all empty (run places the idle
// servers' tokens).
func newTokenPools(c *config, r *rng) tokenPools {
	n, k := c.Servers, c.Dispatchers
	t := tokenPools{rng: r, pools: make([][]int32, k), holder: make([]int32, n), slot: make([]int32, n),
		cumBeta: cumulative(c.Beta)}
	if k == 1 {
		t.pools[0] = make([]int32, 0, n)
	} // with several dispatchers the pools grow as they fill: together they hold at most N tokens
	for i := range t.holder {
		t.holder[i] = -1
	}
	return t
}

// active reports whether the policy uses tokens.
func (t *tokenPools) active() bool { return t.pools != nil }

// give sends idle server i's token to a dispatcher drawn by β (one
// uniform draw, none with a single dispatcher).
func (t *tokenPools) give(i int) {
	d := 0
	if len(t.cumBeta) > 1 {
		d = pick(t.cumBeta, t.rng.float64())
	}
	t.place(i, d)
}

// place puts server i's token at dispatcher d.
func (t *tokenPools) place(i, d int) {
	t.holder[i] = int32(d)
	t.slot[i] = int32(len(t.pools[d]))
	t.pools[d] = append(t.pools[d], int32(i))
}

// take uses up a uniformly random token of dispatcher d and returns its
// server; −1 (and no draw) if d holds none.
func (t *tokenPools) take(d int) int {
	p := t.pools[d]
	if len(p) == 0 {
		return -1
	}
	i := int(p[t.rng.intn(len(p))])
	t.remove(i)
	return i
}

// remove takes server i's token, which must exist, out of its pool.
func (t *tokenPools) remove(i int) {
	d, s := t.holder[i], t.slot[i]
	p := t.pools[d]
	last := p[len(p)-1]
	p[s] = last
	t.slot[last] = s
	t.pools[d] = p[:len(p)-1]
	t.holder[i] = -1
}

// revoke removes server i's token if it has one (a job sent to it without
// a token).
func (t *tokenPools) revoke(i int) {
	if t.holder[i] >= 0 {
		t.remove(i)
	}
}

// exchange is one event of the uniformised token exchange: at total rate
// νN a uniformly random server is picked; if it holds a token, the token
// moves to a uniformly random dispatcher. Every token thus moves at rate ν
// exactly (thinning), whatever the number of tokens.
func (t *tokenPools) exchange() {
	i := t.rng.intn(len(t.holder))
	if t.holder[i] < 0 {
		return
	}
	d := t.rng.intn(len(t.pools))
	if int32(d) == t.holder[i] {
		return
	}
	t.remove(i)
	t.place(i, d)
}
