//! Proof by enumeration (fairdeal-testkit's `enumerate`): the scatter shuffle with tiny leaves
//! and two buckets per scatter gives every order of `[0, n)`, n <= 4, the same number of
//! equally likely draw paths. Both kinds of randomness are scripted: the bucket labels (raw
//! words, whose low n bits carry the labels) and the leaves' index draws. A scatter that puts
//! every element in one bucket repeats itself, so paths are cut after a few draws; every
//! group of equally likely finished paths is checked (`assert_uniform`).
//!
//! Uses only the public API (`with_sampler`, `with_shape`, `shuffle_sequential`, which gives
//! the same result as the parallel `shuffle`).

use fairdeal_core::IndexSampler;
use fairdeal_parallel::Parallel;
use fairdeal_testkit::enumerate::{Enumerator, Scripted, Words};
use fairdeal_testkit::factorial;

/// Alternating labels 0, 1, 0, 1, …: splits any bucket of two or more, so a cut path ends.
const SPLITTING_WORD: u64 = 0xAAAA_AAAA_AAAA_AAAA;

#[test]
fn tiny_leaves_give_every_order_the_same_number_of_paths() {
    let elem = core::mem::size_of::<usize>();
    for (n, leaf_len, max_draws) in [(2, 1, 4), (3, 1, 4), (3, 2, 4), (4, 1, 4), (4, 2, 4)] {
        let shuffle = Parallel::with_sampler(Scripted)
            .with_shape(leaf_len * elem, 1)
            .unwrap()
            .with_whole(0);
        let proof =
            Enumerator::words(Words::Low(n as u32), max_draws, SPLITTING_WORD).enumerate(|rng| {
                let mut v: Vec<usize> = (0..n).collect();
                shuffle.shuffle_sequential(&mut v, rng);
                v
            });
        let groups = proof.assert_uniform(factorial(n));
        assert!(groups >= 2, "n = {n}: only {groups} group(s) of paths");
    }
}

/// Rounds every draw of a scripted die one larger down: the last index is twice as likely.
#[derive(Debug, Clone, Copy)]
struct Clamped;

impl IndexSampler for Clamped {
    fn index_below<R: fairdeal_core::Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
        Scripted.index_below(rng, bound + 1).min(bound - 1)
    }
}

#[test]
fn the_same_proof_rejects_leaves_with_a_biased_sampler() {
    let shuffle = Parallel::with_sampler(Clamped)
        .with_shape(2 * core::mem::size_of::<usize>(), 1)
        .unwrap()
        .with_whole(0);
    let proof = Enumerator::words(Words::Low(3), 4, SPLITTING_WORD).enumerate(|rng| {
        let mut v: Vec<usize> = (0..3).collect();
        shuffle.shuffle_sequential(&mut v, rng);
        v
    });
    assert!(!proof.is_uniform(factorial(3)));
}
