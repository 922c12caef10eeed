// Package plots draws fluid's figures with gonum/plot: the tipping-edge
// phase diagram and the bistability curves of the stale board,
// the exact JIQ blocking map, fluid trajectories against simulation and
// the token-exchange curves, and the size-spread and board-age
// curves.
//
// The models and the published numbers behind each figure are written out in
// docs/models.md.
//
// Each figure is a function from a data struct to a Figure. Make computes
// a catalogue figure's data struct from the solvers (meanfield, jackson)
// and the simulator (sim, sim/tipping), checks it (no NaN or Inf; the
// New…Data constructors check data built elsewhere the same way), and can
// cache it as JSON (Settings.DataDir) so that figures re-render without
// recomputing. Tests check the data
// against the solvers and that every figure renders to PNG and SVG.
//
// Series are told apart by colour (Okabe–Ito's colour-blind-safe set),
// dash pattern and marker together, so they survive greyscale printing; the
// heat map uses a luminance-monotone palette (Moreland's extended black
// body) for the same reason, drawn as one image so that no seams show
// between its cells. Theory is drawn as lines and simulation as markers
// with their intervals; legends sit outside the data areas and show each
// series' line and marker as drawn. Axes of whole numbers are labelled at
// integers, log axes at 1, 2 and 5 times the powers of ten, and the ranges
// are padded so that no marker touches an axis.
//
// Settings.Progress reports how far a figure's data computation has got
// (fluid plot shows it as a progress bar).
package plots
