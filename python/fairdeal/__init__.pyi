"""Type stubs of the fairdeal module (see fairdeal/__init__.py for the documentation)."""

from typing import Any, Callable, Dict, Iterable, List, Optional, Union

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

class TestResult:
    name: str
    statistic: float
    df: int
    p_value: float
    holm_adjusted_p_value: float
    has_power: bool
    verdict: str

class AuditReport:
    verdict: str
    lines: int
    n: int
    decided_by: Optional[str]
    lines_needed_to_judge: Optional[int]
    tests: List[TestResult]
    @property
    def fair(self) -> bool: ...
    def to_dict(self) -> Dict[str, Any]: ...

def audit(
    data: Union[Iterable[Iterable[Any]], Callable[[list], Any]],
    *,
    n: Optional[int] = ...,
    lines: Optional[int] = ...,
    bias: float = ...,
) -> AuditReport: ...
