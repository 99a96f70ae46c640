//! Test support: a shuffler with an O(k) prefix shuffle (the `fairdeal-partial` contract,
//! written out here so these tests do not depend on another crate's schedule) and a
//! deliberately broken RNG for negative controls.
#![allow(dead_code, unreachable_pub)]

use core::convert::Infallible;
use fairdeal_core::rand_core::TryRng;
use fairdeal_core::{AlgorithmInfo, Complexity, IndexSampler, Lemire, Rng, ShuffleError, Shuffler};

/// Partial Fisher-Yates: `for i in 0..k { swap(i, i + index_below(n - i)) }`.
#[derive(Debug, Clone, Copy, Default)]
pub struct PartialFy;

impl Shuffler for PartialFy {
    fn info(&self) -> AlgorithmInfo {
        AlgorithmInfo {
            name: "partial-test",
            complexity: Complexity::Linear,
            fair: true,
            summary: "forward Fisher-Yates that can stop after k positions",
        }
    }
    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        let n = data.len();
        let _ = self.shuffle_prefix(data, n, rng);
    }
    fn shuffle_prefix<T, R: Rng + ?Sized>(
        &self,
        data: &mut [T],
        k: usize,
        rng: &mut R,
    ) -> Result<(), ShuffleError> {
        fairdeal_core::check_prefix(k, data.len())?;
        let n = data.len();
        for i in 0..k.min(n.saturating_sub(1)) {
            let j = i + Lemire.index_below(rng, n - i);
            data.swap(i, j);
        }
        Ok(())
    }
}

/// An RNG stuck at all ones: every bounded index is `bound - 1`. (All zeros would make an
/// exact rejection sampler such as Lemire's reject forever.)
#[derive(Debug, Clone, Copy, Default)]
pub struct Stuck;

impl TryRng for Stuck {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(u32::MAX)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(u64::MAX)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        dst.fill(0xFF);
        Ok(())
    }
}

/// A real generator with its top bit cleared: every bounded index lands in the lower half.
#[derive(Debug, Clone)]
pub struct HalfRange<R>(pub R);

impl<R: Rng> TryRng for HalfRange<R> {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.0.next_u32() >> 1)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.0.next_u64() >> 1)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.0.fill_bytes(dst);
        Ok(())
    }
}
