/*!
A cache-aware, parallel, exactly fair shuffle for arrays far larger than the cache.

Fisher-Yates on an array of 10⁸ `u32` (400 MB) spends nearly all its time waiting for memory:
every swap touches a random cache line, so each element costs a cache miss and a TLB miss.
[`Parallel`] instead follows Sanders (1998, *Random permutations on distributed, external and
hierarchical memory*): give every element an iid uniform *bucket label*, move the elements into
contiguous buckets by label (one sequential write stream per bucket, instead of a random line per
element), then shuffle every bucket independently, recursively until a bucket fits in a core's share
of the cache (a leaf, 1 MiB by default), where Fisher-Yates ([`fairdeal_inplace::Inplace`]'s loop)
is fast. The buckets are independent, so they are shuffled in parallel on the rayon pool the caller
runs in.

At 10⁸ `u32` on one thread of the 2-core development machine this is 1.3–1.7× rip_shuffle's
sequential shuffle in paired CPU-time rounds (`docs/benchmarks.md`, "Parallel scaling"; its
time moves more from run to run than ours) and about 3× plain Fisher-Yates
(`docs/algorithms.md`, "Huge N", has the profile that shaped it).

# Quick start

```
use fairdeal_parallel::Parallel;
use rand::SeedableRng;

let mut data: Vec<u32> = (0..1_000_000).collect();
let mut rng = rand_pcg::Pcg64::seed_from_u64(42);
Parallel::new().shuffle(&mut data, &mut rng);

// The thread count is the pool's; the result is the same on any pool.
let mut again: Vec<u32> = (0..1_000_000).collect();
let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
pool.install(|| Parallel::new().shuffle(&mut again, &mut rand_pcg::Pcg64::seed_from_u64(42)));
assert_eq!(data, again);

data.sort_unstable();
assert!(data.iter().copied().eq(0..1_000_000)); // still a permutation
# Ok::<(), Box<dyn std::error::Error>>(())
```

# Why it is fair

Let the scatter give `n` elements iid uniform labels in `[0, K)` and put the elements labelled
`b` in bucket `b`, whose size `c_b` is the number of such labels; then shuffle each bucket
uniformly and independently. Fix any final order `π`. For each size vector `c` there is
exactly one labelling that puts the right elements in the right buckets for `π` (the element
that `π` puts at a position inside bucket `b`'s range must have label `b`), with probability
`K^-n`, and then the in-bucket shuffles must produce exactly `π`'s order, with probability
`Π 1/c_b!`. So `P(π) = Σ_c K^-n Π_b 1/c_b!`, the same for every `π`: uniform. The order in
which the scatter happens to leave elements inside a bucket does not matter; the bucket's own
uniform shuffle washes it out. A bucket's shuffle is the same algorithm again (a uniform
shuffle by induction) or, at a leaf, Fisher-Yates.

# Design choices

* **Labels without storing them.** The labels come from a generator seeded from the caller's
  generator. A first pass only counts them (bucket sizes); the second pass re-seeds the same
  generator and hands the labels out in the order the American-flag cycle takes elements. Every
  element is taken exactly once and which element is taken next depends only on earlier labels,
  so each element's label is a fresh uniform draw: the labels are iid and their counts are the
  first pass's. No label array (it would cost a byte per element and two more memory passes).
* **Power-of-two bucket counts** so a label is `bits` bits of a 64-bit word: exactly uniform
  with no rejection, `⌊64 / bits⌋` labels per RNG call.
* **Swaps only.** Every phase only swaps elements, so `T` needs no `Clone`, `Copy` or
  `Default`.
* **One prefetch hint** (`fairdeal-inplace`'s `prefetch_read`, whose one `unsafe` call is
  there; this crate has none). Each bucket head advances sequentially, but a
  thousand heads are far more streams than the hardware prefetchers follow, so without help every
  new cache line a head reaches is a stalling miss. The scatter issues `_mm_prefetch` a line
  ahead of the head it just advanced (x86-64 only; elsewhere the hint compiles to nothing). It
  cannot change results, and it halved the scatter's time. Below 64 buckets the hardware
  follows the heads by itself and the scatter gives no hints (6–9 % faster at 2^22 `u32` on one
  thread of the Intel).
* **A decomposition that depends only on the length.** Each scatter draws, in a fixed order,
  its label seed and one child generator per bucket (`R::from_rng`, hence `R: SeedableRng`);
  the number of buckets depends only on the sub-array's length. The children are drawn 1,024
  buckets at a time, just before those buckets run (the same draws: nothing else draws from
  the node's generator after its seed), so even 2^16 buckets hold about 1,024 generators.
  Which thread shuffles which bucket therefore cannot change anything: [`Parallel::shuffle`]
  gives the same result on a pool of 1, 2 or 64 threads, and
  [`Parallel::shuffle_sequential`] (no rayon at all) gives it too.
* **Small slices whole.** A slice of at most 8 MiB ([`DEFAULT_WHOLE_BYTES`], or one leaf if
  that is more) is plain [`Inplace`](fairdeal_inplace::Inplace) with the caller's generator,
  draw for draw, on any pool: one thread's Fisher-Yates there beats the scatter's extra
  passes, however many threads would share them.
* **Warm leaves.** A leaf is [`Inplace`](fairdeal_inplace::Inplace)'s loop (same draws
  through [`IndexSampler::for_each_index_descending`], same swaps, same result). A leaf of
  64 KiB or more is first read front to back, one touch per cache line (a safe swap of an
  element with itself that the compiler cannot drop): the exchange has left the bucket in
  memory, and a sequential sweep brings it in at streaming speed where the swaps would fetch it
  a random line at a time. At 10^8 `u32` on one thread this cut the whole shuffle by 13–18 %
  against the previous leaf, which delayed each swap 64 draws behind a prefetch of its target
  (`docs/benchmarks.md`, "Parallel scaling"). While a leaf runs back to front it also hints the
  bucket its thread shuffles next into the cache, a line for each line of its own it is done
  with (on a pool a task takes a strip of up to 8 buckets), so that sweep finds the lines there:
  12 % off the leaves at 10^8 on the Intel.
* **Tunable shape.** [`Parallel::with_shape`] sets the leaf size in bytes and the maximum fan-out
  (the tests use tiny leaves so the recursion runs at `n = 4`); the defaults were measured
  (`docs/algorithms.md`, section "Huge N").

# The top level: every pass on all threads, in place

An American-flag cycle is inherently sequential, so the first scatter over the whole slice is
done differently (Sanders' distributed formulation with an in-place exchange;
`docs/algorithms.md`, "The parallel top level"): the slice is cut into fixed chunks (about
256 KiB each, at most 1,024, and at most as many as buckets), and each chunk is scattered in
place by its own labels, in parallel, into one piece per bucket. The pieces are cut at the
final bucket bounds, and an exchange of equally wide ranges moves every element into its
bucket's range, in three levels that each run in parallel: every two buckets swap what each
holds of the other's (most of the misplaced elements); what is left is swapped the same way
between every two *groups* of buckets, with a short serial walk for the rest, which finds
cycles of ranges among the groups; then each group gathers its own buckets by swaps and cycles
of its own, all groups at once. The buckets are then shuffled in parallel (the recursion above).
Only the seeding and the group-level walk run on one thread (about 0.5 % of the one-thread
time at 10^8 `u32`: `docs/benchmarks.md`, "Parallel scaling").

**Memory:** in place. Besides the data, the exchange holds a few machine words per chunk × bucket
piece (at most 2^20 pieces), each chunk task `K` counters, and `chunks + K` generators. The elements
are only swapped, so `T` needs no `Clone`, and a panic leaves every element in the caller's slice.
*/
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

