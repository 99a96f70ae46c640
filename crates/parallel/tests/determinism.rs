//! The result depends on the data, the seed and the shape only: never on the thread count,
//! and `shuffle` equals `shuffle_sequential`. Plus: always a permutation, and plain Fisher-Yates
//! (draw for draw) up to the whole size.

use fairdeal_core::{SeedableRng, Shuffler};
use fairdeal_inplace::Inplace;
use fairdeal_parallel::{INFO, MAX_CHUNKS, Parallel, ShapeError};
use rand_pcg::Pcg64;

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn shuffled_on(pool: &rayon::ThreadPool, shape: Parallel, n: u32, seed: u64) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n).collect();
    pool.install(|| shape.shuffle(&mut v, &mut Pcg64::seed_from_u64(seed)));
    v
}

/// The pool sizes every determinism test compares (oversubscribed on a 2-core machine, which
/// is fine for correctness).
const THREADS: [usize; 6] = [1, 2, 3, 5, 7, 8];

fn assert_permutation(v: &[u32], n: u32) {
    let mut sorted = v.to_vec();
    sorted.sort_unstable();
    assert!(
        sorted.iter().copied().eq(0..n),
        "not a permutation at n = {n}"
    );
}

#[test]
fn same_result_on_1_2_3_5_7_and_8_threads_and_sequentially() {
    let pools = THREADS.map(pool);
    // Leaves of 1 or 8 u32, at most 2, 8 or 64 buckets, and chunks of 1, 3, 4 or 16 elements
    // (at most 1,000 of them): sizes from empty to several levels deep, with one to hundreds
    // of chunks.
    let shapes = [
        Parallel::new()
            .with_shape(32, 3)
            .unwrap()
            .with_whole(0)
            .with_chunks(4, 1000)
            .unwrap(),
        Parallel::new()
            .with_shape(32, 3)
            .unwrap()
            .with_whole(0)
            .with_chunks(12, 1000)
            .unwrap(),
        Parallel::new()
            .with_shape(4, 1)
            .unwrap()
            .with_whole(0)
            .with_chunks(64, 7)
            .unwrap(),
        // Up to 64 buckets in 8 groups of 8, so that the swaps between groups and the settling
        // inside each group run with several groups on several threads.
        Parallel::new()
            .with_shape(32, 6)
            .unwrap()
            .with_whole(0)
            .with_chunks(16, 1000)
            .unwrap(),
    ];
    for shape in shapes {
        for n in (0..40).chain([63, 64, 65, 100, 511, 512, 513, 1000, 4097]) {
            for seed in 0..3 {
                let one = shuffled_on(&pools[0], shape, n, seed);
                for (threads, pool) in THREADS.iter().zip(&pools).skip(1) {
                    assert_eq!(
                        one,
                        shuffled_on(pool, shape, n, seed),
                        "n = {n}, {threads} threads"
                    );
                }
                let mut seq: Vec<u32> = (0..n).collect();
                shape.shuffle_sequential(&mut seq, &mut Pcg64::seed_from_u64(seed));
                assert_eq!(one, seq, "n = {n}");
                assert_permutation(&one, n);
            }
        }
    }
    // The default leaf across the first scatter (one leaf = 2^18 u32, nothing shuffled whole
    // beyond it), the default shape across its whole size (2^21 u32), with 16 chunks at 3·10^6;
    // and a shape with two huge chunks and two buckets, so
    // that the exchange's cycles are wide enough to be rotated in parallel halves.
    let wide = Parallel::new()
        .with_shape(1 << 20, 1)
        .unwrap()
        .with_whole(0)
        .with_chunks(2 << 20, 2)
        .unwrap();
    let top = Parallel::new().with_whole(0);
    for (shape, n) in [
        (top, (1 << 18) - 1),
        (top, 1 << 18),
        (top, (1 << 18) + 1),
        (Parallel::new(), (1 << 21) + 1),
        (Parallel::new(), 3_000_000),
        (wide, 1_000_003),
    ] {
        let one = shuffled_on(&pools[0], shape, n, 7);
        for (threads, pool) in THREADS.iter().zip(&pools).skip(1) {
            assert_eq!(
                one,
                shuffled_on(pool, shape, n, 7),
                "n = {n}, {threads} threads"
            );
        }
        let mut seq: Vec<u32> = (0..n).collect();
        shape.shuffle_sequential(&mut seq, &mut Pcg64::seed_from_u64(7));
        assert_eq!(one, seq, "n = {n}");
        assert_permutation(&one, n);
    }
}

