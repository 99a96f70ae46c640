//! Choosing an algorithm at run time, by name.
//!
//! The algorithm crates are generic and static: `Inplace<S>`, `Partial<S>` … each its own type.
//! A command line, a config file or a benchmark matrix names the algorithm as a string, so this
//! module gathers the seven behind one enum, [`AnyShuffler`], that implements [`Shuffler`] by
//! matching on the variant. The match costs one predictable branch per call (not per swap): the
//! inner loops are still the concrete algorithms', monomorphised for the element type, the RNG
//! and the sampler.
//!
//! Nothing about an algorithm is retyped here: [`ALGORITHMS`] is built from each crate's own
//! `INFO` constant, and the tests check that every variant reports the entry it is listed under.

extern crate alloc;

use alloc::string::String;
use core::fmt;

use fairdeal_core::{AlgorithmInfo, Batched, IndexSampler, Rng, ShuffleError, Shuffler};
use fairdeal_inplace::Inplace;
use fairdeal_inside_out::InsideOut;
use fairdeal_naive::{Biased, Naive, SortKey};
use fairdeal_parallel::Parallel;
use fairdeal_partial::Partial;

/// Every algorithm fairdeal ships, in the order `fairdeal algorithms` lists them: the fair O(N)
/// ones first (ending with the parallel scatter shuffle for huge N), then the naive O(N²) one,
/// the biased negative control and sort-by-key.
///
/// Each entry is the algorithm crate's own `INFO` constant.
///
/// ```
/// let names: Vec<&str> = fairdeal::ALGORITHMS.iter().map(|a| a.name).collect();
/// assert_eq!(
///     names,
///     ["inplace", "inside-out", "partial", "parallel", "naive", "biased", "sort-key"]
/// );
/// assert!(fairdeal::ALGORITHMS.iter().filter(|a| !a.fair).all(|a| a.name == "biased"));
/// ```
pub const ALGORITHMS: &[AlgorithmInfo] = &[
    fairdeal_inplace::INFO,
    fairdeal_inside_out::INFO,
    fairdeal_partial::INFO,
    fairdeal_parallel::INFO,
    fairdeal_naive::NAIVE_INFO,
    fairdeal_naive::BIASED_INFO,
    fairdeal_naive::SORT_KEY_INFO,
];

/// The algorithm used when none is named: in-place Fisher-Yates (`"inplace"`).
///
/// It must be fair (never `"biased"`; a test checks). Of the fair ones, `inplace` and `partial`
/// do the least work for a whole shuffle: one draw and one swap per element, in place, with no
/// allocation (`inside-out` writes into a new `Vec`, `sort-key` sorts in O(N log N), `naive` is
/// O(N²)). `inplace` is the reference algorithm, draw for draw what Java's
/// `Collections.shuffle` and Python's `random.shuffle` do, so it is the default; `cargo xtask
/// bench` compares the algorithms' speed. A caller that needs only a prefix of k should ask
/// for `partial` by name: every [`AnyShuffler`] delegates [`Shuffler::shuffle_prefix`] to its
/// own algorithm, which is O(k) only for `partial`.
///
/// ```
/// let default = fairdeal::algorithm_by_name(fairdeal::DEFAULT_ALGORITHM, fairdeal::Batched)?;
/// assert!(fairdeal::Shuffler::info(&default).fair);
/// # Ok::<(), fairdeal::UnknownAlgorithm>(())
/// ```
pub const DEFAULT_ALGORITHM: &str = fairdeal_inplace::INFO.name;

/// Any of the seven algorithms, chosen at run time; implements [`Shuffler`] by delegating to the
/// variant, including [`shuffle_prefix`](Shuffler::shuffle_prefix) (so `Partial` stays O(k))
/// and [`shuffled`](Shuffler::shuffled) (so `InsideOut` builds its `Vec` natively).
///
/// Build one with [`algorithm_by_name`] or directly from a variant.
///
/// ```
/// use fairdeal::{AnyShuffler, Lemire, Shuffler};
/// use fairdeal::partial::Partial;
/// use fairdeal::SeedableRng;
///
/// let algo = AnyShuffler::Partial(Partial::with_sampler(Lemire));
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(5);
/// let mut deck: Vec<u8> = (0..52).collect();
/// algo.shuffle_prefix(&mut deck, 5, &mut rng)?; // 5 draws (Lemire: one word each), 5 swaps
/// assert_eq!(algo.info().name, "partial");
/// # Ok::<(), fairdeal::ShuffleError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnyShuffler<S = Batched> {
    /// Durstenfeld's in-place Fisher-Yates (`"inplace"`).
    Inplace(Inplace<S>),
    /// The inside-out Fisher-Yates that builds a shuffled `Vec` (`"inside-out"`).
    InsideOut(InsideOut<S>),
    /// The partial shuffle: a prefix of k in O(k) (`"partial"`).
    Partial(Partial<S>),
    /// Sanders' scatter shuffle for huge N (`"parallel"`). Through [`Shuffler`] it runs on the
    /// calling thread with a ChaCha12 generator drawn from the caller's (see
    /// [`Parallel`]'s `Shuffler` impl); [`AnyShuffler::shuffle_parallel`] runs the same
    /// permutation on the current rayon pool.
    Parallel(Parallel<S>),
    /// The first-blackjack-program shuffle, O(N²) but fair (`"naive"`).
    Naive(Naive<S>),
    /// The wrong-range swap: O(N) and NOT fair, the negative control (`"biased"`).
    Biased(Biased<S>),
    /// Sorting by random 64-bit keys, O(N log N) (`"sort-key"`).
    SortKey(SortKey),
}

