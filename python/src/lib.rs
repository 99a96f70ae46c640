/*!
The native half of the `fairdeal` Python module (`fairdeal._native`); the Python half
(`python/fairdeal/__init__.py`) checks arguments and gives the API its numpy shape.

# Design choices

* **One permutation per seed and length.** [`Parallel`]'s decomposition is cut in bytes
  (leaf, chunk), so on its own it gives a different permutation for each item size. Here the
  byte sizes are scaled by the item size (`DEFAULT_* / 8 * itemsize`), so every item size gets
  the element counts that 8-byte items get by default: a `uint8`, `float32`, `int64` or
  16-byte array and `fairdeal shuffle -i 0-(n-1)` (which holds `u64`) all move their items the
  same way. Items of any other size (structured dtypes) are not monomorphised: the
  permutation of `0..n` as `u64` is drawn and applied (a parallel gather into a copy).
* **Pointers from numpy's array object.** The limited API of CPython 3.9 (abi3) has no buffer
  protocol, so the Python half turns any buffer into a numpy array sharing its memory and this
  half reads the address, length and flags from the array object itself (numpy's public
  `PyArrayObject_fields` layout, what numpy's own `PyArray_DATA` macros read) after checking
  that it is a `numpy.ndarray`. Building `__array_interface__`'s dictionary instead cost more
  than shuffling 1000 items. The Python caller holds the array for the whole call; the work
  runs with the GIL released, in chunks, between which a pending signal (Ctrl-C) is checked.
* **Errors are Python exceptions** with the CLI's messages (`ValueError`, `MemoryError`);
  nothing here panics on a user's value.
*/
#![deny(unsafe_op_in_unsafe_fn)]

use std::ffi::c_int;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use fairdeal::parallel::{
    DEFAULT_CHUNK_BYTES, DEFAULT_LEAF_BYTES, DEFAULT_MAX_BUCKET_BITS, DEFAULT_MAX_CHUNKS,
    DEFAULT_WHOLE_BYTES,
};
use fairdeal::rng::{Backend, BackendVisitor, with_backend};
use fairdeal::{IndexSampler, Inplace, Parallel, Partial, Rng, Shuffler};
use pyo3::exceptions::{
    PyKeyboardInterrupt, PyMemoryError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

mod audit;

/// The most threads a call may ask for (the CLI's `--threads` bound).
const MAX_THREADS: usize = 1024;

/// Item sizes with their own monomorphised shuffle; other sizes go through an index permutation.
const NATIVE_SIZES: [usize; 5] = [1, 2, 4, 8, 16];

/// A 64-bit seed from the operating system (`getrandom`), for a run the caller can repeat.
#[pyfunction]
fn os_seed() -> PyResult<u64> {
    let mut rng = fairdeal::rng::DefaultBackend::from_os().map_err(|e| {
        PyRuntimeError::new_err(format!(
            "cannot seed the generator from the operating system: {e}"
        ))
    })?;
    Ok(rng.next_u64())
}

/// The `Parallel` whose element counts (leaf, chunk, whole size) for `itemsize`-byte items are
/// those of 8-byte items by default.
fn scaled<S: IndexSampler + Copy>(sampler: S, itemsize: usize) -> Parallel<S> {
    let scale = |bytes: usize| (bytes / 8).saturating_mul(itemsize).max(1);
    Parallel::with_sampler(sampler)
        .with_shape(scale(DEFAULT_LEAF_BYTES), DEFAULT_MAX_BUCKET_BITS)
        .and_then(|p| p.with_chunks(scale(DEFAULT_CHUNK_BYTES), DEFAULT_MAX_CHUNKS))
        .map(|p| p.with_whole(scale(DEFAULT_WHOLE_BYTES)))
        .unwrap_or_else(|_| Parallel::with_sampler(sampler))
}

/// Where a shuffle runs: the caller's thread, all cores (rayon's global pool), or a pool of
/// `threads`.
#[derive(Clone, Copy)]
enum Threads {
    All,
    Exactly(usize),
}

fn threads_from(threads: Option<usize>) -> PyResult<Threads> {
    match threads {
        None => Ok(Threads::All),
        Some(t) if (1..=MAX_THREADS).contains(&t) => Ok(Threads::Exactly(t)),
        Some(t) => Err(PyValueError::new_err(format!(
            "threads must be between 1 and {MAX_THREADS}, not {t}"
        ))),
    }
}

/// Runs `work` on the pool `threads` names (building one for an explicit count).
fn on_pool<T: Send>(threads: Threads, work: impl FnOnce() -> T + Send) -> Result<T, String> {
    match threads {
        Threads::All => Ok(work()),
        Threads::Exactly(t) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .map_err(|e| format!("cannot start {t} threads: {e}"))?;
            Ok(pool.install(work))
        }
    }
}