#[test]
fn any_generator_through_the_derived_chacha12() {
    use rand::SeedableRng as _;
    let shape = Parallel::new()
        .with_shape(32, 3)
        .unwrap()
        .with_whole(0)
        .with_chunks(12, 1000)
        .unwrap();
    for n in [0u32, 5, 8, 9, 1000] {
        // Shuffler::shuffle (one thread) = shuffle_any_rng (all threads) = shuffle with the
        // documented derived generator, for a generator behind `dyn`.
        let mut via_trait: Vec<u32> = (0..n).collect();
        let mut source: Box<dyn rand::Rng> = Box::new(Pcg64::seed_from_u64(11));
        Shuffler::shuffle(&shape, &mut via_trait, &mut *source);
        let mut any: Vec<u32> = (0..n).collect();
        let mut source: Box<dyn rand::Rng + Send> = Box::new(Pcg64::seed_from_u64(11));
        pool(3).install(|| shape.shuffle_any_rng(&mut any, &mut *source));
        let mut derived: Vec<u32> = (0..n).collect();
        let mut chacha = rand::rngs::ChaCha12Rng::from_rng(&mut Pcg64::seed_from_u64(11));
        shape.shuffle(&mut derived, &mut chacha);
        assert_eq!(via_trait, derived, "n = {n}");
        assert_eq!(any, derived, "n = {n}");
        assert_permutation(&any, n);
    }
}

/// FNV-1a over the little-endian bytes: a short fingerprint of a long output.
fn fingerprint(v: &[u32]) -> u64 {
    v.iter()
        .flat_map(|x| x.to_le_bytes())
        .fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        })
}

/// Seeded output is part of the API: these pin what the parallel top level gives (any thread
/// count). A change here must be deliberate and listed in CHANGELOG.md.
#[test]
fn golden_outputs() {
    let tiny = Parallel::new()
        .with_shape(8, 2)
        .unwrap()
        .with_whole(0)
        .with_chunks(12, 1000)
        .unwrap();
    let mut v: Vec<u32> = (0..20).collect();
    tiny.shuffle(&mut v, &mut Pcg64::seed_from_u64(1));
    assert_eq!(v, GOLDEN_TINY_SEED_1);
    let mut v: Vec<u32> = (0..20).collect();
    tiny.shuffle(&mut v, &mut Pcg64::seed_from_u64(2));
    assert_eq!(v, GOLDEN_TINY_SEED_2);
    // The default shape at 3·10^6 (32 chunks, 32 buckets); with nothing shuffled whole beyond
    // one leaf, just past it (5 chunks, 32 buckets, the fewest a scatter makes) and at 2^21 (32
    // chunks, 32 buckets of a quarter of a leaf, none scattered again): the first elements and
    // a fingerprint of all of them. (Up to 2^21 the default shape is plain Fisher-Yates: the
    // test below.)
    for (whole, n, seed, head, print) in GOLDEN_DEFAULT {
        let shape = Parallel::new().with_whole(whole);
        let v = shuffled_on(&pool(2), shape, n, seed);
        assert_eq!(
            (&v[..8], fingerprint(&v)),
            (&head[..], print),
            "n = {n}, seed {seed}"
        );
    }
}

