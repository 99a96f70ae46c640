//! Test doubles shared by the external shuffle's test files.

use std::convert::Infallible;
use std::path::Path;

use fairdeal_core::SeedableRng;
use fairdeal_core::rand_core::TryRng;

/// A generator that returns the same word forever, whatever its seed: labels 0, 1, …, 11 for
/// consecutive records (so the scatter keeps the input's order) and a fixed shuffle within each
/// bucket. The negative controls: every fairness test must reject it.
#[derive(Debug, Clone)]
pub(crate) struct Counting;

/// Twelve labels 0..12, five bits each.
const COUNTING_WORD: u64 = {
    let mut word = 0u64;
    let mut i = 0;
    while i < 12 {
        word |= (i as u64) << (5 * i);
        i += 1;
    }
    word
};

impl TryRng for Counting {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(COUNTING_WORD as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(COUNTING_WORD)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        dst.fill(0x5a);
        Ok(())
    }
}

impl SeedableRng for Counting {
    type Seed = [u8; 8];
    fn from_seed(_: [u8; 8]) -> Self {
        Self
    }
}

/// Record `i` padded to `width` bytes (with its newline), so its index can be read back.
pub(crate) fn record(i: usize, width: usize) -> Vec<u8> {
    let mut r = format!("{i:0>w$}", w = width - 1).into_bytes();
    r.push(b'\n');
    r
}

/// The indices of the records of `output`, in order.
pub(crate) fn indices(output: &[u8]) -> Vec<usize> {
    output
        .split(|&b| b == b'\n')
        .filter(|r| !r.is_empty())
        .map(|r| std::str::from_utf8(r).unwrap().parse().unwrap())
        .collect()
}

/// Whether `dir` holds nothing (no temporary file left behind).
pub(crate) fn is_empty_dir(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().next().is_none()
}
