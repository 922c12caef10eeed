// Package ode integrates systems of ordinary differential equations
//
// How the join-the-idle-queue fluid limits are integrated with it (sliding
// modes switched by events) is written out in
// docs/models.md#how-the-trajectories-are-integrated.
//
//	y'(t) = f(t, y),  y(t0) = y0,
//
// with the explicit Runge–Kutta pair of Dormand and Prince, order 5(4)
// (Dormand & Prince, J. Comput. Appl. Math. 6, 1980), as implemented in
// DOPRI5 by Hairer and Wanner (Hairer, Nørsett & Wanner, Solving Ordinary
// Differential Equations I, 2nd ed., Springer 1993, §II.4–II.6):
//
//   - seven stages with the "first same as last" property (the last stage of
//     an accepted step is the first of the next, so a step costs six
//     evaluations of f);
//   - the embedded fourth-order solution estimates the local error, measured
//     in the root-mean-square norm scaled componentwise by
//     ATol + RTol·max(|y_old|, |y_new|); a step is accepted when that norm is
//     at most 1;
//   - the step size follows HNW's stabilised controller (exponent 0.2 − 0.75β,
//     β = 0.04, safety 0.9, h_new/h in [0.2, 10]) and its starting-step
//     heuristic;
//   - a fourth-order continuous extension (Shampine's dense output, HNW
//     §II.6) gives the solution anywhere inside an accepted step, used for
//     output at requested times and for event location;
//   - the last step is clamped so that the integration ends exactly at t1.
//
// Event location. An Event is a scalar function g(t, y) whose sign change
// (in a chosen direction) the integrator locates inside the accepted step
// on the dense output, by a safeguarded regula falsi (Illinois) iteration
// down to Settings.EventTol. The event's handler is then called at the
// crossing with the interpolated state, on the far side of the crossing;
// it may modify the state and any switch it owns (so the right-hand side
// changes exactly at the crossing), and decides whether integration stops.
// After a handled event the integrator restarts from the crossing: the
// first-same-as-last stage is recomputed, since f may have changed. An
// event function that is exactly zero at a (re)start is taken to be on the
// "before" side of its direction (below zero for a rising event, above for
// a falling one), so a handler can switch modes on a surface without the
// new mode's event firing spuriously; events with Direction Any are armed
// at the first step end where they are non-zero. Sign changes are checked
// at step ends only: two crossings inside one step cancel out and are not
// seen (bound Settings.MaxStep where that matters).
//
// API. The style follows gonum/optimize and the contract of package
// outcome: a Problem holds the functions, Settings (nil or zero fields mean
// documented defaults) hold the knobs, and Result carries the final state,
// Stats and an embedded outcome.Outcome. How the integration ended is its
// Status (Converged at the end time; EventStop, OutputStop; StepLimit,
// StepSizeUnderflow, NonFinite, EventLoop), never the returned error, which
// is kept for invalid settings or input and for the error of an output
// function; programmer mistakes (nil f, mismatched lengths) panic.
//
// An Integrator holds all work space, so repeated solves and every step
// run without allocating.
package ode
