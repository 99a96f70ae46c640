//! Golden vectors of `fairdeal-core`: the indices `Batched` rolls from a fixed generator, and
//! `stream_seed`. Every seeded shuffle, deal and simulation of the workspace is built on these,
//! so a change to either is a change of seeded output: deliberate, and listed in CHANGELOG.md
//! under "Changed (seeded output)".

use fairdeal_core::{Batched, IndexSampler, stream_seed};
use rand::SeedableRng;
use rand::rngs::ChaCha12Rng;

fn descending(seed: u64, high: usize, low: usize) -> Vec<usize> {
    let mut rng = ChaCha12Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    Batched.for_each_index_descending(&mut rng, high, low, |_, j| out.push(j));
    out
}

fn ascending(seed: u64, low: usize, high: usize) -> Vec<usize> {
    let mut rng = ChaCha12Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    Batched.for_each_index_ascending(&mut rng, low, high, |_, j| out.push(j));
    out
}

#[test]
fn batched_index_stream_of_a_deck() {
    // Bounds 52, 51, …, 2 (an in-place shuffle of a deck).
    assert_eq!(descending(1, 52, 2), GOLDEN_DECK_DOWN);
    // Bounds 2, 3, …, 52 (an inside-out shuffle of a deck).
    assert_eq!(ascending(1, 2, 52), GOLDEN_DECK_UP);
    // Bounds 52, …, 46 (a 7-card deal).
    assert_eq!(descending(2, 52, 46), GOLDEN_DEAL);
}

#[test]
fn batched_index_stream_of_a_larger_run() {
    // Bounds 1000 down to 2: the first twenty and the last ten indices.
    let down = descending(3, 1000, 2);
    assert_eq!(down.len(), 999);
    assert_eq!(down[..20], GOLDEN_1000_FIRST);
    assert_eq!(down[989..], GOLDEN_1000_LAST);
    // Bounds around 2^32 (one die per word there): the first five.
    let big = 1usize << 32;
    assert_eq!(descending(4, big + 2, big - 2), GOLDEN_2_POW_32);
}

#[test]
fn batched_indices_below() {
    let mut rng = ChaCha12Rng::seed_from_u64(5);
    let rolls: Vec<[usize; 3]> = (0..4)
        .map(|_| Batched.indices_below(&mut rng, [6, 6, 2]).unwrap())
        .collect();
    assert_eq!(rolls, GOLDEN_DICE);
}

#[test]
fn stream_seeds() {
    let got: Vec<u64> = [
        (0, 0),
        (0, 1),
        (42, 0),
        (42, 1),
        (42, 1000),
        (u64::MAX, u64::MAX),
    ]
    .iter()
    .map(|&(seed, stream)| stream_seed(seed, stream))
    .collect();
    assert_eq!(got, GOLDEN_STREAM_SEEDS);
}

// The expected values, from the version listed in CHANGELOG.md.
const GOLDEN_DECK_DOWN: [usize; 51] = [
    50, 33, 34, 41, 36, 13, 10, 18, 24, 19, 29, 1, 12, 12, 1, 27, 11, 9, 16, 3, 9, 13, 8, 0, 13,
    11, 20, 2, 4, 14, 5, 5, 0, 3, 6, 0, 13, 10, 10, 6, 8, 1, 9, 7, 7, 0, 0, 2, 1, 1, 0,
];
const GOLDEN_DECK_UP: [usize; 51] = [
    1, 2, 3, 1, 5, 3, 1, 4, 9, 3, 3, 12, 2, 11, 11, 5, 9, 16, 13, 17, 7, 0, 9, 10, 4, 26, 19, 14,
    11, 14, 13, 22, 32, 0, 8, 9, 24, 24, 13, 20, 27, 7, 24, 9, 18, 10, 39, 40, 33, 47, 7,
];
const GOLDEN_DEAL: [usize; 7] = [15, 23, 25, 19, 41, 2, 32];
const GOLDEN_1000_FIRST: [usize; 20] = [
    95, 208, 984, 723, 539, 652, 350, 370, 122, 764, 131, 772, 181, 630, 761, 864, 752, 74, 418,
    800,
];
const GOLDEN_1000_LAST: [usize; 10] = [3, 7, 2, 6, 0, 3, 2, 3, 2, 1];
const GOLDEN_2_POW_32: [usize; 5] = [2289231271, 2821654531, 2461110199, 2509114943, 2674039370];
const GOLDEN_DICE: [[usize; 3]; 4] = [[2, 0, 0], [0, 0, 0], [2, 4, 0], [3, 5, 1]];
const GOLDEN_STREAM_SEEDS: [u64; 6] = [
    12035550249420947055,
    9048247064618004702,
    6332618229526065668,
    12793939602564865923,
    14684649050317862810,
    7990113826305603916,
];
