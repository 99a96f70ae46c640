"""fairdeal: provably fair, fast shuffles for numpy and Python.

* :func:`shuffle` shuffles a 1-D numpy array (any dtype, structured ones included), any
  C-contiguous writable buffer, or a list, in place, on every core, with the GIL released.
  The result depends only on the seed and the length: never on ``threads``, nor on the dtype.
* :func:`permutation` and :func:`sample` return new arrays.
* ``backend="python"`` is ``random.Random(seed).shuffle`` bit for bit, ``backend="java"`` is
  ``java.util.Collections.shuffle(list, new Random(seed))``.
* :func:`audit` judges a shuffle: permutations it made, or a function that shuffles a list.

A seeded shuffle of ``numpy.arange(n)`` (any integer dtype) gives the lines of
``fairdeal shuffle -i 0-(n-1) --seed S``.
"""

from __future__ import annotations

import operator
from typing import Any, Optional

import numpy

from . import _native
from ._audit import AuditCell, AuditDetection, AuditReport, TestResult, audit

__all__ = [
    "AuditCell",
    "AuditDetection",
    "AuditReport",
    "TestResult",
    "audit",
    "backends",
    "os_seed",
    "permutation",
    "sample",
    "shuffle",
    "DEFAULT_BACKEND",
]

#: The backend every call uses unless told otherwise: ChaCha12, a CSPRNG.
DEFAULT_BACKEND = "chacha12"

_U64 = 1 << 64

#: The backend names, read once: checking a name is then a set look-up, not a native call.
_BACKENDS = tuple(_native.backends())
_BACKEND_SET = frozenset(_BACKENDS)

# Bound once for shuffle's fast path, where a global look-up is a measurable share of a call.
_NDARRAY = numpy.ndarray
_shuffle_default = _native.shuffle_default


def os_seed() -> int:
    """A 64-bit seed drawn from the operating system, to pass as ``seed=`` and repeat a run."""
    return _native.os_seed()


def backends() -> list:
    """The names of the RNG backends, ``chacha12`` (the default) among them."""
    return list(_BACKENDS)


def _seed_for(seed: Optional[int], backend: str) -> tuple:
    """(the seed as the caller knows it, the 64-bit word the native side takes)."""
    if not isinstance(backend, str):
        raise TypeError(f"backend must be a str, not {type(backend).__name__}")
    if backend not in _BACKEND_SET:
        names = ", ".join(_BACKENDS)
        raise ValueError(f"unknown RNG backend `{backend}` (valid: {names})")
    if seed is None:
        seed = _native.os_seed()
        if backend == "java":
            seed -= (seed >> 63) << 64  # a Java long
        return seed, seed % _U64
    if isinstance(seed, bool) or not isinstance(seed, int):
        try:
            seed = operator.index(seed)
        except TypeError:
            raise TypeError(f"seed must be an int, not {type(seed).__name__}") from None
    if backend == "java":
        # new Random(long): any long, or its unsigned 64-bit spelling.
        if not -(1 << 63) <= seed < _U64:
            raise ValueError(f"seed must fit in 64 bits for the java backend, not {seed}")
        return seed, seed % _U64
    if backend == "python":
        # random.seed(n) uses abs(n).
        if abs(seed) >= _U64:
            raise ValueError(f"seed must be below 2^64 in absolute value, not {seed}")
        return seed, abs(seed)
    if not 0 <= seed < _U64:
        raise ValueError(f"seed must be a whole number in 0..=18446744073709551615, not {seed}")
    return seed, seed


def _threads(threads: Optional[int]) -> Optional[int]:
    if threads is None:
        return None
    if isinstance(threads, bool) or not isinstance(threads, int):
        raise TypeError(f"threads must be an int or None, not {type(threads).__name__}")
    if not 1 <= threads <= 1024:
        raise ValueError(f"threads must be between 1 and 1024, not {threads}")
    return threads


def _as_array(a: Any) -> numpy.ndarray:
    """The numpy array that shares ``a``'s memory, checked: 1-D, C-contiguous, writable."""
    if isinstance(a, numpy.ndarray):
        arr = a
    else:
        try:
            view = memoryview(a)
        except TypeError:
            raise TypeError(
                "shuffle takes a numpy array, a writable buffer or a list, "
                f"not {type(a).__name__}"
            ) from None
        if view.ndim != 1:
            raise ValueError(f"expected a 1-D buffer, got {view.ndim} dimensions")
        if not view.c_contiguous:
            raise ValueError(
                "the buffer is not C-contiguous: shuffle a contiguous copy and assign it back"
            )
        if view.readonly:
            raise ValueError("the buffer is read-only")
        raw = numpy.frombuffer(view.cast("B"), dtype=numpy.uint8)
        arr = raw.view(numpy.dtype((numpy.void, view.itemsize))) if view.itemsize else raw
    if arr.ndim != 1:
        raise ValueError(
            f"expected a 1-D array, got {arr.ndim} dimensions "
            "(shuffle rows with fairdeal.permutation(len(a)) as an index)"
        )
    if not arr.flags.c_contiguous:
        raise ValueError(
            "the array is not C-contiguous (a strided view such as a[::2]): "
            "shuffle a copy (numpy.ascontiguousarray) and assign it back"
        )
    if not arr.flags.writeable:
        raise ValueError("the array is read-only")
    return arr