/// One shuffle of `len` items of `itemsize` bytes at `addr`, by backend `B`.
struct ShuffleJob<'a> {
    addr: usize,
    len: usize,
    itemsize: usize,
    seed: u64,
    threads: Threads,
    cancel: &'a AtomicBool,
}

/// Why a shuffle did not finish.
enum Stop {
    Memory(usize),
    Threads(String),
    Cancelled,
}

impl ShuffleJob<'_> {
    /// The bytes as a mutable slice of `N`-byte items.
    ///
    /// # Safety
    ///
    /// `addr` must point to `len * N` bytes that are writable, stay allocated for `'b`, and that
    /// nothing else reads or writes during `'b` (see [`shuffle_array`]).
    unsafe fn items<'b, const N: usize>(&self) -> &'b mut [[u8; N]] {
        // SAFETY: the caller's contract; `[u8; N]` has alignment 1, so any address is aligned.
        unsafe { std::slice::from_raw_parts_mut(self.addr as *mut [u8; N], self.len) }
    }
}

/// Shuffles a slice with backend `B`: the Python and Java ports by their languages' own
/// Fisher-Yates (one thread, draw for draw), every other backend by `Parallel`.
fn shuffle_slice<B: Backend, T: Send>(
    data: &mut [T],
    seed: u64,
    itemsize: usize,
    threads: Threads,
    cancel: &AtomicBool,
) -> Result<(), Stop> {
    let mut rng = B::seeded(seed);
    let sampler = B::Sampler::default();
    if language_exact(B::INFO.name) {
        Inplace::with_sampler(sampler).shuffle(data, &mut rng);
        return Ok(());
    }
    let parallel = scaled(sampler, itemsize);
    // A slice shuffled whole is one Fisher-Yates on this thread either way: no pool for it.
    if parallel.shuffles_whole::<T>(data.len()) {
        parallel.shuffle_sequential(data, &mut rng);
        return Ok(());
    }
    on_pool(threads, || {
        parallel.shuffle_cancellable(data, &mut rng, cancel)
    })
    .map_err(Stop::Threads)?
    .map_err(|_| Stop::Cancelled)
}

fn language_exact(backend: &str) -> bool {
    backend == "python" || backend == "java"
}

impl BackendVisitor for ShuffleJob<'_> {
    type Output = Result<(), Stop>;

    fn visit<B: Backend>(self) -> Result<(), Stop> {
        macro_rules! native {
            ($($n:literal)*) => {
                match self.itemsize {
                    $($n => {
                        // SAFETY: `shuffle_array` checked the array (writable, contiguous,
                        // `len` items of `itemsize` bytes) and holds it for this call.
                        let data = unsafe { self.items::<$n>() };
                        return shuffle_slice::<B, _>(data, self.seed, $n, self.threads, self.cancel);
                    })*
                    _ => {}
                }
            };
        }
        native!(1 2 4 8 16);
        debug_assert!(!NATIVE_SIZES.contains(&self.itemsize));
        // Any other size: the permutation of 0..n as u64 (the 8-byte items' shuffle), applied.
        let perm = index_permutation_of::<B>(self.len, self.seed, self.threads, self.cancel)?;
        if self.cancel.load(Ordering::Relaxed) {
            return Err(Stop::Cancelled);
        }
        let size = self.itemsize;
        let bytes = self.len * size;
        // SAFETY: as above: `bytes` writable bytes at `addr`, held for this call.
        let data: &mut [u8] =
            unsafe { std::slice::from_raw_parts_mut(self.addr as *mut u8, bytes) };
        let mut copy = Vec::new();
        copy.try_reserve_exact(bytes)
            .map_err(|_| Stop::Memory(bytes))?;
        copy.extend_from_slice(data);
        on_pool(self.threads, || {
            use rayon::prelude::*;
            data.par_chunks_mut(size)
                .zip(perm.par_iter())
                .for_each(|(out, &from)| {
                    let from = from as usize * size;
                    out.copy_from_slice(&copy[from..from + size]);
                });
        })
        .map_err(Stop::Threads)
    }
}

