//! Exact distributions by enumerating every random-draw path: a proof of fairness for small `n`,
//! not a χ² sample.
//!
//! A fair shuffle of `n` elements turns equally likely draw paths into orders so that every order
//! gets the same share. [`Enumerator::enumerate`] runs an algorithm once per draw path, under a
//! scripted source of randomness that answers each draw from an odometer: the first run takes the
//! smallest answer everywhere, each later run bumps the last answer that can still grow and drops
//! the draws after it, until every path was walked exactly once. The outcomes are then counted per
//! order.
//!
//! Two kinds of draws are scripted, both through the same odometer:
//!
//! * **index draws**, through the [`Scripted`] [`IndexSampler`]: "an index below `bound`"
//!   takes each of the `bound` values on one path each. This proves an *algorithm* fair given a
//!   fair sampler, whatever sampler it is later paired with, as long as that sampler hands out
//!   the same run of bounds as the default loops (which [`assert_runs_like_the_default`]
//!   checks black-box for samplers that batch draws, such as `Batched`);
//! * **raw words**, through the [`ScriptedWords`] generator: each `next_u32`/`next_u64` takes
//!   each of `2^bits` values, placed in the low or high bits of the word ([`Words`]). This
//!   proves a *sampler* (or an algorithm that reads raw bits, such as the parallel scatter's
//!   bucket labels) exact when its output depends only on those bits: the `2^(64 - bits)`
//!   words sharing them then behave alike, so each value stands for equally many real words.
//!
//! Paths are grouped by their probability (the product of the bounds drawn along them, with
//! `2^bits` for a word). A sampler that rejects and retries draws a variable number of times,
//! so an exact one gives every order the same number of paths *in every group*; a path that
//! would draw more than [`Enumerator::max_draws`] times is cut and counted as truncated (its
//! remaining draws get a fixed fallback answer so that the algorithm finishes, and its outcome
//! is ignored).
//!
//! ```
//! use fairdeal_core::{IndexSampler, Rng};
//! use fairdeal_testkit::enumerate::{Enumerator, Scripted};
//!
//! // Durstenfeld's loop on 3 elements: 3 · 2 = 6 paths, one per order.
//! let proof = Enumerator::indices().enumerate(|rng| {
//!     let mut v = [0usize, 1, 2];
//!     for i in (1..3).rev() {
//!         v.swap(i, Scripted.index_below(rng, i + 1));
//!     }
//!     v.to_vec()
//! });
//! assert_eq!(proof.assert_uniform(6), 1);
//! ```

use core::cell::{Cell, RefCell};
use core::convert::Infallible;
use std::collections::{BTreeMap, HashMap};

use fairdeal_core::{IndexSampler, Rng, SeedableRng, rand_core::TryRng};

/// Where the scripted bits of a raw word sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Words {
    /// The generator must not be read: index draws only (an algorithm paired with
    /// [`Scripted`]). Reading a raw word panics.
    None,
    /// The low `bits` bits of each word are scripted; the rest are 0. For readers of the low
    /// bits (the parallel scatter's bucket labels).
    Low(u32),
    /// The high `bits` bits of each word (of each `u32` for `next_u32`) are scripted; the rest
    /// are 0. For readers of the high bits (CPython's `getrandbits`).
    High(u32),
}

/// The settings of an enumeration: how raw words are scripted and where paths are cut.
#[derive(Debug, Clone, Copy)]
pub struct Enumerator {
    words: Words,
    max_draws: usize,
    fallback_word: u64,
}

impl Enumerator {
    /// Index draws only, at most 64 per path (no cut is needed: a Fisher-Yates variant on
    /// `n <= 6` draws fewer than 64 times).
    pub const fn indices() -> Self {
        Self {
            words: Words::None,
            max_draws: 64,
            fallback_word: 0,
        }
    }

    /// Index draws and raw words scripted as `words`, with paths cut after `max_draws` draws;
    /// a cut path's further words are `fallback_word` (pick one the algorithm accepts, so that
    /// it finishes) and its further indices 0.
    pub const fn words(words: Words, max_draws: usize, fallback_word: u64) -> Self {
        Self {
            words,
            max_draws,
            fallback_word,
        }
    }

