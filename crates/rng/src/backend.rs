//! The catalogue: one marker type per backend, the [`Backend`] trait they implement, and
//! selection by name.

use core::fmt;

#[cfg(doc)]
use fairdeal_core::Lemire;
use fairdeal_core::{Batched, IndexSampler};
use rand::rngs::SysRng;
use rand_core::{Rng, SeedableRng};

use crate::{BackendInfo, JavaRandom, JavaSampler, PythonRandom, PythonSampler, RngError};

/// An RNG backend: a generator type, the sampler that draws bounded indices from it, its
/// self-description, and how to seed it.
///
/// Implemented by the zero-sized marker types in this module. Code that should work with every
/// backend is generic over `B: Backend`; code that picks one by name at run time (the CLI, the
/// benchmark driver) goes through [`with_backend`] and a [`BackendVisitor`], which
/// monomorphises the generic code once per backend instead of boxing the RNG.
///
/// `Rng` is deliberately not required to be `Clone`: `rand` 0.10's ChaCha generators are not,
/// so that a keystream is not duplicated by accident. Re-seed with [`seeded`](Backend::seeded)
/// to replay a stream.
///
/// ```
/// use fairdeal_rng::{Backend, backend::Pcg64};
/// use fairdeal_core::IndexSampler;
///
/// fn first_draw<B: Backend>(seed: u64) -> usize {
///     let mut rng = B::seeded(seed);
///     B::Sampler::default().index_below(&mut rng, 52)
/// }
/// assert_eq!(first_draw::<Pcg64>(1), first_draw::<Pcg64>(1));
/// ```
pub trait Backend: Copy + Default + fmt::Debug + Send + Sync + 'static {
    /// The generator.
    type Rng: Rng + SeedableRng + Send + Sync + fmt::Debug;
    /// How algorithms turn this generator's bits into "an index in `[0, n)`": [`Batched`]
    /// (batched dice, up to 18 exactly unbiased indices per 64-bit word) for every backend
    /// except `java` and `python`, which use their language's own one-draw-per-step method so
    /// that shuffles match bit for bit. ([`Lemire`], one draw per index, is the reference path
    /// a caller can still pick with `with_sampler`.)
    type Sampler: IndexSampler + Copy + Default + Send + Sync + fmt::Debug;
    /// Name, summary, state size, security.
    const INFO: BackendInfo;

    /// A generator seeded deterministically from `seed`: the same seed gives the same stream
    /// on every platform and every run.
    ///
    /// This is `SeedableRng::seed_from_u64`, which for `java` is `new Random(seed as long)`,
    /// for `python` is `random.seed(seed)`, and for `wyrand` is
    /// `fastrand::Rng::with_seed(seed)`. For parallel runs, seed chunk `c` with
    /// `B::seeded(fairdeal_core::stream_seed(seed, c))`.
    fn seeded(seed: u64) -> Self::Rng {
        Self::Rng::seed_from_u64(seed)
    }

    /// A generator seeded from the operating system's entropy source (`getrandom`), filling
    /// the generator's whole seed (624 words for `python`, like CPython's `random.seed()`).
    ///
    /// # Errors
    ///
    /// [`RngError::Os`] if the operating system cannot supply randomness.
    fn from_os() -> Result<Self::Rng, RngError> {
        Self::Rng::try_from_rng(&mut SysRng).map_err(RngError::Os)
    }
}

/// The name of the backend every user-facing path uses unless told otherwise: `chacha12`, a
/// CSPRNG (the generator behind `rand`'s `StdRng`), seeded from the OS.
pub const DEFAULT_BACKEND: &str = ChaCha12::INFO.name;

/// The marker type of [`DEFAULT_BACKEND`].
pub type DefaultBackend = ChaCha12;