/// The permutation of `0..n` as `u64` that backend `B` and `seed` give.
fn index_permutation_of<B: Backend>(
    n: usize,
    seed: u64,
    threads: Threads,
    cancel: &AtomicBool,
) -> Result<Vec<u64>, Stop> {
    let mut perm = Vec::new();
    let bytes = n.saturating_mul(8);
    perm.try_reserve_exact(n).map_err(|_| Stop::Memory(bytes))?;
    perm.extend(0..n as u64);
    shuffle_slice::<B, u64>(&mut perm, seed, 8, threads, cancel)?;
    Ok(perm)
}

/// Runs `work` with the GIL released. Work longer than one leaf runs on a helper thread while
/// this (the caller's) thread checks for signals every 20 ms: a pending one (Ctrl-C) sets the
/// cancel flag, waits for the work to stop, and is raised.
fn interruptible<T: Send>(
    py: Python<'_>,
    len: usize,
    work: impl FnOnce(&AtomicBool) -> T + Send,
) -> PyResult<T> {
    let cancel = AtomicBool::new(false);
    if len <= DEFAULT_LEAF_BYTES / 8 {
        return Ok(py.detach(|| work(&cancel)));
    }
    py.detach(|| {
        std::thread::scope(|scope| {
            let caller = std::thread::current();
            let cancel = &cancel;
            let worker = std::thread::Builder::new()
                .name("fairdeal-shuffle".into())
                .spawn_scoped(scope, move || {
                    let out = work(cancel);
                    caller.unpark();
                    out
                })
                .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
            let mut interrupted = None;
            while !worker.is_finished() {
                std::thread::park_timeout(Duration::from_millis(20));
                if interrupted.is_none()
                    && let Err(e) = Python::attach(|py| py.check_signals())
                {
                    cancel.store(true, Ordering::Relaxed);
                    interrupted = Some(e);
                }
            }
            let out = worker.join().map_err(|_| {
                PyRuntimeError::new_err("internal error: the shuffle thread failed")
            })?;
            match interrupted {
                Some(e) => Err(e),
                None => Ok(out),
            }
        })
    })
}

fn stop_to_py(stop: Stop) -> PyErr {
    match stop {
        Stop::Memory(bytes) => {
            PyMemoryError::new_err(format!("cannot allocate {bytes} bytes for the shuffle"))
        }
        Stop::Threads(message) => PyRuntimeError::new_err(message),
        Stop::Cancelled => PyKeyboardInterrupt::new_err("shuffle interrupted"),
    }
}

fn unknown_backend(e: &fairdeal::rng::UnknownBackend) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The head of numpy's array object (`PyArrayObject_fields` in `numpy/ndarraytypes.h`): the
/// fields numpy's public macros (`PyArray_DATA`, `PyArray_NDIM`, `PyArray_DIMS`,
/// `PyArray_FLAGS`) read, in numpy 1.x and 2.x alike. Only read, never written.
#[repr(C)]
#[allow(
    dead_code,
    reason = "a mirror of numpy's layout: the fields between matter by position"
)]
struct NumpyArrayHead {
    ob_base: ffi::PyObject,
    data: *mut u8,
    nd: c_int,
    dimensions: *const ffi::Py_ssize_t,
    strides: *const ffi::Py_ssize_t,
    base: *mut ffi::PyObject,
    descr: *mut ffi::PyObject,
    flags: c_int,
}

