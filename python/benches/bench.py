"""Duel: fairdeal.shuffle against numpy.random.Generator.shuffle and .permutation.

Interleaved rounds at 10^3, 10^5, 10^7 and 10^8 items of int64 and uint32. A round alternates
short blocks (numpy, fairdeal, numpy, fairdeal, ... on the same buffer, each block about 0.2 ms
of numpy's work or one call) and takes the ratio of the two sides' median block times, so a
block that lost the CPU to another process moves a median, not the round. Reported: the
median ratio numpy/fairdeal over rounds with its min and max, each side's median ns per
item, and the load average when the line was measured. Prints the machine facts first.

    python python/benches/bench.py [--rounds R] [--sizes 1000,100000,...]
"""

import argparse
import os
import platform
import statistics
import time

import numpy

import fairdeal


def machine():
    load = os.getloadavg()
    print(f"cpu: {platform.processor() or platform.machine()}, {os.cpu_count()} logical cores")
    print(f"load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"python {platform.python_version()}, numpy {numpy.__version__}, "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}")


def timed(f, reps):
    t = time.perf_counter()
    for _ in range(reps):
        f()
    return (time.perf_counter() - t) / reps


def duel(n, dtype, rounds):
    a = numpy.arange(n, dtype=dtype)
    gen = numpy.random.default_rng(1)
    reps = max(1, 10**4 // n)  # calls per block: about 0.2 ms of numpy's work, or one call
    blocks = max(1, min(15, 10**7 // n))  # blocks per side in a round
    pairs = {"Generator.shuffle": lambda: gen.shuffle(a), "Generator.permutation": lambda: gen.permutation(a)}
    ours = {"Generator.shuffle": lambda: fairdeal.shuffle(a, seed=1),
            "Generator.permutation": lambda: fairdeal.permutation(n, seed=1, dtype=dtype)}
    for name in pairs:
        ours[name]()  # warm: the thread pool, the first touch of the pages
        ratios, t_np, t_fd = [], [], []
        for _ in range(rounds):
            xs, ys = [], []
            for _ in range(blocks):
                xs.append(timed(pairs[name], reps))
                ys.append(timed(ours[name], reps))
            x, y = statistics.median(xs), statistics.median(ys)
            t_np.append(x)
            t_fd.append(y)
            ratios.append(x / y)
        load = os.getloadavg()[0]
        print(f"{n:>11} {numpy.dtype(dtype).name:>6} {name:<22} numpy {statistics.median(t_np) / n * 1e9:7.2f} ns/item"
              f"  fairdeal {statistics.median(t_fd) / n * 1e9:6.2f} ns/item  ratio {statistics.median(ratios):5.1f}x"
              f" (min {min(ratios):.1f}, max {max(ratios):.1f})  load {load:.1f}", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--sizes", default="1000,100000,10000000,100000000")
    args = p.parse_args()
    machine()
    for n in (int(s) for s in args.sizes.split(",")):
        for dtype in (numpy.int64, numpy.uint32):
            duel(n, dtype, args.rounds)


if __name__ == "__main__":
    main()
