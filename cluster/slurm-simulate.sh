#!/usr/bin/env bash
# A blackjack simulation as a Slurm job array of shards, merged exactly by a dependent job.
# See docs/distributed.md, "Monte Carlo shards".
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: cluster/slurm-simulate.sh --seed S --rounds N --shards P --out DIR [OPTIONS] [-- SIMULATE-OPTIONS]

Runs `fairdeal blackjack simulate --rounds N --seed S --shard I/P --json` for I = 1..P as one
`sbatch --array` job (task T runs shard T+1), then `fairdeal merge --json` over the P shard
reports as a second job that starts only when every shard succeeded
(--dependency=afterok); prints both job ids, waits for them, prints the merged report and
exits non-zero if any task failed. The merged report is the one
`fairdeal blackjack simulate --rounds N --seed S --json` prints on one machine, field for field
(only "seconds", the shards' sum, differs): the run is chunk-seeded and the shards' tallies
are exact integers.

DIR/shard-I.json are the shards' reports and DIR/merged.json the merged one, each written
under a temporary name, then renamed (whole or not at all). DIR/logs/shard-I.log is shard I's
stderr (DIR/logs/failed-shard-I marks a failed one), DIR/logs/merge.log the merge's.
DIR must be on a filesystem every node sees.

Options:
  --seed S            seed of the run (required: every shard must run the same run)
  --rounds N          rounds of the whole run (required)
  --shards P          array tasks (required; at most the run's chunk count: a shard with
                      no chunks is refused, and its task fails)
  --out DIR           run directory (created)
  --sbatch-args ARGS  more sbatch options for both jobs (one string, split on spaces),
                      e.g. "--partition=batch --time=1:00:00"
  -h, --help          this help
Anything after `--` is passed to every shard (rules, --counting, --algo, --threads, ...).

The same run with GNU parallel instead of Slurm (local, or --sshloginfile for many hosts):
  parallel fairdeal blackjack simulate --rounds 1000000000 --seed 7 --shard {}/64 --json '>' DIR/shard-{}.json ::: $(seq 64)
  fairdeal merge --json DIR/shard-*.json

Runs the fairdeal on PATH, or $FAIRDEAL when set (on the nodes too: give an absolute path).
Exit status: 0 when every task succeeded, 1 when one failed (see DIR/logs), 2 for a usage
error, 127 when sbatch or fairdeal is missing.
USAGE
}

die_usage() { echo "slurm-simulate.sh: $*" >&2; exit 2; }

seed="" rounds="" shards="" out=""
sbatch_opts=() simulate_opts=()
while (($#)); do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --seed) seed=${2:?--seed needs a value}; shift 2 ;;
    --rounds) rounds=${2:?--rounds needs a value}; shift 2 ;;
    --shards) shards=${2:?--shards needs a value}; shift 2 ;;
    --out) out=${2:?--out needs a value}; shift 2 ;;
    --sbatch-args) read -r -a more <<<"${2:?--sbatch-args needs a value}"; sbatch_opts+=("${more[@]}"); shift 2 ;;
    --) shift; simulate_opts+=("$@"); break ;;
    *) die_usage "unknown option '$1' (see --help)" ;;
  esac
done
[[ $seed =~ ^[0-9]+$ ]] || die_usage "--seed is required: a whole number"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die_usage "--rounds is required: a positive whole number"
[[ $shards =~ ^[1-9][0-9]*$ ]] || die_usage "--shards is required: a positive whole number"
[[ -n $out ]] || die_usage "--out is required"

fairdeal=${FAIRDEAL:-fairdeal}
if ! fairdeal=$(command -v "$fairdeal"); then
  echo "slurm-simulate.sh: '${FAIRDEAL:-fairdeal}' not found: put fairdeal on PATH or set FAIRDEAL" >&2
  exit 127
fi
if ! command -v sbatch >/dev/null 2>&1; then
  echo "slurm-simulate.sh: sbatch not found: this needs a Slurm cluster (cluster/slurm-local.sh up starts a one-node one here)" >&2
  exit 127
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
logs=$out/logs
mkdir -p "$logs"
rm -f "$logs"/* "$out"/shard-*.json "$out"/merged.json

# The shard command: each task writes its report under a temporary name, then renames it; a
# failure leaves a marker (the cluster may keep no accounting) and fails the task, which
# cancels the merge job.
# The single quotes are deliberate: $SLURM_ARRAY_TASK_ID expands in the task, not here.
# shellcheck disable=SC2016
printf -v shard_cmd '%q blackjack simulate --rounds %q --seed %q --shard "$((SLURM_ARRAY_TASK_ID + 1))/%q" --json' \
  "$fairdeal" "$rounds" "$seed" "$shards"
for opt in "${simulate_opts[@]}"; do printf -v shard_cmd '%s %q' "$shard_cmd" "$opt"; done
# Its stderr goes to logs/shard-I.log, named like its report and failure marker (Slurm's own
# output file is named by the array task index, I - 1).
# shellcheck disable=SC2016
printf -v shard_cmd 'i=$((SLURM_ARRAY_TASK_ID + 1)); %s > %q/shard-$i.json.tmp 2> %q/shard-$i.log && mv %q/shard-$i.json.tmp %q/shard-$i.json || { rm -f %q/shard-$i.json.tmp; touch %q/failed-shard-$i; exit 1; }' \
  "$shard_cmd" "$out" "$logs" "$out" "$out" "$out" "$logs"
printf -v merge_cmd '%q merge --json %q/shard-*.json > %q/merged.json.tmp && mv %q/merged.json.tmp %q/merged.json || { rm -f %q/merged.json.tmp; touch %q/failed-merge; exit 1; }' \
  "$fairdeal" "$out" "$out" "$out" "$out" "$out" "$logs"

array=$(sbatch --parsable --array="0-$((shards - 1))" --job-name=fairdeal-simulate \
  --output="$logs/slurm-task-%a.log" --chdir="$out" "${sbatch_opts[@]}" --wrap "$shard_cmd" | cut -d';' -f1)
merge=$(sbatch --parsable --job-name=fairdeal-merge --output="$logs/merge.log" --chdir="$out" \
  --dependency="afterok:$array" --kill-on-invalid-dep=yes "${sbatch_opts[@]}" --wrap "$merge_cmd" | cut -d';' -f1)
echo "shard job $array ($shards tasks), merge job $merge; logs in $logs"

while [[ -n $(squeue -h -j "$array,$merge" -o %i 2>/dev/null) ]]; do sleep 1; done

failed=$(find "$logs" -maxdepth 1 -name 'failed-*' -printf '%f ' || true)
if [[ -n $failed ]]; then
  echo "slurm-simulate.sh: tasks failed: $failed(their logs: $logs)" >&2
  exit 1
fi
if [[ ! -s $out/merged.json ]]; then
  echo "slurm-simulate.sh: no merged report: a task was cancelled or lost (logs: $logs)" >&2
  exit 1
fi
"$fairdeal" merge "$out"/shard-*.json
echo "merged report: $out/merged.json"
