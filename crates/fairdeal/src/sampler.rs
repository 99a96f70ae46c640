//! Choosing how random words become indices at run time, by name.

extern crate alloc;

use alloc::string::String;
use core::fmt;

use fairdeal_core::{Batched, IndexSampler, Lemire, Order, Rng};

/// The names [`sampler_by_name`] accepts, in the order `fairdeal --help` lists them.
///
/// ```
/// assert_eq!(fairdeal::SAMPLERS, ["backend", "batched", "lemire"]);
/// ```
pub const SAMPLERS: [&str; 3] = [BACKEND_SAMPLER, "batched", "lemire"];

/// The name of each backend's own sampler, the default (what a run's document names when the
/// command has no `--sampler`).
pub const BACKEND_SAMPLER: &str = "backend";

/// An [`IndexSampler`] chosen at run time: the backend's own, or one of the two general ones.
///
/// The match happens once per run of bounds (once per shuffle) in
/// [`for_each_index_descending`](IndexSampler::for_each_index_descending) and
/// [`for_each_index_ascending`](IndexSampler::for_each_index_ascending), so the batched loop
/// keeps its speed; only single [`index_below`](IndexSampler::index_below) calls pay a branch each.
///
/// ```
/// use fairdeal::{AnySampler, IndexSampler, Lemire, SeedableRng};
///
/// let reference: AnySampler<Lemire> = fairdeal::sampler_by_name("lemire", Lemire)?;
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
/// assert!(reference.index_below(&mut rng, 52) < 52);
/// # Ok::<(), fairdeal::UnknownSampler>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AnySampler<S> {
    /// The backend's own sampler (`"backend"`): [`Batched`] for the rand-family generators,
    /// Java's `nextInt` and Python's `_randbelow` for `java` and `python`, which bit-exactness
    /// with those languages needs.
    Backend(S),
    /// [`Batched`] dice (`"batched"`): up to 18 exactly unbiased indices per 64-bit word.
    Batched,
    /// [`Lemire`] (`"lemire"`): one word per index, exactly unbiased; the reference path.
    Lemire,
}

/// The error for a sampler name [`sampler_by_name`] does not know; its message lists the valid
/// names.
///
/// ```
/// let err = fairdeal::sampler_by_name("fast", fairdeal::Lemire).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "unknown sampler 'fast' (valid: backend, batched, lemire)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownSampler {
    /// The name that was asked for.
    pub name: String,
}

impl fmt::Display for UnknownSampler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown sampler '{}' (valid: {})",
            self.name,
            SAMPLERS.join(", ")
        )
    }
}

impl core::error::Error for UnknownSampler {}

/// The sampler called `name` (one of [`SAMPLERS`]), with `backend` as the backend's own.
///
/// # Errors
///
/// [`UnknownSampler`] for any other name (names are exact and lower-case).
pub fn sampler_by_name<S>(name: &str, backend: S) -> Result<AnySampler<S>, UnknownSampler> {
    match name {
        "backend" => Ok(AnySampler::Backend(backend)),
        "batched" => Ok(AnySampler::Batched),
        "lemire" => Ok(AnySampler::Lemire),
        _ => Err(UnknownSampler {
            name: String::from(name),
        }),
    }
}

impl<S: IndexSampler> IndexSampler for AnySampler<S> {
    #[inline]
    fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
        match self {
            Self::Backend(sampler) => sampler.index_below(rng, bound),
            Self::Batched => Batched.index_below(rng, bound),
            Self::Lemire => Lemire.index_below(rng, bound),
        }
    }

    #[inline]
    fn shuffle_order(&self, len: usize) -> Order {
        match self {
            Self::Backend(sampler) => sampler.shuffle_order(len),
            Self::Batched => Batched.shuffle_order(len),
            Self::Lemire => Lemire.shuffle_order(len),
        }
    }

    #[inline]
    fn for_each_index_descending<R, F>(&self, rng: &mut R, high: usize, low: usize, f: F)
    where
        R: Rng + ?Sized,
        F: FnMut(usize, usize),
    {
        match self {
            Self::Backend(sampler) => sampler.for_each_index_descending(rng, high, low, f),
            Self::Batched => Batched.for_each_index_descending(rng, high, low, f),
            Self::Lemire => Lemire.for_each_index_descending(rng, high, low, f),
        }
    }

    #[inline]
    fn for_each_index_ascending<R, F>(&self, rng: &mut R, low: usize, high: usize, f: F)
    where
        R: Rng + ?Sized,
        F: FnMut(usize, usize),
    {
        match self {
            Self::Backend(sampler) => sampler.for_each_index_ascending(rng, low, high, f),
            Self::Batched => Batched.for_each_index_ascending(rng, low, high, f),
            Self::Lemire => Lemire.for_each_index_ascending(rng, low, high, f),
        }
    }

    #[inline]
    fn swap_run<T, R: Rng + ?Sized>(&self, rng: &mut R, data: &mut [T], low: usize, order: Order) {
        match self {
            Self::Backend(sampler) => sampler.swap_run(rng, data, low, order),
            Self::Batched => Batched.swap_run(rng, data, low, order),
            Self::Lemire => Lemire.swap_run(rng, data, low, order),
        }
    }

    #[inline]
    fn deal_run<T, R: Rng + ?Sized>(&self, rng: &mut R, data: &mut [T], low: usize) {
        match self {
            Self::Backend(sampler) => sampler.deal_run(rng, data, low),
            Self::Batched => Batched.deal_run(rng, data, low),
            Self::Lemire => Lemire.deal_run(rng, data, low),
        }
    }
}

