"""The fairdeal module: permutations, determinism across threads and dtypes, uniformity,
bit-exactness against CPython and the JDK, refusals and interrupts (audit: test_audit.py).

Every child process has a deadline; nothing here depends on timing beyond those deadlines.
"""

import math
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy
import pytest

import fairdeal

ROOT = Path(__file__).resolve().parents[2]
REQUIRE = os.environ.get("FAIRDEAL_REQUIRE_REFERENCES") == "1"


def need(what, ok):
    if not ok:
        if REQUIRE:
            pytest.fail(f"{what} is missing (FAIRDEAL_REQUIRE_REFERENCES=1)")
        pytest.skip(f"{what} is missing")


def fairdeal_binary():
    path = os.environ.get("FAIRDEAL") or str(ROOT / "target" / "debug" / "fairdeal")
    need("the fairdeal binary (set FAIRDEAL)", os.access(path, os.X_OK))
    return path


def chi2_upper_p(stat, df):
    """Upper-tail p-value of chi-square by the Wilson-Hilferty normal approximation (within a
    few per cent of the exact value around p = 1e-6 for df = 23: ample for the thresholds)."""
    z = ((stat / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))


def is_permutation(a, n):
    return numpy.array_equal(numpy.sort(numpy.asarray(a)), numpy.arange(n))


# ---------------------------------------------------------------- permutation and determinism


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 1000, 131_072, 131_073, 1_000_003])
def test_shuffle_and_permutation_give_permutations(n):
    a = numpy.arange(n)
    fairdeal.shuffle(a, seed=n)
    assert is_permutation(a, n)
    assert is_permutation(fairdeal.permutation(n, seed=n), n)


def test_the_seed_is_returned_and_repeats_the_run():
    a = numpy.arange(1000)
    seed = fairdeal.shuffle(a)
    b = numpy.arange(1000)
    assert fairdeal.shuffle(b, seed=seed) == seed
    assert numpy.array_equal(a, b)
    assert not numpy.array_equal(fairdeal.permutation(1000, seed=1), fairdeal.permutation(1000, seed=2))


@pytest.mark.parametrize("n", [1000, 300_000, 2_000_000])
def test_same_result_on_1_2_and_8_threads(n):
    runs = [fairdeal.permutation(n, seed=42, threads=t) for t in (None, 1, 2, 8)]
    for run in runs[1:]:
        assert numpy.array_equal(run, runs[0])


def test_threads_are_checked():
    a = numpy.arange(10)
    for bad in (0, 1025, -1):
        with pytest.raises(ValueError, match="threads must be between 1 and 1024"):
            fairdeal.shuffle(a, seed=1, threads=bad)


def test_every_dtype_takes_the_int64_order():
    n = 1_100_000  # beyond the whole size (2**20 items): the scatter runs
    order = fairdeal.permutation(n, seed=9)
    base = numpy.arange(n)
    for dtype in (numpy.uint8, numpy.int16, numpy.uint32, numpy.float32, numpy.float64, numpy.complex128):
        a = base.astype(dtype)
        fairdeal.shuffle(a, seed=9)
        assert numpy.array_equal(a, base.astype(dtype)[order]), dtype
    for dtype in (numpy.int32, numpy.uint32, numpy.uint64):
        assert numpy.array_equal(fairdeal.permutation(n, seed=9, dtype=dtype), order)


def test_structured_records_of_24_bytes_and_odd_sizes():
    n = 200_000
    order = fairdeal.permutation(n, seed=5)
    rec = numpy.dtype([("id", "<i8"), ("x", "<f8"), ("tag", "S8")])
    assert rec.itemsize == 24
    a = numpy.zeros(n, dtype=rec)
    a["id"] = numpy.arange(n)
    a["x"] = numpy.arange(n) * 0.5
    a["tag"] = [b"r%d" % (i % 1000) for i in range(n)]
    expected = a[order]
    fairdeal.shuffle(a, seed=5)
    assert numpy.array_equal(a, expected)
    odd = numpy.zeros(n, dtype="V3")
    raw = odd.view(numpy.uint8).reshape(n, 3)
    raw[:, 0] = numpy.arange(n) % 251
    raw[:, 1] = numpy.arange(n) // 251 % 251
    raw[:, 2] = numpy.arange(n) // 251 // 251
    expected = odd[order].copy()
    fairdeal.shuffle(odd, seed=5, threads=2)
    assert numpy.array_equal(odd, expected)


def test_buffers_and_lists():
    import array

    buf = array.array("q", range(5000))
    fairdeal.shuffle(buf, seed=3)
    assert list(buf) == fairdeal.permutation(5000, seed=3).tolist()
    ba = bytearray(range(200))
    fairdeal.shuffle(ba, seed=4)
    assert list(ba) == fairdeal.permutation(200, seed=4).tolist()
    items = [str(i) for i in range(5000)]
    fairdeal.shuffle(items, seed=3)
    assert items == [str(i) for i in fairdeal.permutation(5000, seed=3)]


