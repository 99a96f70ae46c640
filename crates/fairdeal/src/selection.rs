//! A run's randomness chosen by name at run time — algorithm, backend, sampler and seed — and
//! resolved once into monomorphised code.

extern crate alloc;

use alloc::string::String;

use fairdeal_rng::{Backend, BackendVisitor, RngError, UnknownBackend, with_backend};

use crate::{
    AnySampler, AnyShuffler, Lemire, UnknownAlgorithm, UnknownSampler, algorithm_by_name,
    sampler_by_name,
};

/// The algorithm, backend, sampler and seed of a run, by name (what a command line gives).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// The algorithm's stable name (`inplace`, `partial`, …; see [`crate::ALGORITHMS`]).
    pub algorithm: String,
    /// The backend's stable name (`chacha12`, `java`, …; see [`fairdeal_rng::backends`]).
    pub backend: String,
    /// How indices are drawn: `backend` (the backend's own sampler), `batched` or `lemire`
    /// (see [`crate::SAMPLERS`]).
    pub sampler: String,
    /// A fixed seed, or `None` to seed from the operating system.
    pub seed: Option<u64>,
}

/// What a [`Selection`] resolves to for one backend `B`: a seeded generator and an algorithm
/// using the chosen sampler.
#[derive(Debug)]
pub struct Resolved<B: Backend> {
    /// The generator, seeded from the selection's seed or from the OS.
    pub rng: B::Rng,
    /// The chosen algorithm, drawing indices with the chosen sampler (by default the
    /// backend's own).
    pub shuffler: AnyShuffler<AnySampler<B::Sampler>>,
    /// The chosen sampler itself, for code that draws indices without the algorithm.
    pub sampler: AnySampler<B::Sampler>,
}

/// Code that runs once the backend's static type is known: [`BackendVisitor`] with the
/// algorithm and generator already set up.
pub trait WithResolved {
    /// What the code returns.
    type Output;
    /// Runs with the resolved generator and algorithm.
    fn run<B: Backend>(self, resolved: Resolved<B>) -> Self::Output;
}

/// Why a [`Selection`] could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SelectionError {
    /// No algorithm has that name (the message lists the valid ones).
    #[error(transparent)]
    Algorithm(#[from] UnknownAlgorithm),
    /// No sampler has that name (the message lists the valid ones).
    #[error(transparent)]
    Sampler(#[from] UnknownSampler),
    /// No backend has that name (the message lists the valid ones).
    #[error(transparent)]
    Backend(#[from] UnknownBackend),
    /// No seed was given and the operating system could not supply one.
    #[error(transparent)]
    Seeding(#[from] RngError),
}

impl SelectionError {
    /// Whether the selection named something that does not exist (a caller's mistake), rather
    /// than the operating system failing to seed the generator.
    pub fn is_unknown_name(&self) -> bool {
        !matches!(self, Self::Seeding(_))
    }
}

struct Dispatch<'a, W> {
    selection: &'a Selection,
    work: W,
}

impl<W: WithResolved> BackendVisitor for Dispatch<'_, W> {
    type Output = Result<W::Output, SelectionError>;

    fn visit<B: Backend>(self) -> Self::Output {
        let sampler = sampler_by_name(&self.selection.sampler, B::Sampler::default())?;
        let shuffler = algorithm_by_name(&self.selection.algorithm, sampler)?;
        let rng = match self.selection.seed {
            Some(seed) => B::seeded(seed),
            None => B::from_os()?,
        };
        Ok(self.work.run(Resolved::<B> {
            rng,
            shuffler,
            sampler,
        }))
    }
}

/// Resolves the selection's names and runs `work` with the generator and algorithm they name.
///
/// The algorithm name is checked first, then the sampler, then the backend, all before any
/// seeding from the operating system, so a typo is reported whatever else is wrong.
///
/// ```
/// use fairdeal::rng::Backend;
/// use fairdeal::{Resolved, Selection, Shuffler, WithResolved, with_selection};
///
/// struct Deal;
/// impl WithResolved for Deal {
///     type Output = Vec<u8>;
///     fn run<B: Backend>(self, mut r: Resolved<B>) -> Vec<u8> {
///         let mut deck: Vec<u8> = (0..52).collect();
///         r.shuffler.shuffle(&mut deck, &mut r.rng);
///         deck
///     }
/// }
///
/// let selection = Selection {
///     algorithm: "inplace".into(),
///     backend: "chacha12".into(),
///     sampler: "backend".into(),
///     seed: Some(7),
/// };
/// let deck = with_selection(&selection, Deal)?;
/// assert_eq!(deck, with_selection(&selection, Deal)?, "a seed gives one order");
/// # Ok::<(), fairdeal::SelectionError>(())
/// ```
///
/// # Errors
///
/// [`SelectionError`]: an unknown algorithm, sampler or backend name, or no seed given and
/// none from the operating system.
pub fn with_selection<W: WithResolved>(
    selection: &Selection,
    work: W,
) -> Result<W::Output, SelectionError> {
    algorithm_by_name(&selection.algorithm, Lemire)?;
    sampler_by_name(&selection.sampler, ())?;
    with_backend(&selection.backend, Dispatch { selection, work })?
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::borrow::ToOwned;
    use alloc::string::ToString;
    use alloc::vec::Vec;
    use fairdeal_core::Shuffler;

    struct Deal;

    impl WithResolved for Deal {
        type Output = Vec<u32>;
        fn run<B: Backend>(self, mut resolved: Resolved<B>) -> Vec<u32> {
            let mut deck: Vec<u32> = (0..52).collect();
            resolved.shuffler.shuffle(&mut deck, &mut resolved.rng);
            deck
        }
    }

    fn selection(algorithm: &str, backend: &str, sampler: &str, seed: Option<u64>) -> Selection {
        Selection {
            algorithm: algorithm.to_owned(),
            backend: backend.to_owned(),
            sampler: sampler.to_owned(),
            seed,
        }
    }

    #[test]
    fn a_seeded_selection_gives_one_order_and_another_seed_another() {
        let one = with_selection(&selection("inplace", "chacha12", "backend", Some(1)), Deal);
        let again = with_selection(&selection("inplace", "chacha12", "backend", Some(1)), Deal);
        let other = with_selection(&selection("inplace", "chacha12", "backend", Some(2)), Deal);
        assert_eq!(one, again);
        assert_ne!(one, other);
        let mut sorted = one.unwrap();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..52).collect::<Vec<_>>());
        // The sampler is part of the selection: lemire draws other indices than batched.
        let lemire = with_selection(&selection("inplace", "chacha12", "lemire", Some(1)), Deal);
        assert_ne!(lemire, again);
    }

    #[test]
    fn unknown_names_are_refused_algorithm_first() {
        let err = with_selection(&selection("bogo", "nope", "nah", Some(1)), Deal).unwrap_err();
        assert!(matches!(err, SelectionError::Algorithm(_)), "{err:?}");
        assert!(err.is_unknown_name());
        let err = with_selection(&selection("inplace", "nope", "nah", Some(1)), Deal).unwrap_err();
        assert!(matches!(err, SelectionError::Sampler(_)), "{err:?}");
        let err =
            with_selection(&selection("inplace", "nope", "backend", Some(1)), Deal).unwrap_err();
        assert!(matches!(err, SelectionError::Backend(_)), "{err:?}");
        assert!(err.to_string().contains("nope"), "{err}");
    }
}
