//! Tests written to kill mutants that cargo-mutants found surviving in `src/range.rs` (see
//! docs/testing.md, "Mutation testing"): the edges of the full `0..=u64::MAX` range, where the
//! first bound (2^64) is drawn from a raw word and every later bound goes to the sampler.

use fairdeal_core::{Lemire, Rng};
use fairdeal_partial::sample_range;
use fairdeal_testkit::Recording;
use rand::SeedableRng;
use rand_pcg::Pcg64;

/// Taking nothing from the full range draws nothing, even though its size (2^64) does not fit
/// in a `usize`.
#[test]
fn nothing_from_the_full_range_draws_no_word() {
    let mut rng = Pcg64::seed_from_u64(7);
    let untouched = rng.clone();
    assert_eq!(sample_range(0, u64::MAX, 0, &mut rng, &Lemire), Ok(vec![]));
    assert_eq!(rng, untouched, "a word was drawn for an empty sample");
}

/// One number from the full range is the first raw word and nothing else: the sampler is not
/// asked for anything.
#[test]
fn one_from_the_full_range_is_the_first_word() {
    let mut rng = Pcg64::seed_from_u64(8);
    let mut expected = rng.clone();
    let sampler = Recording::default();
    assert_eq!(
        sample_range(0, u64::MAX, 1, &mut rng, &sampler),
        Ok(vec![expected.next_u64()])
    );
    assert_eq!(sampler.bounds(), Vec::<usize>::new());
    assert_eq!(rng, expected, "more than one word was drawn");
}

/// After the one raw draw for the bound 2^64, every further bound of the full range
/// (2^64 - 1, 2^64 - 2, …) fits in a `usize` and goes to the sampler, in order.
#[cfg(target_pointer_width = "64")]
#[test]
fn the_full_range_hands_every_later_bound_to_the_sampler() {
    let mut rng = Pcg64::seed_from_u64(9);
    let sampler = Recording::default();
    let picks = sample_range(0, u64::MAX, 4, &mut rng, &sampler).unwrap();
    assert_eq!(picks.len(), 4);
    assert_eq!(
        sampler.bounds(),
        [usize::MAX, usize::MAX - 1, usize::MAX - 2]
    );
}