/// The README's quick start, compiled and run by `cargo test --doc` so that it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

extern crate alloc;

mod leaf;
mod prefetch;
mod scatter;
mod top;

use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

use fairdeal_chacha::ChaCha12Rng;
use fairdeal_core::{AlgorithmInfo, Batched, Complexity, IndexSampler, Rng, SeedableRng, Shuffler};

use scatter::Shape;
use top::Recorder;
pub use top::{Phase, Profile, Remaining, Step};

/// The self-description of [`Parallel`]: name `"parallel"`, O(N), fair.
///
/// ```
/// assert_eq!(fairdeal_parallel::INFO.name, "parallel");
/// assert!(fairdeal_parallel::INFO.fair);
/// ```
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "parallel",
    complexity: Complexity::Linear,
    fair: true,
    summary: "Sanders' scatter shuffle for huge N on every core: iid bucket labels, chunks \
              scattered into buckets in parallel, every bucket shuffled independently; the same \
              result on any number of threads",
};

/// Asks the CPU to bring the cache line holding `data[index]` into its L1 cache, ahead of a
/// read: a hint that changes no value, and does nothing when `index` is out of bounds or off
/// x86-64. The scatter's own hint (`fairdeal_inplace::prefetch_read`, where its one `unsafe`
/// call lives), for callers that visit a large buffer in an order of their own, such as
/// `fairdeal-external` writing a bucket's records in shuffled order.
#[inline]
pub fn prefetch_read<T>(data: &[T], index: usize) {
    prefetch::prefetch(data, index);
}

