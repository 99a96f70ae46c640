//! Fairness of the scatter shuffle, with fixed seeds and negative controls that the same tests
//! reject: exhaustive-order chi-square at small `n` with tiny leaves and tiny chunks (so the
//! parallel top level, with several chunks, and the scatter recursion run all the way down),
//! the position matrix at 52, and a coarse block test at a size that recurses with the
//! production shape. Every test runs the parallel path (`shuffle` on a multi-thread pool) as
//! well as `shuffle_sequential`.

use core::convert::Infallible;

use fairdeal_core::rand_core::TryRng;
use fairdeal_core::{AlgorithmInfo, Batched, IndexSampler, Lemire, Rng, SeedableRng, Shuffler};
use fairdeal_fairness::{PASS_THRESHOLD, permutation_test, position_test};
use fairdeal_parallel::Parallel;
use fairdeal_testkit::block_position_p_value;
use rand_pcg::Pcg64;

/// [`Parallel`] as a [`Shuffler`] for the fairness crate: each shuffle seeds a generator `G`
/// from the test's generator (the scatter needs a seedable generator for its children).
struct Seeded<G, S = Batched> {
    inner: Parallel<S>,
    generator: core::marker::PhantomData<G>,
}

impl<G, S> Seeded<G, S> {
    fn new(inner: Parallel<S>) -> Self {
        Self {
            inner,
            generator: core::marker::PhantomData,
        }
    }
}

impl<G: Rng + SeedableRng + Send, S: IndexSampler + Copy + Send + Sync> Shuffler for Seeded<G, S> {
    fn info(&self) -> AlgorithmInfo {
        self.inner.info()
    }
    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        self.inner.shuffle_sequential(data, &mut G::from_rng(rng));
    }
}

/// [`Parallel`] through its parallel path, `shuffle` on a 3-thread pool (the element type of
/// the fairness tests, `usize`, is `Send`; the trait's `T` is not, so the data goes through a
/// `Vec<usize>` copy).
struct OnPool<G> {
    inner: Parallel,
    pool: rayon::ThreadPool,
    generator: core::marker::PhantomData<fn() -> G>,
}

impl<G> OnPool<G> {
    fn new(inner: Parallel) -> Self {
        Self {
            inner,
            pool: rayon::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .unwrap(),
            generator: core::marker::PhantomData,
        }
    }
}

impl<G: Rng + SeedableRng + Send> Shuffler for OnPool<G> {
    fn info(&self) -> AlgorithmInfo {
        self.inner.info()
    }
    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        // The order to apply, computed in parallel on indices, then applied to `data`.
        let mut order: Vec<usize> = (0..data.len()).collect();
        let mut generator = G::from_rng(rng);
        self.pool
            .install(|| self.inner.shuffle(&mut order, &mut generator));
        apply(data, &order);
    }
}

/// Rearranges `data` so that `data[i]` becomes the old `data[order[i]]`.
fn apply<T>(data: &mut [T], order: &[usize]) {
    let mut done = vec![false; data.len()];
    for start in 0..data.len() {
        if done[start] {
            continue;
        }
        // Cycle: position i must receive the element at order[i].
        let mut i = start;
        loop {
            done[i] = true;
            let j = order[i];
            if j == start {
                break;
            }
            data.swap(i, j);
            i = j;
        }
    }
}

/// A seedable generator whose 64-bit words have their low `BITS` bits cleared: the first label
/// cut from every word is always bucket 0. A broken label draw, invisible to 32-bit draws.
struct LowBitsCleared<const BITS: u32>(Pcg64);

impl<const BITS: u32> TryRng for LowBitsCleared<BITS> {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.0.next_u32())
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.0.next_u64() & !((1u64 << BITS) - 1))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.0.fill_bytes(dst);
        Ok(())
    }
}

impl<const BITS: u32> SeedableRng for LowBitsCleared<BITS> {
    type Seed = <Pcg64 as SeedableRng>::Seed;
    fn from_seed(seed: Self::Seed) -> Self {
        Self(Pcg64::from_seed(seed))
    }
}