/// numpy's `NPY_ARRAY_C_CONTIGUOUS` flag.
const NPY_ARRAY_C_CONTIGUOUS: c_int = 0x0001;
/// numpy's `NPY_ARRAY_WRITEABLE` flag.
const NPY_ARRAY_WRITEABLE: c_int = 0x0400;

/// `numpy.ndarray`, imported once.
static NDARRAY: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// A checked 1-D, C-contiguous, writable numpy array: where its items are and how many.
#[derive(Clone, Copy)]
struct ArrayView {
    addr: usize,
    len: usize,
    /// The item size in bytes, when `len >= 2` (a C-contiguous array's stride); 0 otherwise.
    itemsize: usize,
}

/// Reads a numpy array's address and length from the array object, refusing (with the Python
/// half's messages) anything but a 1-D, C-contiguous, writable `numpy.ndarray`.
fn array_view(array: &Bound<'_, PyAny>) -> PyResult<ArrayView> {
    let ndarray = NDARRAY.import(array.py(), "numpy", "ndarray")?;
    if !array.is_instance(ndarray)? {
        return Err(PyTypeError::new_err(format!(
            "expected a numpy array, not {}",
            array.get_type().name()?
        )));
    }
    // SAFETY: `array` is an instance of `numpy.ndarray` (or of a subclass, whose objects extend
    // it), so the object starts with `PyArrayObject_fields`, which `NumpyArrayHead` mirrors;
    // `array` is borrowed for this call, so the object is alive while these fields are read.
    let head = unsafe { &*array.as_ptr().cast::<NumpyArrayHead>() };
    if head.nd != 1 {
        return Err(PyValueError::new_err(format!(
            "expected a 1-D array, got {} dimensions \
             (shuffle rows with fairdeal.permutation(len(a)) as an index)",
            head.nd
        )));
    }
    if head.flags & NPY_ARRAY_C_CONTIGUOUS == 0 {
        return Err(PyValueError::new_err(
            "the array is not C-contiguous (a strided view such as a[::2]): \
             shuffle a copy (numpy.ascontiguousarray) and assign it back",
        ));
    }
    if head.flags & NPY_ARRAY_WRITEABLE == 0 {
        return Err(PyValueError::new_err("the array is read-only"));
    }
    // SAFETY: a 1-D array's `dimensions` and `strides` each point to one `npy_intp` (its
    // length and its stride), owned by the array object read above.
    let (len, stride) = unsafe { (*head.dimensions, *head.strides) };
    let len = usize::try_from(len).unwrap_or(0);
    // numpy sets C_CONTIGUOUS on a 1-D array of two or more items only when its stride is the
    // item size (only axes of length 1 may have any stride), so the stride is the item size.
    let itemsize = if len >= 2 {
        usize::try_from(stride).unwrap_or(0)
    } else {
        0
    };
    Ok(ArrayView {
        addr: head.data as usize,
        len,
        itemsize,
    })
}

/// Shuffles `len` items of `itemsize` bytes at `addr` with backend `B`, with the GIL released.
fn shuffle_view<B: Backend>(
    py: Python<'_>,
    view: &ArrayView,
    seed: u64,
    threads: Threads,
) -> PyResult<()> {
    let ArrayView {
        addr,
        len,
        itemsize,
    } = *view;
    if len < 2 || itemsize == 0 {
        return Ok(());
    }
    interruptible(py, len, |cancel| {
        ShuffleJob {
            addr,
            len,
            itemsize,
            seed,
            threads,
            cancel,
        }
        .visit::<B>()
    })?
    .map_err(stop_to_py)
}

