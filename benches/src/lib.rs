/*!
Shared scaffolding for fairdeal's benchmarks (unpublished).

The benchmark targets in `benches/` measure every algorithm × every RNG backend × a sweep of
sizes, next to what a Rust user would otherwise pick (`rand`, `fastrand`, `rip_shuffle`), with
the same RNG, size and element type in the same criterion group. `cargo xtask bench` runs them
and turns the output into verdicts and a report; see `docs/benchmarks.md`.

Design choices:

* **Nothing is listed twice.** Algorithms are enumerated by [`for_each_algorithm`], which
  hands each algorithm to a visitor together with its [`AlgorithmInfo`] (name, declared
  complexity); backends are enumerated from [`fairdeal_rng::backends`] and instantiated through
  a [`fairdeal_rng::BackendVisitor`]. Each backend runs the algorithms with its own
  [`Backend::Sampler`], so `java` is measured with Java's `nextInt` and `python` with
  `_randbelow`, as the CLI would run them. (The iai-callgrind target is the one exception: its
  attribute macros need literal case lists, and `cargo xtask bench` fails when one of its
  backends or algorithms is missing.)
* **Instruction counts measure only the shuffle**: [`prepare`] seeds the generator and
  resolves the names before the measured call.
* **Quick and full modes** are chosen by the `FAIRDEAL_BENCH_QUICK` environment variable
  (set by `cargo xtask bench --quick`): see [`quick`], [`criterion_config`] and [`sizes`].
  Peers are measured at the sizes the report compares ([`target_peer_sizes`],
  [`rip_sizes`]); the N = 10^8 case ([`HUGE_N`], [`huge_backends`]) runs in full mode only.
* **`rip_shuffle` speaks `rand` 0.8.** [`Compat06`] adapts a backend's `rand_core` 0.10
  generator to `rand_core` 0.6's `RngCore`/`SeedableRng`, so the peer consumes exactly the
  same random stream type as our algorithms.
*/
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::time::Duration;

use criterion::{Criterion, SamplingMode};
use fairdeal_core::{AlgorithmInfo, Complexity, IndexSampler, Lemire, Shuffler};
use fairdeal_inplace::Inplace;
use fairdeal_rng::{Backend, BackendVisitor};

pub mod rounds;

/// The environment variable that selects quick mode when set to anything but `0` or empty.
pub const QUICK_ENV: &str = "FAIRDEAL_BENCH_QUICK";

/// Seed used by every benchmark (the numbers are independent of it; fixed for repeatability).
pub const SEED: u64 = 0x5EED_FA1D_DEA1;

