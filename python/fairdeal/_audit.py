"""fairdeal.audit: the verdicts and bounds of ``fairdeal audit``, in-process.

The report is built and serialized by the Rust library (``fairdeal_fairness::audit``), the
same code that prints ``fairdeal audit --json``; this module only feeds it lines and gives its
document attributes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

from . import _native

#: Lines sent to the native judge at once.
_BATCH = 4096

#: The bias the "lines needed" estimate is sized for unless told (``fairdeal audit --bias``).
DEFAULT_BIAS = 0.05


@dataclass(frozen=True)
class TestResult:
    """One test of the battery: its statistic and p-values, and its own verdict with the bound
    it certifies.

    ``verdict`` is ``"fair"`` (at ``AuditReport.confidence`` no cell of its table is more than
    ``certified_bound`` more or less likely than fair, and that is within ``tolerance``),
    ``"unfair"`` (its Holm-adjusted p-value is at most alpha) or ``"insufficient"`` (neither:
    about ``lines_needed`` lines would certify the tolerance). ``certified_bound`` and
    ``tolerance`` are ``None`` for the repeat tests, which bound no cell."""

    __test__ = False  # not a pytest test class, whatever its name

    name: str
    statistic: float
    df: int
    p_value: float
    upper_tail_p_value: float
    holm_adjusted_p_value: float
    expected_per_cell: float
    p_value_method: str
    replicates: Optional[int]
    two_sided: bool
    verdict: str
    certified_bound: Optional[float]
    tolerance: Optional[float]
    lines_needed: Optional[int]


@dataclass(frozen=True)
class AuditCell:
    """One item-at-position cell: how often ``item`` was at ``position`` (from 0)."""

    item: str
    position: int
    observed: int
    expected: float
    deviation: float
    z: float


@dataclass(frozen=True)
class AuditDetection:
    """About how many lines catch one item landing at one position ``bias`` more often than
    fair with probability ``power``, how many more that is, and the bias these lines catch."""

    bias: float
    power: float
    lines_needed: Optional[float]
    more_lines_needed: Optional[float]
    detectable_bias_now: Optional[float]


class AuditReport:
    """What :func:`audit` found, as ``fairdeal audit --json`` states it.

    ``verdict`` is ``"fair"`` (every test certifies its tolerance at ``confidence``),
    ``"unfair"`` (a test rejects; ``decided_by`` names it) or ``"insufficient"`` (nothing
    rejects, but the lines cannot rule out a bias beyond the tolerance: about ``lines_needed``
    would). ``statement`` says what the verdict certifies in words; ``tests`` holds every
    test's own verdict, certified bound and tolerance. :meth:`to_dict` is the JSON document."""

    def __init__(self, document: Dict[str, Any]) -> None:
        self._document = document
        self.verdict: str = document["verdict"]
        self.statement: str = document["statement"]
        self.lines_needed: Optional[int] = document["lines_needed"]
        self.confidence: float = document["confidence"]
        self.lines: int = document["lines"]
        self.n: int = document["n"]
        self.items: List[str] = list(document["items"])
        self.alpha: float = document["alpha"]
        self.correction: str = document["correction"]
        self.decided_by: Optional[str] = document["decided_by"]
        self.tests: List[TestResult] = [TestResult(**t) for t in document["tests"]]
        self.over_represented: List[AuditCell] = [
            AuditCell(**c) for c in document["over_represented"]
        ]
        self.under_represented: List[AuditCell] = [
            AuditCell(**c) for c in document["under_represented"]
        ]
        self.detection = AuditDetection(**document["detection"])
        self.warnings: List[str] = list(document["warnings"])
        unknown = set(document) - set(vars(self)) - {"_document"}
        if unknown:
            raise RuntimeError(f"the native report has fields this module does not: {unknown}")

    @property
    def fair(self) -> bool:
        """Whether the verdict is ``"fair"`` (the only verdict a release gate should pass)."""
        return self.verdict == "fair"

    def test(self, name: str) -> Optional[TestResult]:
        """The named test (``"position"``, ``"serial"``, …), if it ran."""
        return next((t for t in self.tests if t.name == name), None)

    def to_dict(self) -> Dict[str, Any]:
        """The report as ``fairdeal audit --json`` prints it (a fresh copy)."""
        return json.loads(json.dumps(self._document))

    def __str__(self) -> str:
        return self.statement

    def __repr__(self) -> str:
        return f"AuditReport(verdict={self.verdict!r}, lines={self.lines}, n={self.n})"


def _line(perm: Iterable[Any]) -> str:
    return " ".join(str(item) for item in perm) + "\n"


def _check_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    return value


def _check_fraction(name: str, value: Any) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a float, not {type(value).__name__}")
    return float(value)


def audit(
    data: Union[Iterable[Iterable[Any]], Callable[[list], Any]],
    *,
    n: Optional[int] = None,
    lines: Optional[int] = None,
    tolerance: Optional[float] = None,
    confidence: Optional[float] = None,
    bias: float = DEFAULT_BIAS,
) -> AuditReport:
    """Judge a shuffle with the battery of ``fairdeal audit``.

    ``data`` is either an iterable of permutations (each a sequence of the same items, the
    first fixing their order, as the lines of ``fairdeal audit``), or a callable that shuffles
    a list in place: it is called ``lines`` times on ``list(range(n))`` (a fresh list each
    time) and the orders it leaves are judged (a callable that returns a new list instead is
    judged by what it returns).

    The verdict is ``"fair"`` only when, at ``confidence`` (default 0.999999), the lines bound
    every order, item at a position and pair of neighbours within ``tolerance`` of a fair
    shuffle (default per test: 0.30 for whole orders, 0.05 for positions and neighbours);
    ``"unfair"`` when a test rejects; ``"insufficient"`` otherwise, with about how many lines
    would certify the tolerance. ``bias`` sizes the "lines needed" power estimate
    (``--bias``). Options are checked before any line is read (``ValueError`` with the CLI's
    message). The report's :meth:`~AuditReport.to_dict` equals ``fairdeal audit --json
    [--tolerance T] [--confidence C] [--bias B]`` on the same permutations written one per
    line.

    >>> import random, fairdeal
    >>> rng = random.Random(1)
    >>> fairdeal.audit(rng.shuffle, n=4, lines=100).verdict
    'insufficient'
    """
    judge = _native.Auditor(
        _check_fraction("bias", bias),
        _check_fraction("tolerance", tolerance),
        _check_fraction("confidence", confidence),
    )
    if callable(data):
        if n is None or lines is None:
            raise ValueError("auditing a function needs n (items) and lines (calls)")
        _check_int("n", n)
        _check_int("lines", lines)
        if n < 2:
            raise ValueError(f"n must be at least 2, not {n}")
        if lines < 1:
            raise ValueError(f"lines must be at least 1, not {lines}")

        def orders() -> Iterable[List[Any]]:
            for _ in range(lines):
                items = list(range(n))
                out = data(items)
                yield out if isinstance(out, list) else items

        perms: Iterable[Iterable[Any]] = orders()
    else:
        if n is not None or lines is not None:
            raise ValueError("n and lines are for auditing a function, not permutations")
        perms = data
    batch: List[str] = []
    for perm in perms:
        batch.append(_line(perm))
        if len(batch) >= _BATCH:
            judge.feed("".join(batch).encode())
            batch.clear()
    judge.feed("".join(batch).encode())
    return AuditReport(json.loads(judge.report()))