/// `shuffle_array(array, seed, None, "chacha12")`, the common call, without converting the
/// other arguments or looking the backend up by name: at 10^3 items a call's fixed cost is a
/// large part of its time.
#[pyfunction]
fn shuffle_default(py: Python<'_>, array: &Bound<'_, PyAny>, seed: u64) -> PyResult<()> {
    let view = array_view(array)?;
    shuffle_view::<fairdeal::rng::DefaultBackend>(py, &view, seed, Threads::All)
}

/// Shuffles a 1-D, C-contiguous, writable numpy array in place (any dtype), with the GIL
/// released. Refuses other objects with the Python half's messages.
#[pyfunction]
#[pyo3(signature = (array, seed, threads, backend))]
fn shuffle_array(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    seed: u64,
    threads: Option<usize>,
    backend: &str,
) -> PyResult<()> {
    let threads = threads_from(threads)?;
    let view = array_view(array)?;
    struct Job<'a, 'py>(Python<'py>, &'a ArrayView, u64, Threads);
    impl BackendVisitor for Job<'_, '_> {
        type Output = PyResult<()>;
        fn visit<B: Backend>(self) -> Self::Output {
            shuffle_view::<B>(self.0, self.1, self.2, self.3)
        }
    }
    with_backend(backend, Job(py, &view, seed, threads)).map_err(|e| unknown_backend(&e))?
}

/// The permutation of `range(n)` a backend and seed give (what shuffling `numpy.arange(n)`
/// gives), as a list: for shuffling Python lists.
#[pyfunction]
#[pyo3(signature = (n, seed, threads, backend))]
fn index_permutation(
    py: Python<'_>,
    n: usize,
    seed: u64,
    threads: Option<usize>,
    backend: &str,
) -> PyResult<Vec<u64>> {
    let threads = threads_from(threads)?;
    struct Job<'a>(usize, u64, Threads, &'a AtomicBool);
    impl BackendVisitor for Job<'_> {
        type Output = Result<Vec<u64>, Stop>;
        fn visit<B: Backend>(self) -> Self::Output {
            index_permutation_of::<B>(self.0, self.1, self.2, self.3)
        }
    }
    fairdeal::rng::backend_info(backend).map_err(|e| unknown_backend(&e))?;
    interruptible(py, n, |cancel| {
        with_backend(backend, Job(n, seed, threads, cancel))
    })?
    .map_err(|e| unknown_backend(&e))?
    .map_err(stop_to_py)
}

/// `k` distinct integers of `range(n)` in random order, in O(k) memory (`fairdeal shuffle -i
/// 0-(n-1) -n k` with the default backend).
#[pyfunction]
#[pyo3(signature = (n, k, seed))]
fn sample(py: Python<'_>, n: u64, k: usize, seed: u64) -> PyResult<Vec<u64>> {
    if k == 0 {
        return Ok(Vec::new());
    }
    if n == 0 || k as u128 > u128::from(n) {
        return Err(PyValueError::new_err(format!(
            "cannot sample {k} distinct numbers from range({n})"
        )));
    }
    py.detach(|| {
        let mut rng = fairdeal::rng::DefaultBackend::seeded(seed);
        Partial::new().sample_range(0, n - 1, k, &mut rng)
    })
    .map_err(|e| match e {
        fairdeal::partial::SampleRangeError::OutOfMemory { .. } => {
            PyMemoryError::new_err(e.to_string())
        }
        other => PyValueError::new_err(other.to_string()),
    })
}

/// The names of the RNG backends, the default first.
#[pyfunction]
fn backends() -> Vec<&'static str> {
    fairdeal::rng::backends().iter().map(|b| b.name).collect()
}

/// The native half of the `fairdeal` module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(os_seed, m)?)?;
    m.add_function(wrap_pyfunction!(shuffle_array, m)?)?;
    m.add_function(wrap_pyfunction!(shuffle_default, m)?)?;
    m.add_function(wrap_pyfunction!(index_permutation, m)?)?;
    m.add_function(wrap_pyfunction!(sample, m)?)?;
    m.add_function(wrap_pyfunction!(backends, m)?)?;
    audit::register(m)?;
    Ok(())
}
