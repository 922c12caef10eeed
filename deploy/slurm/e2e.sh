#!/usr/bin/env bash
# End-to-end test of fluid sweep on a real Slurm: start a one-node cluster on
# this machine (local-cluster.sh), run a simulation sweep as a job array of 4
# shards (sweep.sbatch), run the same sweep unsharded, and check that the two
# merged tables are byte-identical, that resubmitting the array runs nothing,
# and that every daemon started is stopped again, also on failure.
#
#   deploy/slurm/e2e.sh        (root; Debian packages slurm-wlm and munge)
#
# FLUID_E2E_KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/../.."

daemons=(slurmctld slurmd munged slurmstepd)
running() {
  local d
  for d in "${daemons[@]}"; do pgrep -x "$d" || true; done | sort -n | tr '\n' ' '
}

work=$(mktemp -d "${TMPDIR:-/tmp}/fluid-e2e.XXXXXX")
cluster=$work/cluster
before=$(running)
start=$SECONDS

cleanup() {
  local rc=$?
  deploy/slurm/local-cluster.sh stop "$cluster" || rc=1
  local after left="no daemon left running"
  after=$(running)
  if [[ $after != "$before" ]]; then
    left="daemons left running: $after (before: ${before:-none})"
    rc=1
  fi
  if ((rc != 0)); then
    echo "e2e: FAILED; logs:" >&2
    tail -n 30 "$cluster"/log/*.log "$work"/slurm-*.out >&2 2>/dev/null || true
  fi
  if [[ ${FLUID_E2E_KEEP:-} == 1 ]]; then
    echo "e2e: kept $work" >&2
  else
    rm -rf "$work"
  fi
  echo "e2e: $( ((rc == 0)) && echo passed || echo failed ) in $((SECONDS - start)) s; $left" >&2
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fluid=$work/bin/fluid
go build -o "$fluid" ./cmd/fluid
deploy/slurm/local-cluster.sh start "$cluster" >/dev/null
export SLURM_CONF=$cluster/slurm.conf

# Sixteen small simulations (transients: 20,000 jobs are too few for a
# steady state at λ = 0.8, which the simulator refuses): each task's seed derives from the sweep seed and
# the task's id, so the sharding must not change a single digit.
grid=(sim --servers "10,20" --load "0.5,0.8" --policy "random,jsqd:2" --sizes "exp,h2:10" --jobs 20000 --transient --reps 2 --seed 7)

echo "e2e: submitting the sweep as a job array of 4 shards" >&2
FLUID=$fluid sbatch --wait --quiet --array=0-3 --chdir="$work" --output="$work/slurm-%A_%a.out" \
  deploy/slurm/sweep.sbatch "$work/sharded" "${grid[@]}"
for i in 0 1 2 3; do
  test -s "$work/sharded/shard-0$i-of-04.jsonl" || { echo "e2e: shard $i wrote nothing" >&2; exit 1; }
done
"$fluid" sweep status "$work/sharded"

echo "e2e: resubmitting: every task is done, nothing runs" >&2
FLUID=$fluid sbatch --wait --quiet --array=0-3 --chdir="$work" --output="$work/resubmit-%A_%a.out" \
  deploy/slurm/sweep.sbatch "$work/sharded" "${grid[@]}"
idle=$(cat "$work"/resubmit-*.out | grep -c "ran 0 (0 ok, 0 failed), 4 finished before" || true)
((idle == 4)) || { echo "e2e: the resubmitted array ran tasks again" >&2; cat "$work"/resubmit-*.out >&2; exit 1; }

echo "e2e: the same sweep unsharded, without Slurm" >&2
env -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_COUNT "$fluid" sweep "${grid[@]}" --out "$work/local" >/dev/null

"$fluid" sweep merge "$work/sharded" -o "$work/sharded.csv"
"$fluid" sweep merge "$work/local" -o "$work/local.csv"
if ! cmp "$work/sharded.csv" "$work/local.csv"; then
  diff "$work/sharded.csv" "$work/local.csv" | head -20 >&2
  echo "e2e: the merged tables differ" >&2
  exit 1
fi
rows=$(($(wc -l <"$work/local.csv") - 1))
((rows == 16)) || { echo "e2e: $rows rows, want 16" >&2; exit 1; }
echo "e2e: Slurm (4 shards) and unsharded merge to the same $rows rows" >&2
