"""fairdeal.audit: the verdicts and bounds of ``fairdeal audit``, in-process."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

from . import _native

#: Lines sent to the native judge at once.
_BATCH = 4096


@dataclass(frozen=True)
class TestResult:
    """One test of the battery: its statistic, p-values and verdict."""

    name: str
    statistic: float
    df: int
    p_value: float
    holm_adjusted_p_value: float
    has_power: bool
    verdict: str


class AuditReport:
    """What :func:`audit` found: ``verdict`` is ``"fair"``, ``"unfair"`` or
    ``"insufficient"``; ``tests`` the battery's tests; :meth:`to_dict` the document
    ``fairdeal audit --json`` prints for the same lines."""

    def __init__(self, document: Dict[str, Any]) -> None:
        self._document = document
        self.verdict: str = document["verdict"]
        self.lines: int = document["lines"]
        self.n: int = document["n"]
        self.decided_by: Optional[str] = document["decided_by"]
        self.lines_needed_to_judge: Optional[int] = document["lines_needed_to_judge"]
        self.tests: List[TestResult] = [
            TestResult(
                name=t["name"],
                statistic=t["statistic"],
                df=t["df"],
                p_value=t["p_value"],
                holm_adjusted_p_value=t["holm_adjusted_p_value"],
                has_power=t["has_power"],
                verdict=t["verdict"],
            )
            for t in document["tests"]
        ]

    @property
    def fair(self) -> bool:
        """Whether the verdict is ``"fair"``."""
        return self.verdict == "fair"

    def to_dict(self) -> Dict[str, Any]:
        """The report as ``fairdeal audit --json`` prints it (a fresh copy)."""
        return json.loads(json.dumps(self._document))

    def __repr__(self) -> str:
        return f"AuditReport(verdict={self.verdict!r}, lines={self.lines}, n={self.n})"


def _line(perm: Iterable[Any]) -> str:
    return " ".join(str(item) for item in perm) + "\n"


def audit(
    data: Union[Iterable[Iterable[Any]], Callable[[list], Any]],
    *,
    n: Optional[int] = None,
    lines: Optional[int] = None,
    bias: float = 0.05,
) -> AuditReport:
    """Judge a shuffle with the battery of ``fairdeal audit``.

    ``data`` is either an iterable of permutations (each a sequence of the same items, the
    first fixing their order, as the lines of ``fairdeal audit``), or a callable that shuffles
    a list in place: it is called ``lines`` times on ``list(range(n))`` (a fresh list each
    time) and the orders it leaves are judged. ``bias`` sizes the "lines needed" estimate
    (``--bias``). The report's :meth:`~AuditReport.to_dict` equals ``fairdeal audit --json``
    on the same permutations written one per line.

    >>> import random, fairdeal
    >>> rng = random.Random(1)
    >>> fairdeal.audit(rng.shuffle, n=4, lines=20000).verdict
    'fair'
    """
    judge = _native.Auditor()
    if callable(data):
        if n is None or lines is None:
            raise ValueError("auditing a function needs n (items) and lines (calls)")
        for name, value in (("n", n), ("lines", lines)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int, not {type(value).__name__}")
        if n < 2:
            raise ValueError(f"n must be at least 2, not {n}")
        if lines < 1:
            raise ValueError(f"lines must be at least 1, not {lines}")
        batch: List[str] = []
        for _ in range(lines):
            items = list(range(n))
            out = data(items)
            # A function that returns a new list instead of shuffling in place is judged
            # by what it returns.
            batch.append(_line(out if isinstance(out, list) else items))
            if len(batch) >= _BATCH:
                judge.feed("".join(batch).encode())
                batch.clear()
        judge.feed("".join(batch).encode())
    else:
        if n is not None or lines is not None:
            raise ValueError("n and lines are for auditing a function, not permutations")
        batch = []
        for perm in data:
            batch.append(_line(perm))
            if len(batch) >= _BATCH:
                judge.feed("".join(batch).encode())
                batch.clear()
        judge.feed("".join(batch).encode())
    return AuditReport(json.loads(judge.report(bias)))