/// Whether quick mode is selected (see [`QUICK_ENV`]).
pub fn quick() -> bool {
    std::env::var(QUICK_ENV).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Whether the benchmark binary was started to measure (`cargo bench` passes `--bench`), as
/// opposed to criterion's test mode (`cargo test --benches`/`--all-targets`), which runs every
/// benchmark once to check that it works. The 10^8-element case is skipped in test mode: it
/// would add half a minute and 400 MB to a test run.
pub fn measuring() -> bool {
    std::env::args().any(|a| a == "--bench")
}

/// The criterion configuration for the current mode: short warm-up and measurement in quick
/// mode, longer in full mode. Command-line arguments (a filter, `--list` …) still apply.
///
/// Benchmarks should also call [`sampling`] on their groups.
pub fn criterion_config() -> Criterion {
    // 10 000 bootstrap resamples instead of 100 000: the report uses medians, and the
    // analysis otherwise costs a noticeable share of a quick run.
    let base = Criterion::default().without_plots().nresamples(10_000);
    // Full mode: 0.2 s of warm-up and 0.8 s of measurement per point (1.3 s until the N = 10^8
    // cases were added; the difference pays for most of their ~5 minutes).
    let tuned = if quick() {
        base.sample_size(10)
            .warm_up_time(Duration::from_millis(50))
            .measurement_time(Duration::from_millis(150))
    } else {
        base.sample_size(20)
            .warm_up_time(Duration::from_millis(200))
            .measurement_time(Duration::from_millis(800))
    };
    tuned.configure_from_args()
}

/// The sampling mode for the current mode: `Flat` in quick mode (the same iteration count in
/// every sample, so a 2^20-element shuffle needs 10 calls rather than criterion's linear ramp of
/// 55), criterion's `Auto` otherwise.
pub fn sampling() -> SamplingMode {
    if quick() {
        SamplingMode::Flat
    } else {
        SamplingMode::Auto
    }
}

/// The wall-clock size sweep for an algorithm of the given complexity (peers use the
/// [`Complexity::Linear`] sweep).
///
/// Full mode: every other power of two from 2^4 to 2^20 (2^14 for O(N²), where 2^20 would take
/// minutes per call). Quick mode keeps the sizes the report needs for its comparisons
/// (≈1 000 and ≈1 000 000) plus one between them for a slope.
pub fn sizes(complexity: Complexity) -> Vec<usize> {
    let max_exp = match complexity {
        Complexity::Quadratic => 14,
        Complexity::Linear | Complexity::Linearithmic => 20,
    };
    let exps: Vec<u32> = if quick() {
        match complexity {
            Complexity::Quadratic => vec![10, 12, 14],
            _ => vec![10, 15, 20],
        }
    } else {
        (4..=max_exp).step_by(2).collect()
    };
    exps.into_iter().map(|e| 1usize << e).collect()
}

/// The `shuffle_u32` sizes at which the peers that the speed targets compare with (`rand`,
/// `fastrand`) and our one-draw-per-step reference path (`inplace-lemire`) are measured: every
/// size up to 2^12 (the targets' "N ≤ 10^4") and 2^20 (≈ 10^6) in full mode; 2^10 and 2^20 in
/// quick mode. A subset of [`sizes`]`(Linear)`, so every point has our algorithms beside it.
pub fn target_peer_sizes() -> Vec<usize> {
    let exps: Vec<u32> = if quick() {
        vec![10, 20]
    } else {
        vec![4, 6, 8, 10, 12, 20]
    };
    exps.into_iter().map(|e| 1usize << e).collect()
}

/// The `shuffle_u32` sizes at which `rip_shuffle` is measured: 2^10 and 2^20, the sizes of the
/// report's comparison tables (its targets are at N = 10^8, in the `huge_u32` group). Measuring
/// it over the whole sweep cost ~3 minutes of a full run for ratios nobody read.
pub fn rip_sizes() -> Vec<usize> {
    vec![1 << 10, 1 << 20]
}

/// The size of the `huge_u32` case: 10^8 `u32` (400 MB), far beyond any cache.
pub const HUGE_N: usize = 100_000_000;

/// The backends of the `huge_u32` case (full mode only): fastrand's generator `wyrand` (the fast
/// pairing) and the default backend.
pub fn huge_backends() -> [&'static str; 2] {
    ["wyrand", fairdeal_rng::DEFAULT_BACKEND]
}

/// Subject name of our in-place shuffle with one Lemire draw per step
/// (`Inplace::with_sampler(Lemire)`): the reference path measured beside the default sampler,
/// so the report shows what batched dice buy. Not an algorithm of its own (no verdict).
pub const INPLACE_LEMIRE: &str = "inplace-lemire";

/// Receives each algorithm in turn from [`for_each_algorithm`].
pub trait AlgorithmVisitor {
    /// Called once per algorithm, with the algorithm value and its self-description.
    fn visit<A: Shuffler + Copy + 'static>(&mut self, algorithm: A, info: AlgorithmInfo);
}

/// Hands every algorithm of the facade's registry (`fairdeal::ALGORITHMS`), built with sampler
/// `S`, to `visitor`, in the registry's order: in-place, inside-out, partial, parallel (through
/// `Shuffler`, i.e. on the calling thread), naive, biased (the unfair negative control) and
/// sort-key.
///
/// The algorithms are listed here as concrete types, not as the registry's `AnyShuffler`, so
/// that every benchmark measures the algorithm's own monomorphised code and nothing else; the
/// test `for_each_algorithm_is_the_facade_registry` keeps this list equal to the registry.
pub fn for_each_algorithm<S, V>(visitor: &mut V)
where
    S: IndexSampler + Copy + Default + 'static,
    V: AlgorithmVisitor,
{
    fn go<A: Shuffler + Copy + 'static, V: AlgorithmVisitor>(v: &mut V, a: A) {
        let info = a.info();
        v.visit(a, info);
    }
    go(
        visitor,
        fairdeal_inplace::Inplace::with_sampler(S::default()),
    );
    go(
        visitor,
        fairdeal_inside_out::InsideOut::with_sampler(S::default()),
    );
    go(
        visitor,
        fairdeal_partial::Partial::with_sampler(S::default()),
    );
    go(
        visitor,
        fairdeal_parallel::Parallel::with_sampler(S::default()),
    );
    go(visitor, fairdeal_naive::Naive::with_sampler(S::default()));
    go(visitor, fairdeal_naive::Biased::with_sampler(S::default()));
    go(visitor, fairdeal_naive::SortKey);
}

/// The algorithms' self-descriptions, in [`for_each_algorithm`] order.
pub fn algorithm_infos() -> Vec<AlgorithmInfo> {
    struct Collect(Vec<AlgorithmInfo>);
    impl AlgorithmVisitor for Collect {
        fn visit<A: Shuffler + Copy + 'static>(&mut self, _: A, info: AlgorithmInfo) {
            self.0.push(info);
        }
    }
    let mut c = Collect(Vec::new());
    for_each_algorithm::<fairdeal_core::Lemire, _>(&mut c);
    c.0
}

