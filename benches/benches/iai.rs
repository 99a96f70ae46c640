//! Instruction counts (iai-callgrind): the `shuffle_u32` matrix at a few sizes, for the
//! O(N) / O(N²) verdicts of `cargo xtask bench`.
//!
//! Built only with `--features iai` (the xtask enables it), so `cargo test`/`cargo bench` on the
//! workspace never need valgrind. Each benchmark gets `(algorithm, backend, n)`; the setup
//! builds the `Vec<u32>`, seeds the backend and resolves the names
//! ([`fairdeal_benches::prepare`]) outside the measured region, which runs only the shuffle.
//!
//! Besides the algorithms, `inplace-lemire` (in-place with one Lemire draw per step, the
//! reference path) shows in exact instructions what the default batched sampler saves.
//!
//! Three sizes per series (each is one valgrind process, about a second): 2^12, 2^14, 2^16 for
//! the O(N) and O(N log N) algorithms; 2^13, 2^13.5 (11 585) and 2^14 for the naive O(N²)
//! shuffle, where the N²/4 element moves dominate the per-element RNG calls (over 2^12…2^14 the
//! linear part still shows: slope ≈ 1.93; see [`GLIBC_TUNABLES`] for how the moves are
//! counted). The parallel scatter shuffle is plain Fisher-Yates up to one leaf (1 MiB, 2^18
//! `u32`), so it is counted above it, at 2^19, 2^20 and 2^21 (2 to 8 top-level chunks, every
//! phase of the scatter), through `Shuffler`, i.e. on one thread. The attribute macros need
//! literal lists, so the algorithms and backends are spelled out here; the unit test
//! `the_iai_matrix_is_the_catalogue` (benches/src/lib.rs) checks them against the facade's
//! registry and `fairdeal_rng::backends()`, and `cargo xtask bench` fails if any catalogue
//! backend or algorithm lacks a verdict.
#![allow(
    missing_docs,
    reason = "iai-callgrind's macros generate public modules and functions without docs"
)]

use std::hint::black_box;

use fairdeal_benches::Prepared;
use iai_callgrind::{
    Callgrind, LibraryBenchmarkConfig, library_benchmark, library_benchmark_group, main,
};

/// Keeps glibc's `memmove`/`memset` off `rep movsb`/`rep stosb`. Callgrind counts every
/// iteration of a `rep`-prefixed string instruction as one instruction, i.e. one per *byte*,
/// while the vector loops glibc uses otherwise move 32 bytes per instruction; glibc switches to
/// `rep movsb` above a size threshold, so the naive shuffle's `Vec::remove` would cost 0.5 to 1
/// instruction per byte depending on N, bending its slope to ~2.15 over 2^12…2^14. With ERMS
/// disabled the count reflects the work (bytes moved) at one consistent rate. Ignored by
/// non-glibc systems.
const GLIBC_TUNABLES: &str = "glibc.cpu.hwcaps=-ERMS";

/// Setup (not measured): the data, the seeded generator and the algorithm, ready to run.
fn input(algorithm: &'static str, backend: &'static str, n: usize) -> Prepared {
    fairdeal_benches::prepare(
        algorithm,
        backend,
        fairdeal_benches::SEED,
        (0..n as u32).collect(),
    )
    .unwrap_or_else(|| panic!("unknown algorithm {algorithm} or backend {backend}"))
}

/// One `#[library_benchmark]` per algorithm, with one `benches` line per backend.
macro_rules! matrix {
    ($( $func:ident = $alg:literal [$($n:literal),+] ;)+) => {
        $(
            #[library_benchmark]
            #[benches::chacha8(args = [$(($alg, "chacha8", $n)),+], setup = input)]
            #[benches::chacha12(args = [$(($alg, "chacha12", $n)),+], setup = input)]
            #[benches::chacha20(args = [$(($alg, "chacha20", $n)),+], setup = input)]
            #[benches::xoshiro256pp(args = [$(($alg, "xoshiro256pp", $n)),+], setup = input)]
            #[benches::pcg32(args = [$(($alg, "pcg32", $n)),+], setup = input)]
            #[benches::pcg64(args = [$(($alg, "pcg64", $n)),+], setup = input)]
            #[benches::pcg64mcg(args = [$(($alg, "pcg64mcg", $n)),+], setup = input)]
            #[benches::wyrand(args = [$(($alg, "wyrand", $n)),+], setup = input)]
            #[benches::java(args = [$(($alg, "java", $n)),+], setup = input)]
            #[benches::python(args = [$(($alg, "python", $n)),+], setup = input)]
            fn $func(shuffle: Prepared) -> Vec<u32> {
                black_box(shuffle())
            }
        )+
        library_benchmark_group!(name = shuffle_u32; benchmarks = $($func),+);
    };
}

matrix! {
    inplace = "inplace" [4096, 16384, 65536];
    inplace_lemire = "inplace-lemire" [4096, 16384, 65536];
    inside_out = "inside-out" [4096, 16384, 65536];
    partial = "partial" [4096, 16384, 65536];
    biased = "biased" [4096, 16384, 65536];
    sort_key = "sort-key" [4096, 16384, 65536];
    naive = "naive" [8192, 11585, 16384];
    parallel = "parallel" [524288, 1048576, 2097152];
}

main!(
    config = LibraryBenchmarkConfig::default()
        .tool(Callgrind::with_args(["--cache-sim=yes"]))
        .env("GLIBC_TUNABLES", GLIBC_TUNABLES);
    library_benchmark_groups = shuffle_u32
);
