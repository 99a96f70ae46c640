//! Proofs by enumeration (fairdeal-testkit's `enumerate`) for the bit-exact samplers'
//! shuffles, which are fairdeal's in-place Fisher-Yates with one draw per bound (the loop of
//! `Collections.shuffle` and `random.shuffle`).
//!
//! `PythonSampler` reads only the top `bit_length(bound)` bits of each 32-bit word, so it is
//! enumerated down to the raw words: every word's top 3 bits take all 8 values (each standing
//! for the same number of real words), rejected values retry, and every group of equally likely
//! paths gives every order the same count. `JavaSampler` reduces all 31 bits modulo the bound,
//! so a few scripted bits cannot stand for all words; its loop is the same default loop that
//! fairdeal-inplace's tests/exact.rs proves under the scripted sampler, and its draws are pinned
//! to the JDK's by tests/bit_exact.rs.

use fairdeal_core::{IndexSampler, Rng, Shuffler};
use fairdeal_inplace::Inplace;
use fairdeal_rng::PythonSampler;
use fairdeal_testkit::enumerate::{Enumerator, Words};
use fairdeal_testkit::factorial;

/// Top 3 bits of each word scripted (enough for every bound up to 7); paths with more than
/// `n + 1` words are cut. The fallback word 0 is accepted by every bound.
fn python_words(n: usize) -> Enumerator {
    Enumerator::words(Words::High(3), n + 1, 0)
}

#[test]
fn python_shuffle_is_exact_down_to_the_raw_words() {
    for n in 1..=5 {
        let proof = python_words(n).enumerate(|rng| {
            let mut v: Vec<usize> = (0..n).collect();
            Inplace::with_sampler(PythonSampler).shuffle(&mut v, rng);
            v
        });
        let groups = proof.assert_uniform(factorial(n));
        // Paths with no, one and more rejections (n = 1 draws nothing).
        assert!(n == 1 || groups >= 2, "n = {n}: {groups} groups");
    }
}

/// CPython's sampler with the retry replaced by a modulo: `getrandbits(k) % n`.
struct ModuloPython;

impl IndexSampler for ModuloPython {
    fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
        let k = usize::BITS - bound.leading_zeros();
        (rng.next_u32() >> (32 - k)) as usize % bound
    }
}

#[test]
fn the_same_proof_rejects_a_modulo_instead_of_a_retry() {
    let proof = python_words(3).enumerate(|rng| {
        let mut v: Vec<usize> = (0..3).collect();
        Inplace::with_sampler(ModuloPython).shuffle(&mut v, rng);
        v
    });
    assert!(!proof.is_uniform(6));
}
