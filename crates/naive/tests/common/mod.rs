//! Test helpers shared by this crate's integration tests: permutation ranks, a chi-square
//! p-value, a sampler that records its bounds and a deliberately broken RNG.
//!
//! Each algorithm crate carries its own copy so that the crates stay independent of each other
//! and of `fairdeal-fairness`.
#![allow(dead_code, unreachable_pub)]

use core::cell::RefCell;
use core::convert::Infallible;

use fairdeal_core::{IndexSampler, Lemire, Rng, rand_core::TryRng};
use statrs::distribution::{ChiSquared, ContinuousCDF};

/// Lexicographic rank (Lehmer code) of a permutation of `0..n`: `[0, 1, 2]` is 0, `[2, 1, 0]`
/// is `n! - 1`.
pub fn lehmer_rank(perm: &[usize]) -> usize {
    let n = perm.len();
    let mut rank = 0;
    for i in 0..n {
        let smaller_later = perm[i + 1..].iter().filter(|&&x| x < perm[i]).count();
        rank = rank * (n - i) + smaller_later;
    }
    rank
}

/// `n!` for the small `n` these tests use.
pub fn factorial(n: usize) -> usize {
    (1..=n).product()
}

/// Pearson's chi-square statistic against equal expected counts, and its p-value.
pub fn chi_square_uniform(counts: &[u64]) -> (f64, f64) {
    let total: u64 = counts.iter().sum();
    let expected = total as f64 / counts.len() as f64;
    let chi2: f64 = counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum();
    let df = (counts.len() - 1) as f64;
    let p = 1.0 - ChiSquared::new(df).unwrap().cdf(chi2);
    (chi2, p)
}

/// Runs `shuffle` on `[0, 1, …, n-1]` `trials` times, counts every one of the `n!` orders and
/// returns the chi-square p-value of "all orders equally likely".
pub fn permutation_p_value(n: usize, trials: u64, mut shuffle: impl FnMut(&mut [usize])) -> f64 {
    let mut counts = vec![0u64; factorial(n)];
    let mut v: Vec<usize> = Vec::with_capacity(n);
    for _ in 0..trials {
        v.clear();
        v.extend(0..n);
        shuffle(&mut v);
        counts[lehmer_rank(&v)] += 1;
    }
    chi_square_uniform(&counts).1
}

/// A [`Lemire`] sampler that also writes down every bound it is asked for.
#[derive(Debug, Default)]
pub struct Recording {
    bounds: RefCell<Vec<usize>>,
}

impl Recording {
    /// The bounds requested so far, in order.
    pub fn bounds(&self) -> Vec<usize> {
        self.bounds.borrow().clone()
    }
}

impl IndexSampler for Recording {
    fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
        self.bounds.borrow_mut().push(bound);
        Lemire.index_below(rng, bound)
    }
}

/// A broken generator that returns the same word forever.
///
/// Pick a word whose products with the bounds in use do not land in Lemire's rejection zone
/// (0 does, for most bounds): otherwise the sampler rejects it forever and the test hangs.
#[derive(Debug, Clone, Copy)]
pub struct Stuck(pub u64);

impl TryRng for Stuck {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.0 as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.0)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        dst.fill(self.0 as u8);
        Ok(())
    }
}