/// The name given to [`algorithm_by_name`] is not one of [`ALGORITHMS`]. Its message lists the
/// valid names.
///
/// ```
/// let err = fairdeal::algorithm_by_name("bogo", fairdeal::Lemire).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "unknown algorithm 'bogo' (valid: inplace, inside-out, partial, parallel, naive, biased, \
///      sort-key)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownAlgorithm {
    /// The name that was asked for.
    pub name: String,
}

impl fmt::Display for UnknownAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown algorithm '{}' (valid: ", self.name)?;
        for (i, info) in ALGORITHMS.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(info.name)?;
        }
        f.write_str(")")
    }
}

impl core::error::Error for UnknownAlgorithm {}

/// The algorithm called `name` (see [`ALGORITHMS`]), drawing its indices with `sampler`.
///
/// `sort-key` draws 64-bit keys rather than bounded indices, so it ignores the sampler.
///
/// # Errors
///
/// [`UnknownAlgorithm`], listing the valid names, when `name` is not one of them. Names are
/// exact (lower case).
///
/// ```
/// use fairdeal::{algorithm_by_name, Lemire, Shuffler};
/// use fairdeal::SeedableRng;
///
/// let algo = algorithm_by_name("inside-out", Lemire)?;
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
/// let v = algo.shuffled(0..10, &mut rng);
/// assert_eq!(v.len(), 10);
/// # Ok::<(), fairdeal::UnknownAlgorithm>(())
/// ```
pub fn algorithm_by_name<S: IndexSampler>(
    name: &str,
    sampler: S,
) -> Result<AnyShuffler<S>, UnknownAlgorithm> {
    Ok(match name {
        n if n == fairdeal_inplace::INFO.name => {
            AnyShuffler::Inplace(Inplace::with_sampler(sampler))
        }
        n if n == fairdeal_inside_out::INFO.name => {
            AnyShuffler::InsideOut(InsideOut::with_sampler(sampler))
        }
        n if n == fairdeal_partial::INFO.name => {
            AnyShuffler::Partial(Partial::with_sampler(sampler))
        }
        n if n == fairdeal_parallel::INFO.name => {
            AnyShuffler::Parallel(Parallel::with_sampler(sampler))
        }
        n if n == fairdeal_naive::NAIVE_INFO.name => {
            AnyShuffler::Naive(Naive::with_sampler(sampler))
        }
        n if n == fairdeal_naive::BIASED_INFO.name => {
            AnyShuffler::Biased(Biased::with_sampler(sampler))
        }
        n if n == fairdeal_naive::SORT_KEY_INFO.name => AnyShuffler::SortKey(SortKey::new()),
        _ => {
            return Err(UnknownAlgorithm {
                name: String::from(name),
            });
        }
    })
}

/// Calls `$body` with `$algo` bound to the variant's inner algorithm.
macro_rules! delegate {
    ($self:expr, $algo:ident => $body:expr) => {
        match $self {
            AnyShuffler::Inplace($algo) => $body,
            AnyShuffler::InsideOut($algo) => $body,
            AnyShuffler::Partial($algo) => $body,
            AnyShuffler::Parallel($algo) => $body,
            AnyShuffler::Naive($algo) => $body,
            AnyShuffler::Biased($algo) => $body,
            AnyShuffler::SortKey($algo) => $body,
        }
    };
}

impl<S: IndexSampler + Copy + Send + Sync> AnyShuffler<S> {
    /// [`Shuffler::shuffle`], with the `parallel` algorithm run on the current rayon pool
    /// ([`Parallel::shuffle_any_rng`]: the same permutation as through the trait, on every
    /// thread of the pool); every other algorithm runs as through the trait.
    ///
    /// ```
    /// use fairdeal::{algorithm_by_name, Batched, SeedableRng, Shuffler};
    ///
    /// let algo = algorithm_by_name("parallel", Batched)?;
    /// let mut a: Vec<u32> = (0..300_000).collect();
    /// let mut b = a.clone();
    /// algo.shuffle_parallel(&mut a, &mut rand_pcg::Pcg64::seed_from_u64(3));
    /// algo.shuffle(&mut b, &mut rand_pcg::Pcg64::seed_from_u64(3));
    /// assert_eq!(a, b);
    /// # Ok::<(), fairdeal::UnknownAlgorithm>(())
    /// ```
    pub fn shuffle_parallel<T: Send, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        match self {
            AnyShuffler::Parallel(algo) => algo.shuffle_any_rng(data, rng),
            other => other.shuffle(data, rng),
        }
    }
}

