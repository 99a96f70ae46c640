#!/usr/bin/env bash
# Shuffle files with `fairdeal shard` tasks run by GNU parallel (on this machine, or on the
# machines of an --sshloginfile sharing the filesystem). See docs/distributed.md.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: cluster/parallel-shuffle.sh --seed S --tasks P --out DIR [OPTIONS] FILE...

Shuffles the lines of FILE... into DIR/part-00000, DIR/part-00001, ... (their concatenation in
name order is the shuffled input) with P scatter tasks, then P gather tasks, run by GNU
parallel. The bytes depend only on the seed and the input (and --buckets/--chunk-size when
given): the same with any P, with cluster/slurm-shuffle.sh, or with a plain loop.
Manifests, spill files and logs go to DIR/shard/ (remove it when done). Afterwards the parts
are checked against the input (`fairdeal shard verify`: it reads the input and the parts once
more; --no-verify skips it).

Options:
  --seed S            seed of the shuffle (required: a recipe is for reproducible runs)
  --tasks P           tasks per phase (required)
  --out DIR           run directory (created)
  --jobs J            tasks run at once [default: P]
  --buckets N         bucket count (part files) [default: from the input size]
  --chunk-size SIZE   input bytes per chunk [default: fairdeal's, 64M]
  --memory SIZE       memory per task (fairdeal shard scatter/gather --memory)
  --sshloginfile F    run tasks on the machines listed in F (GNU parallel's option); they
                      need the same paths and a fairdeal on PATH
  --no-verify         do not check the parts against the input afterwards (the check reads
                      the input and the parts once more; see docs/distributed.md)
  -h, --help          this help

Runs the fairdeal on PATH, or $FAIRDEAL when set. Every argument reaches fairdeal as it was
given (GNU parallel's -q): paths with spaces, quotes or shell syntax are only paths.
Exit status: 0 when every step succeeded and the parts hold exactly the input's lines, 1 when
a step failed (the plan, a task, or the check; the message is on stderr), 2 for a usage error,
127 when GNU parallel or fairdeal is missing.
USAGE
}

die_usage() { echo "parallel-shuffle.sh: $*" >&2; exit 2; }

seed="" tasks="" out="" jobs="" verify=1
plan_opts=() task_opts=() parallel_opts=() files=()
while (($#)); do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --seed) seed=${2:?--seed needs a value}; shift 2 ;;
    --tasks) tasks=${2:?--tasks needs a value}; shift 2 ;;
    --out) out=${2:?--out needs a value}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a value}; shift 2 ;;
    --buckets|--chunk-size) plan_opts+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
    --memory) task_opts+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
    --sshloginfile) parallel_opts+=(--sshloginfile "${2:?$1 needs a value}"); shift 2 ;;
    --verify) verify=1; shift ;; # the default; kept for scripts written when it was not
    --no-verify) verify=0; shift ;;
    --) shift; files+=("$@"); break ;;
    -*) die_usage "unknown option '$1' (see --help)" ;;
    *) files+=("$1"); shift ;;
  esac
done
[[ -n $seed ]] || die_usage "--seed is required"
[[ -n $out ]] || die_usage "--out is required"
[[ $tasks =~ ^[1-9][0-9]*$ ]] || die_usage "--tasks must be a positive whole number"
[[ -z $jobs || $jobs =~ ^[1-9][0-9]*$ ]] || die_usage "--jobs must be a positive whole number"
((${#files[@]})) || die_usage "give at least one input FILE"

fairdeal=${FAIRDEAL:-fairdeal}
if ! command -v "$fairdeal" >/dev/null 2>&1; then
  echo "parallel-shuffle.sh: '$fairdeal' not found: put fairdeal on PATH or set FAIRDEAL" >&2
  exit 127
fi
if ! command -v parallel >/dev/null 2>&1 || ! parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
  echo "parallel-shuffle.sh: GNU parallel is not installed (install it: 'apt-get install parallel' on Debian/Ubuntu, 'dnf install parallel' on Fedora, 'brew install parallel' on macOS)" >&2
  exit 127
fi

mkdir -p -- "$out"
out=$(cd -- "$out" && pwd)
# fairdeal's own usage errors (exit 2) stay usage errors; any other failure of the plan is 1.
"$fairdeal" shard plan --seed "$seed" --out "$out" "${plan_opts[@]}" -- "${files[@]}" >/dev/null ||
  exit $(($? == 2 ? 2 : 1))
mkdir -p -- "$out/shard/logs"

# -q: GNU parallel quotes every word of the command, so that the shell it runs the command
# through sees each argument as one word, never as code ({} is still the task index).
# --halt now,fail=1: the first failed task stops the phase (its message is on stderr);
# --retries 2: a task that dies (a lost machine) is run again, which is safe: it writes the
# same bytes. The tasks' reports go to DIR/shard/logs/PHASE.log, their errors to stderr.
run_phase() {
  local phase=$1
  seq 0 $((tasks - 1)) | parallel -q --will-cite --halt now,fail=1 --retries 2 \
    -j "${jobs:-$tasks}" "${parallel_opts[@]}" \
    "$fairdeal" shard "$phase" --out "$out" --task '{}' --tasks "$tasks" "${task_opts[@]}" \
    >"$out/shard/logs/$phase.log"
}
# GNU parallel exits with the number of failed tasks (or 101 and up): a failed phase is 1.
run_phase scatter || exit 1
run_phase gather || exit 1
if ((verify)); then
  "$fairdeal" shard verify "$out" "${files[@]}" >/dev/null || exit 1
fi
