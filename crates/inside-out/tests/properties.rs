//! Property tests: permutations, reproducibility, one-pass building from iterators of unknown
//! length, and the draw sequence.

use fairdeal_core::{ShuffleError, Shuffler};
use fairdeal_inside_out::{INFO, InsideOut};
use fairdeal_testkit::Recording;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn shuffled_copy(v: &[u32], seed: u64) -> Vec<u32> {
    let mut out = v.to_vec();
    InsideOut::new().shuffle(&mut out, &mut Pcg64::seed_from_u64(seed));
    out
}

fn built(v: &[u32], seed: u64) -> Vec<u32> {
    InsideOut::new().shuffled(v.iter().copied(), &mut Pcg64::seed_from_u64(seed))
}

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v
}

proptest! {
    #[test]
    fn shuffle_returns_a_permutation(v in proptest::collection::vec(any::<u32>(), 0..300), seed: u64) {
        prop_assert_eq!(sorted(shuffled_copy(&v, seed)), sorted(v));
    }

    #[test]
    fn shuffled_returns_a_permutation(v in proptest::collection::vec(any::<u32>(), 0..300), seed: u64) {
        prop_assert_eq!(sorted(built(&v, seed)), sorted(v));
    }

    #[test]
    fn same_seed_same_order(v in proptest::collection::vec(any::<u32>(), 0..300), seed: u64) {
        prop_assert_eq!(shuffled_copy(&v, seed), shuffled_copy(&v, seed));
        prop_assert_eq!(built(&v, seed), built(&v, seed));
    }

    #[test]
    fn one_pass_build_equals_slice_shuffle(v in proptest::collection::vec(any::<u32>(), 0..300), seed: u64) {
        prop_assert_eq!(built(&v, seed), shuffled_copy(&v, seed));
    }

    #[test]
    fn unknown_length_iterators_work(v in proptest::collection::vec(any::<u32>(), 0..300), seed: u64) {
        // `from_fn` reports a lower size hint of 0: the length is discovered only at the end.
        let mut source = v.clone().into_iter();
        let stream = core::iter::from_fn(move || source.next());
        prop_assert_eq!(stream.size_hint().0, 0);
        let out = InsideOut::new().shuffled(stream, &mut Pcg64::seed_from_u64(seed));
        prop_assert_eq!(out, built(&v, seed));
    }

    #[test]
    fn prefix_longer_than_input_is_an_error(v in proptest::collection::vec(any::<u32>(), 0..50), extra in 1usize..10, seed: u64) {
        let mut data = v.clone();
        let k = v.len() + extra;
        let err = InsideOut::new().shuffle_prefix(&mut data, k, &mut Pcg64::seed_from_u64(seed));
        prop_assert_eq!(err, Err(ShuffleError::SampleTooLarge { requested: k, available: v.len() }));
        prop_assert_eq!(data, v);
    }

    #[test]
    fn draws_bounds_2_up_to_n(n in 0usize..200, seed: u64) {
        let expected: Vec<usize> = (2..=n).collect();
        let shuffler = InsideOut::with_sampler(Recording::default());
        let mut data: Vec<usize> = (0..n).collect();
        shuffler.shuffle(&mut data, &mut Pcg64::seed_from_u64(seed));
        prop_assert_eq!(shuffler.sampler().bounds(), expected.clone());

        let shuffler = InsideOut::with_sampler(Recording::default());
        let _ = shuffler.shuffled(0..n, &mut Pcg64::seed_from_u64(seed));
        prop_assert_eq!(shuffler.sampler().bounds(), expected);
    }
}

/// Items arrive in chunks of 1024: the bounds must run on unbroken across chunk boundaries
/// (no bound repeated or skipped where a chunk starts), for slices and iterators alike.
#[test]
fn draws_bounds_2_up_to_n_across_chunks() {
    for n in [1023, 1024, 1025, 1026, 2048, 2049, 3100] {
        let expected: Vec<usize> = (2..=n).collect();
        let shuffler = InsideOut::with_sampler(Recording::default());
        let mut data: Vec<usize> = (0..n).collect();
        shuffler.shuffle(&mut data, &mut Pcg64::seed_from_u64(5));
        assert_eq!(shuffler.sampler().bounds(), expected, "shuffle, n = {n}");

        let shuffler = InsideOut::with_sampler(Recording::default());
        let _ = shuffler.shuffled(0..n, &mut Pcg64::seed_from_u64(5));
        assert_eq!(shuffler.sampler().bounds(), expected, "shuffled, n = {n}");
    }
}

#[test]
fn tiny_lengths_are_permutations() {
    for seed in 0..64 {
        assert_eq!(built(&[], seed), Vec::<u32>::new());
        assert_eq!(shuffled_copy(&[], seed), Vec::<u32>::new());
        assert_eq!(built(&[7], seed), vec![7]);
        assert_eq!(shuffled_copy(&[7], seed), vec![7]);
        assert_eq!(sorted(built(&[1, 2], seed)), vec![1, 2]);
    }
    let swapped = (0..64).filter(|&s| built(&[1, 2], s) == [2, 1]).count();
    assert!(swapped > 0 && swapped < 64, "{swapped} of 64 swapped");
}

#[test]
fn elements_need_not_be_clone() {
    #[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
    struct Card(u8);
    let mut cards = InsideOut::new().shuffled((0..10).map(Card), &mut Pcg64::seed_from_u64(5));
    InsideOut::new().shuffle(&mut cards, &mut Pcg64::seed_from_u64(6));
    cards.sort();
    assert_eq!(cards, (0..10).map(Card).collect::<Vec<_>>());
}

#[test]
fn info_describes_a_fair_linear_shuffle() {
    let info = InsideOut::new().info();
    assert_eq!(info, INFO);
    assert_eq!(info.name, "inside-out");
    assert_eq!(info.complexity, fairdeal_core::Complexity::Linear);
    assert!(info.fair);
}
