package main

import (
	"github.com/spf13/cobra"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/meanfield/staleboard"
)

// boardWords are the simulator's words for the stale board that fluid map
// and fluid edge take: --policy (tally, shared-tally, partitioned,
// tally-jsqd:D, board-jsqd:D), --sizes, --discipline and --alpha, with the
// meanings fluid sim gives them. The older --tally (own, shared,
// partitioned) is the same choice as --policy.
type boardWords struct {
	policy, tally, sizes, discipline string
	alpha                            []float64
	// policySet and tallySet say which of the two flags was given.
	policySet, tallySet bool
}

// flags declares the words' flags on a command's flag set.
func (w *boardWords) flags(f interface {
	StringVar(p *string, name, value, usage string)
	Float64SliceVar(p *[]float64, name string, value []float64, usage string)
}) {
	f.StringVar(&w.policy, "policy", "tally", "the dispatchers' policy, in the simulator's words: tally (each adds its own sends: the k-dispatcher map), shared-tally or partitioned (both the k = 1 map), tally-jsqd:D (best of D by board + own tally: an approximation, see fluid help map) or board-jsqd:D (best of D on the board alone: exact)")
	f.StringVar(&w.tally, "tally", "own", "older spelling of --policy: own (tally), shared (shared-tally) or partitioned")
	f.StringVar(&w.sizes, "sizes", "exp", "job sizes: exp or h2:SCV (balanced-means hyperexponential, 1 < SCV ≤ 100)")
	f.StringVar(&w.discipline, "discipline", "fcfs", "server discipline: fcfs or ps (processor sharing)")
	f.Float64SliceVar(&w.alpha, "alpha", nil, concept("alpha", "default equal shares of -k; at most 6 dispatchers when unequal: dispatcher r's pass through level v lasts F(v)/(α_r·λ)"))
}

// declare binds the words' flags to the fields a stale-board system's
// *param.Error names, so that run names the flag in a refusal.
func (w *boardWords) declare(cmd *cobra.Command) {
	declare(cmd,
		flagRule{flag: "policy", field: "Policy"}, flagRule{flag: "policy", field: "Choices"}, flagRule{flag: "tally", field: "Tally"},
		flagRule{flag: "sizes", field: "Sizes"}, flagRule{flag: "discipline", field: "Discipline"},
		flagRule{flag: "alpha", field: "Alpha"},
	)
}

// system returns the stale-board system of k dispatchers at load λ that
// the words describe, or a usage error naming the flag, with the reason,
// for a combination the theory does not cover.
func (w *boardWords) system(k int, load float64) (staleboard.System, farm.Policy, error) {
	sys := staleboard.System{K: k, Load: load}
	var pol farm.Policy
	if w.policySet && w.tallySet {
		return sys, pol, usagef("--policy and --tally say the same thing: give one")
	}
	if w.tallySet && !w.policySet {
		t, err := parseTally(w.tally)
		if err != nil {
			return sys, pol, err
		}
		sys.Tally = t
		pol = farm.Policy{Kind: [...]farm.PolicyKind{farm.Tally, farm.SharedTally, farm.Partitioned}[t]}
	} else {
		var err error
		if pol, err = farm.ParsePolicy(w.policy); err != nil {
			return sys, pol, err
		}
		switch pol.Kind {
		case farm.Tally:
			sys.Tally = staleboard.Own
		case farm.SharedTally:
			sys.Tally = staleboard.Shared
		case farm.Partitioned:
			sys.Tally = staleboard.Partitioned
		case farm.TallyJSQd:
			sys.Tally, sys.Choices = staleboard.Own, pol.D
		case farm.BoardJSQd:
			sys.Tally, sys.Choices = staleboard.None, pol.D
		default:
			return sys, pol, param.Errorf("Policy", "%v is not a stale-board policy (want tally, shared-tally, partitioned, tally-jsqd:D or board-jsqd:D)", pol)
		}
	}
	sz, err := farm.ParseSizes(w.sizes)
	if err != nil {
		return sys, pol, err
	}
	disc, err := farm.ParseDiscipline(w.discipline)
	if err != nil {
		return sys, pol, err
	}
	sys.Sizes, sys.Discipline = sz, disc
	if len(w.alpha) > 0 {
		if err := param.Distribution("Alpha", w.alpha, true); err != nil {
			return sys, pol, err
		}
		if len(w.alpha) != k {
			return sys, pol, param.Errorf("Alpha", "%d shares for %d dispatchers (-k)", len(w.alpha), k)
		}
		if k > staleboard.MaxShareDispatchers {
			return sys, pol, param.Errorf("Alpha", "shares for %d dispatchers, want at most %d (a server's state carries the set of dispatchers still to send in their pass: 2^k sets)", k, staleboard.MaxShareDispatchers)
		}
		copy(sys.Alpha[:], w.alpha)
	}
	if err := sys.Validate(); err != nil {
		return sys, pol, err
	}
	return sys, pol, nil
}
