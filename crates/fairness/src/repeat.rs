//! The repeat test: how many lines repeat an earlier one (the whole order, or its first `k`
//! items), against the exact birthday-problem distribution.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use fairdeal_core::{Rng, Shuffler};
use statrs::function::gamma::ln_gamma;

use crate::position::{MAX_POSITION_N, MIN_POSITION_N};
use crate::tally::{check_permutation, check_size, impl_tally, tally_shuffles};
use crate::{FairnessError, FairnessReport, TestKind};

/// The most lines a [`RepeatTally`] remembers: 2²² keys of 16 bytes (about 100 MiB with the
/// hash set's overhead). Later lines are not counted by the repeat test (its `trials` says how
/// many were).
pub const MAX_REPEAT_LINES: u64 = 1 << 22;

/// The most work the exact p-value does (`trials × repeats` steps); above it the p-value of a
/// smaller repeat count is reported, which is larger, so the test stays valid (conservative).
const EXACT_BUDGET: u64 = 200_000_000;

/// Counts lines that repeat an earlier line — the whole order (`k = n`) or its first `k`
/// items (a dealt hand) — for the repeat test.
///
/// Repeated deals are the signature of seed reuse and small seed spaces: a dealer seeding
/// from a 16-bit value has at most 65,536 decks, so 10,000 deals repeat about 760 of them,
/// while a fair 52-card shuffle repeats none in any file anyone can read. Under a fair shuffle
/// each line's key is uniform over `N = n!/(n - k)!` values, so the number of repeats `R`
/// (lines minus distinct keys) has the classical occupancy distribution; the report's
/// `p_value` is `P(R >= observed)`, computed exactly by a recursion over the lines (one-sided:
/// too *few* repeats is not what this test looks for). `counts` is `[repeats]`, `chi2` the
/// number of repeats, `df` is `k`.
///
/// ```
/// use fairdeal_fairness::RepeatTally;
/// let mut tally = RepeatTally::new(52, 52)?;
/// let deck: Vec<usize> = (0..52).collect();
/// tally.add(&deck)?;
/// tally.add(&deck)?; // the same deck twice: impossible for a fair shuffle
/// let report = tally.report()?;
/// assert_eq!(report.counts, [1]);
/// assert!(report.p_value < 1e-60);
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
#[derive(Debug, Clone)]
pub struct RepeatTally {
    n: usize,
    k: usize,
    trials: u64,
    repeats: u64,
    keys: HashSet<u128>,
    seen: Vec<bool>,
}

impl RepeatTally {
    /// An empty tally of repeated orders (`k = n`) or repeated leading `k`-item hands.
    ///
    /// # Errors
    ///
    /// [`FairnessError::SizeOutOfRange`] unless `2 <= n <= 1024`,
    /// [`FairnessError::PrefixOutOfRange`] unless `1 <= k <= n`.
    pub fn new(n: usize, k: usize) -> Result<Self, FairnessError> {
        check_size(TestKind::Repeat, n, MIN_POSITION_N, MAX_POSITION_N)?;
        if !(1..=n).contains(&k) {
            return Err(FairnessError::PrefixOutOfRange { k, n });
        }
        Ok(Self {
            n,
            k,
            trials: 0,
            repeats: 0,
            keys: HashSet::new(),
            seen: vec![false; n],
        })
    }

    /// The hand length this tally compares (`n` for whole orders).
    pub fn k(&self) -> usize {
        self.k
    }

    /// Counts one permutation (nothing once [`MAX_REPEAT_LINES`] were counted).
    ///
    /// # Errors
    ///
    /// [`FairnessError::NotAPermutation`] unless `perm` is an ordering of `[0, n)`.
    pub fn add(&mut self, perm: &[usize]) -> Result<(), FairnessError> {
        check_permutation(perm, self.n, &mut self.seen)?;
        if self.trials >= MAX_REPEAT_LINES {
            return Ok(());
        }
        let hand = &perm[..self.k];
        // Exact when the hand fits in 128 bits as base-n digits, else two independent 64-bit
        // hashes (a false repeat needs a 128-bit collision: never, in any file).
        let digits = (self.n as f64).log2() * self.k as f64;
        let key = if digits < 127.0 {
            hand.iter()
                .fold(0u128, |key, &item| key * self.n as u128 + item as u128)
        } else {
            let half = |salt: u8| {
                let mut hasher = DefaultHasher::new();
                salt.hash(&mut hasher);
                hand.hash(&mut hasher);
                hasher.finish()
            };
            (u128::from(half(1)) << 64) | u128::from(half(2))
        };
        if !self.keys.insert(key) {
            self.repeats += 1;
        }
        self.trials += 1;
        Ok(())
    }

    /// How many lines were counted.
    pub fn trials(&self) -> u64 {
        self.trials
    }

    /// How many counted lines repeat an earlier one.
    pub fn repeats(&self) -> u64 {
        self.repeats
    }

