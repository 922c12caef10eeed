// Package plots draws fluid's figures with gonum/plot: the tipping-edge
// phase diagram and the bistability curves of the stale board,
// the exact JIQ blocking map, fluid trajectories against simulation and
// the token-exchange curves, and the size-spread and board-age
// curves.
//
// The models and the published numbers behind each figure are written out in
// docs/models.md.
//
// Each figure is a function from a data struct to a Figure. The data
// struct is computed by the solvers (meanfield, jackson) and the simulator
// (validate/sim) in a Compute…Data function, checked by its New…Data
// constructor (no NaN or Inf), and can be cached as JSON (Settings.DataDir)
// so that figures re-render without recomputing. Tests check the data
// against the solvers and that every figure renders to PNG and SVG.
//
// Series are told apart by colour (Okabe–Ito's colour-blind-safe set),
// dash pattern and marker together, so they survive greyscale printing; the
// heat map uses a luminance-monotone palette (Moreland's extended black
// body) for the same reason.
package plots
