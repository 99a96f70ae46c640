//! The workspace's fairness evidence: every fair algorithm, on every RNG backend, through every
//! way the `Shuffler` trait can shuffle (`shuffle`, `shuffle_prefix`, `shuffled`), passes the
//! chi-square tests of `fairdeal-fairness`; and the same tests reject the biased wrong-range swap
//! on every backend and a deliberately broken generator under every algorithm.
//!
//! Nothing here hard-codes the list of backends: they come from `fairdeal_rng::backends()` and
//! are reached through `with_backend` and a `BackendVisitor`, so a new backend is tested the day
//! it is added. Each algorithm draws its indices through the backend's own sampler (Java's
//! `nextInt`, Python's `_randbelow`, Lemire for the rest), the way the CLI composes them; where
//! that sampler is not Lemire, the algorithms are run a second time with Lemire over the same
//! generator.
//!
//! Seeds are fixed, so every result is deterministic. Fair cases must give `p > 1e-6`
//! ([`PASS_THRESHOLD`]); negative controls must give `p < 1e-9`. Trial counts keep at least 1,000
//! expected hits per cell for n = 3 and 4 (60,000 trials) and about 385 for the 52 × 52 position
//! matrix (20,000 trials), far above the chi-square approximation's 5.

use std::any::type_name;
use std::collections::BTreeSet;
use std::convert::Infallible;
use std::marker::PhantomData;

use fairdeal_core::rand_core::TryRng;
use fairdeal_core::{IndexSampler, Lemire, Rng, Shuffler, stream_seed};
use fairdeal_fairness::{
    FairnessReport, MIN_EXPECTED_COUNT, PASS_THRESHOLD, permutation_test, position_test,
    prefix_position_test,
};
use fairdeal_inside_out::InsideOut;
use fairdeal_naive::Biased;
use fairdeal_partial::Partial;
use fairdeal_rng::{Backend, BackendVisitor, backends, with_backend};

/// What a negative control must reach.
const REJECT: f64 = 1e-9;
/// Trials for the n = 3 and n = 4 permutation tests (10,000 and 2,500 expected per order).
const PERMUTATION_TRIALS: u64 = 60_000;
/// Trials for the 52-card position tests (about 385 expected per element × position cell).
const POSITION_TRIALS: u64 = 20_000;
/// Trials for the negative controls: enough to be crushing, few enough to be instant.
const CONTROL_TRIALS: u64 = 6_000;
const DECK: usize = 52;
/// The root of every seed in this file; case `c` of a run uses `stream_seed(SEED, c)`.
const SEED: u64 = 0xFA1D_DEA1;

// ---------------------------------------------------------------------------------------------
// Adapters: reach the trait's other entry points through `shuffle`, which the tests call.

/// Shuffles through `shuffle_prefix(data, data.len())`: the "deal all n" path.
struct WholePrefix<S>(S);

impl<S: Shuffler> Shuffler for WholePrefix<S> {
    fn info(&self) -> fairdeal_core::AlgorithmInfo {
        self.0.info()
    }
    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        let n = data.len();
        self.0
            .shuffle_prefix(data, n, rng)
            .expect("k = len is always allowed");
    }
}

/// Shuffles through `shuffled(0..n)` (inside-out's native one-pass path) and applies the
/// resulting order to the slice, so `data[i]` becomes the old `data[order[i]]`.
struct ViaShuffled<S>(S);

impl<S: Shuffler> Shuffler for ViaShuffled<S> {
    fn info(&self) -> fairdeal_core::AlgorithmInfo {
        self.0.info()
    }
    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        let order: Vec<usize> = self.0.shuffled(0..data.len(), rng);
        // Applying a permutation in place without `T: Clone`: the element wanted at `i` started
        // at `order[i]`; if that slot was already consumed, follow where it was swapped to.
        for i in 0..data.len() {
            let mut from = order[i];
            while from < i {
                from = order[from];
            }
            data.swap(i, from);
        }
    }
}