/// The default leaf size: sub-arrays of at most this many bytes are shuffled by Fisher-Yates.
/// Measured on a machine with 512 KiB of L2 per core and 16 MiB of shared L3 (see
/// `docs/algorithms.md`, "Huge N", and `docs/benchmarks.md` for larger leaves).
pub const DEFAULT_LEAF_BYTES: usize = 1 << 20;

/// The default whole-slice size: a slice of at most this many bytes (8 MiB) is shuffled whole,
/// by Fisher-Yates with the caller's generator ([`Inplace`](fairdeal_inplace::Inplace), draw
/// for draw), on any pool. Below it one thread's Fisher-Yates, its slice in the caches, beats
/// the scatter's extra passes: at 2^21 `u32` (8 MiB) on one thread of the Intel, 1.90–1.94
/// against 3.90–3.92 ns per element (medians; `docs/benchmarks.md`, "Parallel scaling").
/// rip_shuffle's `par_shuffle` cuts at the same size.
pub const DEFAULT_WHOLE_BYTES: usize = 8 << 20;

/// The default maximum fan-out of one scatter: `2^DEFAULT_MAX_BUCKET_BITS` buckets.
pub const DEFAULT_MAX_BUCKET_BITS: u32 = 10;

/// The largest accepted `max_bucket_bits` (65,536 buckets).
pub const MAX_BUCKET_BITS: u32 = 16;

/// The default chunk size of the top level: it cuts the slice into chunks of about this many
/// bytes, each labelled and scattered as one parallel task …
pub const DEFAULT_CHUNK_BYTES: usize = 1 << 18;

/// … but into at most this many chunks, and never more chunks than buckets (so the plan over
/// chunks × buckets pieces stays small: at most 1,024 × 1,024 pieces at the default shape, a
/// few machine words each). Enough tasks to balance 64 threads.
pub const DEFAULT_MAX_CHUNKS: usize = 1024;

/// The largest accepted `max_chunks`.
pub const MAX_CHUNKS: usize = 1 << 16;

/// A rejected [`Parallel::with_shape`] argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum ShapeError {
    /// The leaf size was zero bytes.
    #[error("the leaf size must be at least one byte")]
    EmptyLeaf,
    /// The fan-out was outside `1..=MAX_BUCKET_BITS` bits.
    #[error("max_bucket_bits must be in 1..={max}, got {got}")]
    BucketBits {
        /// The rejected value.
        got: u32,
        /// [`MAX_BUCKET_BITS`].
        max: u32,
    },
    /// The chunk size was zero bytes.
    #[error("the chunk size must be at least one byte")]
    EmptyChunk,
    /// The chunk count limit was outside `1..=MAX_CHUNKS`.
    #[error("max_chunks must be in 1..={max}, got {got}")]
    Chunks {
        /// The rejected value.
        got: usize,
        /// [`MAX_CHUNKS`].
        max: usize,
    },
}

/// [`Parallel::shuffle_cancellable`] stopped because its cancel flag was set: the slice holds
/// a permutation of what it held (every move is a swap), but not a uniformly random one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[error("the shuffle was cancelled")]
pub struct Cancelled;

