//! The leaves of the recursion: Fisher-Yates, after a large leaf is streamed into the cache.

use fairdeal_core::{IndexSampler, Order, Rng, Shuffler};
use fairdeal_inplace::Inplace;

use crate::prefetch::prefetch;

/// From this many bytes on, a leaf is first streamed into the cache ([`warm`]). A bucket that
/// the top level's exchange left in memory is otherwise fetched one random line at a time by
/// the swaps; read front to back, its lines arrive at the memory's streaming rate. Smaller
/// leaves are sub-buckets their parent's scatter has just written, still in L1 or L2.
///
/// Measured at 10^8 `u32` (1,024 cold leaves of 390 KB, wyrand, one thread, load 6–7, every
/// variant in one process): 2.16 ns per element warmed then shuffled by the plain loop, 3.5
/// unwarmed, and 4.0–4.2 for the loop this replaced, which carried each swap out 64 draws
/// after prefetching its target (warmed or not).
const WARM_FROM_BYTES: usize = 64 << 10;

/// Exactly [`Inplace`]'s shuffle with the same sampler: the same `(bound, index)` draws, the
/// same swaps in the same order, hence the same result; a leaf of at least
/// [`WARM_FROM_BYTES`] is [`warm`]ed first, which changes no element.
///
/// `next` is the slice this thread shuffles after this one (empty when there is none or it is
/// not known). When both are large leaves and the loop runs back to front, the swaps hint
/// `next` into the cache as they go ([`shuffle_warming`]), so its sweep finds it there.
pub(crate) fn leaf_shuffle<T, R, S>(data: &mut [T], rng: &mut R, sampler: S, next: &[T])
where
    R: Rng + ?Sized,
    S: IndexSampler + Copy,
{
    if core::mem::size_of_val(data) < WARM_FROM_BYTES {
        Inplace::with_sampler(sampler).shuffle(data, rng);
        return;
    }
    warm(data);
    if core::mem::size_of_val(next) >= WARM_FROM_BYTES
        && sampler.shuffle_order(data.len()) == Order::Backward
    {
        shuffle_warming(data, rng, sampler, next);
    } else {
        Inplace::with_sampler(sampler).shuffle(data, rng);
    }
}

/// The top level's shuffle of a slice it shuffles whole (`Shape::whole`): at most one leaf
/// (`leaf_len` elements) is [`leaf_shuffle`]d, swept first from [`WARM_FROM_BYTES`]; a longer
/// slice is plain [`Inplace`]. Sweeping more than a leaf through the cache before the swaps
/// cost more than it saved: at 2^21 `u32` (8 MiB) on one thread of the Intel, 2.23–2.27 ns per
/// element swept against 1.90–1.94 not (`examples/scaling`, medians). Either way `Inplace`'s
/// draws and swaps.
pub(crate) fn whole_shuffle<T, R, S>(data: &mut [T], rng: &mut R, sampler: S, leaf_len: usize)
where
    R: Rng + ?Sized,
    S: IndexSampler + Copy,
{
    if data.len() <= leaf_len {
        leaf_shuffle(data, rng, sampler, &[]);
    } else {
        Inplace::with_sampler(sampler).shuffle(data, rng);
    }
}

/// [`Inplace`]'s back-to-front loop (the same draws through
/// [`IndexSampler::for_each_index_descending`], the same swaps) that also hints `next` into the
/// cache, one line per line of `data` the loop is done with, from `next`'s front.
///
/// Back to front, the swaps of bound `b` touch only `data[..b]`: each 64-byte line of elements
/// the bound passes is a line of `data` the loop will not touch again, and a line of `next`
/// takes its place, so the two together stay about one leaf in the cache. The next
/// leaf's sweep then reads lines already there instead of streaming them from memory while
/// nothing else runs. Measured at 10^8 `u32` on one thread (Intel, `examples/scaling`): the
/// leaves' phase 12 % shorter, the whole shuffle about 3 % faster (`docs/algorithms.md`,
/// "Huge N").
fn shuffle_warming<T, R, S>(data: &mut [T], rng: &mut R, sampler: S, next: &[T])
where
    R: Rng + ?Sized,
    S: IndexSampler + Copy,
{
    let per_line = per_line::<T>();
    let mut ahead = 0usize;
    sampler.for_each_index_descending(rng, data.len(), 2, |bound, j| {
        data.swap(bound - 1, j);
        if bound % per_line == 0 {
            prefetch(next, ahead);
            ahead += per_line;
        }
    });
}