/// A deliberately broken generator: period 2. Its two words are chosen so that no sampler ever
/// rejects both (Lemire accepts 1 for every bound, Java's `nextInt` and Python's `_randbelow`
/// accept both), so a test over it finishes instead of spinning in a rejection loop, and every
/// algorithm sees a stream that repeats after two draws.
#[derive(Debug, Default)]
struct PeriodTwo {
    odd: bool,
}

impl TryRng for PeriodTwo {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        self.odd = !self.odd;
        Ok(if self.odd { 1 } else { 0x4000_0000 })
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let word = u64::from(self.try_next_u32()?);
        Ok(word << 32 | word)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(4) {
            let word = self.try_next_u32()?.to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// The catalogue of algorithms, as a generic callback (closures cannot be generic over `S`).

trait Check {
    fn check<S: Shuffler>(&mut self, label: &str, shuffler: &S);
}

/// Runs `check` on every fair algorithm of the facade's registry (`fairdeal::ALGORITHMS`)
/// drawing its indices through `sampler`, and through the trait's other entry points where an
/// algorithm has a native form of them. `SortKey` draws 64-bit keys, not indices, so it takes no
/// sampler and is only included when `with_samplerless` is set.
fn each_fair_algorithm<S, C>(sampler: S, with_samplerless: bool, check: &mut C)
where
    S: IndexSampler + Copy,
    C: Check,
{
    for info in fairdeal::ALGORITHMS.iter().filter(|a| a.fair) {
        if info.name == fairdeal_naive::SORT_KEY_INFO.name && !with_samplerless {
            continue;
        }
        let algorithm = fairdeal::algorithm_by_name(info.name, sampler).expect("listed");
        check.check(info.name, &algorithm);
    }
    check.check(
        "inside-out via shuffled()",
        &ViaShuffled(InsideOut::with_sampler(sampler)),
    );
    check.check(
        "partial via shuffle_prefix(n)",
        &WholePrefix(Partial::with_sampler(sampler)),
    );
}

/// Whether `S` is Lemire: then a second pass with Lemire would repeat the first.
fn is_lemire<S>() -> bool {
    type_name::<S>() == type_name::<Lemire>()
}

// ---------------------------------------------------------------------------------------------
// One suite = one test shape, one expectation, run on one backend by `visit`.

#[derive(Debug, Clone, Copy)]
enum Test {
    Permutation { n: usize },
    Position { n: usize },
    Prefix { n: usize, k: usize },
}

impl Test {
    fn run<S: Shuffler, R: Rng>(self, shuffler: &S, trials: u64, rng: &mut R) -> FairnessReport {
        let report = match self {
            Self::Permutation { n } => permutation_test(shuffler, n, trials, rng),
            Self::Position { n } => position_test(shuffler, n, trials, rng),
            Self::Prefix { n, k } => prefix_position_test(shuffler, n, k, trials, rng),
        };
        report.expect("the suites only use valid sizes")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Algorithms {
    /// Every fair algorithm, expected to pass.
    Fair,
    /// Every fair algorithm over [`PeriodTwo`] instead of the backend's generator, expected to
    /// be rejected.
    FairOverBrokenRng,
    /// The wrong-range swap, expected to be rejected.
    Biased,
}

#[derive(Debug, Clone, Copy)]
struct Suite {
    test: Test,
    trials: u64,
    algorithms: Algorithms,
}

/// The outcome of one suite on one backend: which algorithms ran, and what went wrong.
#[derive(Debug, Default)]
struct Outcome {
    algorithms: BTreeSet<&'static str>,
    cases: usize,
    failures: Vec<String>,
}

impl BackendVisitor for Suite {
    type Output = Outcome;

    fn visit<B: Backend>(self) -> Outcome {
        let mut run = Run::<B, B::Sampler> {
            suite: self,
            case: 0,
            outcome: Outcome::default(),
            _types: PhantomData,
        };
        let sampler = B::Sampler::default();
        match self.algorithms {
            Algorithms::Fair | Algorithms::FairOverBrokenRng => {
                each_fair_algorithm(sampler, true, &mut run);
            }
            Algorithms::Biased => run.check("biased", &Biased::with_sampler(sampler)),
        }
        if is_lemire::<B::Sampler>() {
            return run.outcome;
        }
        let mut run = Run::<B, Lemire> {
            suite: self,
            case: run.case,
            outcome: run.outcome,
            _types: PhantomData,
        };
        match self.algorithms {
            Algorithms::Fair | Algorithms::FairOverBrokenRng => {
                each_fair_algorithm(Lemire, false, &mut run);
            }
            Algorithms::Biased => run.check("biased", &Biased::with_sampler(Lemire)),
        }
        run.outcome
    }
}

/// Runs a suite's test on backend `B` for each algorithm it is handed; `Smp` only labels the
/// sampler the algorithms were built with.
struct Run<B, Smp> {
    suite: Suite,
    case: u64,
    outcome: Outcome,
    _types: PhantomData<(B, Smp)>,
}

impl<B: Backend, Smp> Check for Run<B, Smp> {
    fn check<S: Shuffler>(&mut self, label: &str, shuffler: &S) {
        let Suite {
            test,
            trials,
            algorithms,
        } = self.suite;
        self.case += 1;
        let seed = stream_seed(SEED, self.case);
        let report = match algorithms {
            Algorithms::FairOverBrokenRng => test.run(shuffler, trials, &mut PeriodTwo::default()),
            Algorithms::Fair | Algorithms::Biased => {
                test.run(shuffler, trials, &mut B::seeded(seed))
            }
        };
        let info = shuffler.info();
        self.outcome.algorithms.insert(info.name);
        self.outcome.cases += 1;
        let passed = match algorithms {
            Algorithms::Fair => {
                info.fair
                    && report.expected_count() >= MIN_EXPECTED_COUNT
                    && report.is_fair(PASS_THRESHOLD)
            }
            Algorithms::FairOverBrokenRng => info.fair && report.p_value < REJECT,
            Algorithms::Biased => !info.fair && report.p_value < REJECT,
        };
        if !passed {
            let sampler = type_name::<Smp>().rsplit("::").next().unwrap_or("?");
            self.outcome.failures.push(format!(
                "{backend} ({sampler}) {label}, {test:?}, {trials} trials, seed {seed:#x}: \
                 {expect} but chi2 = {chi2:.1}, df = {df}, p = {p:e}",
                backend = B::INFO.name,
                expect = match algorithms {
                    Algorithms::Fair => "expected fair",
                    _ => "expected rejection",
                },
                chi2 = report.chi2,
                df = report.df,
                p = report.p_value,
            ));
        }
    }
}

/// Runs `suite` on every backend `fairdeal_rng` lists and fails with every failure at once.
/// Returns the names of the algorithms that ran.
fn on_every_backend(suite: Suite) -> BTreeSet<&'static str> {
    assert!(!backends().is_empty(), "fairdeal_rng lists no backends");
    let mut algorithms = BTreeSet::new();
    let mut failures = Vec::new();
    for backend in backends() {
        let outcome = with_backend(backend.name, suite).expect("a listed backend exists");
        assert!(outcome.cases > 0, "{}: no case ran", backend.name);
        algorithms.extend(outcome.algorithms);
        failures.extend(outcome.failures);
    }
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    algorithms
}

fn fair(test: Test, trials: u64) -> BTreeSet<&'static str> {
    on_every_backend(Suite {
        test,
        trials,
        algorithms: Algorithms::Fair,
    })
}

// ---------------------------------------------------------------------------------------------
// The tests.

/// The fair algorithms of the facade's registry: what every fair-suite must have run.
fn fair_algorithms() -> BTreeSet<&'static str> {
    fairdeal::ALGORITHMS
        .iter()
        .filter(|a| a.fair)
        .map(|a| a.name)
        .collect()
}

#[test]
fn every_fair_algorithm_gives_every_order_of_3_equally_often_on_every_backend() {
    let ran = fair(Test::Permutation { n: 3 }, PERMUTATION_TRIALS);
    assert_eq!(ran, fair_algorithms());
}

#[test]
fn every_fair_algorithm_gives_every_order_of_4_equally_often_on_every_backend() {
    fair(Test::Permutation { n: 4 }, PERMUTATION_TRIALS);
}

#[test]
fn every_fair_algorithm_puts_every_card_anywhere_on_every_backend() {
    fair(Test::Position { n: DECK }, POSITION_TRIALS);
}

#[test]
fn every_fair_algorithm_deals_fair_prefixes_on_every_backend() {
    // Seven cards of a deck (partial's O(k) path; the others shuffle all and keep 7).
    fair(Test::Prefix { n: DECK, k: 7 }, POSITION_TRIALS);
    // Two of five: a 5 × 2 matrix, 12,000 expected per cell.
    fair(Test::Prefix { n: 5, k: 2 }, PERMUTATION_TRIALS);
}

#[test]
fn the_biased_swap_is_rejected_on_every_backend() {
    for (test, trials) in [
        (Test::Permutation { n: 3 }, PERMUTATION_TRIALS),
        (Test::Permutation { n: 4 }, PERMUTATION_TRIALS),
        (Test::Position { n: DECK }, POSITION_TRIALS),
    ] {
        let ran = on_every_backend(Suite {
            test,
            trials,
            algorithms: Algorithms::Biased,
        });
        assert_eq!(ran, BTreeSet::from(["biased"]));
    }
}

#[test]
fn a_broken_generator_is_rejected_under_every_fair_algorithm_and_sampler() {
    for test in [
        Test::Permutation { n: 3 },
        Test::Permutation { n: 4 },
        Test::Position { n: DECK },
        Test::Prefix { n: DECK, k: 7 },
    ] {
        let ran = on_every_backend(Suite {
            test,
            trials: CONTROL_TRIALS,
            algorithms: Algorithms::FairOverBrokenRng,
        });
        assert_eq!(ran, fair_algorithms());
    }
}

#[test]
fn the_catalogues_agree_with_this_file() {
    // The registry is the algorithm crates' self-descriptions, each reachable by its name as
    // the algorithm it describes; the only unfair one is the negative control.
    let infos = fairdeal::ALGORITHMS;
    for info in infos {
        let algorithm = fairdeal::algorithm_by_name(info.name, Lemire).expect("listed");
        assert_eq!(algorithm.info(), *info);
    }
    let unfair: Vec<&str> = infos.iter().filter(|i| !i.fair).map(|i| i.name).collect();
    assert_eq!(unfair, ["biased"]);
    // Every listed backend is reachable by name.
    for backend in backends() {
        struct Name;
        impl BackendVisitor for Name {
            type Output = &'static str;
            fn visit<B: Backend>(self) -> &'static str {
                B::INFO.name
            }
        }
        assert_eq!(with_backend(backend.name, Name).unwrap(), backend.name);
    }
}

