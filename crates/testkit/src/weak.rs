//! Historically weak generators, kept as negative controls for the shuffle-quality battery
//! (`fairdeal_fairness::run_battery`): each must fail at least one of its tests.
//!
//! They implement `rand_core`'s traits like any backend, so every algorithm and test runs them
//! unchanged. None of them belongs anywhere but a test.

use core::convert::Infallible;

use fairdeal_core::SeedableRng;
use fairdeal_core::rand_core::TryRng;

/// A 16-bit linear congruential generator, `x ← 25173·x + 13849 (mod 2^16)`, the kind of
/// `rand()` old C libraries and home computers shipped. Its whole state is 16 bits, so it
/// repeats after 65,536 outputs and can start from only 65,536 places; a 64-bit word is four
/// consecutive outputs, most significant first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lcg16(pub u16);

impl Lcg16 {
    fn step(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(25173).wrapping_add(13849);
        u64::from(self.0)
    }
}

impl TryRng for Lcg16 {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(((self.step() << 16) | self.step()) as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok((self.step() << 48) | (self.step() << 32) | (self.step() << 16) | self.step())
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(2) {
            let bytes = (self.step() as u16).to_be_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
        Ok(())
    }
}

impl SeedableRng for Lcg16 {
    type Seed = [u8; 2];
    fn from_seed(seed: [u8; 2]) -> Self {
        Self(u16::from_le_bytes(seed))
    }
    /// The seed's low 16 bits, as such generators were seeded (`srand(seed)`).
    fn seed_from_u64(state: u64) -> Self {
        Self(state as u16)
    }
}

/// IBM's RANDU, `x ← 65539·x (mod 2^31)` from an odd seed: the textbook bad generator, whose
/// consecutive triples satisfy `x₂ = 6x₁ − 9x₀ (mod 2^31)` and so lie on 15 planes. A 32-bit
/// output is one state shifted left by one bit; a 64-bit word is two outputs, first one high.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Randu(u32);

impl Randu {
    /// RANDU started from `seed`, forced odd and below 2^31 as the generator requires.
    pub const fn new(seed: u32) -> Self {
        Self((seed | 1) & 0x7fff_ffff)
    }

    fn step(&mut self) -> u32 {
        self.0 = ((u64::from(self.0) * 65539) & 0x7fff_ffff) as u32;
        self.0
    }
}

impl TryRng for Randu {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.step() << 1)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let high = u64::from(self.step()) << 33;
        Ok(high | (u64::from(self.step()) << 1))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(4) {
            let bytes = (self.step() << 1).to_be_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
        Ok(())
    }
}

impl SeedableRng for Randu {
    type Seed = [u8; 4];
    fn from_seed(seed: [u8; 4]) -> Self {
        Self::new(u32::from_le_bytes(seed))
    }
    /// The seed's low 31 bits, made odd.
    fn seed_from_u64(state: u64) -> Self {
        Self::new(state as u32)
    }
}

/// A good generator used the way a program that seeds from the clock uses it: every block of
/// `block` words is followed by the same block again, as if the generator had been re-created
/// with the same seed (two games started within one clock tick). Each shuffle on its own is
/// drawn from good words, so single-shuffle tests pass; consecutive shuffles are identical
/// half the time, which the serial test must catch.
#[derive(Debug, Clone)]
pub struct Replay<R> {
    inner: R,
    block: usize,
    recorded: Vec<u64>,
    position: usize,
    replaying: bool,
}

impl<R> Replay<R> {
    /// Replays every block of `block` (at least 1) words from `inner` once.
    pub fn new(inner: R, block: usize) -> Self {
        Self {
            inner,
            block: block.max(1),
            recorded: Vec::new(),
            position: 0,
            replaying: false,
        }
    }
}

impl<R: fairdeal_core::Rng> TryRng for Replay<R> {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok((self.try_next_u64()? >> 32) as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let word = if self.replaying {
            self.recorded[self.position]
        } else {
            let word = self.inner.next_u64();
            self.recorded.push(word);
            word
        };
        self.position += 1;
        if self.position == self.block {
            self.position = 0;
            if self.replaying {
                self.recorded.clear();
            }
            self.replaying = !self.replaying;
        }
        Ok(word)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(8) {
            let bytes = self.try_next_u64()?.to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairdeal_core::Rng;

    #[test]
    fn lcg16_repeats_after_65536_outputs() {
        let mut rng = Lcg16(1);
        let start = rng;
        let mut period = 0u32;
        loop {
            rng.step();
            period += 1;
            if rng == start {
                break;
            }
        }
        assert_eq!(period, 1 << 16);
    }

    #[test]
    fn replay_repeats_each_block_once() {
        let mut rng = Replay::new(Lcg16(7), 3);
        let words: Vec<u64> = (0..12).map(|_| rng.next_u64()).collect();
        assert_eq!(words[0..3], words[3..6]);
        assert_eq!(words[6..9], words[9..12]);
        assert_ne!(words[0..3], words[6..9]);
    }

    #[test]
    fn randu_triples_lie_on_its_planes() {
        let mut rng = Randu::new(1);
        for _ in 0..1000 {
            let (x0, x1, x2) = (
                i64::from(rng.step()),
                i64::from(rng.step()),
                i64::from(rng.step()),
            );
            assert_eq!((x2 - 6 * x1 + 9 * x0).rem_euclid(1 << 31), 0);
        }
        assert_eq!(Randu::new(2).next_u32() >> 1, 65539 * 3);
    }
}
