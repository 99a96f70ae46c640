"""fairdeal.audit: the equivalence verdicts of ``fairdeal audit`` in-process, and its report
equal to ``fairdeal audit --json`` document for document.

Every shuffle here is seeded; the thresholds are the library's (alpha 1e-6, confidence
99.9999 %), far from where a fixed seed could land on the other side. Every child process
has a deadline.
"""

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

import fairdeal

ROOT = Path(__file__).resolve().parents[2]
REQUIRE = os.environ.get("FAIRDEAL_REQUIRE_REFERENCES") == "1"


def fairdeal_binary():
    path = os.environ.get("FAIRDEAL") or str(ROOT / "target" / "debug" / "fairdeal")
    if not os.access(path, os.X_OK):
        if REQUIRE:
            pytest.fail("the fairdeal binary is missing (FAIRDEAL_REQUIRE_REFERENCES=1)")
        pytest.skip("the fairdeal binary is missing (set FAIRDEAL)")
    return path


def wrong_range_swap(seed):
    """The classic biased shuffle: swap every position with one drawn from the whole list."""
    rng = random.Random(seed)

    def shuffle(a):
        for i in range(len(a)):
            j = rng.randrange(len(a))
            a[i], a[j] = a[j], a[i]

    return shuffle


def orders(shuffle, n, lines):
    out = []
    for _ in range(lines):
        a = list(range(n))
        shuffle(a)
        out.append(a)
    return out


# ---------------------------------------------------------------- verdicts


@pytest.mark.parametrize("lines", [20, 200, 2_000])
def test_a_biased_function_is_never_fair_on_few_lines(lines):
    report = fairdeal.audit(wrong_range_swap(lines), n=5, lines=lines)
    assert report.verdict in ("insufficient", "unfair"), report.statement
    assert not report.fair


def test_a_biased_function_is_unfair_from_enough_lines():
    report = fairdeal.audit(wrong_range_swap(1), n=5, lines=5_000)
    assert report.verdict == "unfair", report.statement
    assert report.statement.startswith("UNFAIR: decided by the ")
    assert report.decided_by is not None
    assert report.test(report.decided_by).verdict == "unfair"
    # The tests that neither rejected nor certified still say what they would need.
    short = [t.lines_needed for t in report.tests if t.verdict == "insufficient"]
    assert report.lines_needed == max(short, default=None)
    # Over-represented cells are never listed as under-represented (and vice versa).
    assert all(c.deviation > 0 for c in report.over_represented)
    assert all(c.deviation < 0 for c in report.under_represented)


@pytest.mark.parametrize("lines", [20, 200])
def test_a_fair_function_is_insufficient_on_few_lines(lines):
    report = fairdeal.audit(random.Random(lines).shuffle, n=4, lines=lines)
    assert report.verdict == "insufficient", report.statement
    assert report.statement.startswith("INSUFFICIENT: no test rejects")
    assert report.decided_by is None
    # It says how many lines would do, and each short test says its own share.
    assert report.lines_needed > lines
    short = [t for t in report.tests if t.verdict == "insufficient"]
    assert short and max(t.lines_needed for t in short) == report.lines_needed
    for t in short:
        assert t.certified_bound > t.tolerance


def test_a_fair_function_is_fair_on_enough_lines_and_says_what_it_certifies():
    report = fairdeal.audit(random.Random(5).shuffle, n=4, lines=200_000)
    assert report.verdict == "fair", report.statement
    assert report.fair
    assert str(report) == report.statement
    assert report.statement.startswith("FAIR: no order more than ")
    assert report.lines_needed is None and report.decided_by is None
    assert report.confidence == 0.999999
    defaults = {"permutation": 0.30, "position": 0.05, "serial": 0.30, "adjacency": 0.05}
    assert {t.name: t.tolerance for t in report.tests} == defaults
    for t in report.tests:
        assert t.verdict == "fair"
        assert 0 < t.certified_bound <= t.tolerance, t
        assert t.lines_needed is None