macro_rules! backends {
    ($(
        $(#[$doc:meta])*
        $marker:ident: rng = $rng:ty, sampler = $sampler:ty,
        info = ($name:literal, $summary:expr, $bits:expr, $crypto:expr, $sampler_name:literal);
    )*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
            pub struct $marker;

            impl Backend for $marker {
                type Rng = $rng;
                type Sampler = $sampler;
                const INFO: BackendInfo =
                    BackendInfo::new($name, $summary, $bits, $crypto, $sampler_name);
            }
        )*

        static ALL: &[BackendInfo] = &[$(<$marker as Backend>::INFO),*];

        /// Runs `visitor` with the backend called `name`.
        ///
        /// # Errors
        ///
        /// [`UnknownBackend`] (whose message lists the valid names) if no backend has that
        /// name. Names are exact and lower-case, as listed by [`backends()`].
        ///
        /// ```
        /// use fairdeal_rng::{Backend, BackendVisitor, with_backend};
        /// use fairdeal_core::IndexSampler;
        ///
        /// /// Deals the first card of a seeded 52-card deck with whatever backend is chosen.
        /// struct FirstCard(u64);
        /// impl BackendVisitor for FirstCard {
        ///     type Output = usize;
        ///     fn visit<B: Backend>(self) -> usize {
        ///         let mut rng = B::seeded(self.0);
        ///         B::Sampler::default().index_below(&mut rng, 52)
        ///     }
        /// }
        ///
        /// // random.seed(42); random.randrange(52) == 40
        /// assert_eq!(with_backend("python", FirstCard(42))?, 40);
        /// let err = with_backend("mt", FirstCard(42)).unwrap_err();
        /// assert!(err.to_string().contains("chacha12"));
        /// # Ok::<(), fairdeal_rng::UnknownBackend>(())
        /// ```
        pub fn with_backend<V: BackendVisitor>(
            name: &str,
            visitor: V,
        ) -> Result<V::Output, UnknownBackend> {
            $(
                if name == $name {
                    return Ok(visitor.visit::<$marker>());
                }
            )*
            Err(UnknownBackend { name: name.into() })
        }
    };
}

backends! {
    /// `chacha8`: ChaCha with 8 rounds (the stream of `rand`'s `ChaCha8Rng`). A CSPRNG with a
    /// smaller security margin than 12 or 20 rounds (no known attack), and the fastest of the
    /// three.
    ChaCha8: rng = fairdeal_chacha::ChaCha8Rng, sampler = Batched,
    info = ("chacha8",
        "ChaCha stream cipher, 8 rounds (rand's ChaCha8Rng): cryptographically secure, the \
         fastest ChaCha; 256-bit key, 2^64 streams of 2^68 words each",
        256, true, "batched");

    /// `chacha12`: ChaCha with 12 rounds, the generator behind `rand`'s `StdRng`, and
    /// fairdeal's default ([`DEFAULT_BACKEND`]).
    ///
    /// Its `Rng` is [`fairdeal_chacha::ChaCha12Rng`]: the stream of `rand`'s `ChaCha12Rng`
    /// and `StdRng` (tests check both), computed 16 or 8 blocks at a time where the CPU has
    /// AVX-512 or AVX2. Not `StdRng` itself: `rand` reserves the right to change `StdRng`'s algorithm
    /// in a future release, and a backend *named* `chacha12` must not change.
    ChaCha12: rng = fairdeal_chacha::ChaCha12Rng, sampler = Batched,
    info = ("chacha12",
        "ChaCha stream cipher, 12 rounds (the generator of rand's StdRng): cryptographically \
         secure, the default; 256-bit key, 2^64 streams of 2^68 words each",
        256, true, "batched");

    /// `chacha20`: ChaCha with 20 rounds (the stream of `rand`'s `ChaCha20Rng`), the cipher of
    /// RFC 8439. The most conservative CSPRNG here, and the slowest.
    ChaCha20: rng = fairdeal_chacha::ChaCha20Rng, sampler = Batched,
    info = ("chacha20",
        "ChaCha stream cipher, 20 rounds (rand's ChaCha20Rng, RFC 8439 strength): \
         cryptographically secure, the most conservative and slowest; 256-bit key",
        256, true, "batched");

    /// `xoshiro256pp`: xoshiro256++ (`rand`'s `Xoshiro256PlusPlus`, which is `SmallRng` on
    /// 64-bit platforms). Fast, statistically excellent, not cryptographic.
    Xoshiro256pp: rng = rand::rngs::Xoshiro256PlusPlus, sampler = Batched,
    info = ("xoshiro256pp",
        "xoshiro256++ (rand's SmallRng on 64-bit targets): fast, NOT cryptographic (its outputs \
         reveal its state); period 2^256 - 1",
        256, false, "batched");

    /// `pcg32`: PCG XSH RR 64/32 (`rand_pcg::Pcg32`): 64-bit state plus a 63-bit stream
    /// selector. Not cryptographic.
    Pcg32: rng = rand_pcg::Pcg32, sampler = Batched,
    info = ("pcg32",
        "PCG XSH RR 64/32 (rand_pcg::Pcg32): NOT cryptographic; 64-bit LCG state plus a 63-bit \
         stream, period 2^64 per stream, so at most 2^127 starting points",
        127, false, "batched");

    /// `pcg64`: PCG XSL RR 128/64 (`rand_pcg::Pcg64`): 128-bit state plus a 127-bit stream
    /// selector. Not cryptographic.
    Pcg64: rng = rand_pcg::Pcg64, sampler = Batched,
    info = ("pcg64",
        "PCG XSL RR 128/64 (rand_pcg::Pcg64): NOT cryptographic; 128-bit LCG state plus a \
         127-bit stream, period 2^128 per stream",
        255, false, "batched");

    /// `pcg64mcg`: PCG XSL RR 128/64 on a multiplicative generator (`rand_pcg::Pcg64Mcg`):
    /// 128-bit odd state, no stream. Not cryptographic; the fastest PCG.
    Pcg64Mcg: rng = rand_pcg::Pcg64Mcg, sampler = Batched,
    info = ("pcg64mcg",
        "PCG XSL RR 128/64 MCG (rand_pcg::Pcg64Mcg): NOT cryptographic; 128-bit odd state \
         (127 free bits), period 2^126",
        127, false, "batched");

    /// `wyrand`: fastrand's generator through the [`WyRand`](crate::WyRand) adapter. Not
    /// cryptographic; 64 bits of state.
    WyRand: rng = crate::WyRand, sampler = Batched,
    info = ("wyrand",
        "wyrand (fastrand's generator, via an adapter): NOT cryptographic; 64-bit state, \
         period 2^64",
        64, false, "batched");

    /// `java`: [`JavaRandom`] with [`JavaSampler`]; `seeded(s)` is `new Random(s)` and an
    /// in-place Fisher-Yates shuffle is `Collections.shuffle` exactly. Not cryptographic;
    /// 48 bits of state.
    Java: rng = JavaRandom, sampler = JavaSampler,
    info = ("java",
        "java.util.Random port (48-bit LCG) with Java's nextInt(bound): bit-exact with \
         Collections.shuffle; NOT cryptographic, weak low bits, period 2^48",
        48, false, "java-nextint");

    /// `python`: [`PythonRandom`] (MT19937) with [`PythonSampler`]; `seeded(s)` is
    /// `random.seed(s)` and an in-place Fisher-Yates shuffle is `random.shuffle` exactly.
    /// Not cryptographic.
    Python: rng = PythonRandom, sampler = PythonSampler,
    info = ("python",
        "CPython random (MT19937, seeded like random.seed(int)) with _randbelow: bit-exact with \
         random.shuffle; NOT cryptographic (624 outputs reveal the state), period 2^19937 - 1",
        19937, false, "python-randbelow");
}

