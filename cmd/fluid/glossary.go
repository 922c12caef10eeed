package main

import "github.com/spf13/cobra"

// newGlossary is the help topic "fluid help glossary": the words the
// commands' outputs use, each in plain terms, with the write-up it comes
// from where it has a published name.
func newGlossary() *cobra.Command {
	return &cobra.Command{
		Use:   "glossary",
		Short: "The words the outputs use, in plain terms",
		Long: `Words used by fluid's outputs and help.

Units. Time is in mean service times (a job's mean size is 1); a load λ is
the arrival rate per server, in jobs per server per mean service time
(λ < 1: the servers could keep up); a rate such as the token exchange
rate ν is per token per mean service time.

The stale load board (fluid edge, map, sim --policy board-…)
  board            the table of the servers' queue lengths the dispatchers
                   read; it is refreshed every T (the refresh period) and is
                   stale in between.
  balanced state   the steady state of the map in which the dispatchers'
                   sends level the queues the board shows, period after
                   period.
  herd             the state in which all dispatchers send to the servers
                   the board shows shortest, at once, until their queues
                   overtake the rest: load moves in waves from group to
                   group and the mean time in system grows with T.
  tipping          leaving the balanced state for the herd. fluid counts a
                   farm as tipped at the first refresh at which the board
                   mean exceeds max(0.2·T, λ/(1 − λ)).
  tipping edge T*  the shortest refresh period down to which the balanced
                   state survives, followed from long periods. Scaled as
                   T*(1 − λ)² so that loads compare.
  refresh-period map  what the board shows at one refresh as a function of
                   what it showed at the last (N → ∞); its fixed points are
                   steady states, its cycles the herd's waves.
  pass, branch     within one refresh period each dispatcher fills up the
                   servers its board shows lowest, one level at a time: pass
                   v sends one job from each dispatcher to every server
                   showing at most v jobs. The map's formula changes each
                   time a pass boundary crosses T, so the balanced states
                   come in branches, labelled by the pass in progress at T.
  border collision the balanced state reaches the border of its smooth
                   piece (the pass in progress at T changes) and ends
                   there, while still stable: the way the edge ends in most
                   cases. An eigenvalue test alone never finds it.
  leading eigenvalue  the eigenvalue of largest modulus of the map's
                   linearisation at a fixed point (complex: a+bi). Modulus
                   < 1 (the spectral radius): small disturbances die out.
  horizon H        finite farms: the refresh periods within which a farm
                   started balanced must tip to count; the finite-N edge
                   T*(N, H) is the period at which it does with probability ½.
  attractor        where the map ends from a start: a fixed point, a cycle
                   of a few periods, or not settled within --iterations
                   (or within the work bound, for a board that keeps
                   growing).

Join-the-idle-queue (fluid jiq, jackson, sim --policy jiq-…)
  token            an idle server's note to one dispatcher that it is free;
                   a job sent by a dispatcher holding one uses it.
  scenario         what a dispatcher without tokens does with a job: blocks
                   it (blocking) or sends it to a random server (queueing).
  pool             the tokens a dispatcher holds; empty when it uses them as
                   fast as they come.
  margin           for an empty pool: the dispatcher's arrival rate minus the
                   rate at which tokens reach it (per server); positive is
                   why the pool stays empty.
  token allotment β  idle servers send their tokens to dispatcher r with
                   probability β_r (the JIQ study's Enhancement 1); β = α
                   gives zero blocking in the limit.
  token exchange ν each held token moves to a uniformly chosen dispatcher at
                   rate ν (the study's Enhancement 2); ν ≥ ν* gives zero
                   blocking or wait in the limit.
  limit B∞         the N → ∞ blocking (the study's Theorem 1 for basic JIQ).
  leading eigenvalue (of the fluid model)  the eigenvalue of largest real part
                   of the fluid ODE's linearisation at its fixed point; < 0
                   is stable.

Simulation and checks (fluid sim, validate)
  replication      an independent run; intervals come from their spread
                   (or from batch means of one long run).
  warm-up          the first jobs of a run, deleted as the initial
                   transient (MSER-5 finds how many).
  half-width, ci95 the half-width of a confidence interval, at --level or
                   at 95% in the JSON.
  verdict          validate: pass when |simulation − theory| is at most the
                   99.9% half-width plus the check's stated allowance (the
                   model error it tolerates), FAIL otherwise.

Published names. The JIQ study is van der Boor, Borst and van Leeuwaarden,
"Load Balancing in Large-Scale Systems with Multiple Dispatchers" (its
Theorem 1 and Enhancements 1 and 2); the stale board is Mitzenmacher's
periodic-update model ("How useful is old information?") with k
dispatchers. docs/models.md has the mathematics and every reference.`,
	}
}