def test_tolerance_and_confidence_decide_what_fair_means():
    perms = orders(random.Random(11).shuffle, 4, 20_000)
    strict = fairdeal.audit(perms)
    assert strict.verdict == "insufficient"
    loose = fairdeal.audit(perms, tolerance=0.5, confidence=0.99)
    assert loose.verdict == "fair", loose.statement
    assert loose.confidence == 0.99
    assert all(t.tolerance == 0.5 for t in loose.tests)
    # A looser confidence certifies a tighter bound from the same lines.
    for a, b in zip(strict.tests, loose.tests):
        assert b.certified_bound < a.certified_bound


# ---------------------------------------------------------------- the CLI's document


def cli_json(binary, path, *flags):
    out = subprocess.run(
        [binary, "audit", str(path), "--json", *flags], capture_output=True, timeout=300
    )
    assert out.returncode in (0, 3, 4), out.stderr
    return out.returncode, json.loads(out.stdout)


CASES = [
    # (name, permutations, keyword arguments, the same as CLI flags)
    ("fair-6", lambda: orders(random.Random(3).shuffle, 6, 3_000), {}, []),
    ("fair-4-certified", lambda: orders(random.Random(4).shuffle, 4, 200_000), {}, []),
    ("biased-5", lambda: orders(wrong_range_swap(2), 5, 4_000), {}, []),
    (
        "options",
        lambda: orders(random.Random(6).shuffle, 5, 10_000),
        {"tolerance": 0.4, "confidence": 0.999, "bias": 0.02},
        ["--tolerance", "0.4", "--confidence", "0.999", "--bias", "0.02"],
    ),
    # Above 8 items: the repeat tests, which bound no cell (null bound and tolerance).
    ("deck-12", lambda: orders(random.Random(8).shuffle, 12, 1_500), {}, []),
    (
        "cards",
        lambda: [random.Random(i).sample(["As", "Kd", "Qh", "Jc"], 4) for i in range(400)],
        {},
        [],
    ),
]


@pytest.mark.parametrize("name,make,kwargs,flags", CASES, ids=[c[0] for c in CASES])
def test_to_dict_is_the_cli_json_document(tmp_path, name, make, kwargs, flags):
    binary = fairdeal_binary()
    perms = make()
    path = tmp_path / f"{name}.txt"
    path.write_text("".join(" ".join(map(str, p)) + "\n" for p in perms))
    status, document = cli_json(binary, path, *flags)
    report = fairdeal.audit(perms, **kwargs)
    assert report.to_dict() == document
    assert {"fair": 0, "unfair": 3, "insufficient": 4}[report.verdict] == status
    # The attributes are the document's, field for field.
    assert [t.__dict__ for t in report.tests] == document["tests"]
    assert report.detection.__dict__ == document["detection"]
    assert [c.__dict__ for c in report.over_represented] == document["over_represented"]


def test_the_document_states_one_verdict_per_test_and_no_contradicting_boolean():
    document = fairdeal.audit(orders(random.Random(9).shuffle, 3, 500)).to_dict()
    assert document["verdict"] in ("fair", "unfair", "insufficient")
    for test in document["tests"]:
        assert test["verdict"] in ("fair", "unfair", "insufficient")
        assert {"certified_bound", "tolerance", "lines_needed"} <= set(test)
        assert "fair" not in test and "has_power" not in test
    assert "lines_needed_to_judge" not in document


# ---------------------------------------------------------------- refusals


def test_audit_refuses_bad_lines_and_arguments():
    with pytest.raises(ValueError, match="appears twice"):
        fairdeal.audit([[0, 1, 2], [0, 0, 2]])
    with pytest.raises(ValueError, match="needs n"):
        fairdeal.audit(random.shuffle)
    with pytest.raises(ValueError, match="holds no permutations"):
        fairdeal.audit([])
    with pytest.raises(TypeError, match="tolerance must be a float"):
        fairdeal.audit([[0, 1]], tolerance="5%")


def test_bad_options_are_refused_before_the_function_is_called():
    def never(_):
        raise AssertionError("called")

    cases = [
        ({"tolerance": 0.0}, r"tolerance must be a fraction from 0\.0001 to 10 \(got 0\)"),
        ({"confidence": 1.0}, r"confidence must be at least 0\.5 and below 1 \(got 1\)"),
        ({"bias": 0.0}, r"bias must be a fraction from 0\.0001 to 10"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            fairdeal.audit(never, n=3, lines=10, **kwargs)