#[cfg(all(test, feature = "inplace", feature = "rng"))]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use fairdeal_core::{SeedableRng, Shuffler};
    use fairdeal_inplace::Inplace;

    fn order<S: IndexSampler>(sampler: S) -> Vec<u32> {
        let mut v: Vec<u32> = (0..600).collect();
        Inplace::with_sampler(sampler).shuffle(&mut v, &mut rand_pcg::Pcg64::seed_from_u64(4));
        v
    }

    /// Each name gives exactly the sampler it names: the same shuffle, draw for draw.
    #[test]
    fn every_name_delegates_to_its_sampler() {
        let java = fairdeal_rng::JavaSampler;
        for name in SAMPLERS {
            let chosen = order(sampler_by_name(name, java).unwrap());
            let direct = match name {
                "backend" => order(java),
                "batched" => order(Batched),
                _ => order(Lemire),
            };
            assert_eq!(chosen, direct, "{name}");
        }
        assert_ne!(order(Batched), order(Lemire));
        for bad in ["", "Lemire", "java", "batched "] {
            assert_eq!(
                sampler_by_name(bad, java).unwrap_err().name,
                bad,
                "{bad:?} accepted"
            );
        }
    }

    /// A sampler that records which of its methods was called, each answering as [`Lemire`]
    /// (and `shuffle_order` with the order `Lemire` would not pick), so that a method
    /// [`AnySampler`] did not forward would show: its trait default runs instead, and either
    /// calls another method or records nothing.
    #[derive(Default)]
    struct Recorder {
        calls: core::cell::RefCell<Vec<&'static str>>,
    }

    impl Recorder {
        fn record(&self, method: &'static str) {
            self.calls.borrow_mut().push(method);
        }
    }

    impl IndexSampler for Recorder {
        fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
            self.record("index_below");
            Lemire.index_below(rng, bound)
        }

        fn shuffle_order(&self, len: usize) -> Order {
            self.record("shuffle_order");
            match Lemire.shuffle_order(len) {
                Order::Forward => Order::Backward,
                Order::Backward => Order::Forward,
            }
        }

        fn for_each_index_descending<R, F>(&self, rng: &mut R, high: usize, low: usize, f: F)
        where
            R: Rng + ?Sized,
            F: FnMut(usize, usize),
        {
            self.record("for_each_index_descending");
            Lemire.for_each_index_descending(rng, high, low, f);
        }

        fn for_each_index_ascending<R, F>(&self, rng: &mut R, low: usize, high: usize, f: F)
        where
            R: Rng + ?Sized,
            F: FnMut(usize, usize),
        {
            self.record("for_each_index_ascending");
            Lemire.for_each_index_ascending(rng, low, high, f);
        }

        fn swap_run<T, R: Rng + ?Sized>(
            &self,
            rng: &mut R,
            data: &mut [T],
            low: usize,
            order: Order,
        ) {
            self.record("swap_run");
            Lemire.swap_run(rng, data, low, order);
        }

        fn deal_run<T, R: Rng + ?Sized>(&self, rng: &mut R, data: &mut [T], low: usize) {
            self.record("deal_run");
            Lemire.deal_run(rng, data, low);
        }
    }

    /// Every method of `AnySampler::Backend` reaches the backend's own method, not the trait's
    /// default: a sampler's overrides may be faster, or (as `shuffle_order`) answer otherwise.
    #[test]
    fn the_backend_sampler_gets_every_call() {
        let sampler = AnySampler::Backend(Recorder::default());
        let AnySampler::Backend(recorder) = &sampler else {
            unreachable!()
        };
        let mut rng = rand_pcg::Pcg64::seed_from_u64(9);
        let mut data = [0u8; 20];
        let order = sampler.shuffle_order(20);
        assert_ne!(order, Lemire.shuffle_order(20));
        let _ = sampler.index_below(&mut rng, 7);
        sampler.for_each_index_descending(&mut rng, 20, 2, |_, _| {});
        sampler.for_each_index_ascending(&mut rng, 2, 20, |_, _| {});
        sampler.swap_run(&mut rng, &mut data, 2, order);
        sampler.deal_run(&mut rng, &mut data, 5);
        assert_eq!(
            *recorder.calls.borrow(),
            [
                "shuffle_order",
                "index_below",
                "for_each_index_descending",
                "for_each_index_ascending",
                "swap_run",
                "deal_run",
            ]
        );
    }
}