/// Sanders' scatter shuffle, parallel on rayon, drawing leaf indices through the sampler `S`.
///
/// ```
/// use fairdeal_parallel::Parallel;
/// use rand::SeedableRng;
///
/// let mut v: Vec<u64> = (0..10_000).collect();
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
/// Parallel::new().shuffle(&mut v, &mut rng);
/// let mut w: Vec<u64> = (0..10_000).collect();
/// Parallel::new().shuffle_sequential(&mut w, &mut rand_pcg::Pcg64::seed_from_u64(1));
/// assert_eq!(v, w);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Parallel<S = Batched> {
    sampler: S,
    leaf_bytes: usize,
    max_bucket_bits: u32,
    chunk_bytes: usize,
    max_chunks: usize,
    whole_bytes: usize,
}

impl Parallel {
    /// The shuffle with the default sampler ([`Batched`]) and shape.
    pub const fn new() -> Self {
        Self::with_sampler(Batched)
    }
}

impl<S: Default> Default for Parallel<S> {
    fn default() -> Self {
        Self::with_sampler(S::default())
    }
}

impl<S> Parallel<S> {
    /// The shuffle drawing its leaf indices through `sampler`, with the default shape.
    pub const fn with_sampler(sampler: S) -> Self {
        Self {
            sampler,
            leaf_bytes: DEFAULT_LEAF_BYTES,
            max_bucket_bits: DEFAULT_MAX_BUCKET_BITS,
            chunk_bytes: DEFAULT_CHUNK_BYTES,
            max_chunks: DEFAULT_MAX_CHUNKS,
            whole_bytes: DEFAULT_WHOLE_BYTES,
        }
    }

    /// The same shuffle with another shape: sub-arrays of at most `leaf_bytes` bytes (and at
    /// least one element) are shuffled by Fisher-Yates, and one scatter makes at most
    /// `2^max_bucket_bits` buckets. Changing the shape changes which permutation a seed gives,
    /// never the fairness.
    ///
    /// # Errors
    ///
    /// [`ShapeError`] when `leaf_bytes` is 0 or `max_bucket_bits` is not in
    /// `1..=`[`MAX_BUCKET_BITS`].
    ///
    /// ```
    /// use fairdeal_parallel::Parallel;
    /// // One-element leaves and two buckets per scatter: the recursion runs even for 4 elements.
    /// let tiny = Parallel::new().with_shape(1, 1)?;
    /// assert_eq!(tiny.leaf_bytes(), 1);
    /// assert!(Parallel::new().with_shape(0, 4).is_err());
    /// # Ok::<(), fairdeal_parallel::ShapeError>(())
    /// ```
    pub fn with_shape(self, leaf_bytes: usize, max_bucket_bits: u32) -> Result<Self, ShapeError> {
        if leaf_bytes == 0 {
            return Err(ShapeError::EmptyLeaf);
        }
        if max_bucket_bits == 0 || max_bucket_bits > MAX_BUCKET_BITS {
            return Err(ShapeError::BucketBits {
                got: max_bucket_bits,
                max: MAX_BUCKET_BITS,
            });
        }
        Ok(Self {
            leaf_bytes,
            max_bucket_bits,
            ..self
        })
    }

    /// The same shuffle with another top-level decomposition: the slice is cut into chunks of
    /// about `chunk_bytes` bytes (at least one element each), but into at most `max_chunks`
    /// chunks. The decomposition depends on the slice's length and these two numbers only, never
    /// on the pool. Changing them changes which permutation a seed gives, never the fairness.
    ///
    /// # Errors
    ///
    /// [`ShapeError`] when `chunk_bytes` is 0 or `max_chunks` is not in `1..=`[`MAX_CHUNKS`].
    ///
    /// ```
    /// use fairdeal_parallel::Parallel;
    /// // One-element chunks, leaves and two buckets: every phase runs even for 3 elements.
    /// let tiny = Parallel::new().with_shape(1, 1)?.with_chunks(1, 1000)?;
    /// assert_eq!((tiny.chunk_bytes(), tiny.max_chunks()), (1, 1000));
    /// assert!(Parallel::new().with_chunks(64, 0).is_err());
    /// # Ok::<(), fairdeal_parallel::ShapeError>(())
    /// ```
    pub fn with_chunks(self, chunk_bytes: usize, max_chunks: usize) -> Result<Self, ShapeError> {
        if chunk_bytes == 0 {
            return Err(ShapeError::EmptyChunk);
        }
        if max_chunks == 0 || max_chunks > MAX_CHUNKS {
            return Err(ShapeError::Chunks {
                got: max_chunks,
                max: MAX_CHUNKS,
            });
        }
        Ok(Self {
            chunk_bytes,
            max_chunks,
            ..self
        })
    }

