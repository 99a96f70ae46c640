"""cluster/ray-shuffle.py on a real local Ray: the bytes of the plain loop of `fairdeal shard`
tasks (what cluster/parallel-shuffle.sh and slurm-shuffle.sh run) for P = 1, 2, 3, and a
task whose worker is killed mid-run is retried by Ray. Every child has a deadline; the script
starts and stops its own local Ray (ray.init / ray.shutdown)."""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_fairdeal import ROOT, fairdeal_binary, need

SCRIPT = ROOT / "cluster" / "ray-shuffle.py"
OPTS = ["--seed", "11", "--chunk-size", "64K", "--buckets", "4"]


def parts_digest(out):
    h = hashlib.sha256()
    for part in sorted(Path(out).glob("part-*")):
        h.update(part.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("ray")
    src = d / "in.txt"
    src.write_text("".join(f"line {i} {'x' * (i % 17)}\n" for i in range(60_000)))
    return d, src


def plain_loop(binary, out, src, tasks=2):
    subprocess.run([binary, "shard", "plan", "--seed", "11", "--out", str(out), "--chunk-size", "64K",
                    "--buckets", "4", "--", str(src)], check=True, timeout=120, capture_output=True)
    for phase in ("scatter", "gather"):
        for i in range(tasks):
            subprocess.run([binary, "shard", phase, "--out", str(out), "--task", str(i), "--tasks", str(tasks)],
                           check=True, timeout=120, capture_output=True)
    return parts_digest(out)


def run_ray(out, src, tasks, env):
    try:
        import ray  # noqa: F401
    except ImportError:
        need("ray (pip install ray)", False)
    done = subprocess.run([sys.executable, str(SCRIPT), *OPTS, "--tasks", str(tasks), "--out", str(out), str(src)],
                          capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return parts_digest(out)


def test_ray_gives_the_plain_loops_bytes_for_1_2_3_tasks_and_survives_a_killed_task(corpus):
    d, src = corpus
    binary = fairdeal_binary()
    expected = plain_loop(binary, d / "loop", src)
    env = dict(os.environ, FAIRDEAL=binary, RAY_AUTH_MODE="disabled")
    for tasks in (1, 2, 3):
        assert run_ray(d / f"ray{tasks}", src, tasks, env) == expected, tasks
    # A fairdeal that kills its Ray worker (its parent) the first time scatter task 1 runs.
    marker = d / "killed-once"
    wrapper = d / "fairdeal-killer"
    wrapper.write_text(
        "#!/bin/sh\n"
        f"case \" $* \" in *' scatter '*'--task 1 '*) if [ ! -e '{marker}' ]; then : > '{marker}'; kill -9 $PPID; sleep 5; exit 9; fi;; esac\n"
        f"exec '{binary}' \"$@\"\n"
    )
    wrapper.chmod(0o755)
    env["FAIRDEAL"] = str(wrapper)
    assert run_ray(d / "killed", src, 2, env) == expected
    assert marker.exists(), "the kill never happened"