/// The elements a 64-byte cache line holds, at least one (elements of a line or wider; a
/// zero-sized element counts as one byte).
const fn per_line<T>() -> usize {
    let size = core::mem::size_of::<T>();
    let per = 64 / if size == 0 { 1 } else { size };
    if per == 0 { 1 } else { per }
}

/// Touches every 64-byte line of `data`, front to back, without changing it: each touch swaps
/// an element with itself through [`black_box`](core::hint::black_box), which the compiler
/// cannot see through, so the line is really loaded (and the hardware's stream prefetcher runs
/// ahead of the sweep). A safe, generic stand-in for a read: `T` need not be `Copy`.
fn warm<T>(data: &mut [T]) {
    let step = per_line::<T>();
    for index in (0..data.len()).step_by(step) {
        data.swap(index, core::hint::black_box(index));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairdeal_core::{Lemire, SeedableRng};
    use rand_pcg::Pcg64;

    #[test]
    fn same_draws_same_swaps_as_inplace() {
        // Up to 10,001 `u32` the leaf is not warmed; 20,000 and 70,000 (80 and 280 KB) are.
        for n in (0..300).chain([1000, 4096, 10_001, 20_000, 70_000]) {
            for seed in 0..3 {
                let mut ours: Vec<u32> = (0..n).collect();
                let mut plain = ours.clone();
                leaf_shuffle(&mut ours, &mut Pcg64::seed_from_u64(seed), Lemire, &[]);
                Inplace::with_sampler(Lemire).shuffle(&mut plain, &mut Pcg64::seed_from_u64(seed));
                assert_eq!(ours, plain, "n = {n}, seed {seed}");
            }
        }
    }

    /// A large back-to-front leaf with a large `next` makes the same swaps, and hints `next`
    /// front to back, one line for each line of the leaf the loop is done with (bounds 16, 32,
    /// … of `u32`), in bounds of `next` or not.
    #[test]
    fn a_leaf_warms_the_next_one_line_per_line_it_is_done_with() {
        let next: Vec<u32> = (0..70_000).collect();
        let line = |k: usize| next.as_ptr() as usize + 64 * k;
        for n in [20_000u32, 70_000, 100_003] {
            let seed = u64::from(n);
            let mut ours: Vec<u32> = (0..n).collect();
            let mut plain = ours.clone();
            let hints = crate::prefetch::hints::during(|| {
                leaf_shuffle(&mut ours, &mut Pcg64::seed_from_u64(seed), Lemire, &next);
            });
            Inplace::with_sampler(Lemire).shuffle(&mut plain, &mut Pcg64::seed_from_u64(seed));
            assert_eq!(ours, plain, "n = {n}");
            let expected: Vec<usize> = (0..n as usize / 16).map(line).collect();
            assert_eq!(hints, expected, "n = {n}");
        }
        // No hints for a small leaf (front to back, unwarmed) or a small next.
        for (n, next_len) in [(10_000u32, 70_000usize), (70_000, 10_000), (70_000, 0)] {
            let mut data: Vec<u32> = (0..n).collect();
            let hints = crate::prefetch::hints::during(|| {
                leaf_shuffle(
                    &mut data,
                    &mut Pcg64::seed_from_u64(1),
                    Lemire,
                    &next[..next_len],
                );
            });
            assert!(
                hints.is_empty(),
                "n = {n}, next {next_len}: {} hints",
                hints.len()
            );
        }
    }

    #[test]
    fn warming_changes_nothing() {
        for n in [0usize, 1, 15, 16, 17, 100_000] {
            let mut data: Vec<u32> = (0..n as u32).rev().collect();
            let before = data.clone();
            warm(&mut data);
            assert_eq!(data, before, "n = {n}");
        }
        // Elements wider than a line, and zero-sized ones.
        let mut wide = vec![[7u8; 100]; 50];
        warm(&mut wide);
        assert!(wide.iter().all(|w| *w == [7u8; 100]));
        let mut units = vec![(); 1000];
        warm(&mut units);
        assert_eq!(units.len(), 1000);
    }
}