    /// The same shuffle with another whole-slice size: a slice of at most `whole_bytes` bytes,
    /// or of at most one leaf, is shuffled whole by Fisher-Yates ([`DEFAULT_WHOLE_BYTES`] by
    /// default; 0 leaves only the leaf). Changing it changes which permutation a seed gives for
    /// the lengths in between, never the fairness.
    ///
    /// ```
    /// use fairdeal_parallel::Parallel;
    /// use rand::SeedableRng;
    ///
    /// // 4 MiB of `u32`: whole by default, scattered into buckets without the whole size.
    /// let mut whole: Vec<u32> = (0..1 << 20).collect();
    /// let mut scattered = whole.clone();
    /// Parallel::new().shuffle(&mut whole, &mut rand_pcg::Pcg64::seed_from_u64(3));
    /// let top = Parallel::new().with_whole(0);
    /// top.shuffle(&mut scattered, &mut rand_pcg::Pcg64::seed_from_u64(3));
    /// assert_ne!(whole, scattered);
    /// assert_eq!(top.whole_bytes(), 0);
    /// ```
    #[must_use]
    pub fn with_whole(self, whole_bytes: usize) -> Self {
        Self {
            whole_bytes,
            ..self
        }
    }

    /// The whole-slice size in bytes.
    pub const fn whole_bytes(&self) -> usize {
        self.whole_bytes
    }

    /// Whether a slice of `len` elements of `T` is shuffled whole, by Fisher-Yates on the
    /// calling thread (at most [`whole_bytes`](Self::whole_bytes), or one leaf): no phases, no
    /// work for a pool, and no point at which a cancel flag is read.
    ///
    /// ```
    /// use fairdeal_parallel::Parallel;
    /// let p = Parallel::new();
    /// assert!(p.shuffles_whole::<u32>(1 << 21)); // 8 MiB
    /// assert!(!p.shuffles_whole::<u32>((1 << 21) + 1));
    /// assert!(!p.shuffles_whole::<u64>(1 << 21));
    /// assert!(!p.with_whole(0).shuffles_whole::<u32>((1 << 18) + 1)); // past one leaf
    /// ```
    pub fn shuffles_whole<T>(&self, len: usize) -> bool {
        self.shape::<T>().whole(len)
    }

    /// The top level's chunk size in bytes.
    pub const fn chunk_bytes(&self) -> usize {
        self.chunk_bytes
    }

    /// The top level's maximum number of chunks.
    pub const fn max_chunks(&self) -> usize {
        self.max_chunks
    }

    /// The sampler the leaves draw indices with.
    pub const fn sampler(&self) -> &S {
        &self.sampler
    }

    /// The leaf size in bytes.
    pub const fn leaf_bytes(&self) -> usize {
        self.leaf_bytes
    }

    /// The maximum number of bucket bits per scatter.
    pub const fn max_bucket_bits(&self) -> u32 {
        self.max_bucket_bits
    }

    /// The algorithm's self-description, [`INFO`].
    pub const fn info(&self) -> AlgorithmInfo {
        INFO
    }

    fn shape<T>(&self) -> Shape {
        let size = core::mem::size_of::<T>().max(1);
        Shape {
            leaf_len: (self.leaf_bytes / size).max(1),
            max_bits: self.max_bucket_bits,
            chunk_len: (self.chunk_bytes / size).max(1),
            max_chunks: self.max_chunks,
            whole_len: self.whole_bytes / size,
        }
    }
}