const GOLDEN_TINY_SEED_1: [u32; 20] = [
    18, 13, 6, 10, 1, 15, 7, 14, 8, 4, 9, 19, 0, 3, 17, 2, 12, 16, 11, 5,
];
const GOLDEN_TINY_SEED_2: [u32; 20] = [
    19, 10, 12, 11, 1, 2, 14, 3, 6, 9, 16, 8, 0, 15, 17, 4, 7, 18, 5, 13,
];
const GOLDEN_DEFAULT: [(usize, u32, u64, [u32; 8], u64); 3] = [
    (
        0,
        (1 << 18) + 1,
        7,
        [255078, 117955, 174766, 20386, 168059, 58170, 225009, 37681],
        0x64f7_6a68_8405_4f0d,
    ),
    (
        fairdeal_parallel::DEFAULT_WHOLE_BYTES,
        3_000_000,
        7,
        [
            2953725, 314810, 576853, 1912029, 2200242, 561474, 1175479, 2594897,
        ],
        0x76e9_19f1_bab6_bbcd,
    ),
    (
        0,
        1 << 21,
        7,
        [
            271727, 294709, 823419, 46978, 1591022, 1041512, 1095701, 1968692,
        ],
        0xebb1_2dfd_8966_857d,
    ),
];

/// Up to the whole size (8 MiB: 2^21 `u32`), or one leaf when nothing else is shuffled whole,
/// the top level is plain Fisher-Yates with the caller's generator; one element more and the
/// scatter runs.
#[test]
fn up_to_the_whole_size_it_is_plain_fisher_yates() {
    let top = Parallel::new().with_whole(0);
    for (shape, n, whole) in [
        (Parallel::new(), 0, true),
        (Parallel::new(), 1, true),
        (Parallel::new(), 52, true),
        (Parallel::new(), 1000, true),
        (Parallel::new(), (1 << 18) + 1, true),
        (Parallel::new(), 1 << 21, true),
        (Parallel::new(), (1 << 21) + 1, false),
        (top, 1 << 18, true),
        (top, (1 << 18) + 1, false),
    ] {
        let mut ours: Vec<u32> = (0..n).collect();
        let mut plain = ours.clone();
        pool(2).install(|| shape.shuffle(&mut ours, &mut Pcg64::seed_from_u64(3)));
        Inplace::with_sampler(*shape.sampler()).shuffle(&mut plain, &mut Pcg64::seed_from_u64(3));
        assert_eq!(
            ours == plain,
            whole,
            "n = {n}, whole size {}",
            shape.whole_bytes()
        );
    }
}

#[test]
fn elements_need_not_be_clone_or_send_sequentially() {
    #[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
    struct Card(u8, std::rc::Rc<()>);
    let token = std::rc::Rc::new(());
    let mut cards: Vec<Card> = (0..200).map(|i| Card(i, token.clone())).collect();
    Parallel::new()
        .with_shape(16, 2)
        .unwrap()
        .with_whole(0)
        .shuffle_sequential(&mut cards, &mut Pcg64::seed_from_u64(5));
    cards.sort();
    assert!(cards.iter().map(|c| c.0).eq(0..200));
}

#[test]
fn odd_element_sizes_are_permuted() {
    // Zero-sized and larger-than-a-leaf elements still make at least one element per leaf.
    let mut units = vec![(); 1000];
    Parallel::new().shuffle(&mut units, &mut Pcg64::seed_from_u64(1));
    let mut big: Vec<[u64; 16]> = (0..300).map(|i| [i; 16]).collect();
    Parallel::new()
        .with_shape(64, 2)
        .unwrap()
        .with_whole(0)
        .shuffle(&mut big, &mut Pcg64::seed_from_u64(1));
    big.sort_unstable();
    assert!(big.iter().map(|b| b[0]).eq(0..300));
}

