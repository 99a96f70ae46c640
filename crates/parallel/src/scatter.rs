//! The scatter step (Sanders 1998): iid bucket labels, counted, then an in-place
//! American-flag permutation into contiguous buckets; and the recursion over the buckets below
//! the top level (`top.rs`), each bucket on one thread, the buckets in parallel.

use alloc::vec::Vec;

use fairdeal_core::{IndexSampler, Rng, SeedableRng};

use crate::leaf::leaf_shuffle;
use crate::prefetch::prefetch;

/// The smallest fan-out of a scatter: a slice that would need fewer than 32 buckets gets 32
/// smaller ones. The cycle leaves its inner loop when the label drawn is the current bucket's,
/// a branch the CPU cannot predict, taken for `1/K` of the labels with `K` buckets (each label
/// is independent of the draws that chose the current bucket); and smaller buckets and chunks
/// sit better in the caches. Just above the whole-slice size, at 2^21 + 1 and 3 · 2^20 `u32` on
/// one thread, 16 buckets took 3.82–3.99 ns per element, 32 took 3.38–3.40 and 64 (with the
/// head hints) 3.53–3.71 (Intel, `examples/scaling`, `docs/notes/2026-12-07-memory.md`).
const MIN_FANOUT_BITS: u32 = 5;

/// How far ahead of a bucket head the scatter prefetches, in bytes: one 64-byte line, so each
/// head holds its current line and the next in the cache. A head advances once per about
/// `buckets` labels, so even one line ahead is requested long before it is written. Farther
/// hints hold more lines per head: with 512 heads, each head's line and four ahead are 160 KiB,
/// more than an L1 cache, and a line could be evicted before its head got there. Measured at 10^8
/// `u32` on one thread (Intel, `docs/notes/2026-12-07-memory.md`): 32 and 64 bytes ahead the
/// fastest, 128 a little slower, 256 (the distance before) 8–9 % slower, 1,024 about 35 %.
const PREFETCH_AHEAD_BYTES: usize = 64;

/// The fewest bucket bits for which the scatter hints its heads at all, where the CPU is not
/// AMD's. The hardware's stream prefetcher follows a few dozen heads by itself, and then each
/// hint is only extra work: at 2^20–2^22 `u32` on one thread (8–32 buckets) the whole shuffle
/// ran 6–16 % faster without them, at 2^23–2^25 (64–256 buckets) 26–51 % slower, at 10^8 (512)
/// 47–48 % slower (Intel, `examples/scaling`, `docs/notes/2026-12-07-memory.md`).
const PREFETCH_FROM_BITS: u32 = 6;

/// [`PREFETCH_FROM_BITS`] on AMD's CPUs: 32 buckets are already too many heads for the Zen 5's
/// prefetchers. Hinted from 32 buckets, one thread at 2^21 + 1 to 6 · 2^20 `u32` ran 1.05–1.29×
/// as fast as rip_shuffle's `seq_shuffle` (medians of 9 rounds, 4–7 runs per size), from 64 buckets
/// 0.81–1.17× (Zen 5, `examples/scaling`, `docs/notes/2026-12-08-zen5.md`). Zen 3 and Zen 4 are
/// taken to be like the Zen 5, unmeasured.
const PREFETCH_FROM_BITS_AMD: u32 = 5;

/// The fewest bucket bits for which the scatter hints its heads on this CPU, decided once per
/// process. Which lines are hinted changes no result, only the time.
fn prefetch_from_bits() -> u32 {
    static BITS: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *BITS.get_or_init(|| prefetch_from_bits_for(&cpu_vendor()))
}

/// [`prefetch_from_bits`] for the CPU whose CPUID vendor string is `vendor`.
fn prefetch_from_bits_for(vendor: &[u8; 12]) -> u32 {
    if vendor == b"AuthenticAMD" {
        PREFETCH_FROM_BITS_AMD
    } else {
        PREFETCH_FROM_BITS
    }
}