impl<S: IndexSampler + Copy + Send + Sync> Parallel<S> {
    /// Shuffles `data` uniformly, every pass on the current rayon pool (the global pool unless
    /// called inside [`rayon::ThreadPool::install`]), in place.
    ///
    /// The result depends on `data`, the generator's state and the shape only: the same on any
    /// number of threads, and the same as [`shuffle_sequential`](Self::shuffle_sequential).
    pub fn shuffle<T, R>(&self, data: &mut [T], rng: &mut R)
    where
        T: Send,
        R: Rng + SeedableRng + Send,
    {
        top::shuffle_par(data, rng, self.shape::<T>(), self.sampler, &Recorder::off());
    }

    /// [`shuffle`](Self::shuffle), stopping early once `cancel` is set (by another thread, or a
    /// signal handler): the flag is read between the top level's phases and before each of its
    /// buckets, so a huge shuffle stops within about one phase. A slice the top level shuffles
    /// whole ([`with_whole`](Self::with_whole)) is shuffled uninterrupted. With `cancel` never
    /// set, the same result as `shuffle`.
    ///
    /// # Errors
    ///
    /// [`Cancelled`] when the flag was set before the shuffle finished; `data` then holds a
    /// permutation of what it held (untouched when the flag was set before the call).
    ///
    /// ```
    /// use std::sync::atomic::AtomicBool;
    /// use fairdeal_parallel::{Cancelled, Parallel};
    /// use rand::SeedableRng;
    ///
    /// let mut v: Vec<u64> = (0..2_000_000).collect(); // 16 MB: more than shuffled whole
    /// let stop = AtomicBool::new(true);
    /// let rng = &mut rand_pcg::Pcg64::seed_from_u64(1);
    /// assert_eq!(Parallel::new().shuffle_cancellable(&mut v, rng, &stop), Err(Cancelled));
    /// assert!(v.iter().copied().eq(0..2_000_000)); // set before the call: untouched
    /// # Ok::<(), Cancelled>(())
    /// ```
    pub fn shuffle_cancellable<T, R>(
        &self,
        data: &mut [T],
        rng: &mut R,
        cancel: &AtomicBool,
    ) -> Result<(), Cancelled>
    where
        T: Send,
        R: Rng + SeedableRng + Send,
    {
        let recorder = Recorder::cancellable(cancel);
        top::shuffle_par(data, rng, self.shape::<T>(), self.sampler, &recorder);
        if !self.shuffles_whole::<T>(data.len()) && recorder.cancelled() {
            return Err(Cancelled);
        }
        Ok(())
    }