#[test]
fn bad_shapes_are_errors() {
    assert_eq!(Parallel::new().with_shape(0, 4), Err(ShapeError::EmptyLeaf));
    assert_eq!(
        Parallel::new().with_shape(64, 0),
        Err(ShapeError::BucketBits { got: 0, max: 16 })
    );
    assert_eq!(
        Parallel::new().with_shape(64, 17),
        Err(ShapeError::BucketBits { got: 17, max: 16 })
    );
    let shape = Parallel::new().with_shape(64, 16).unwrap();
    assert_eq!((shape.leaf_bytes(), shape.max_bucket_bits()), (64, 16));
    assert_eq!(Parallel::new(), Parallel::default());
    assert_eq!(
        Parallel::new().with_chunks(0, 4),
        Err(ShapeError::EmptyChunk)
    );
    for bad in [0, MAX_CHUNKS + 1] {
        assert_eq!(
            Parallel::new().with_chunks(64, bad),
            Err(ShapeError::Chunks {
                got: bad,
                max: MAX_CHUNKS
            })
        );
    }
    let shape = Parallel::new().with_chunks(8, MAX_CHUNKS).unwrap();
    assert_eq!((shape.chunk_bytes(), shape.max_chunks()), (8, MAX_CHUNKS));
    assert_eq!(Parallel::new().info(), INFO);
    assert_eq!(INFO.name, "parallel");
    const { assert!(INFO.fair) };
}

/// The decomposition is cut in bytes, so the same byte sizes give each item size its own
/// permutation; byte sizes scaled by the item size (what the Python module does, the whole
/// size too) give every item size the one permutation of the length, the one the values `0..n`
/// take.
#[test]
fn byte_sizes_scaled_by_the_item_size_give_every_item_size_one_permutation() {
    fn scaled(size: usize) -> Parallel {
        Parallel::new()
            .with_shape(64 * size, 3)
            .unwrap()
            .with_whole(256 * size)
            .with_chunks(16 * size, 100)
            .unwrap()
    }
    fn order_of<T: Copy + Send>(
        n: usize,
        make: impl Fn(usize) -> T,
        key: impl Fn(&T) -> usize,
        p: Parallel,
    ) -> Vec<usize> {
        let mut v: Vec<T> = (0..n).map(make).collect();
        pool(3).install(|| p.shuffle(&mut v, &mut Pcg64::seed_from_u64(5)));
        v.iter().map(key).collect()
    }
    for n in [0, 1, 63, 64, 65, 1000, 5000] {
        let reference = order_of(n, |i| i as u64, |&x| x as usize, scaled(8));
        assert_eq!(
            order_of(n, |i| i as u32, |&x| x as usize, scaled(4)),
            reference
        );
        assert_eq!(
            order_of(n, |i| i as u16, |&x| usize::from(x), scaled(2)),
            reference
        );
        assert_eq!(
            order_of(n, |i| [i as u64, 0, 7], |x| x[0] as usize, scaled(24)),
            reference
        );
        if n > 256 {
            // Negative control: unscaled, 2-byte items get 4 times the elements per leaf (and
            // are shuffled whole up to 1,024 elements).
            assert_ne!(
                order_of(n, |i| i as u16, |&x| usize::from(x), scaled(8)),
                reference
            );
        }
    }
}

#[test]
fn cancellable_equals_shuffle_until_cancelled_and_then_leaves_a_permutation() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let shape = Parallel::new()
        .with_shape(32, 3)
        .unwrap()
        .with_whole(0)
        .with_chunks(16, 100)
        .unwrap();
    let never = AtomicBool::new(false);
    for n in [0u32, 5, 8, 9, 1000, 20_000] {
        let mut v: Vec<u32> = (0..n).collect();
        pool(2)
            .install(|| shape.shuffle_cancellable(&mut v, &mut Pcg64::seed_from_u64(3), &never))
            .unwrap();
        assert_eq!(v, shuffled_on(&pool(1), shape, n, 3));
    }
    // Set before the call: untouched (beyond one leaf), and an error.
    let set = AtomicBool::new(true);
    let mut v: Vec<u32> = (0..20_000).collect();
    let stopped = shape.shuffle_cancellable(&mut v, &mut Pcg64::seed_from_u64(3), &set);
    assert_eq!(stopped, Err(fairdeal_parallel::Cancelled));
    assert!(v.iter().copied().eq(0..20_000));
    // Set from another thread while it runs: whenever it lands, a permutation is left.
    for delay_us in [0, 50, 500, 5000] {
        let flag = AtomicBool::new(false);
        let mut v: Vec<u32> = (0..3_000_000).collect();
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(std::time::Duration::from_micros(delay_us));
                flag.store(true, Ordering::Relaxed);
            });
            let _ = pool(2).install(|| {
                Parallel::new().shuffle_cancellable(&mut v, &mut Pcg64::seed_from_u64(4), &flag)
            });
        });
        assert_permutation(&v, 3_000_000);
    }
}