/// The CPUID vendor string ("GenuineIntel", "AuthenticAMD", …); zeros off x86-64, where the
/// hints are no-ops anyway.
fn cpu_vendor() -> [u8; 12] {
    #[cfg(target_arch = "x86_64")]
    {
        let leaf = core::arch::x86_64::__cpuid(0);
        let mut vendor = [0; 12];
        for (bytes, register) in vendor
            .chunks_exact_mut(4)
            .zip([leaf.ebx, leaf.edx, leaf.ecx])
        {
            bytes.copy_from_slice(&register.to_le_bytes());
        }
        vendor
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        [0; 12]
    }
}

/// A stream of iid uniform labels in `[0, 2^bits)`, cut from 64-bit words: `64 / bits` labels
/// per word, the leftover high bits discarded. Every label is exactly uniform because the
/// bucket count is a power of two (no rejection needed).
pub(crate) struct Labels<R> {
    rng: R,
    word: u64,
    left: u32,
    bits: u32,
    per_word: u32,
    mask: u64,
}

impl<R: Rng> Labels<R> {
    pub(crate) fn new(rng: R, bits: u32) -> Self {
        Self {
            rng,
            word: 0,
            left: 0,
            bits,
            per_word: 64 / bits,
            mask: (1u64 << bits) - 1,
        }
    }

    #[inline(always)]
    pub(crate) fn next_label(&mut self) -> usize {
        if self.left == 0 {
            self.word = self.rng.next_u64();
            self.left = self.per_word;
        }
        let label = (self.word & self.mask) as usize;
        self.word >>= self.bits;
        self.left -= 1;
        label
    }

    /// How many of the next `n` labels fall in each bucket (consumes them).
    pub(crate) fn count(&mut self, n: usize, counts: &mut [usize]) {
        let per_word = self.per_word as usize;
        let mut remaining = n;
        while remaining >= per_word {
            let mut word = self.rng.next_u64();
            for _ in 0..per_word {
                counts[(word & self.mask) as usize] += 1;
                word >>= self.bits;
            }
            remaining -= per_word;
        }
        for _ in 0..remaining {
            counts[self.next_label()] += 1;
        }
    }
}

/// The tuning of the recursion: where it stops and how wide it fans out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Shape {
    /// Sub-arrays of at most this many elements are shuffled by Fisher-Yates.
    pub(crate) leaf_len: usize,
    /// At most `2^max_bits` buckets per scatter.
    pub(crate) max_bits: u32,
    /// The top level cuts the slice into chunks of about this many elements …
    pub(crate) chunk_len: usize,
    /// … but into at most this many chunks.
    pub(crate) max_chunks: usize,
    /// The top level shuffles a slice of at most this many elements (or of one leaf, if that
    /// is more) whole, with Fisher-Yates.
    pub(crate) whole_len: usize,
}

impl Shape {
    /// Whether the top level shuffles a slice of `len` elements whole: at most
    /// [`whole_len`](Self::whole_len) elements, or one leaf.
    pub(crate) fn whole(self, len: usize) -> bool {
        len <= self.leaf_len.max(self.whole_len)
    }

    /// Bucket bits for a sub-array of `len > leaf_len` elements: the fewest buckets whose
    /// expected size is at most 7/8 of a leaf, but at least [`MIN_FANOUT_BITS`] (when
    /// `max_bits` allows) and at most `max_bits`. Depends on `len` only.
    ///
    /// The 1/8 of slack is what keeps a bucket from overflowing its leaf by chance: with an
    /// expected size of exactly one leaf, about half the buckets came out a few elements larger
    /// and paid for a whole extra scatter level (at 2^21 `u32`, 2.4× the instructions of 2^20
    /// instead of 2×). A bucket's size has a standard deviation of about `√leaf` (512 elements
    /// for the default leaf of 2^18 `u32`), far below the slack of `leaf / 8` (32,768).
    pub(crate) fn bits_for(self, len: usize) -> u32 {
        let needed = len.div_ceil(self.leaf_len - self.leaf_len / 8);
        let bits = usize::BITS - (needed - 1).leading_zeros();
        bits.clamp(MIN_FANOUT_BITS.min(self.max_bits), self.max_bits)
    }
}