def test_matches_the_cli_on_ranges():
    binary = fairdeal_binary()
    for n, seed in ((10, 1), (1000, 7), (300_000, 11), (1_100_000, 11)):
        out = subprocess.run(
            [binary, "shuffle", "-i", f"0-{n - 1}", "--seed", str(seed)],
            capture_output=True, timeout=120, check=True,
        ).stdout
        assert numpy.array_equal(numpy.array(out.split(), dtype=numpy.int64), fairdeal.permutation(n, seed=seed))
    out = subprocess.run(
        [binary, "shuffle", "-i", f"0-{2**62}", "-n", "5", "--seed", "3"],
        capture_output=True, timeout=120, check=True,
    ).stdout
    assert [int(x) for x in out.split()] == fairdeal.sample(2**62 + 1, 5, seed=3).tolist()


# ---------------------------------------------------------------- refusals


def test_non_contiguous_and_bad_arrays_are_refused():
    a = numpy.arange(20)
    with pytest.raises(ValueError, match="not C-contiguous"):
        fairdeal.shuffle(a[::2], seed=1)
    with pytest.raises(ValueError, match="1-D"):
        fairdeal.shuffle(numpy.zeros((3, 3)), seed=1)
    ro = numpy.arange(5)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        fairdeal.shuffle(ro, seed=1)
    with pytest.raises(ValueError, match="read-only"):
        fairdeal.shuffle(b"abc", seed=1)
    with pytest.raises(TypeError):
        fairdeal.shuffle(5, seed=1)
    with pytest.raises(ValueError, match="unknown RNG backend `mt`"):
        fairdeal.shuffle(a, seed=1, backend="mt")
    with pytest.raises(ValueError, match="seed"):
        fairdeal.shuffle(a, seed=-1)
    with pytest.raises(ValueError, match="cannot hold"):
        fairdeal.permutation(300, dtype=numpy.uint8)
    with pytest.raises(ValueError, match="cannot sample 6"):
        fairdeal.sample(5, 6, seed=1)
    assert numpy.array_equal(a, numpy.arange(20))


def test_the_native_half_reads_views_in_place_and_refuses_what_is_not_an_array():
    # The native half reads numpy's array object directly: a view into the middle of a buffer
    # must shuffle exactly its own items, in the order the seed gives any array of its length.
    a = numpy.arange(40)
    view = a[10:30]
    fairdeal.shuffle(view, seed=3)
    assert numpy.array_equal(a[:10], numpy.arange(10))
    assert numpy.array_equal(a[30:], numpy.arange(30, 40))
    assert numpy.array_equal(view, fairdeal.permutation(20, seed=3) + 10)

    class Sub(numpy.ndarray):
        pass

    sub = numpy.arange(1000).view(Sub)
    fairdeal.shuffle(sub, seed=8)
    assert numpy.array_equal(sub, fairdeal.permutation(1000, seed=8))
    from fairdeal import _native

    # The fast entry (ndarray, int seed, defaults) and the general one agree, every item size.
    for dtype in (numpy.uint8, numpy.int64, numpy.complex128, "V3", "V24"):
        for n in (2, 1000, 300_000, 1_100_000):
            x = numpy.zeros(n, dtype=dtype)
            x.view(numpy.uint8)[:] = numpy.arange(x.nbytes) % 251
            y, before = x.copy(), x.copy()
            _native.shuffle_default(x, 12)
            _native.shuffle_array(y, 12, 2, "chacha12")
            assert x.tobytes() == y.tobytes(), (dtype, n)
            assert n == 2 or x.tobytes() != before.tobytes(), (dtype, n)  # it did shuffle
    # Items at an odd address (numpy.frombuffer at offset 1): the same order as aligned ones.
    for dtype in (numpy.int16, numpy.int32, numpy.int64):
        n = 1_100_000
        size = numpy.dtype(dtype).itemsize
        raw = bytearray(n * size + 1)
        odd = numpy.frombuffer(raw, dtype=dtype, count=n, offset=1)
        assert not odd.flags.aligned
        odd[:] = numpy.arange(n).astype(dtype)
        fairdeal.shuffle(odd, seed=21)
        expected = numpy.arange(n).astype(dtype)[fairdeal.permutation(n, seed=21)]
        assert numpy.array_equal(odd, expected), dtype
    for fn in (lambda v: _native.shuffle_default(v, 1), lambda v: _native.shuffle_array(v, 1, None, "chacha12")):
        with pytest.raises(TypeError, match="expected a numpy array, not list"):
            fn([3, 1, 2])
    with pytest.raises(ValueError, match="not C-contiguous"):
        _native.shuffle_array(numpy.arange(10)[::2], 1, None, "chacha12")
    with pytest.raises(ValueError, match="1-D"):
        _native.shuffle_array(numpy.zeros((2, 2)), 1, None, "chacha12")
    ro = numpy.arange(5)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        _native.shuffle_array(ro, 1, None, "chacha12")