/// Every backend's self-description, in a fixed order (the CSPRNGs first, the default among
/// them), for `fairdeal backends` and the benchmark report.
///
/// ```
/// let names: Vec<&str> = fairdeal_rng::backends().iter().map(|b| b.name).collect();
/// assert!(names.contains(&fairdeal_rng::DEFAULT_BACKEND));
/// assert!(names.contains(&"java"));
/// ```
pub fn backends() -> &'static [BackendInfo] {
    ALL
}

/// The self-description of the backend called `name`.
///
/// # Errors
///
/// [`UnknownBackend`] if there is none.
///
/// ```
/// assert!(fairdeal_rng::backend_info("chacha20")?.crypto);
/// # Ok::<(), fairdeal_rng::UnknownBackend>(())
/// ```
pub fn backend_info(name: &str) -> Result<BackendInfo, UnknownBackend> {
    ALL.iter()
        .find(|info| info.name == name)
        .copied()
        .ok_or_else(|| UnknownBackend { name: name.into() })
}

/// Generic code to run with a backend chosen by name: see [`with_backend`].
pub trait BackendVisitor {
    /// What the visit returns.
    type Output;
    /// Runs with backend `B`.
    fn visit<B: Backend>(self) -> Self::Output;
}

/// A backend name that is not in the catalogue. Its message lists the valid names.
///
/// ```
/// let err = fairdeal_rng::backend_info("mersenne").unwrap_err();
/// assert_eq!(err.name(), "mersenne");
/// assert!(err.to_string().starts_with("unknown RNG backend `mersenne` (valid: chacha8, chacha12,"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown RNG backend `{name}` (valid: {valid})", valid = NameList)]
pub struct UnknownBackend {
    name: String,
}

impl UnknownBackend {
    /// The name that was asked for.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Displays the catalogue's names, comma-separated.
struct NameList;

impl fmt::Display for NameList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, info) in ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(info.name)?;
        }
        Ok(())
    }
}