/// Permutes `data` in place so that bucket `b` occupies `bounds[b]..bounds[b + 1]` and holds
/// exactly the elements whose label is `b`, the labels being iid uniform draws from the
/// generator `R::from_seed(seed)`. Returns `bounds` (length `2^bits + 1`).
///
/// Two passes over the same label stream (the generator is re-seeded from `seed`): the first
/// only counts, so the bucket sizes are known; the second runs the American-flag cycle: the
/// element at the head of the current bucket's unplaced part takes the next label and is
/// swapped to the head of its bucket. Every element is labelled exactly once, when it is first
/// taken, and which element is taken next depends only on earlier labels, so element `e`'s
/// label is a fresh uniform draw independent of all others: the labels are iid, and the counts
/// of the first pass are exactly the counts of the labels handed out in the second.
pub(crate) fn scatter<T, R>(data: &mut [T], bits: u32, seed: &R::Seed) -> Vec<usize>
where
    R: Rng + SeedableRng,
{
    scatter_with(
        data,
        bits,
        R::from_seed(seed.clone()),
        R::from_seed(seed.clone()),
    )
}

/// [`scatter`] with the two generators already made from the seed: `counter` for the counting
/// pass and `replay` for the American-flag pass (they must produce the same stream).
pub(crate) fn scatter_with<T, R: Rng>(
    data: &mut [T],
    bits: u32,
    counter: R,
    replay: R,
) -> Vec<usize> {
    let k = 1usize << bits;
    let mut counts = alloc::vec![0usize; k];
    Labels::new(counter, bits).count(data.len(), &mut counts);

    let mut bounds = Vec::with_capacity(k + 1);
    let mut start = 0;
    bounds.push(0);
    for &c in &counts {
        start += c;
        bounds.push(start);
    }
    let mut head: Vec<usize> = bounds[..k].to_vec();

    // Every head advances sequentially, but from `prefetch_from_bits()` on there are too many of
    // them for the hardware prefetchers: hint the line a little ahead of the head that just moved.
    let hint = bits >= prefetch_from_bits();
    let ahead = (PREFETCH_AHEAD_BYTES / core::mem::size_of::<T>().max(1)).max(1);
    if hint {
        for &h in &head {
            prefetch(data, h);
        }
    }
    let mut labels = Labels::new(replay, bits);
    for b in 0..k {
        let end = bounds[b + 1];
        let mut here = head[b];
        while here < end {
            // While bucket `b` fills, every bucket before it is full, so every label drawn is
            // at least `b` and every target lies after `here`: split there so that the element
            // in hand provably aliases none of them and can stay in a register.
            let (front, back) = data.split_at_mut(here + 1);
            let hand = &mut front[here];
            let offset = here + 1;
            loop {
                let label = labels.next_label();
                if label == b {
                    break;
                }
                let there = head[label];
                core::mem::swap(hand, &mut back[there - offset]);
                head[label] = there + 1;
                if hint {
                    prefetch(back, there - offset + ahead);
                }
            }
            here += 1;
            if hint {
                prefetch(data, here + ahead);
            }
        }
        head[b] = here;
    }
    bounds
}

/// Draws the label seed of one scatter from `rng`.
pub(crate) fn draw_seed<R: Rng + SeedableRng>(rng: &mut R) -> R::Seed {
    let mut seed = R::Seed::default();
    rng.fill_bytes(seed.as_mut());
    seed
}

