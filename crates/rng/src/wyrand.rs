//! fastrand's wyrand generator behind the `rand_core` traits.

use core::convert::Infallible;

use rand_core::{SeedableRng, TryRng};

/// `fastrand::Rng` (wyrand) as a [`rand_core`] generator, so fairdeal's algorithms and any
/// `rand` code can use it.
///
/// `fastrand` has its own API and does not implement `rand_core`'s traits; this adapter does,
/// without changing a single output: [`WyRand::new(seed)`](WyRand::new) is
/// `fastrand::Rng::with_seed(seed)`, [`next_u64`](rand_core::Rng::next_u64) is
/// `rng.u64(..)` and [`next_u32`](rand_core::Rng::next_u32) is `rng.u32(..)` (the low half of
/// one 64-bit output). [`fill_bytes`](rand_core::Rng::fill_bytes) writes each 64-bit output
/// little-endian on every platform (fastrand's own `fill` uses native byte order; the two agree
/// on little-endian machines).
///
/// wyrand is a 64-bit Weyl sequence passed through a 128-bit multiply-fold: tiny and very fast,
/// period 2^64, **not cryptographic**, and with 64 bits of state it reaches at most 2^64 of the
/// 52! ≈ 2^225.6 deck orders (every order only up to 20 elements).
///
/// ```
/// use fairdeal_rng::WyRand;
/// use fairdeal_core::Rng;
/// let mut ours = WyRand::new(7);
/// let mut theirs = fastrand::Rng::with_seed(7);
/// assert_eq!(ours.next_u64(), theirs.u64(..));
/// assert_eq!(ours.next_u32(), theirs.u32(..));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WyRand(fastrand::Rng);

impl WyRand {
    /// `fastrand::Rng::with_seed(seed)`.
    pub fn new(seed: u64) -> Self {
        Self(fastrand::Rng::with_seed(seed))
    }

    /// Wraps an existing `fastrand` generator, continuing its sequence.
    pub fn from_fastrand(rng: fastrand::Rng) -> Self {
        Self(rng)
    }

    /// Unwraps into the `fastrand` generator, which continues the same sequence.
    pub fn into_fastrand(self) -> fastrand::Rng {
        self.0
    }
}

impl TryRng for WyRand {
    type Error = Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.0.u32(..))
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.0.u64(..))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(8) {
            let word = self.0.u64(..).to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        Ok(())
    }
}

impl SeedableRng for WyRand {
    /// The 64-bit state, little-endian.
    type Seed = [u8; 8];

    fn from_seed(seed: [u8; 8]) -> Self {
        Self::new(u64::from_le_bytes(seed))
    }

    /// `fastrand::Rng::with_seed(state)`: the same stream a fastrand user gets from that seed.
    fn seed_from_u64(state: u64) -> Self {
        Self::new(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::Rng;

    #[test]
    fn identical_to_fastrand() {
        let mut ours = WyRand::seed_from_u64(12345);
        let mut theirs = fastrand::Rng::with_seed(12345);
        for _ in 0..1000 {
            assert_eq!(ours.next_u64(), theirs.u64(..));
            assert_eq!(ours.next_u32(), theirs.u32(..));
        }
        let mut bytes = [0u8; 13];
        ours.fill_bytes(&mut bytes);
        let mut expected = [0u8; 16];
        expected[..8].copy_from_slice(&theirs.u64(..).to_le_bytes());
        expected[8..].copy_from_slice(&theirs.u64(..).to_le_bytes());
        assert_eq!(bytes, expected[..13]);
        assert_eq!(ours.into_fastrand(), theirs);
        assert_eq!(
            WyRand::from_seed(9u64.to_le_bytes()),
            WyRand::from_fastrand(fastrand::Rng::with_seed(9))
        );
    }
}