/// A prepared shuffle: the generator is already seeded and the data in place, so calling it
/// runs nothing but the algorithm. Returns the shuffled data.
pub type Prepared = Box<dyn FnOnce() -> Vec<u32>>;

/// Prepares a shuffle of `data` by the algorithm called `algorithm` (or [`INPLACE_LEMIRE`]) with
/// a `backend` generator seeded with `seed`, or `None` if either name is unknown.
///
/// This is how the iai-callgrind benchmarks measure only the shuffle: they prepare in their
/// setup (name lookups, seeding: `python`'s MT19937 seeding alone costs ~25 000 instructions,
/// which would bend the slope at small N) and call the result in the measured region (one
/// indirect call).
pub fn prepare(algorithm: &str, backend: &str, seed: u64, data: Vec<u32>) -> Option<Prepared> {
    struct ByName<'a> {
        algorithm: &'a str,
        seed: u64,
        data: Vec<u32>,
    }
    impl BackendVisitor for ByName<'_> {
        type Output = Option<Prepared>;
        fn visit<B: Backend>(self) -> Option<Prepared> {
            if self.algorithm == INPLACE_LEMIRE {
                let (reference, mut data) = (Inplace::with_sampler(Lemire), self.data);
                let mut rng = B::seeded(self.seed);
                return Some(Box::new(move || {
                    reference.shuffle(&mut data, &mut rng);
                    data
                }));
            }
            struct Find<'a, B: Backend> {
                name: &'a str,
                seed: u64,
                data: Option<Vec<u32>>,
                found: Option<Prepared>,
                _b: std::marker::PhantomData<B>,
            }
            impl<B: Backend> AlgorithmVisitor for Find<'_, B> {
                fn visit<A: Shuffler + Copy + 'static>(&mut self, a: A, info: AlgorithmInfo) {
                    if info.name != self.name {
                        return;
                    }
                    if let Some(mut data) = self.data.take() {
                        let mut rng = B::seeded(self.seed);
                        self.found = Some(Box::new(move || {
                            a.shuffle(&mut data, &mut rng);
                            data
                        }));
                    }
                }
            }
            let mut find = Find::<B> {
                name: self.algorithm,
                seed: self.seed,
                data: Some(self.data),
                found: None,
                _b: std::marker::PhantomData,
            };
            for_each_algorithm::<B::Sampler, _>(&mut find);
            find.found
        }
    }
    fairdeal_rng::with_backend(
        backend,
        ByName {
            algorithm,
            seed,
            data,
        },
    )
    .ok()
    .flatten()
}

/// A backend's generator seen through `rand_core` 0.6, for peers built on `rand` 0.8
/// (`rip_shuffle`).
///
/// `next_u32`/`next_u64`/`fill_bytes` forward to the wrapped generator unchanged.
/// `SeedableRng::from_seed` takes 8 bytes and calls [`Backend::seeded`] with them as a
/// little-endian `u64`, which is how `rip_shuffle`'s parallel shuffle derives per-thread
/// generators of the same backend.
pub struct Compat06<B: Backend>(pub B::Rng);

impl<B: Backend> Compat06<B> {
    /// The backend's generator seeded with `seed`.
    pub fn seeded(seed: u64) -> Self {
        Self(B::seeded(seed))
    }
}