    /// The most draws a path may take before it is cut.
    pub const fn max_draws(&self) -> usize {
        self.max_draws
    }

    /// Runs `run` once per draw path, with the scripted randomness installed (the [`Scripted`]
    /// sampler and the generator handed to `run` answer from the path), and counts the
    /// outcomes.
    ///
    /// # Panics
    ///
    /// If `run` is re-entered from inside itself, or reads a raw word under [`Words::None`].
    pub fn enumerate<O: Ord>(
        &self,
        mut run: impl FnMut(&mut ScriptedWords) -> O,
    ) -> Enumeration<O> {
        let mut result = Enumeration {
            groups: BTreeMap::new(),
            truncated: 0,
        };
        let mut next: Vec<usize> = Vec::new();
        loop {
            SCRIPT.with(|s| {
                let mut s = s.borrow_mut();
                assert!(!s.active, "enumerate is not re-entrant");
                *s = Script {
                    active: true,
                    settings: *self,
                    choices: core::mem::take(&mut next),
                    bounds: Vec::new(),
                    cut: false,
                    streams: HashMap::new(),
                    next_stream: 1,
                };
            });
            let outcome = run(&mut ScriptedWords::root());
            let (choices, bounds, cut) = SCRIPT.with(|s| {
                let mut s = s.borrow_mut();
                s.active = false;
                (
                    core::mem::take(&mut s.choices),
                    core::mem::take(&mut s.bounds),
                    s.cut,
                )
            });
            if cut {
                result.truncated += 1;
            } else {
                let weight = bounds.iter().map(|&b| b as u128).product::<u128>();
                *result
                    .groups
                    .entry(weight)
                    .or_default()
                    .entry(outcome)
                    .or_insert(0) += 1;
            }
            // Odometer: bump the last answer that can still grow, drop the ones after it.
            match (0..bounds.len())
                .rev()
                .find(|&i| choices[i] + 1 < bounds[i])
            {
                Some(i) => {
                    next = choices[..=i].to_vec();
                    next[i] += 1;
                }
                None => return result,
            }
        }
    }
}

/// The outcome counts of an enumeration, grouped by path probability.
#[derive(Debug, Clone)]
pub struct Enumeration<O> {
    /// Inverse path probability → outcome → number of paths.
    groups: BTreeMap<u128, BTreeMap<O, u64>>,
    truncated: u64,
}

impl<O: Ord + core::fmt::Debug> Enumeration<O> {
    /// Paths cut at [`Enumerator::max_draws`].
    pub fn truncated(&self) -> u64 {
        self.truncated
    }

    /// The groups: the inverse probability of one path (the product of its bounds) and how
    /// many paths of that probability end in each outcome.
    pub fn groups(&self) -> &BTreeMap<u128, BTreeMap<O, u64>> {
        &self.groups
    }

    /// Every finished path, counted per outcome regardless of its probability.
    pub fn paths_per_outcome(&self) -> BTreeMap<&O, u64> {
        let mut all = BTreeMap::new();
        for outcomes in self.groups.values() {
            for (o, &c) in outcomes {
                *all.entry(o).or_insert(0) += c;
            }
        }
        all
    }

    /// Whether, in every group of equally likely paths, exactly `outcomes` distinct outcomes
    /// occur, each on the same number of paths: the exact distribution is uniform over
    /// `outcomes` values (up to the truncated paths, which are the same for every outcome when
    /// this holds in every group).
    pub fn is_uniform(&self, outcomes: usize) -> bool {
        !self.groups.is_empty()
            && self.groups.values().all(|group| {
                let first = group.values().next().copied();
                group.len() == outcomes && group.values().all(|&c| Some(c) == first)
            })
    }

