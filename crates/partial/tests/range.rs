//! `sample_range`: the sparse virtual partial shuffle equals the materialized one, handles the
//! whole `u64` range, and reports bad arguments as errors.

use fairdeal_core::{Batched, IndexSampler, Lemire, Rng, Shuffler};
use fairdeal_partial::{Partial, SampleRangeError, sample_range};
use fairdeal_testkit::Recording;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn materialized<S: IndexSampler>(sampler: S, lo: u64, hi: u64, k: usize, seed: u64) -> Vec<u64> {
    let mut all: Vec<u64> = (lo..=hi).collect();
    Partial::with_sampler(sampler)
        .shuffle_prefix(&mut all, k, &mut Pcg64::seed_from_u64(seed))
        .unwrap();
    all.truncate(k);
    all
}

fn lo_span_k() -> impl Strategy<Value = (u64, u64, usize)> {
    (any::<u64>(), 0u64..400).prop_flat_map(|(lo, span)| {
        let lo = lo.min(u64::MAX - span);
        (Just(lo), Just(span), 0..=span as usize + 1)
    })
}

proptest! {
    #[test]
    fn sparse_equals_materialized((lo, span, k) in lo_span_k(), seed: u64) {
        let hi = lo + span;
        // Both the one-draw-per-step and the batched sampler: the sparse walk hands the sampler
        // the same run of bounds as the dense one.
        let sparse = sample_range(lo, hi, k, &mut Pcg64::seed_from_u64(seed), &Lemire).unwrap();
        prop_assert_eq!(sparse, materialized(Lemire, lo, hi, k, seed));
        let sparse = sample_range(lo, hi, k, &mut Pcg64::seed_from_u64(seed), &Batched).unwrap();
        prop_assert_eq!(sparse, materialized(Batched, lo, hi, k, seed));
    }

    #[test]
    fn sparse_makes_the_same_draws((lo, span, k) in lo_span_k(), seed: u64) {
        let hi = lo + span;
        let sparse = Recording::default();
        sample_range(lo, hi, k, &mut Pcg64::seed_from_u64(seed), &sparse).unwrap();
        let dense = Partial::with_sampler(Recording::default());
        let mut all: Vec<u64> = (lo..=hi).collect();
        dense.shuffle_prefix(&mut all, k, &mut Pcg64::seed_from_u64(seed)).unwrap();
        prop_assert_eq!(sparse.bounds(), dense.sampler().bounds());
    }

    #[test]
    fn method_and_function_agree((lo, span, k) in lo_span_k(), seed: u64) {
        let hi = lo + span;
        let a = Partial::new().sample_range(lo, hi, k, &mut Pcg64::seed_from_u64(seed));
        let b = sample_range(lo, hi, k, &mut Pcg64::seed_from_u64(seed), &Batched);
        prop_assert_eq!(a, b);
    }

    #[test]
    fn huge_ranges_give_distinct_in_range_values(lo in 0u64..1_000, extra: u64, k in 0usize..64, seed: u64) {
        let hi = lo.saturating_add(extra).max(lo + 63);
        let picks = sample_range(lo, hi, k, &mut Pcg64::seed_from_u64(seed), &Lemire).unwrap();
        prop_assert_eq!(picks.len(), k);
        prop_assert!(picks.iter().all(|&x| (lo..=hi).contains(&x)));
        let mut unique = picks.clone();
        unique.sort_unstable();
        unique.dedup();
        prop_assert_eq!(unique.len(), k);
    }

    #[test]
    fn too_many_is_an_error((lo, span, _k) in lo_span_k(), extra in 1usize..5, seed: u64) {
        let k = span as usize + 1 + extra;
        let err = sample_range(lo, lo + span, k, &mut Pcg64::seed_from_u64(seed), &Lemire);
        prop_assert_eq!(err, Err(SampleRangeError::SampleTooLarge { requested: k, available: u128::from(span) + 1 }));
    }
}

#[test]
fn five_of_a_trillion_without_allocating_the_range() {
    let mut rng = Pcg64::seed_from_u64(2026);
    let picks = sample_range(1, 1_000_000_000_000, 5, &mut rng, &Lemire).unwrap();
    assert_eq!(picks.len(), 5);
    assert!(picks.iter().all(|&x| (1..=1_000_000_000_000).contains(&x)));
}

#[test]
fn the_whole_u64_range_does_not_overflow() {
    let mut rng = Pcg64::seed_from_u64(64);
    let picks = sample_range(0, u64::MAX, 1000, &mut rng, &Lemire).unwrap();
    let mut unique = picks.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), 1000);
    // The first bound is 2^64: it takes one raw 64-bit word, so the first pick is that word.
    let mut rng = Pcg64::seed_from_u64(64);
    assert_eq!(picks[0], rng.next_u64());

    // Ranges touching the top end.
    let top = sample_range(u64::MAX - 2, u64::MAX, 3, &mut rng, &Lemire).unwrap();
    let mut top_sorted = top.clone();
    top_sorted.sort_unstable();
    assert_eq!(top_sorted, [u64::MAX - 2, u64::MAX - 1, u64::MAX]);
    assert_eq!(
        sample_range(u64::MAX, u64::MAX, 1, &mut rng, &Lemire),
        Ok(vec![u64::MAX])
    );
}

#[test]
fn degenerate_and_reversed_ranges() {
    let mut rng = Pcg64::seed_from_u64(1);
    assert_eq!(sample_range(5, 5, 0, &mut rng, &Lemire), Ok(vec![]));
    assert_eq!(sample_range(5, 5, 1, &mut rng, &Lemire), Ok(vec![5]));
    assert_eq!(
        sample_range(5, 5, 2, &mut rng, &Lemire),
        Err(SampleRangeError::SampleTooLarge {
            requested: 2,
            available: 1
        })
    );
    assert_eq!(
        sample_range(6, 5, 0, &mut rng, &Lemire),
        Err(SampleRangeError::Reversed { lo: 6, hi: 5 })
    );
    assert_eq!(
        sample_range(u64::MAX, 0, 1, &mut rng, &Lemire),
        Err(SampleRangeError::Reversed {
            lo: u64::MAX,
            hi: 0
        })
    );
}

#[test]
fn an_unallocatable_output_is_an_error() {
    // 2^61 u64s is 16 EiB: no allocator can provide it, and asking must not abort.
    let k = 1usize << 61;
    let mut rng = Pcg64::seed_from_u64(1);
    assert_eq!(
        sample_range(0, u64::MAX, k, &mut rng, &Lemire),
        Err(SampleRangeError::OutOfMemory { requested: k })
    );
}
