#!/usr/bin/env bash
# Shuffle files with `fairdeal shard` tasks run as Slurm job arrays over a shared filesystem.
# See docs/distributed.md.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: cluster/slurm-shuffle.sh --seed S --tasks P --out DIR [OPTIONS] FILE...

Shuffles the lines of FILE... into DIR/part-00000, DIR/part-00001, ... (their concatenation in
name order is the shuffled input): plans the run here, submits P scatter tasks as one
`sbatch --array` job and P gather tasks as a second one that starts only when every scatter
task succeeded (--dependency=afterok), prints both job ids, waits for them and exits non-zero
if any task failed. The bytes depend only on the seed and the input (and --buckets/
--chunk-size when given): the same with any P, with cluster/parallel-shuffle.sh, or with a
plain loop. Manifests, spill files and the tasks' logs go to DIR/shard/ (remove it when done).
DIR and the inputs must be on a filesystem every node sees. Afterwards the parts are checked
against the input here (`fairdeal shard verify`: it reads the input and the parts once more;
--no-verify skips it).

Options:
  --seed S            seed of the shuffle (required)
  --tasks P           tasks per phase (required)
  --out DIR           run directory (created)
  --buckets N         bucket count (part files) [default: from the input size]
  --chunk-size SIZE   input bytes per chunk [default: fairdeal's, 64M]
  --memory SIZE       memory per task: passed to fairdeal and requested from Slurm (--mem)
  --sbatch-args ARGS  more sbatch options for both phases (one string, split on spaces),
                      e.g. "--partition=batch --time=1:00:00"
  --no-verify         do not check the parts against the input afterwards
  -h, --help          this help

Runs the fairdeal on PATH, or $FAIRDEAL when set (on the nodes too: give an absolute path).
Exit status: 0 when every task succeeded and the parts hold exactly the input's lines, 1 when
a step failed (the plan, a task: see DIR/shard/logs, or the check), 2 for a usage error, 127
when sbatch or fairdeal is missing.
USAGE
}

die_usage() { echo "slurm-shuffle.sh: $*" >&2; exit 2; }

seed="" tasks="" out="" memory="" verify=1
plan_opts=() task_opts=() sbatch_opts=() files=()
while (($#)); do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --seed) seed=${2:?--seed needs a value}; shift 2 ;;
    --tasks) tasks=${2:?--tasks needs a value}; shift 2 ;;
    --out) out=${2:?--out needs a value}; shift 2 ;;
    --buckets|--chunk-size) plan_opts+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
    --memory) memory=${2:?--memory needs a value}; task_opts+=(--memory "$memory"); shift 2 ;;
    --no-verify) verify=0; shift ;;
    --sbatch-args) read -r -a more <<<"${2:?--sbatch-args needs a value}"; sbatch_opts+=("${more[@]}"); shift 2 ;;
    --) shift; files+=("$@"); break ;;
    -*) die_usage "unknown option '$1' (see --help)" ;;
    *) files+=("$1"); shift ;;
  esac
done
[[ -n $seed ]] || die_usage "--seed is required"
[[ -n $out ]] || die_usage "--out is required"
[[ $tasks =~ ^[1-9][0-9]*$ ]] || die_usage "--tasks must be a positive whole number"
((${#files[@]})) || die_usage "give at least one input FILE"

fairdeal=${FAIRDEAL:-fairdeal}
if ! fairdeal=$(command -v "$fairdeal"); then
  echo "slurm-shuffle.sh: '${FAIRDEAL:-fairdeal}' not found: put fairdeal on PATH or set FAIRDEAL" >&2
  exit 127
fi
if ! command -v sbatch >/dev/null 2>&1; then
  echo "slurm-shuffle.sh: sbatch not found: this needs a Slurm cluster (cluster/slurm-local.sh up starts a one-node one here)" >&2
  exit 127
fi
if [[ -n $memory ]]; then
  # fairdeal's SIZE (K/M/G/T) as Slurm's --mem, with room for the buffers beside the budget.
  mem_mb=$(awk -v s="$memory" 'BEGIN {
    n = s + 0; u = toupper(substr(s, length(s)));
    f = (u == "K") ? 1 / 1024 : (u == "M") ? 1 : (u == "G") ? 1024 : (u == "T") ? 1048576 : 1 / 1048576;
    printf "%d", n * f * 1.25 + 64 }')
  sbatch_opts+=(--mem="${mem_mb}M")
fi

mkdir -p -- "$out"
out=$(cd -- "$out" && pwd)
# fairdeal's own usage errors (exit 2) stay usage errors; any other failure of the plan is 1.
"$fairdeal" shard plan --seed "$seed" --out "$out" "${plan_opts[@]}" -- "${files[@]}" >/dev/null ||
  exit $(($? == 2 ? 2 : 1))
logs=$out/shard/logs
mkdir -p "$logs"
rm -f "$logs"/failed-*

# Each task runs fairdeal; a failure leaves a marker (the cluster may keep no accounting, so
# the exit codes are not asked of sacct) and fails the task, which cancels the gather job.
submit() { # submit PHASE [DEPENDENCY]
  local phase=$1 dep=${2:-}
  local cmd
  # The single quotes are deliberate: $SLURM_ARRAY_TASK_ID expands in the task, not here.
  # shellcheck disable=SC2016
  printf -v cmd '%q shard %q --out %q --task "$SLURM_ARRAY_TASK_ID" --tasks %q' \
    "$fairdeal" "$phase" "$out" "$tasks"
  local opt
  for opt in "${task_opts[@]}"; do printf -v cmd '%s %q' "$cmd" "$opt"; done
  # shellcheck disable=SC2016
  printf -v cmd '%s || { touch %q-"$SLURM_ARRAY_TASK_ID"; exit 1; }' "$cmd" "$logs/failed-$phase"
  local args=(--parsable --array="0-$((tasks - 1))" --job-name="fairdeal-$phase"
    --output="$logs/$phase-%a.log" --chdir="$out" "${sbatch_opts[@]}")
  [[ -n $dep ]] && args+=(--dependency="afterok:$dep" --kill-on-invalid-dep=yes)
  sbatch "${args[@]}" --wrap "$cmd" | cut -d';' -f1
}
scatter=$(submit scatter)
gather=$(submit gather "$scatter")
echo "scatter job $scatter, gather job $gather ($tasks tasks each); logs in $logs"

while [[ -n $(squeue -h -j "$scatter,$gather" -o %i 2>/dev/null) ]]; do sleep 1; done

failed=$(find "$logs" -maxdepth 1 -name 'failed-*' -printf '%f ' || true)
buckets=$(sed -n 's/^ *"buckets": *\([0-9]*\).*/\1/p' "$out/shard/run.json")
parts=$(find "$out/shard/gather" -name 'part-*.json' | wc -l)
if [[ -n $failed ]]; then
  echo "slurm-shuffle.sh: tasks failed: $failed(their logs: $logs)" >&2
  exit 1
fi
if [[ $parts -ne $buckets ]]; then
  echo "slurm-shuffle.sh: $parts of $buckets parts were written: a task was cancelled or lost (logs: $logs)" >&2
  exit 1
fi
if ((verify)); then
  "$fairdeal" shard verify "$out" "${files[@]}" >/dev/null || exit 1
fi