/// A seedable "generator" that counts: each word is the previous one plus one, from a seeded
/// start. The classic broken RNG: its labels cycle and its high bits barely move.
struct Counter(u64);

impl TryRng for Counter {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.try_next_u64()? as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        self.0 = self.0.wrapping_add(1);
        Ok(self.0)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(8) {
            let word = self.try_next_u64()?.to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        Ok(())
    }
}

impl SeedableRng for Counter {
    type Seed = [u8; 8];
    fn from_seed(seed: Self::Seed) -> Self {
        Self(u64::from_le_bytes(seed))
    }
}

/// Tiny shapes: leaves of `leaf` elements of `usize`, at most `2^bits` buckets, and top-level
/// chunks of `chunk` elements (any number of them).
fn tiny_chunks(leaf: usize, bits: u32, chunk: usize) -> Parallel {
    Parallel::new()
        .with_shape(leaf * size_of::<usize>(), bits)
        .unwrap()
        .with_whole(0)
        .with_chunks(chunk * size_of::<usize>(), 1 << 16)
        .unwrap()
}

/// Tiny shapes with one-element chunks.
fn tiny(leaf: usize, bits: u32) -> Parallel {
    tiny_chunks(leaf, bits, 1)
}

#[test]
fn all_orders_equally_likely_through_the_recursion() {
    // Leaves of one or two elements and chunks of one to three: every order comes out of the
    // chunked top level and the scatters below it (plus trivial leaves).
    for (n, leaf, bits, chunk, trials, seed) in [
        (3, 1, 1, 1, 60_000, 0xA1),
        (4, 1, 1, 1, 120_000, 0xA2),
        (4, 1, 2, 3, 120_000, 0xA3),
        (5, 2, 2, 2, 240_000, 0xA4),
        (6, 2, 3, 1, 720_000, 0xA5),
        (6, 1, 1, 4, 720_000, 0xA6),
    ] {
        let shape = tiny_chunks(leaf, bits, chunk);
        let report = permutation_test(
            &Seeded::<Pcg64>::new(shape),
            n,
            trials,
            &mut Pcg64::seed_from_u64(seed),
        )
        .unwrap();
        assert!(
            report.is_fair(PASS_THRESHOLD),
            "sequential, n = {n}, leaf {leaf}, {bits} bits, chunk {chunk}: p = {}",
            report.p_value
        );
    }
    // The parallel path, on a 3-thread pool.
    for (n, leaf, bits, chunk, trials, seed) in
        [(4, 1, 1, 1, 120_000, 0xA7), (5, 1, 2, 2, 240_000, 0xA8)]
    {
        let shape = tiny_chunks(leaf, bits, chunk);
        let report = permutation_test(
            &OnPool::<Pcg64>::new(shape),
            n,
            trials,
            &mut Pcg64::seed_from_u64(seed),
        )
        .unwrap();
        assert!(
            report.is_fair(PASS_THRESHOLD),
            "parallel, n = {n}, leaf {leaf}, {bits} bits, chunk {chunk}: p = {}",
            report.p_value
        );
    }
}

#[test]
fn the_permutation_test_rejects_a_top_level_that_keeps_elements_in_their_chunk() {
    // The failure the chunk × bucket rearrangement exists to prevent: elements that never
    // leave their chunk. Each half shuffled fairly on its own must be rejected.
    struct HalvesOnly;
    impl Shuffler for HalvesOnly {
        fn info(&self) -> AlgorithmInfo {
            fairdeal_parallel::INFO
        }
        fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
            let (a, b) = data.split_at_mut(data.len() / 2);
            let mut g = Pcg64::from_rng(rng);
            tiny_chunks(1, 1, 1).shuffle_sequential(a, &mut g);
            tiny_chunks(1, 1, 1).shuffle_sequential(b, &mut g);
        }
    }
    let report =
        permutation_test(&HalvesOnly, 4, 120_000, &mut Pcg64::seed_from_u64(0xA9)).unwrap();
    assert!(report.p_value < 1e-9, "p = {}", report.p_value);
}