    /// [`is_uniform`](Self::is_uniform) as an assertion with a readable failure; returns the
    /// number of groups.
    ///
    /// # Panics
    ///
    /// When the distribution is not uniform over `outcomes` values.
    #[track_caller]
    pub fn assert_uniform(&self, outcomes: usize) -> usize {
        assert!(!self.groups.is_empty(), "no path finished");
        for (weight, group) in &self.groups {
            assert_eq!(
                group.len(),
                outcomes,
                "paths of probability 1/{weight} reach {} outcomes, not {outcomes}",
                group.len()
            );
            let (min, max) = (group.values().min(), group.values().max());
            assert_eq!(
                min, max,
                "paths of probability 1/{weight} are unevenly spread: {group:?}"
            );
        }
        self.groups.len()
    }
}

/// Every order of `[0, n)` produced by `shuffle` on the same number of equally likely draw
/// paths, with index draws scripted ([`Enumerator::indices`]); `shuffle` receives the
/// [`Scripted`] sampler's generator and the slice. Returns the enumeration for further checks.
///
/// # Panics
///
/// When some order is reached on more paths than another, or not at all.
#[track_caller]
pub fn assert_every_order_equally_likely(
    n: usize,
    mut shuffle: impl FnMut(&mut [usize], &mut ScriptedWords),
) -> Enumeration<Vec<usize>> {
    let proof = Enumerator::indices().enumerate(|rng| {
        let mut v: Vec<usize> = (0..n).collect();
        shuffle(&mut v, rng);
        v
    });
    proof.assert_uniform(crate::factorial(n));
    proof
}

/// `n! / (n - k)!`: the number of ordered hands of `k` distinct elements out of `n`.
pub fn ordered_hands(n: usize, k: usize) -> usize {
    (n - k + 1..=n).product()
}

/// The odometer's state for the run in progress on this thread.
struct Script {
    active: bool,
    settings: Enumerator,
    /// The answers of this path so far (replayed from the previous path up to its bumped draw).
    choices: Vec<usize>,
    /// The bound of each answered draw.
    bounds: Vec<usize>,
    /// Whether the path hit `max_draws`.
    cut: bool,
    /// Raw words already drawn per (stream, position), so that a generator re-seeded with the
    /// same seed replays them.
    streams: HashMap<(u64, u64), u64>,
    /// The id the next seeded stream gets.
    next_stream: u64,
}

impl Script {
    /// The answer to the next draw with `bound` possible values, or `None` once the path is
    /// cut.
    fn draw(&mut self, bound: usize) -> Option<usize> {
        assert!(self.active, "scripted randomness used outside `enumerate`");
        let step = self.bounds.len();
        if self.cut || step >= self.settings.max_draws {
            self.cut = true;
            return None;
        }
        self.bounds.push(bound);
        if step == self.choices.len() {
            self.choices.push(0);
        }
        Some(self.choices[step])
    }
}

thread_local! {
    static SCRIPT: RefCell<Script> = RefCell::new(Script {
        active: false,
        settings: Enumerator::indices(),
        choices: Vec::new(),
        bounds: Vec::new(),
        cut: false,
        streams: HashMap::new(),
        next_stream: 1,
    });
}

/// The [`IndexSampler`] whose answers come from the enumeration in progress on this thread
/// (each index below `bound` on its own path). A unit type, so it is `Copy` and fits any
/// algorithm's sampler parameter. Its bounded-run loops are the trait's defaults: one draw per
/// bound, in order.
///
/// # Panics
///
/// When used outside [`Enumerator::enumerate`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scripted;

impl IndexSampler for Scripted {
    fn index_below<R: Rng + ?Sized>(&self, _rng: &mut R, bound: usize) -> usize {
        assert!(bound >= 1, "index_below(0) breaks the sampler contract");
        SCRIPT.with(|s| s.borrow_mut().draw(bound)).unwrap_or(0)
    }
}

/// A generator whose words come from the enumeration in progress on this thread, as set by
/// [`Words`]. Seeding is deterministic bookkeeping, not randomness: [`fill_bytes`] hands out a
/// fresh stream id, and a generator seeded with the same bytes replays the same stream (so the
/// parallel scatter's two passes over one label stream see the same labels).
///
/// [`fill_bytes`]: Rng::fill_bytes
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptedWords {
    stream: u64,
    position: u64,
}

impl ScriptedWords {
    fn root() -> Self {
        Self {
            stream: 0,
            position: 0,
        }
    }