impl<B: Backend> rand_core_06::RngCore for Compat06<B> {
    fn next_u32(&mut self) -> u32 {
        fairdeal_core::Rng::next_u32(&mut self.0)
    }
    fn next_u64(&mut self) -> u64 {
        fairdeal_core::Rng::next_u64(&mut self.0)
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        fairdeal_core::Rng::fill_bytes(&mut self.0, dest);
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core_06::Error> {
        fairdeal_core::Rng::fill_bytes(&mut self.0, dest);
        Ok(())
    }
}

impl<B: Backend> rand_core_06::SeedableRng for Compat06<B> {
    type Seed = [u8; 8];
    fn from_seed(seed: Self::Seed) -> Self {
        Self::seeded(u64::from_le_bytes(seed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn for_each_algorithm_is_the_facade_registry() {
        // Same algorithms, same self-descriptions, same order: a new algorithm in the registry
        // fails here until the benchmarks measure it.
        assert_eq!(algorithm_infos(), fairdeal::ALGORITHMS);
        let mut names: Vec<&str> = algorithm_infos().iter().map(|i| i.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(
            names.len(),
            fairdeal::ALGORITHMS.len(),
            "a name is listed twice"
        );
    }

    /// The literal lists of benches/iai.rs (its macros cannot take the catalogue at run time)
    /// against the catalogue: one `matrix!` line per registry algorithm plus the reference
    /// path, one `#[benches::…]` line per backend.
    #[test]
    fn the_iai_matrix_is_the_catalogue() {
        use std::collections::BTreeSet;
        let source = include_str!("../benches/iai.rs");
        // `inplace = "inplace" [4096, 16384, 65536];`
        let algorithms: BTreeSet<&str> = source
            .lines()
            .map(str::trim)
            .filter(|l| l.ends_with("];"))
            .filter_map(|l| {
                let (ident, rest) = l.split_once(" = \"")?;
                let ident_ok = ident.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                ident_ok.then(|| rest.split_once('"').map(|(name, _)| name))?
            })
            .collect();
        let mut expected: BTreeSet<&str> = fairdeal::ALGORITHMS.iter().map(|a| a.name).collect();
        expected.insert(INPLACE_LEMIRE);
        assert_eq!(algorithms, expected, "benches/iai.rs `matrix!` lines");
        // `#[benches::pcg64(args = [$(($alg, "pcg64", $n)),+], setup = input)]`
        let backends: BTreeSet<&str> = source
            .lines()
            .filter_map(|l| l.split_once("($alg, \"")?.1.split_once('"'))
            .map(|(name, _)| name)
            .collect();
        let expected: BTreeSet<&str> = fairdeal_rng::backends().iter().map(|b| b.name).collect();
        assert_eq!(backends, expected, "benches/iai.rs `#[benches::…]` lines");
    }

    #[test]
    fn prepare_permutes_for_every_algorithm_and_backend() {
        for b in fairdeal_rng::backends() {
            for info in algorithm_infos() {
                let run = prepare(info.name, b.name, SEED, (0..100).collect());
                let data = run.unwrap_or_else(|| panic!("{} {}", info.name, b.name))();
                let mut sorted = data.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, (0..100).collect::<Vec<u32>>());
                assert_ne!(
                    data, sorted,
                    "{} on {} left 100 elements in order",
                    info.name, b.name
                );
            }
        }
        // The reference path replays Lemire draw for draw.
        let reference = prepare(INPLACE_LEMIRE, "pcg64", SEED, (0..100).collect()).unwrap()();
        let mut rng = <fairdeal_rng::backend::Pcg64 as Backend>::seeded(SEED);
        let mut expected: Vec<u32> = (0..100).collect();
        Inplace::with_sampler(Lemire).shuffle(&mut expected, &mut rng);
        assert_eq!(reference, expected);
        assert!(prepare("no-such-algorithm", "pcg64", SEED, vec![1, 2]).is_none());
        assert!(prepare("inplace", "no-such-backend", SEED, vec![1, 2]).is_none());
    }

    #[test]
    fn compat06_forwards_the_same_stream() {
        struct Check;
        impl BackendVisitor for Check {
            type Output = ();
            fn visit<B: Backend>(self) {
                let mut ours = B::seeded(9);
                let mut theirs = Compat06::<B>::seeded(9);
                for _ in 0..8 {
                    assert_eq!(
                        fairdeal_core::Rng::next_u64(&mut ours),
                        rand_core_06::RngCore::next_u64(&mut theirs)
                    );
                }
            }
        }
        for b in fairdeal_rng::backends() {
            fairdeal_rng::with_backend(b.name, Check).unwrap();
        }
    }

    #[test]
    fn sizes_are_increasing_powers_of_two() {
        for c in [
            Complexity::Linear,
            Complexity::Linearithmic,
            Complexity::Quadratic,
        ] {
            let s = sizes(c);
            assert!(s.len() >= 3, "a slope needs several sizes: {s:?}");
            assert!(s.windows(2).all(|w| w[0] < w[1]));
            assert!(s.iter().all(|n| n.is_power_of_two()));
        }
        assert!(sizes(Complexity::Quadratic).last() <= Some(&(1 << 14)));
        assert!(sizes(Complexity::Linear).last() == Some(&(1 << 20)));
    }

    #[test]
    fn peer_sizes_are_measured_sizes_of_our_sweep() {
        let ours = sizes(Complexity::Linear);
        for s in [target_peer_sizes(), rip_sizes()] {
            assert!(s.iter().all(|n| ours.contains(n)), "{s:?} ⊄ {ours:?}");
            assert!(s.contains(&(1 << 20)), "≈ 10^6 is a target size: {s:?}");
            assert!(
                s.iter().any(|&n| n <= 10_000),
                "N ≤ 10^4 is a target: {s:?}"
            );
        }
    }

    #[test]
    fn huge_backends_are_catalogue_backends() {
        for b in huge_backends() {
            assert!(fairdeal_rng::backends().iter().any(|i| i.name == b), "{b}");
        }
    }
}