def shuffle(
    a: Any,
    *,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    backend: str = DEFAULT_BACKEND,
) -> int:
    """Shuffle ``a`` in place, uniformly at random; return the seed used.

    ``a`` is a 1-D numpy array of any dtype (structured/void dtypes of any item size
    included), any other C-contiguous writable buffer (``bytearray``, ``array.array``, a
    memoryview), or a ``list``. Multi-dimensional and strided arrays are refused.

    The order depends only on ``seed`` and ``len(a)``: the same on any ``threads`` (all cores
    when ``None``) and for every dtype. Without ``seed``, one is drawn from the operating
    system and returned, so ``shuffle(b, seed=shuffle(a))`` shuffles ``b`` like ``a``.

    ``backend="python"`` reproduces ``random.Random(seed).shuffle``, ``backend="java"``
    ``Collections.shuffle(list, new Random(seed))``, bit for bit (one thread). Other names
    are the ``fairdeal --backend`` generators (:func:`backends`).

    The GIL is released while it works. Ctrl-C stops a long shuffle within about one phase
    and raises ``KeyboardInterrupt``; ``a`` then holds a permutation of its items (not a
    uniformly random one). Raises ``ValueError`` for bad arguments, ``MemoryError`` when an
    item size without a native path cannot get its working copy.

    >>> import numpy, fairdeal
    >>> a = numpy.arange(10)
    >>> fairdeal.shuffle(a, seed=1)
    1
    >>> sorted(a.tolist()) == list(range(10))
    True
    """
    if (
        type(a) is _NDARRAY
        and type(seed) is int
        and 0 <= seed < _U64
        and threads is None
        and backend == DEFAULT_BACKEND
    ):
        # The common call, with nothing to convert: the native half checks the array (1-D,
        # C-contiguous, writable) with the messages _as_array gives. A small array's time is
        # mostly this call's overhead, so it skips the general path's checks and lookups.
        _shuffle_default(a, seed)
        return seed
    shown, word = _seed_for(seed, backend)
    threads = _threads(threads)
    if isinstance(a, list):
        if len(a) > 1:
            order = _native.index_permutation(len(a), word, threads, backend)
            a[:] = [a[i] for i in order]
        return shown
    _native.shuffle_array(_as_array(a), word, threads, backend)
    return shown


def permutation(
    n: int,
    *,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    dtype: Any = numpy.int64,
) -> numpy.ndarray:
    """A new array holding a uniformly random permutation of ``range(n)``.

    ``numpy.arange(n, dtype=dtype)`` shuffled by :func:`shuffle`: the same order for every
    integer ``dtype`` and thread count. ``dtype`` must hold ``n - 1``.

    >>> import fairdeal
    >>> sorted(fairdeal.permutation(5, seed=7).tolist())
    [0, 1, 2, 3, 4]
    """
    if isinstance(n, bool) or not isinstance(n, int):
        try:
            n = operator.index(n)
        except TypeError:
            raise TypeError(f"n must be an int, not {type(n).__name__}") from None
    if n < 0:
        raise ValueError(f"n must be non-negative, not {n}")
    dt = numpy.dtype(dtype)
    if dt.kind not in "iu":
        raise ValueError(f"dtype must be an integer type, not {dt}")
    if n > 0 and n - 1 > numpy.iinfo(dt).max:
        raise ValueError(f"dtype {dt} cannot hold {n - 1}")
    try:
        out = numpy.arange(n, dtype=dt)
    except MemoryError:
        raise MemoryError(f"cannot allocate {n} items of {dt}") from None
    shuffle(out, seed=seed, threads=threads)
    return out


def sample(n: int, k: int, *, seed: Optional[int] = None) -> numpy.ndarray:
    """``k`` distinct integers of ``range(n)``, uniformly at random and in random order.

    O(k) memory and time whatever ``n`` (up to 2^64): a sparse partial Fisher-Yates, the
    numbers of ``fairdeal shuffle -i 0-(n-1) -n k --seed S``. An ``int64`` array, ``uint64``
    when ``n`` exceeds 2^63.

    >>> import fairdeal
    >>> len(set(fairdeal.sample(2**62, 5, seed=3).tolist()))
    5
    """
    for name, value in (("n", n), ("k", k)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, not {type(value).__name__}")
        if value < 0:
            raise ValueError(f"{name} must be non-negative, not {value}")
    if n > _U64:
        raise ValueError(f"n must be at most 2^64, not {n}")
    if k > n:
        raise ValueError(f"cannot sample {k} distinct numbers from range({n})")
    _, word = _seed_for(seed, DEFAULT_BACKEND)
    dtype = numpy.int64 if n <= 1 << 63 else numpy.uint64
    if k == 0:
        return numpy.zeros(0, dtype=dtype)
    if n == _U64:
        raise ValueError("n = 2^64 is not supported: use n <= 2^64 - 1")
    return numpy.array(_native.sample(n, k, word), dtype=dtype)