    /// The next scripted word, with the scripted bits in place for a `width`-bit word.
    fn word(&mut self, width: u32) -> u64 {
        let key = (self.stream, self.position);
        self.position += 1;
        SCRIPT.with(|s| {
            let mut s = s.borrow_mut();
            if let Some(&w) = s.streams.get(&key) {
                return w;
            }
            let (bits, high) = match s.settings.words {
                Words::None => panic!("the algorithm read a raw word, but words are not scripted"),
                Words::Low(bits) => (bits, false),
                Words::High(bits) => (bits, true),
            };
            let bits = bits.min(width);
            let word = match s.draw(1 << bits) {
                Some(t) if high && bits > 0 => (t as u64) << (width - bits),
                Some(t) => t as u64,
                None => s.settings.fallback_word >> (64 - width),
            };
            s.streams.insert(key, word);
            word
        })
    }
}

impl TryRng for ScriptedWords {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.word(32) as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.word(64))
    }
    /// Writes a fresh stream id: the bytes are a seed for [`SeedableRng::from_seed`].
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        let id = SCRIPT.with(|s| {
            let mut s = s.borrow_mut();
            let id = s.next_stream;
            s.next_stream += 1;
            id
        });
        dst.fill(0);
        let bytes = id.to_le_bytes();
        let len = dst.len().min(bytes.len());
        dst[..len].copy_from_slice(&bytes[..len]);
        Ok(())
    }
}

impl SeedableRng for ScriptedWords {
    type Seed = [u8; 8];
    fn from_seed(seed: [u8; 8]) -> Self {
        Self {
            stream: u64::from_le_bytes(seed),
            position: 0,
        }
    }
}

/// Checks black-box that `sampler`'s bounded-run loops hand out what the default loops do —
/// the bounds `high, high - 1, …, low` (or ascending), each exactly once, in order, every index
/// below its bound — and that every group of indices decided by one batch of raw words has a
/// product of bounds that fits in a `u64` (the condition under which a batch of dice split from
/// one 64-bit word is exact).
///
/// Together with an enumeration of the algorithm under [`Scripted`] (fair for a fair one-draw
/// sampler) and an exhaustive check of one batch (`fairdeal-core`'s own tests enumerate every
/// 16-bit word), this proves the algorithm fair with the batching sampler, without depending on
/// how it chooses its batches.
///
/// `runs` are the `(high, low)` pairs to check; both directions are checked for each.
///
/// # Panics
///
/// When a loop skips, repeats or reorders a bound, returns an index out of range, or decides a
/// batch whose bounds multiply past `u64::MAX`.
#[track_caller]
pub fn assert_runs_like_the_default<S: IndexSampler>(
    sampler: &S,
    runs: impl IntoIterator<Item = (usize, usize)>,
) {
    let mut rng = CountingWords::default();
    for (high, low) in runs {
        for descending in [true, false] {
            // (bound, index, words drawn when the index was handed out)
            let mut seen: Vec<(usize, usize, u64)> = Vec::new();
            let mut record = |b: usize, i: usize| seen.push((b, i, WORDS_DRAWN.with(Cell::get)));
            if descending {
                sampler.for_each_index_descending(&mut rng, high, low, &mut record);
            } else {
                sampler.for_each_index_ascending(&mut rng, low, high, &mut record);
            }
            let mut expected: Vec<usize> = (low.max(1)..=high).collect();
            if descending {
                expected.reverse();
            }
            let bounds: Vec<usize> = seen.iter().map(|&(b, _, _)| b).collect();
            assert_eq!(
                bounds, expected,
                "run {high}..{low} (descending: {descending}): wrong bounds"
            );
            for &(bound, index, _) in &seen {
                assert!(index < bound, "index {index} not below {bound}");
            }
            // Indices handed out after the same number of words belong to one batch.
            let mut start = 0;
            while start < seen.len() {
                let words = seen[start].2;
                let end = start + seen[start..].iter().take_while(|s| s.2 == words).count();
                let product = seen[start..end]
                    .iter()
                    .try_fold(1u64, |p, &(b, _, _)| p.checked_mul(b as u64));
                assert!(
                    product.is_some(),
                    "run {high}..{low}: one batch of bounds {:?} does not fit in 64 bits",
                    &bounds[start..end]
                );
                start = end;
            }
        }
    }
}

