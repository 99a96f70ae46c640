//! Fairness of the scatter shuffle, with fixed seeds and negative controls that the same tests
//! reject: exhaustive-order chi-square at small `n` with tiny leaves (so the scatter recursion
//! runs all the way down), the position matrix at 52, and a coarse block test at a size that
//! recurses with the production shape.

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

/// Tiny shapes: leaves of `leaf` elements of `usize`, at most `2^bits` buckets.
fn tiny(leaf: usize, bits: u32) -> Parallel {
    Parallel::new()
        .with_shape(leaf * size_of::<usize>(), bits)
        .unwrap()
}

#[test]
fn all_orders_equally_likely_through_the_recursion() {
    // Leaves of one element: every order comes out of scatters alone (plus trivial leaves).
    for (n, leaf, bits, trials, seed) in [
        (3, 1, 1, 60_000, 0xA1),
        (4, 1, 1, 120_000, 0xA2),
        (4, 1, 2, 120_000, 0xA3),
        (5, 2, 2, 240_000, 0xA4),
        (6, 2, 3, 720_000, 0xA5),
    ] {
        let shuffler = Seeded::<Pcg64>::new(tiny(leaf, bits));
        let report =
            permutation_test(&shuffler, n, trials, &mut Pcg64::seed_from_u64(seed)).unwrap();
        assert!(
            report.is_fair(PASS_THRESHOLD),
            "n = {n}, leaf {leaf}, {bits} bits: p = {}",
            report.p_value
        );
    }
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
        .unwrap();
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
/// with a fresh generator `G` drawn from a `Pcg64` seeded with `seed`.
fn block_table_p_value<G: Rng + SeedableRng + Send>(
    n: u32,
    blocks: u32,
    trials: u64,
    seed: u64,
) -> f64 {
    let mut rng = Pcg64::seed_from_u64(seed);
    block_position_p_value(n as usize, blocks as usize, trials, |data| {
        Parallel::new().shuffle(data, &mut G::from_rng(&mut rng));
    })
}

#[test]
fn coarse_blocks_are_uniform_at_a_size_that_recurses_with_the_default_shape() {
    // 2^22 u32 = 16 MiB: 16 buckets of about one default leaf (1 MiB) each, and the buckets
    // that come out larger than a leaf are scattered again.
    let n = 1 << 22;
    let p = block_table_p_value::<Pcg64>(n, 16, 4, 0xC1);
    assert!(p > PASS_THRESHOLD, "p = {p}");
    let p = block_table_p_value::<LowBitsCleared<4>>(n, 16, 4, 0xC1);
    assert!(p < 1e-9, "broken labels not rejected: p = {p}");
}