/// Splits `data` at `bounds` into the buckets, front to back.
pub(crate) fn split_buckets<'a, T>(mut data: &'a mut [T], bounds: &[usize]) -> Vec<&'a mut [T]> {
    let mut out = Vec::with_capacity(bounds.len() - 1);
    for w in bounds.windows(2) {
        let (bucket, rest) = data.split_at_mut(w[1] - w[0]);
        out.push(bucket);
        data = rest;
    }
    out
}

/// How many child generators a node holds at once. Its buckets are shuffled in waves of this
/// many, each wave's children drawn from the node's generator, in bucket order, just before the
/// wave runs: the draws are those of drawing every child first, since nothing else draws from
/// the node's generator after its label seed. The default fan-out is one wave; the widest (2^16
/// buckets) holds at most 2.5 MB of ChaCha12 children (about 2.4 KB each, most of it the
/// generator's 2 KiB buffer) instead of 160 MB (`a_wave_of_chacha12_children_is_at_most_2_5_mb`).
pub(crate) const WAVE: usize = 1 << crate::DEFAULT_MAX_BUCKET_BITS;

/// `buckets` in waves of at most [`WAVE`], each bucket beside its child generator, drawn from
/// `rng` in bucket order as the waves are taken.
pub(crate) fn waves<'a, T, R: SeedableRng + Rng>(
    buckets: Vec<&'a mut [T]>,
    rng: &mut R,
) -> impl Iterator<Item = Vec<(&'a mut [T], R)>> {
    let mut buckets = buckets.into_iter();
    core::iter::from_fn(move || {
        let wave: Vec<(&'a mut [T], R)> = buckets
            .by_ref()
            .take(WAVE)
            .map(|bucket| (bucket, R::from_rng(rng)))
            .collect();
        (!wave.is_empty()).then_some(wave)
    })
}

/// One node of the recursion: a leaf is Fisher-Yates with `rng` itself (warming `next`, the
/// slice shuffled after it on this thread); an inner node draws its label seed, scatters, then
/// draws one child generator per bucket in bucket order (in [`waves`]) and has `runner` shuffle
/// each wave's buckets, each with its child, by this function. Same draws, same generators,
/// same result whichever the runner.
pub(crate) fn shuffle_node<T, R, S, W>(
    data: &mut [T],
    rng: &mut R,
    shape: Shape,
    sampler: S,
    next: &[T],
    runner: W,
) where
    R: Rng + SeedableRng,
    S: IndexSampler + Copy,
    W: Runner<T, R, S>,
{
    if data.len() <= shape.leaf_len {
        leaf_shuffle(data, rng, sampler, next);
        return;
    }
    let bits = shape.bits_for(data.len());
    let seed = draw_seed(rng);
    let bounds = scatter::<T, R>(data, bits, &seed);
    for wave in waves(split_buckets(data, &bounds), rng) {
        runner.wave(wave, shape, sampler);
    }
}

/// How a node's buckets are shuffled: [`Serial`] on the calling thread, [`Rayon`] as tasks on
/// the current rayon pool. Which thread shuffles which bucket changes no result.
pub(crate) trait Runner<T, R, S>: Copy {
    /// Shuffles every bucket of `wave` with its child generator ([`shuffle_node`]).
    fn wave(self, wave: Vec<(&mut [T], R)>, shape: Shape, sampler: S);
}

/// The buckets one after another on the calling thread ([`in_order`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Serial;

impl<T, R, S> Runner<T, R, S> for Serial
where
    R: Rng + SeedableRng,
    S: IndexSampler + Copy,
{
    fn wave(self, wave: Vec<(&mut [T], R)>, shape: Shape, sampler: S) {
        in_order(wave, |bucket, child, after| {
            shuffle_node(bucket, child, shape, sampler, after, self);
        });
    }
}

/// The buckets as parallel rayon tasks, a strip of buckets each ([`strip_len`]), each strip
/// [`in_order`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rayon;

impl<T, R, S> Runner<T, R, S> for Rayon
where
    T: Send,
    R: Rng + SeedableRng + Send,
    S: IndexSampler + Copy + Send + Sync,
{
    fn wave(self, wave: Vec<(&mut [T], R)>, shape: Shape, sampler: S) {
        use rayon::prelude::*;
        let strip = strip_len(wave.len());
        wave.into_par_iter().chunks(strip).for_each(|strip| {
            in_order(strip, |bucket, child, after| {
                shuffle_node(bucket, child, shape, sampler, after, self);
            });
        });
    }
}

/// At most this many buckets per rayon task on a pool: a task shuffles its strip of buckets
/// [`in_order`], so a leaf can warm the next one.
const STRIP: usize = 8;

/// The strip for `buckets` buckets on the current pool: [`STRIP`], or fewer so that every
/// thread has at least four tasks to balance (512 buckets, the top level at 10^8 `u32`: strips
/// of 8 on up to 16 threads, of 1 from 128). Which thread shuffles which bucket changes no
/// result, so neither does the strip.
pub(crate) fn strip_len(buckets: usize) -> usize {
    (buckets / (4 * rayon::current_num_threads())).clamp(1, STRIP)
}

/// Calls `shuffle(bucket, child, after)` for each bucket, in order, `after` being the bucket
/// shuffled next (empty for the last): what a leaf warms while it runs
/// ([`leaf_shuffle`]'s `next`).
pub(crate) fn in_order<T, R>(
    buckets: Vec<(&mut [T], R)>,
    mut shuffle: impl FnMut(&mut [T], &mut R, &[T]),
) {
    let mut buckets = buckets.into_iter().peekable();
    while let Some((bucket, mut child)) = buckets.next() {
        let after: &[T] = buckets.peek().map_or(&[], |(next, _)| &**next);
        shuffle(bucket, &mut child, after);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Strips of 8 buckets while every thread still gets four tasks, shorter beyond.
    #[test]
    fn strips_shrink_so_that_every_thread_has_four_tasks() {
        for (threads, buckets, strip) in [
            (1, 512, 8),
            (2, 512, 8),
            (16, 512, 8),
            (64, 512, 2),
            (130, 512, 1),
            (2, 20, 2),
            (2, 3, 1),
            (2, 0, 1),
        ] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            assert_eq!(
                pool.install(|| strip_len(buckets)),
                strip,
                "{threads} threads, {buckets} buckets"
            );
        }
    }

    #[test]
    fn bits_for_picks_the_fewest_buckets_of_at_most_seven_eighths_of_a_leaf() {
        let shape = Shape {
            leaf_len: 8,
            max_bits: 6,
            chunk_len: 1,
            max_chunks: 1,
            whole_len: 0,
        };
        // 7 elements per bucket at most: 224 = 32 × 7 needs exactly 32 buckets, one more
        // element needs 64; below 32 buckets the fan-out stays at 32, above 64 at 64.
        assert_eq!(shape.bits_for(224), 5);
        assert_eq!(shape.bits_for(225), 6);
        assert_eq!(shape.bits_for(9), MIN_FANOUT_BITS);
        assert_eq!(shape.bits_for(112), MIN_FANOUT_BITS);
        assert_eq!(shape.bits_for(7 * 64 + 1), 6);
        // A shape allowing fewer buckets than the minimum fans out as wide as it allows.
        let narrow = Shape {
            max_bits: 3,
            ..shape
        };
        assert_eq!(narrow.bits_for(9), 3);
        assert_eq!(narrow.bits_for(10_000), 3);
    }

    /// The figures of [`WAVE`]'s doc, from the generator's size rather than copied.
    #[test]
    fn a_wave_of_chacha12_children_is_at_most_2_5_mb() {
        let child = size_of::<fairdeal_chacha::ChaCha12Rng>();
        assert!(
            (2_300..=2_500).contains(&child),
            "a ChaCha12 child is {child} bytes"
        );
        assert!(
            WAVE * child <= 2_500_000,
            "a wave of children is {} bytes",
            WAVE * child
        );
        let widest = (1usize << 16) * child;
        assert!(
            (150_000_000..=164_000_000).contains(&widest),
            "all at once: {widest} bytes"
        );
    }

    /// Hints from 64 buckets, or from 32 on AMD's CPUs, whatever the host.
    #[test]
    fn amd_cpus_hint_from_32_buckets_others_from_64() {
        assert_eq!(prefetch_from_bits_for(b"AuthenticAMD"), 5);
        assert_eq!(prefetch_from_bits_for(b"GenuineIntel"), 6);
        assert_eq!(prefetch_from_bits_for(&[0; 12]), 6);
        assert_eq!(prefetch_from_bits(), prefetch_from_bits_for(&cpu_vendor()));
        // The vendor string is read as the kernel reads it, or, where an emulator answers
        // CPUID (valgrind says "GenuineIntel" on any CPU), is one of the two it may answer.
        #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
        {
            let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").expect("/proc/cpuinfo");
            let kernels = cpuinfo
                .lines()
                .find_map(|line| line.strip_prefix("vendor_id"))
                .and_then(|rest| rest.split(':').nth(1))
                .expect("a vendor_id line")
                .trim();
            let ours = String::from_utf8_lossy(&cpu_vendor()).into_owned();
            assert!(
                ours == kernels || ["GenuineIntel", "AuthenticAMD"].contains(&ours.as_str()),
                "CPUID says {ours:?}, the kernel {kernels:?}"
            );
        }
    }

    /// Where the hints go, which only the time would show otherwise. Every position is filled
    /// once, either by a swap (position `p` just written: hint at `p + ahead`) or by the head
    /// of the bucket being filled stepping over it (hint at `p + 1 + ahead`), after one hint
    /// per initial bucket head. So beyond those, the `n` hints minus `ahead` lie in `0..=n`
    /// and sum to `0 + 1 + … + (n − 1)` plus the number of steps, at most `n`. Below
    /// [`prefetch_from_bits`] (fewer than 64 buckets, 32 on AMD's CPUs) there are none.
    #[test]
    fn the_scatter_hints_each_line_64_bytes_ahead_of_the_position_just_filled() {
        use rand_pcg::Pcg64;

        let n = 20_000usize;
        let ahead = (PREFETCH_AHEAD_BYTES / size_of::<u32>()) as i128;
        assert_eq!(ahead, 16);
        let from = prefetch_from_bits();
        assert!([PREFETCH_FROM_BITS, PREFETCH_FROM_BITS_AMD].contains(&from));
        for bits in [4, 5, 6, 8] {
            let mut data: Vec<u32> = (0..n as u32).collect();
            let mut bounds = Vec::new();
            let hints = crate::prefetch::hints::during(|| {
                bounds = scatter::<u32, Pcg64>(&mut data, bits, &[7; 32]);
            });
            let base = data.as_ptr() as usize;
            let at: Vec<i128> = hints
                .iter()
                .map(|&address| {
                    (address.wrapping_sub(base) as isize / size_of::<u32>() as isize) as i128
                })
                .collect();
            let k = 1usize << bits;
            if bits < from {
                assert!(at.is_empty(), "{} hints for {k} buckets", at.len());
                continue;
            }
            assert_eq!(at.len(), k + n, "one hint per head, then one per position");
            let heads: Vec<i128> = bounds[..k].iter().map(|&h| h as i128).collect();
            assert_eq!(at[..k], heads[..]);
            let filled: Vec<i128> = at[k..].iter().map(|&t| t - ahead).collect();
            assert!(
                filled.iter().all(|&p| (0..=n as i128).contains(&p)),
                "a hint not `ahead` past a filled position"
            );
            let sum: i128 = filled.iter().sum();
            let positions = (n * (n - 1) / 2) as i128;
            assert!(
                (positions..=positions + n as i128).contains(&sum),
                "hints {sum}, positions {positions}"
            );
        }
    }
}