#[test]
fn the_adapters_do_not_change_what_they_adapt() {
    use fairdeal_core::SeedableRng;
    let mut a = rand_pcg::Pcg64::seed_from_u64(5);
    let mut b = rand_pcg::Pcg64::seed_from_u64(5);
    let expected: Vec<usize> = InsideOut::new().shuffled(0..100, &mut a);
    let mut data: Vec<usize> = (0..100).collect();
    ViaShuffled(InsideOut::new()).shuffle(&mut data, &mut b);
    assert_eq!(data, expected);
    // Applied to other contents, the same order moves the same elements.
    let mut b = rand_pcg::Pcg64::seed_from_u64(5);
    let mut words: Vec<String> = (0..100).map(|i| format!("w{i}")).collect();
    ViaShuffled(InsideOut::new()).shuffle(&mut words, &mut b);
    let want: Vec<String> = expected.iter().map(|i| format!("w{i}")).collect();
    assert_eq!(words, want);

    let mut a = rand_pcg::Pcg64::seed_from_u64(6);
    let mut b = rand_pcg::Pcg64::seed_from_u64(6);
    let mut x: Vec<u32> = (0..52).collect();
    let mut y = x.clone();
    Partial::new().shuffle_prefix(&mut x, 52, &mut a).unwrap();
    WholePrefix(Partial::new()).shuffle(&mut y, &mut b);
    assert_eq!(x, y);
}