    /// The repeat test's report: `counts = [repeats]`, `p_value = P(R >= repeats)` exactly.
    ///
    /// # Errors
    ///
    /// [`FairnessError::ZeroTrials`] before the first [`add`](Self::add).
    pub fn report(&self) -> Result<FairnessReport, FairnessError> {
        if self.trials == 0 {
            return Err(FairnessError::ZeroTrials);
        }
        Ok(FairnessReport {
            test: TestKind::Repeat,
            n: self.n,
            trials: self.trials,
            counts: vec![self.repeats],
            chi2: self.repeats as f64,
            df: self.k as u64,
            p_value: repeat_p_value(self.trials, ln_outcomes(self.n, self.k), self.repeats),
        })
    }
}

impl_tally!(RepeatTally);

/// `ln(n!/(n - k)!)`: the log of the number of distinct leading `k`-item hands.
pub(crate) fn ln_outcomes(n: usize, k: usize) -> f64 {
    ln_gamma(n as f64 + 1.0) - ln_gamma((n - k) as f64 + 1.0)
}

/// `P(R >= repeats)` where `R` is the number of repeats among `trials` uniform draws from
/// `exp(ln_outcomes)` values.
///
/// The recursion: after `t` draws with `j` repeats there are `t - j` distinct values, so the
/// next draw repeats with probability `(t - j)/N`. States `j >= cap` are merged into one
/// absorbing state, whose probability is the answer, accumulated from small terms so tiny
/// p-values keep their precision. The cap is `repeats`, or less when `trials × repeats` would
/// exceed [`EXACT_BUDGET`]: `P(R >= cap) >= P(R >= repeats)`, a valid (larger) p-value.
pub(crate) fn repeat_p_value(trials: u64, ln_outcomes: f64, repeats: u64) -> f64 {
    if repeats == 0 {
        return 1.0;
    }
    let cap = repeats.min((EXACT_BUDGET / trials.max(1)).max(1)) as usize;
    let inverse = (-ln_outcomes).exp(); // 1/N; 0 when N overflows, i.e. never a repeat
    let mut p = vec![0.0f64; cap];
    p[0] = 1.0;
    let mut absorbed = 0.0f64;
    for t in 0..trials {
        let top = (t as usize).min(cap - 1);
        for j in (0..=top).rev() {
            let q = (t - j as u64) as f64 * inverse;
            let moved = p[j] * q.min(1.0);
            if moved == 0.0 {
                continue;
            }
            p[j] -= moved;
            if j + 1 == cap {
                absorbed += moved;
            } else {
                p[j + 1] += moved;
            }
        }
    }
    absorbed.clamp(0.0, 1.0)
}

/// The most work [`outputs_lower_bound`] does for a file with repeats (`trials × (repeats + 1)`
/// steps per evaluation of the exact distribution, about 40 evaluations); above it no bound is
/// stated.
const BOUND_BUDGET: u64 = 2_000_000;

/// The repeat test's bound: at `confidence`, a source that draws each line uniformly from `N`
/// equally likely outputs (a seed space of `N` seeds, each giving its own deck, is one) has
/// `N` at least the value returned, given `repeats` repeats among `trials` lines.
///
/// The method inverts the exact birthday-problem test: `P_N(R <= repeats)` grows with `N`,
/// and every `N` for which it is below `1 - confidence` is ruled out (a one-sided exact test
/// at that level); the bound is the smallest `N` not ruled out, found by bisection on `ln N`
/// and rounded down. Without repeats the probability is in closed form,
/// `P_N(R = 0) = N! / ((N - L)! N^L) <= exp(-L(L - 1) / 2N)`, so the bound is at least
/// `L(L - 1) / (2 ln(1 / (1 - confidence)))`; with repeats it uses the exact recursion of
/// the test's p-value, and is `None` when that would cost more than a few million steps per
/// evaluation. A 52-card deck has `52! ≈ 8·10^67` orders: no file can show that many, so the
/// bound says how large the source's seed space at least is, not that it reaches `52!`.
///
/// ```
/// use fairdeal_fairness::outputs_lower_bound;
/// // 10,000 deals without a repeat: at least about 3.6 million equally likely decks.
/// let n = outputs_lower_bound(10_000, 0, 0.999_999).unwrap();
/// assert!(n > 3.5e6 && n < 4.0e6, "{n}");
/// ```
pub fn outputs_lower_bound(trials: u64, repeats: u64, confidence: f64) -> Option<f64> {
    let alpha = 1.0 - confidence;
    if trials < 2 || !(alpha > 0.0 && alpha < 1.0) || repeats >= trials {
        return None;
    }
    if repeats > 0 && trials.saturating_mul(repeats + 1) > BOUND_BUDGET {
        return None;
    }
    let lines = trials as f64;
    // P_N(R <= repeats) as a function of ln N.
    let at_most = |ln_n: f64| -> f64 {
        if repeats == 0 {
            let n = ln_n.exp();
            if n < lines {
                return 0.0;
            }
            (ln_gamma(n + 1.0) - ln_gamma(n - lines + 1.0) - lines * ln_n).exp()
        } else {
            1.0 - repeat_p_value(trials, ln_n, repeats + 1)
        }
    };
    // Fewer outputs than distinct lines is impossible; at N = L²/(2 alpha) even
    // P(R = 0) >= 1 - L²/(2N) >= 1 - alpha >= alpha.
    let mut low = ((trials - repeats) as f64).ln();
    let mut high = (2.0 * lines.ln() - (2.0 * alpha).ln()).max(low) + 1.0;
    if at_most(low) >= alpha {
        return Some((trials - repeats) as f64);
    }
    for _ in 0..60 {
        let mid = 0.5 * (low + high);
        if at_most(mid) < alpha {
            low = mid;
        } else {
            high = mid;
        }
        if high - low < 1e-9 {
            break;
        }
    }
    Some(low.exp().floor())
}