impl<S: IndexSampler + Copy> Shuffler for AnyShuffler<S> {
    fn info(&self) -> AlgorithmInfo {
        delegate!(self, algo => algo.info())
    }

    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        delegate!(self, algo => algo.shuffle(data, rng));
    }

    fn shuffle_prefix<T, R: Rng + ?Sized>(
        &self,
        data: &mut [T],
        k: usize,
        rng: &mut R,
    ) -> Result<(), ShuffleError> {
        delegate!(self, algo => algo.shuffle_prefix(data, k, rng))
    }

    fn shuffled<T, I, R>(&self, items: I, rng: &mut R) -> alloc::vec::Vec<T>
    where
        I: IntoIterator<Item = T>,
        R: Rng + ?Sized,
    {
        delegate!(self, algo => algo.shuffled(items, rng))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use fairdeal_core::{Lemire, SeedableRng};

    fn every(sampler: Lemire) -> Vec<AnyShuffler<Lemire>> {
        ALGORITHMS
            .iter()
            .map(|info| algorithm_by_name(info.name, sampler).unwrap())
            .collect()
    }

    #[test]
    fn every_listed_name_resolves_to_an_algorithm_reporting_that_entry() {
        for (info, algo) in ALGORITHMS.iter().zip(every(Lemire)) {
            assert_eq!(&algo.info(), info);
        }
    }

    #[test]
    fn names_are_unique_and_the_default_is_fair() {
        for (i, a) in ALGORITHMS.iter().enumerate() {
            assert!(
                ALGORITHMS[i + 1..].iter().all(|b| a.name != b.name),
                "{} twice",
                a.name
            );
        }
        let default = ALGORITHMS
            .iter()
            .find(|a| a.name == DEFAULT_ALGORITHM)
            .unwrap();
        assert!(default.fair);
    }

    #[test]
    fn unknown_names_are_errors_listing_every_valid_name() {
        for bad in ["", "Inplace", "fisher-yates", "inplace "] {
            let err = algorithm_by_name(bad, Lemire).unwrap_err();
            let text = alloc::format!("{err}");
            for info in ALGORITHMS {
                assert!(text.contains(info.name), "{text}");
            }
        }
    }

    /// The enum must give exactly what the concrete type gives, for all three operations.
    #[test]
    fn delegation_matches_the_concrete_algorithms() {
        let seeded = || rand_pcg::Pcg64::seed_from_u64(99);
        let run_whole = |algo: &AnyShuffler| {
            let mut v: Vec<u32> = (0..40).collect();
            algo.shuffle(&mut v, &mut seeded());
            v
        };
        let mut direct: Vec<u32> = (0..40).collect();
        Inplace::new().shuffle(&mut direct, &mut seeded());
        assert_eq!(
            run_whole(&algorithm_by_name("inplace", Batched).unwrap()),
            direct
        );

        let mut direct: Vec<u32> = (0..40).collect();
        Partial::new()
            .shuffle_prefix(&mut direct, 5, &mut seeded())
            .unwrap();
        let mut via: Vec<u32> = (0..40).collect();
        algorithm_by_name("partial", Batched)
            .unwrap()
            .shuffle_prefix(&mut via, 5, &mut seeded())
            .unwrap();
        assert_eq!(via, direct);

        let direct = InsideOut::new().shuffled(0..40u32, &mut seeded());
        let via = algorithm_by_name("inside-out", Batched)
            .unwrap()
            .shuffled(0..40u32, &mut seeded());
        assert_eq!(via, direct);

        for algo in every(Lemire) {
            let mut v: Vec<u32> = (0..5).collect();
            assert!(
                algo.shuffle_prefix(&mut v, 6, &mut seeded()).is_err(),
                "{}",
                algo.info().name
            );
            assert_eq!(v, [0, 1, 2, 3, 4]);
        }
    }

    #[test]
    fn every_algorithm_returns_a_permutation() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
        for algo in every(Lemire) {
            for n in [0usize, 1, 2, 17] {
                let mut v: Vec<usize> = (0..n).collect();
                algo.shuffle(&mut v, &mut rng);
                v.sort_unstable();
                assert_eq!(v, (0..n).collect::<Vec<_>>(), "{}", algo.info().name);
            }
        }
    }
}
