#!/usr/bin/env python3
"""Shuffle files with `fairdeal shard` tasks run as Ray tasks (see docs/distributed.md).

Usage: cluster/ray-shuffle.py --seed S --tasks P --out DIR [--address ADDR] [--buckets N]
                              [--chunk-size SIZE] [--memory SIZE] [--no-verify] FILE...

Plans on the driver, runs P scatter tasks, then P gather tasks, as Ray tasks with Ray's
retries on (a task is a function of the seed and its work items: a retried task rewrites the
same files), then verifies the parts against the input. The bytes are those of
cluster/parallel-shuffle.sh and cluster/slurm-shuffle.sh for the same seed, chunk size and
buckets, for any P. The workers run the fairdeal on their PATH, or $FAIRDEAL, and need the
same paths (a shared filesystem).

Exit status: 0 done; 1 a task failed; 2 usage error; 127 fairdeal or ray missing.
"""

import argparse
import os
import shutil
import subprocess
import sys


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", required=True)
    p.add_argument("--tasks", required=True, type=int)
    p.add_argument("--out", required=True)
    p.add_argument("--address", help="an existing Ray cluster (ray.init(address=...))")
    p.add_argument("--buckets")
    p.add_argument("--chunk-size")
    p.add_argument("--memory", help="memory per task (fairdeal shard scatter/gather --memory)")
    p.add_argument("--retries", type=int, default=3, help="Ray's max_retries per task")
    p.add_argument("--no-verify", action="store_true")
    p.add_argument("files", nargs="+")
    args = p.parse_args()
    if args.tasks < 1:
        p.error("--tasks must be a positive whole number")
    fairdeal = os.environ.get("FAIRDEAL", "fairdeal")
    if shutil.which(fairdeal) is None:
        print(f"ray-shuffle.py: '{fairdeal}' not found: put fairdeal on PATH or set FAIRDEAL", file=sys.stderr)
        return 127
    fairdeal = shutil.which(fairdeal)
    try:
        import ray
    except ImportError:
        print("ray-shuffle.py: ray is not installed (pip install ray)", file=sys.stderr)
        return 127

    os.makedirs(args.out, exist_ok=True)
    out = os.path.abspath(args.out)
    plan = [fairdeal, "shard", "plan", "--seed", args.seed, "--out", out]
    for flag, value in (("--buckets", args.buckets), ("--chunk-size", args.chunk_size)):
        if value is not None:
            plan += [flag, value]
    subprocess.run(plan + ["--", *args.files], check=True, stdout=subprocess.DEVNULL)
    extra = ["--memory", args.memory] if args.memory else []

    @ray.remote(max_retries=args.retries, retry_exceptions=True)
    def task(phase: str, index: int) -> str:
        cmd = [fairdeal, "shard", phase, "--out", out, "--task", str(index), "--tasks", str(args.tasks), *extra]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{phase} task {index}: {done.stderr.strip()}")
        return done.stdout

    ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
    try:
        for phase in ("scatter", "gather"):
            ray.get([task.remote(phase, i) for i in range(args.tasks)])
    except ray.exceptions.RayError as e:
        print(f"ray-shuffle.py: {e}", file=sys.stderr)
        return 1
    finally:
        ray.shutdown()
    if not args.no_verify:
        subprocess.run([fairdeal, "shard", "verify", out, *args.files], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
