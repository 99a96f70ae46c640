"""Type stubs of the fairdeal module (see fairdeal/__init__.py for the documentation)."""

from typing import Any, Callable, Dict, Iterable, List, Literal, Optional, Union

import numpy
import numpy.typing

DEFAULT_BACKEND: str

def os_seed() -> int: ...
def backends() -> List[str]: ...
def shuffle(
    a: Any,
    *,
    seed: Optional[int] = ...,
    threads: Optional[int] = ...,
    backend: str = ...,
) -> int: ...
def permutation(
    n: int,
    *,
    seed: Optional[int] = ...,
    threads: Optional[int] = ...,
    dtype: numpy.typing.DTypeLike = ...,
) -> numpy.ndarray: ...
def sample(n: int, k: int, *, seed: Optional[int] = ...) -> numpy.ndarray: ...

_Verdict = Literal["fair", "unfair", "insufficient"]

class TestResult:
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
    verdict: _Verdict
    certified_bound: Optional[float]
    tolerance: Optional[float]
    lines_needed: Optional[int]

class AuditCell:
    item: str
    position: int
    observed: int
    expected: float
    deviation: float
    z: float

class AuditDetection:
    bias: float
    power: float
    lines_needed: Optional[float]
    more_lines_needed: Optional[float]
    detectable_bias_now: Optional[float]

class AuditReport:
    verdict: _Verdict
    statement: str
    lines_needed: Optional[int]
    confidence: float
    lines: int
    n: int
    items: List[str]
    alpha: float
    correction: str
    decided_by: Optional[str]
    tests: List[TestResult]
    over_represented: List[AuditCell]
    under_represented: List[AuditCell]
    detection: AuditDetection
    warnings: List[str]
    @property
    def fair(self) -> bool: ...
    def test(self, name: str) -> Optional[TestResult]: ...
    def to_dict(self) -> Dict[str, Any]: ...

def audit(
    data: Union[Iterable[Iterable[Any]], Callable[[list], Any]],
    *,
    n: Optional[int] = ...,
    lines: Optional[int] = ...,
    tolerance: Optional[float] = ...,
    confidence: Optional[float] = ...,
    bias: float = ...,
) -> AuditReport: ...
