//! The result depends on the data, the seed and the shape only: never on the thread count,
//! and `shuffle` equals `shuffle_sequential`. Plus: always a permutation, and plain Fisher-Yates
//! (draw for draw) up to one leaf.

use fairdeal_core::{SeedableRng, Shuffler};
use fairdeal_inplace::Inplace;
use fairdeal_parallel::{INFO, Parallel, ShapeError};
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

#[test]
fn same_result_on_1_2_and_3_threads_and_sequentially() {
    let pools = [pool(1), pool(2), pool(3)];
    // Leaves of 8 u32 and at most 8 buckets: sizes from empty to several levels deep.
    let small = Parallel::new().with_shape(32, 3).unwrap();
    for n in (0..40).chain([63, 64, 65, 100, 511, 512, 513, 1000, 4097]) {
        for seed in 0..3 {
            let one = shuffled_on(&pools[0], small, n, seed);
            assert_eq!(one, shuffled_on(&pools[1], small, n, seed), "n = {n}");
            assert_eq!(one, shuffled_on(&pools[2], small, n, seed), "n = {n}");
            let mut seq: Vec<u32> = (0..n).collect();
            small.shuffle_sequential(&mut seq, &mut Pcg64::seed_from_u64(seed));
            assert_eq!(one, seq, "n = {n}");
            let mut sorted = one;
            sorted.sort_unstable();
            assert!(
                sorted.iter().copied().eq(0..n),
                "not a permutation at n = {n}"
            );
        }
    }
    // The default shape, across the first scatter (one leaf = 2^18 u32) and into the recursion.
    for n in [(1 << 18) - 1, 1 << 18, (1 << 18) + 1, 3_000_000] {
        let one = shuffled_on(&pools[0], Parallel::new(), n, 7);
        assert_eq!(
            one,
            shuffled_on(&pools[1], Parallel::new(), n, 7),
            "n = {n}"
        );
        assert_eq!(
            one,
            shuffled_on(&pools[2], Parallel::new(), n, 7),
            "n = {n}"
        );
        let mut sorted = one;
        sorted.sort_unstable();
        assert!(
            sorted.iter().copied().eq(0..n),
            "not a permutation at n = {n}"
        );
    }
}

#[test]
fn up_to_one_leaf_it_is_plain_fisher_yates() {
    for n in [0, 1, 2, 52, 1000, 1 << 18] {
        let mut ours: Vec<u32> = (0..n).collect();
        let mut plain = ours.clone();
        Parallel::new().shuffle(&mut ours, &mut Pcg64::seed_from_u64(3));
        Inplace::with_sampler(*Parallel::new().sampler())
            .shuffle(&mut plain, &mut Pcg64::seed_from_u64(3));
        assert_eq!(ours, plain, "n = {n}");
    }
    let mut ours: Vec<u32> = (0..(1 << 18) + 1).collect();
    let mut plain = ours.clone();
    Parallel::new().shuffle(&mut ours, &mut Pcg64::seed_from_u64(3));
    Inplace::with_sampler(*Parallel::new().sampler())
        .shuffle(&mut plain, &mut Pcg64::seed_from_u64(3));
    assert_ne!(ours, plain, "one element past a leaf the scatter runs");
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
    assert_eq!(Parallel::new().info(), INFO);
    assert_eq!(INFO.name, "parallel");
    const { assert!(INFO.fair) };
}
