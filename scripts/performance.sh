#!/usr/bin/env bash
# performance.sh regenerates the measured table of docs/performance.md:
# it runs the benchmark of every speed target on this machine, each beside
# its reference in the same run where one exists, and rewrites the table
# between the markers. Each benchmark runs three times and the table
# shows the median of each figure (the machine's noise moves single runs
# by up to 30%). Two to three minutes on 2 cores.
#
#   scripts/performance.sh            # rewrite docs/performance.md
#   scripts/performance.sh --print    # print the table only
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

bench() { # file package pattern benchtime
	echo "benchmark $1 ($3, $4)" >&2
	go test -run '^$' -bench "$3" -benchtime "$4" -count 3 -benchmem "$2" | grep '^Benchmark' >"$out/$1"
}
bench edge ./meanfield/staleboard 'BenchmarkEdgeMethods' 10x
bench table ./meanfield/staleboard 'BenchmarkEdgeTable$' 2x
bench map ./meanfield/staleboard 'BenchmarkMapSpeedup|BenchmarkMapWindow' 10x
bench herd ./meanfield/staleboard 'BenchmarkMapHerd' 10x
bench sim ./sim 'BenchmarkMinimalLoop|BenchmarkBestOfTwo$' 10x
bench jackson ./jackson 'BenchmarkJIQSpeedup' 20x
bench periodic ./meanfield/bestofd 'BenchmarkPeriodicUpdatePSH2SCV4' 2x

# metric FILE NAME UNIT: the median over the runs of the value before UNIT
# on the lines of benchmark NAME (an exact name, without the -GOMAXPROCS
# suffix).
metric() {
	awk -v name="$2" -v unit="$3" '{ n = $1; sub(/-[0-9]+$/, "", n) }
		n == name { for (i = 2; i <= NF; i++) if ($i == unit) print $(i - 1) }' "$out/$1" |
		sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
# human NANOSECONDS: in µs, ms or s with three significant digits.
human() {
	awk -v x="$1" 'BEGIN {
		if (x >= 1e9) printf "%.3g s", x / 1e9
		else if (x >= 1e6) printf "%.3g ms", x / 1e6
		else printf "%.3g µs", x / 1e3 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2g×", a / b }'; }
num() { awk -v x="$1" -v f="$2" 'BEGIN { printf f, x }'; } # num VALUE FORMAT

S=BenchmarkEdgeMethods
root=$(metric edge $S/root ns/op) search=$(metric edge $S/search ns/op)
rootEv=$(metric edge $S/root evals/op) searchEv=$(metric edge $S/search evals/op)
table=$(metric table BenchmarkEdgeTable ns/op)
S=BenchmarkMapSpeedup
bal=$(metric map $S/balanced-T400 window-ns/op) balRef=$(metric map $S/balanced-T400 ref-ns/op)
balAllocs=$(metric map BenchmarkMapWindow/balanced-T400 allocs/op)
h1=$(metric map $S/herd-T1100 window-ns/op) h1Ref=$(metric map $S/herd-T1100 ref-ns/op)
h3=$(metric map $S/herd-T3000 window-ns/op) h3Ref=$(metric map $S/herd-T3000 ref-ns/op)
H1=$(metric herd BenchmarkMapHerd/T=1100 cpu-ns/op) H3=$(metric herd BenchmarkMapHerd/T=3000 cpu-ns/op)
H10=$(metric herd BenchmarkMapHerd/T=10000 cpu-ns/op)
grow() { awk -v a="$1" -v b="$2" -v ta="$3" -v tb="$4" 'BEGIN { printf "%.2f", log(b / a) / log(tb / ta) }'; }
eng=$(metric sim BenchmarkMinimalLoop Mevents/s-engine) min=$(metric sim BenchmarkMinimalLoop Mevents/s-minimal)
simRatio=$(metric sim BenchmarkMinimalLoop engine/minimal)
jobs=$(metric sim BenchmarkBestOfTwo jobs/s)
jq=$(metric jackson BenchmarkJIQSpeedup ms/solve) jqRef=$(metric jackson BenchmarkJIQSpeedup ms/reference)
pu=$(metric periodic BenchmarkPeriodicUpdatePSH2SCV4 ns/op) puCPU=$(metric periodic BenchmarkPeriodicUpdatePSH2SCV4 cpu-s/op)

tab=$(
	cat <<TABLE
| what | fluid | reference, same run | ratio | target |
|---|---|---|---|---|
| one edge, k = 5, λ = 0.9 | $(human "$root"), $(num "$rootEv" %.0f) map evaluations | continuation search: $(human "$search"), $(num "$searchEv" %.0f) evaluations | $(ratio "$search" "$root") faster | ≤ 0.3 s, ≤ 100 evaluations |
| edge table, k = 2…10 × λ ∈ {0.8, 0.9, 0.95} (all cores) | $(human "$table") | — | — | ≤ 15 s |
| one map period, k = 5, T = 400, balanced | $(human "$bal"), $balAllocs allocations | previous pass-by-pass map: $(human "$balRef") | $(ratio "$balRef" "$bal") faster | ≤ 1 ms, no allocation |
| one map period in the herd, T = 1,100 | $(human "$h1") | previous map: $(human "$h1Ref") | $(ratio "$h1Ref" "$h1") faster | ≤ 5 ms (10× the previous map's 50 ms) |
| one map period in the herd, T = 3,000 | $(human "$h3") | previous map: $(human "$h3Ref") | $(ratio "$h3Ref" "$h3") faster | ≤ 15 ms (21× the previous map's 310 ms) |
| growth of the herd period's cost with T | CPU per period 1,100 → 3,000: T^$(grow "$H1" "$H3" 1100 3000); 3,000 → 10,000: T^$(grow "$H3" "$H10" 3000 10000); 1,100 → 10,000: T^$(grow "$H1" "$H10" 1100 10000) ($(human "$H10") at T = 10,000) | — | — | at most T log T (T^1.1–1.2 over these ranges) |
| simulator, best of 2, N = 100, FCFS, exp sizes, one core | $(num "$eng" %.3g) M events/s ($(awk -v j="$jobs" 'BEGIN { printf "%.3g", j / 1e6 }') M jobs/s without replacement) | minimal best-of-2 loop: $(num "$min" %.3g) M events/s | engine/minimal $(num "$simRatio" %.2f) | within 1.3× |
| JIQ product form, N = 10⁵, R = 10 | $(num "$jq" %.3g) ms | general convolution O(N·R²): $(num "$jqRef" %.3g) ms | $(ratio "$jqRef" "$jq") faster | ≤ 5 ms |
| periodic board mean field, PS, H2 SCV 4, T = 100 (2 cores) | $(human "$pu") ($(num "$puCPU" %.3g) CPU-s) | — (the previous code took 75–100 s) | — | ≤ 5 s |
TABLE
)
machine="$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//') · $(nproc) cores · $(go env GOVERSION) · $(date -u +%Y-%m-%d) · $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ "${1:-}" == --print ]]; then
	printf '%s\n\nMeasured on: %s\n' "$tab" "$machine"
	exit 0
fi
doc=docs/performance.md
tmp=$(mktemp "$doc.XXXX")
awk -v tab="$tab" -v machine="$machine" '
	/<!-- table:begin -->/ { print; print tab; print ""; print "Measured on: " machine; skip = 1; next }
	/<!-- table:end -->/ { skip = 0 }
	!skip' "$doc" >"$tmp"
mv "$tmp" "$doc"
echo "rewrote $doc" >&2
