//! Test support: deliberately broken RNGs for negative controls.
#![allow(dead_code, unreachable_pub)]

use core::convert::Infallible;
use fairdeal_core::Rng;
use fairdeal_core::rand_core::TryRng;

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