/// Shuffles `[0, n)` `trials` times and counts repeated orders (`k = n`) or repeated leading
/// `k`-item hands ([`RepeatTally`]).
///
/// # Errors
///
/// As [`RepeatTally::new`], plus [`FairnessError::ZeroTrials`] and
/// [`FairnessError::TooManyTrials`].
///
/// ```
/// use fairdeal_core::SeedableRng;
/// use fairdeal_fairness::{repeat_test, PASS_THRESHOLD};
/// use fairdeal_inplace::Inplace;
///
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(5);
/// let report = repeat_test(&Inplace::new(), 52, 5, 10_000, &mut rng)?;
/// assert!(report.p_value > PASS_THRESHOLD);
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
pub fn repeat_test<S, R>(
    shuffler: &S,
    n: usize,
    k: usize,
    trials: u64,
    rng: &mut R,
) -> Result<FairnessReport, FairnessError>
where
    S: Shuffler + ?Sized,
    R: Rng + ?Sized,
{
    let mut tally = RepeatTally::new(n, k)?;
    tally_shuffles(&mut tally, n, trials, |deck| {
        shuffler.shuffle(deck, rng);
        Ok(())
    })?;
    tally.report()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The birthday problem, exactly: 23 people, 365 days, P(some shared birthday) = 0.5073.
    #[test]
    fn the_birthday_problem() {
        let p = repeat_p_value(23, 365f64.ln(), 1);
        assert!((p - 0.507_297).abs() < 1e-6, "{p}");
        // P(R >= 2) by direct enumeration for 3 draws from 4 values: all three equal = 4/64.
        assert!((repeat_p_value(3, 4f64.ln(), 2) - 4.0 / 64.0).abs() < 1e-15);
        // P(R >= 1) for 3 draws from 4: 1 - 4·3·2/64.
        assert!((repeat_p_value(3, 4f64.ln(), 1) - (1.0 - 24.0 / 64.0)).abs() < 1e-15);
    }

    /// The bound is the exact test inverted: just below it the observed repeats are rarer than
    /// alpha, just above they are not; and a source with fewer outputs is caught.
    #[test]
    fn the_outputs_bound_inverts_the_exact_test() {
        let alpha = 1e-6;
        for (trials, repeats) in [(10_000u64, 0u64), (2_000, 0), (1_000, 3), (20_000, 1)] {
            let n = outputs_lower_bound(trials, repeats, 1.0 - alpha).unwrap();
            let at_most = |n: f64| 1.0 - repeat_p_value(trials, n.ln(), repeats + 1);
            assert!(at_most(n * 0.999) < alpha, "{trials} {repeats} {n}");
            assert!(at_most(n * 1.001) >= alpha, "{trials} {repeats} {n}");
        }
        // Without repeats, at least the closed form L(L - 1) / (2 ln(1 / alpha)).
        let n = outputs_lower_bound(10_000, 0, 1.0 - alpha).unwrap();
        assert!(n >= 10_000.0 * 9_999.0 / (2.0 * (1.0 / alpha).ln()));
        // More lines without a repeat certify more outputs.
        assert!(outputs_lower_bound(20_000, 0, 1.0 - alpha).unwrap() > 3.9 * n);
        // 2,000 deals without a repeat rule out a 16-bit seed space (65,536 decks).
        assert!(outputs_lower_bound(2_000, 0, 1.0 - alpha).unwrap() > 65_536.0);
        assert!(outputs_lower_bound(1, 0, 1.0 - alpha).is_none());
        assert!(outputs_lower_bound(10_000_000, 500, 1.0 - alpha).is_none());
    }

    #[test]
    fn a_capped_p_value_is_larger_never_smaller() {
        let exact = repeat_p_value(1000, 40_320f64.ln(), 20);
        let capped = repeat_p_value(1000, 40_320f64.ln(), 10);
        assert!(capped >= exact);
    }
}