#[test]
fn the_permutation_test_rejects_a_broken_label_draw() {
    let shuffler = Seeded::<LowBitsCleared<1>>::new(tiny(1, 1));
    let report = permutation_test(&shuffler, 4, 120_000, &mut Pcg64::seed_from_u64(0xA2)).unwrap();
    assert!(report.p_value < 1e-9, "p = {}", report.p_value);
}

/// A sampler that never draws the last index (the leaf's Fisher-Yates then never leaves an
/// element in place): a broken leaf.
#[derive(Debug, Clone, Copy, Default)]
struct NeverLast;

impl IndexSampler for NeverLast {
    fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
        Lemire.index_below(rng, (bound - 1).max(1))
    }
}

#[test]
fn the_permutation_test_rejects_a_broken_leaf() {
    let broken = Parallel::with_sampler(NeverLast)
        .with_shape(2 * size_of::<usize>(), 1)
        .unwrap()
        .with_whole(0);
    let report = permutation_test(
        &Seeded::<Pcg64, NeverLast>::new(broken),
        4,
        120_000,
        &mut Pcg64::seed_from_u64(0xA2),
    )
    .unwrap();
    assert!(report.p_value < 1e-9, "p = {}", report.p_value);
}

#[test]
fn every_card_equally_likely_at_every_position() {
    for (leaf, bits, seed) in [(4, 2, 0xB1), (13, 3, 0xB2), (52, 10, 0xB3)] {
        let shuffler = Seeded::<Pcg64>::new(tiny(leaf, bits));
        let report = position_test(&shuffler, 52, 26_000, &mut Pcg64::seed_from_u64(seed)).unwrap();
        assert!(
            report.is_fair(PASS_THRESHOLD),
            "leaf {leaf}, {bits} bits: p = {}",
            report.p_value
        );
    }
    let broken = Seeded::<LowBitsCleared<2>>::new(tiny(4, 2));
    let report = position_test(&broken, 52, 26_000, &mut Pcg64::seed_from_u64(0xB1)).unwrap();
    assert!(
        report.p_value < 1e-9,
        "broken labels: p = {}",
        report.p_value
    );
}

/// testkit's element-block × position-block test of `Parallel::new()` over `0..n`, each trial
/// with a fresh generator `G` drawn from a `Pcg64` seeded with `seed`, on a 2-thread pool.
///
/// The input is interleaved before the shuffle (element block `r` at the positions ≡ `r` mod
/// `blocks`), which a fair shuffle ignores, so that a label bias tied to the position inside a
/// 64-bit word (or a chunk) shows up as a bias of an element block.
fn block_table_p_value<G: Rng + SeedableRng + Send>(
    n: u32,
    blocks: u32,
    trials: u64,
    seed: u64,
) -> f64 {
    let mut rng = Pcg64::seed_from_u64(seed);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let per_block = n / blocks;
    block_position_p_value(n as usize, blocks as usize, trials, |data| {
        for (i, x) in data.iter_mut().enumerate() {
            let i = i as u32;
            *x = (i % blocks) * per_block + i / blocks;
        }
        pool.install(|| Parallel::new().shuffle(data, &mut G::from_rng(&mut rng)));
    })
}

#[test]
fn coarse_blocks_are_uniform_through_the_default_top_level() {
    // 2^22 u32 = 16 MiB, past the whole-slice size: 32 chunks scattered into 32 buckets of half
    // a default leaf (1 MiB) each, the swaps and cycles between them, then the leaves. (The
    // recursion below the top level runs in the tiny shapes above.)
    let n = 1 << 22;
    let p = block_table_p_value::<Pcg64>(n, 16, 4, 0xC1);
    assert!(p > PASS_THRESHOLD, "p = {p}");
    // The top level hands labels out in the order its in-place scatter takes elements, so a
    // label bias tied to the position inside a word (`LowBitsCleared`, rejected by the small-n
    // tests above) skews bucket sizes but ties only a few elements (each chunk's first) to a
    // bucket, too few to see here; at this size the control is a broken generator throughout.
    let p = block_table_p_value::<Counter>(n, 16, 4, 0xC1);
    assert!(p < 1e-9, "a counting generator not rejected: p = {p}");
}