def test_sample_is_distinct_and_reaches_2_to_the_63():
    s = fairdeal.sample(2**63, 1000, seed=1)
    assert s.dtype == numpy.int64 and len(set(s.tolist())) == 1000 and s.min() >= 0
    big = fairdeal.sample(2**64 - 1, 3, seed=1)
    assert big.dtype == numpy.uint64
    assert sorted(fairdeal.sample(10, 10, seed=2).tolist()) == list(range(10))
    assert len(fairdeal.sample(10, 0, seed=2)) == 0


# ---------------------------------------------------------------- uniformity


def order_counts(shuffle_once, seeds):
    counts = {}
    for seed in seeds:
        key = tuple(shuffle_once(seed))
        counts[key] = counts.get(key, 0) + 1
    return counts


def chi2_of(counts, cells, total):
    expected = total / cells
    observed = list(counts.values()) + [0] * (cells - len(counts))
    return sum((o - expected) ** 2 / expected for o in observed)


def test_uniform_over_the_24_orders_of_4_items_across_seeds():
    seeds = range(48_000)

    def ours(seed):
        a = numpy.arange(4)
        fairdeal.shuffle(a, seed=seed)
        return a.tolist()

    counts = order_counts(ours, seeds)
    assert len(counts) == 24
    p = chi2_upper_p(chi2_of(counts, 24, len(seeds)), 23)
    assert p > 1e-6, p

    # Negative control: the wrong-range swap (j drawn from all n every step) fails the same test.
    def biased(seed):
        rng = random.Random(seed)
        a = list(range(4))
        for i in range(4):
            j = rng.randrange(4)
            a[i], a[j] = a[j], a[i]
        return a

    p_bad = chi2_upper_p(chi2_of(order_counts(biased, seeds), 24, len(seeds)), 23)
    assert p_bad < 1e-9, p_bad


# ---------------------------------------------------------------- bit-exact backends


@pytest.mark.parametrize("seed", [0, 1, 42, 2**32 + 5, 2**63 + 9, 2**64 - 1, -7])
@pytest.mark.parametrize("n", [1, 2, 3, 10, 52, 1000, 70_000])
def test_python_backend_is_random_shuffle(seed, n):
    expected = list(range(n))
    random.Random(seed).shuffle(expected)
    got = list(range(n))
    fairdeal.shuffle(got, seed=seed, backend="python")
    assert got == expected
    arr = numpy.arange(n, dtype=numpy.uint32)
    fairdeal.shuffle(arr, seed=seed, backend="python")
    assert arr.tolist() == expected


JAVA = """
import java.util.*;
public class Shuffle {
    public static void main(String[] args) {
        for (int a = 0; a + 1 < args.length; a += 2) {
            long seed = Long.parseLong(args[a]);
            int n = Integer.parseInt(args[a + 1]);
            List<Integer> list = new ArrayList<>();
            for (int i = 0; i < n; i++) list.add(i);
            Collections.shuffle(list, new Random(seed));
            StringBuilder line = new StringBuilder();
            for (int v : list) line.append(v).append(' ');
            System.out.println(line.toString().trim());
        }
    }
}
"""


def test_java_backend_is_collections_shuffle(tmp_path):
    java = shutil.which("java")
    need("java (a JDK 11+)", java)
    source = tmp_path / "Shuffle.java"
    source.write_text(JAVA)
    cases = [(0, 10), (1, 52), (42, 1000), (-5, 100), (-(2**63), 7), (2**40 + 3, 70_000)]
    args = [str(x) for case in cases for x in case]
    out = subprocess.run([java, str(source), *args], capture_output=True, text=True, timeout=120, check=True)
    lines = out.stdout.splitlines()
    assert len(lines) == len(cases)
    for (seed, n), line in zip(cases, lines):
        got = list(range(n))
        fairdeal.shuffle(got, seed=seed, backend="java")
        assert got == [int(x) for x in line.split()], (seed, n)
    # The unsigned spelling of a negative long is the same generator.
    a, b = list(range(20)), list(range(20))
    fairdeal.shuffle(a, seed=-5, backend="java")
    fairdeal.shuffle(b, seed=2**64 - 5, backend="java")
    assert a == b


# ---------------------------------------------------------------- interrupts


def test_ctrl_c_stops_a_billion_item_shuffle_and_leaves_a_permutation():
    child = textwrap.dedent(
        """
        import signal, sys, time, numpy, fairdeal
        # A test run from a background job ignores SIGINT, and children inherit that.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        n = 10**9
        a = (numpy.arange(n, dtype=numpy.uint64) % 251).astype(numpy.uint8)
        before = numpy.bincount(a, minlength=256)
        print("shuffling", flush=True)
        try:
            fairdeal.shuffle(a, seed=1)
        except KeyboardInterrupt:
            same = numpy.array_equal(numpy.bincount(a, minlength=256), before)
            print("interrupted", "permutation" if same else "DAMAGED", flush=True)
            sys.exit(0)
        print("finished", flush=True)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "shuffling"
        # The shuffle of 10^9 items runs for seconds; the signal lands inside it.
        import time

        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert out.strip() == "interrupted permutation", out
    assert proc.returncode == 0