/// A generator that counts how many of its kind are alive (`LIVE`) and the most at once
/// (`PEAK`): wyrand's step, so it is a real stream.
mod counted {
    use std::convert::Infallible;
    use std::sync::atomic::{AtomicUsize, Ordering};

    pub(super) static LIVE: AtomicUsize = AtomicUsize::new(0);
    pub(super) static PEAK: AtomicUsize = AtomicUsize::new(0);

    pub(super) struct Counted(u64);

    impl Counted {
        fn born(state: u64) -> Self {
            let live = LIVE.fetch_add(1, Ordering::SeqCst) + 1;
            PEAK.fetch_max(live, Ordering::SeqCst);
            Self(state)
        }
    }

    impl Drop for Counted {
        fn drop(&mut self) {
            LIVE.fetch_sub(1, Ordering::SeqCst);
        }
    }

    impl fairdeal_core::rand_core::TryRng for Counted {
        type Error = Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Infallible> {
            Ok(self.try_next_u64()? as u32)
        }
        fn try_next_u64(&mut self) -> Result<u64, Infallible> {
            self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
            let t = u128::from(self.0) * u128::from(self.0 ^ 0xe703_7ed1_a0b4_28db);
            Ok((t >> 64) as u64 ^ t as u64)
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
            for chunk in dst.chunks_mut(8) {
                let word = self.try_next_u64()?.to_le_bytes();
                chunk.copy_from_slice(&word[..chunk.len()]);
            }
            Ok(())
        }
    }

    impl fairdeal_core::SeedableRng for Counted {
        type Seed = [u8; 8];
        fn from_seed(seed: [u8; 8]) -> Self {
            Self::born(u64::from_le_bytes(seed))
        }
    }
}

/// The widest fan-out (2^16 buckets at the top, each scattered again) on one thread and on
/// two: the same permutation, pinned by a golden fingerprint, with about one wave of child
/// generators alive at once instead of one per bucket. (The fingerprint taken before the
/// children were drawn in waves held after them: the waves changed no draw. It changed when a
/// scatter's fewest buckets went from 8 to 32, for the buckets scattered again.)
#[test]
fn the_widest_fan_out_keeps_few_generators_alive() {
    use counted::{Counted, LIVE, PEAK};
    use std::sync::atomic::Ordering;
    let shape = Parallel::new().with_shape(32, 16).unwrap().with_whole(0);
    let n = 1u32 << 20;
    let mut seq: Vec<u32> = (0..n).collect();
    PEAK.store(0, Ordering::SeqCst);
    shape.shuffle_sequential(&mut seq, &mut Counted::seed_from_u64(5));
    let peak_seq = PEAK.load(Ordering::SeqCst);
    let mut par: Vec<u32> = (0..n).collect();
    PEAK.store(0, Ordering::SeqCst);
    pool(2).install(|| shape.shuffle(&mut par, &mut Counted::seed_from_u64(5)));
    let peak_par = PEAK.load(Ordering::SeqCst);
    assert_eq!(LIVE.load(Ordering::SeqCst), 0);
    assert_eq!(seq, par);
    assert_permutation(&seq, n);
    assert_eq!(
        (&seq[..8], fingerprint(&seq)),
        (
            &[513466, 629664, 70997, 313173, 138922, 950731, 725387, 92719][..],
            0xe880_f2a4_cce5_2441
        )
    );
    // One wave of 1,024 at the top, plus the few of the buckets being scattered again (1,036
    // measured on both); drawing every child first held 65,569.
    assert!(
        peak_seq <= 2048 && peak_par <= 2048,
        "{peak_seq} / {peak_par} alive at once"
    );
}