    /// [`shuffle`](Self::shuffle), also returning where the time went (wall time per phase,
    /// busy time per phase per thread, and what each step of the exchange left out of place):
    /// the data behind the phase profile of
    /// `cargo run --release -p fairdeal-benches --example scaling`. The same result as
    /// `shuffle`; a slice shuffled whole has no phases and gives an empty profile.
    ///
    /// ```
    /// use fairdeal_parallel::{Parallel, Phase, Step};
    /// use rand::SeedableRng;
    ///
    /// let mut v: Vec<u32> = (0..1_000_000).collect();
    /// let rng = &mut rand_pcg::Pcg64::seed_from_u64(1);
    /// // 4 MB is shuffled whole by default: no phases.
    /// assert!(Parallel::new().shuffle_profiled(&mut v, rng).busy(Phase::Partition).is_empty());
    /// // 12 MB is scattered: 32 chunks into 32 buckets.
    /// let mut v: Vec<u32> = (0..3_000_000).collect();
    /// let profile = Parallel::new().shuffle_profiled(&mut v, rng);
    /// assert!(profile.serial() <= profile.total());
    /// assert!(!profile.busy(Phase::Partition).is_empty());
    /// // The swaps between buckets move most of what the partition left out of place.
    /// let misplaced = profile.remaining(Step::Partition).elements;
    /// assert!(profile.remaining(Step::BucketSwaps).elements < misplaced / 10);
    /// ```
    pub fn shuffle_profiled<T, R>(&self, data: &mut [T], rng: &mut R) -> Profile
    where
        T: Send,
        R: Rng + SeedableRng + Send,
    {
        let profile = Mutex::new(Profile::default());
        top::shuffle_par(
            data,
            rng,
            self.shape::<T>(),
            self.sampler,
            &Recorder::on(&profile),
        );
        profile.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    /// The parallel shuffle with any generator, seedable or not (`rand::rng()`, a `&mut dyn`
    /// generator …): draws a ChaCha12 generator (`fairdeal_chacha::ChaCha12Rng::from_rng(rng)`,
    /// 32 bytes of `rng`; the stream of `rand::rngs::ChaCha12Rng::from_rng(rng)`) and runs [`shuffle`](Self::shuffle) with it. The same result as
    /// [`Shuffler::shuffle`] on this type, which does the same on the calling thread.
    ///
    /// ```
    /// use fairdeal_core::SeedableRng;
    /// use fairdeal_parallel::Parallel;
    ///
    /// let mut rng: Box<dyn rand::Rng> = Box::new(rand_pcg::Pcg64::seed_from_u64(4));
    /// let mut v: Vec<u32> = (0..500_000).collect();
    /// Parallel::new().shuffle_any_rng(&mut v, &mut *rng);
    /// let mut w: Vec<u32> = (0..500_000).collect();
    /// let mut derived = rand::rngs::ChaCha12Rng::from_rng(&mut rand_pcg::Pcg64::seed_from_u64(4));
    /// Parallel::new().shuffle(&mut w, &mut derived);
    /// assert_eq!(v, w);
    ///
    /// // The thread-local generator is not `Send` nor `SeedableRng`; it works all the same.
    /// Parallel::new().shuffle_any_rng(&mut v, &mut rand::rng());
    /// v.sort_unstable();
    /// assert!(v.iter().copied().eq(0..500_000));
    /// ```
    pub fn shuffle_any_rng<T, R>(&self, data: &mut [T], rng: &mut R)
    where
        T: Send,
        R: Rng + ?Sized,
    {
        self.shuffle(data, &mut ChaCha12Rng::from_rng(rng));
    }
}

impl<S: IndexSampler + Copy> Parallel<S> {
    /// The same shuffle as [`shuffle`](Self::shuffle) on the calling thread only, without rayon
    /// (and without requiring `Send`).
    pub fn shuffle_sequential<T, R>(&self, data: &mut [T], rng: &mut R)
    where
        R: Rng + SeedableRng,
    {
        top::shuffle_seq(data, rng, self.shape::<T>(), self.sampler, &Recorder::off());
    }
}

/// `Parallel` as a [`Shuffler`], for any generator (`R: Rng + ?Sized`) and any element type:
/// draws a ChaCha12 generator from `rng` (`ChaCha12Rng::from_rng(rng)`, 32 bytes) and runs
/// [`shuffle_sequential`](Parallel::shuffle_sequential) with it. The trait's elements need not
/// be `Send`, so this is the one-thread path; [`Parallel::shuffle_any_rng`] gives the same
/// result on all threads.
///
/// ```
/// use fairdeal_core::{SeedableRng, Shuffler};
/// use fairdeal_parallel::Parallel;
///
/// let mut deck: Vec<u8> = (0..52).collect();
/// Shuffler::shuffle(&Parallel::new(), &mut deck, &mut rand_pcg::Pcg64::seed_from_u64(9));
/// deck.sort();
/// assert!(deck.iter().copied().eq(0..52));
/// ```
impl<S: IndexSampler + Copy> Shuffler for Parallel<S> {
    fn info(&self) -> AlgorithmInfo {
        INFO
    }

    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        self.shuffle_sequential(data, &mut ChaCha12Rng::from_rng(rng));
    }
}

#[cfg(test)]
mod prefetch_read_tests {
    /// The public hint aims where it is told: at `data[index]`, one hint per call.
    #[test]
    fn prefetch_read_aims_at_the_element() {
        let data = [0u64; 64];
        let hints = crate::prefetch::hints::during(|| {
            super::prefetch_read(&data, 0);
            super::prefetch_read(&data, 40);
        });
        let base = data.as_ptr() as usize;
        assert_eq!(hints, vec![base, base + 40 * 8]);
    }
}
