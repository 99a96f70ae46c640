//! Fisher-Yates with the swaps delayed behind the draws, so that the element each swap needs
//! can be prefetched while earlier swaps run.

use fairdeal_core::{IndexSampler, Rng, Shuffler};
use fairdeal_inplace::Inplace;

use crate::prefetch::prefetch;

/// How many draws run ahead of the swaps: enough to cover an L3 or memory round trip at a few
/// nanoseconds per step, small enough to stay in registers and L1.
const DISTANCE: usize = 64;

/// Exactly [`Inplace`]'s shuffle with the same sampler: the same `(bound, index)` draws, the
/// same swaps in the same order. Each swap is only carried out `DISTANCE` draws after its
/// index was drawn, and its target is prefetched at draw time. Draws never depend on the
/// data, so delaying the swaps changes nothing but the cache misses.
pub(crate) fn prefetching_fisher_yates<T, R, S>(data: &mut [T], rng: &mut R, sampler: S)
where
    R: Rng + ?Sized,
    S: IndexSampler + Copy,
{
    let n = data.len();
    if n <= 2 * DISTANCE {
        Inplace::with_sampler(sampler).shuffle(data, rng);
        return;
    }
    let mut ring = [(0usize, 0usize); DISTANCE];
    let mut taken = 0usize;
    sampler.for_each_index_descending(rng, n, 2, |bound, index| {
        prefetch(data, index);
        let slot = &mut ring[taken % DISTANCE];
        if taken >= DISTANCE {
            let (b, j) = *slot;
            data.swap(b - 1, j);
        }
        *slot = (bound, index);
        taken += 1;
    });
    for t in taken.saturating_sub(DISTANCE)..taken {
        let (b, j) = ring[t % DISTANCE];
        data.swap(b - 1, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairdeal_core::{Lemire, SeedableRng};
    use rand_pcg::Pcg64;

    #[test]
    fn same_draws_same_swaps_as_inplace() {
        for n in (0..300).chain([1000, 4096, 10_001]) {
            for seed in 0..3 {
                let mut ours: Vec<u32> = (0..n).collect();
                let mut plain = ours.clone();
                prefetching_fisher_yates(&mut ours, &mut Pcg64::seed_from_u64(seed), Lemire);
                Inplace::with_sampler(Lemire).shuffle(&mut plain, &mut Pcg64::seed_from_u64(seed));
                assert_eq!(ours, plain, "n = {n}, seed {seed}");
            }
        }
    }

    /// The hints, which only the time would show otherwise: above `2 * DISTANCE` elements
    /// every drawn index is hinted, in draw order; at or below it the plain loop runs, unhinted.
    #[test]
    fn every_drawn_index_is_hinted_above_twice_the_distance_and_none_below() {
        for n in [0, 1, 2, 3, 66, 127, 128, 129, 130, 300, 1000] {
            let mut data: Vec<u64> = (0..n as u64).collect();
            let hints = crate::prefetch::hints::during(|| {
                prefetching_fisher_yates(&mut data, &mut Pcg64::seed_from_u64(5), Lemire);
            });
            let base = data.as_ptr() as usize;
            let hinted: Vec<usize> = hints.iter().map(|&a| (a - base) / 8).collect();
            let mut drawn = Vec::new();
            Lemire.for_each_index_descending(&mut Pcg64::seed_from_u64(5), n, 2, |_, index| {
                drawn.push(index);
            });
            if n <= 2 * DISTANCE {
                assert!(hinted.is_empty(), "n = {n}: {} hints", hinted.len());
            } else {
                assert_eq!(hinted, drawn, "n = {n}");
            }
        }
    }
}