thread_local! {
    /// How many words [`CountingWords`] has handed out on this thread.
    static WORDS_DRAWN: Cell<u64> = const { Cell::new(0) };
}

/// A splitmix64 generator that counts the words it hands out (in a thread-local, so the
/// callback of a bounded-run loop can read it while the loop holds the generator).
#[derive(Debug, Default)]
struct CountingWords {
    state: u64,
}

impl TryRng for CountingWords {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok((self.try_next_u64()? >> 32) as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        WORDS_DRAWN.with(|w| w.set(w.get() + 1));
        Ok(crate::splitmix64_next(&mut self.state))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(8) {
            let word = self.try_next_u64()?.to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_odometer_walks_every_path_once() {
        let proof = Enumerator::indices().enumerate(|rng| {
            let a = Scripted.index_below(rng, 3);
            let b = Scripted.index_below(rng, 2);
            (a, b)
        });
        assert_eq!(proof.groups().len(), 1);
        let group = &proof.groups()[&6];
        assert_eq!(group.len(), 6);
        assert!(group.values().all(|&c| c == 1));
        assert!(proof.is_uniform(6));
        assert!(!proof.is_uniform(5));
    }

    #[test]
    fn an_uneven_map_is_not_uniform() {
        // max of two coin flips: 0 on one path, 1 on three.
        let proof = Enumerator::indices().enumerate(|rng| {
            Scripted
                .index_below(rng, 2)
                .max(Scripted.index_below(rng, 2))
        });
        assert!(!proof.is_uniform(2));
    }

    #[test]
    fn rejection_is_grouped_by_path_probability_and_cut() {
        // A die of 3 from 2-bit words, retrying 3: exact, with paths of every length.
        let proof = Enumerator::words(Words::High(2), 4, 0).enumerate(|rng| {
            loop {
                let r = rng.next_u32() >> 30;
                if r < 3 {
                    return r;
                }
            }
        });
        assert_eq!(proof.assert_uniform(3), 4);
        assert_eq!(proof.truncated(), 1);
        // Taking r mod 3 instead of retrying is biased (0 on two words of four).
        let proof =
            Enumerator::words(Words::High(2), 4, 0).enumerate(|rng| (rng.next_u32() >> 30) % 3);
        assert!(!proof.is_uniform(3));
    }

    #[test]
    fn a_reseeded_stream_replays_its_words() {
        let proof = Enumerator::words(Words::Low(1), 8, 0).enumerate(|rng| {
            let mut seed = [0u8; 8];
            rng.fill_bytes(&mut seed);
            let a = ScriptedWords::from_seed(seed).next_u64();
            let b = ScriptedWords::from_seed(seed).next_u64();
            assert_eq!(a, b);
            a
        });
        assert_eq!(proof.assert_uniform(2), 1);
    }

    #[test]
    fn the_default_loops_pass_the_run_check() {
        assert_runs_like_the_default(&fairdeal_core::Lemire, [(6, 2), (1, 1), (0, 1), (100, 0)]);
    }

    /// A sampler that batches every run into one word, however long: fine for short runs,
    /// overflowing for long ones. The check must see the overflow.
    struct Greedy;
    impl IndexSampler for Greedy {
        fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
            fairdeal_core::Lemire.index_below(rng, bound)
        }
        fn for_each_index_descending<R, F>(&self, rng: &mut R, high: usize, low: usize, mut f: F)
        where
            R: Rng + ?Sized,
            F: FnMut(usize, usize),
        {
            let x = rng.next_u64() as usize;
            for b in (low.max(1)..=high).rev() {
                f(b, x % b);
            }
        }
    }

    #[test]
    #[should_panic(expected = "does not fit in 64 bits")]
    fn the_run_check_rejects_an_overflowing_batch() {
        assert_runs_like_the_default(&Greedy, [(40, 2)]);
    }
}
