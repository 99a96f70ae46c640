//! Every generator's stream against `rand`'s generator of the same rounds, through whichever
//! engine this CPU gives it, and the published ChaCha20 test vector.

use proptest::prelude::*;
use rand::SeedableRng;
use rand_core::Rng;

/// A way of reading or moving in a stream.
#[derive(Debug, Clone)]
enum Op {
    U32,
    U64,
    Bytes(usize),
    WordPos(u128),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => Just(Op::U32),
        4 => Just(Op::U64),
        4 => (0usize..2100).prop_map(Op::Bytes),
        // Inside the first blocks, across the carry into the counter's high word, and at the
        // end of the 2^68-word stream.
        1 => prop_oneof![
            0u128..5000,
            ((1u128 << 36) - 5000)..((1u128 << 36) + 5000),
            ((1u128 << 68) - 5000)..(1u128 << 68),
        ]
        .prop_map(Op::WordPos),
    ]
}

macro_rules! same_stream {
    ($test:ident, $ours:ty, $rands:ty) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(200))]
            #[test]
            fn $test(seed: [u8; 32], stream: u64, ops in prop::collection::vec(op(), 1..60)) {
                let mut ours = <$ours>::from_seed(seed);
                let mut rands = <$rands>::from_seed(seed);
                ours.set_stream(stream);
                rands.set_stream(stream);
                for op in ops {
                    match op {
                        Op::U32 => prop_assert_eq!(ours.next_u32(), rands.next_u32()),
                        Op::U64 => prop_assert_eq!(ours.next_u64(), rands.next_u64()),
                        Op::Bytes(len) => {
                            let (mut a, mut b) = (vec![0; len], vec![0; len]);
                            ours.fill_bytes(&mut a);
                            rands.fill_bytes(&mut b);
                            prop_assert_eq!(a, b);
                        }
                        Op::WordPos(position) => {
                            ours.set_word_pos(position);
                            rands.set_word_pos(position);
                        }
                    }
                    prop_assert_eq!(ours.get_word_pos(), rands.get_word_pos());
                }
                prop_assert_eq!(ours.get_seed(), rands.get_seed());
                prop_assert_eq!(ours.get_stream(), rands.get_stream());
            }
        }
    };
}

same_stream!(
    chacha8_is_rands,
    fairdeal_chacha::ChaCha8Rng,
    rand::rngs::ChaCha8Rng
);
same_stream!(
    chacha12_is_rands,
    fairdeal_chacha::ChaCha12Rng,
    rand::rngs::ChaCha12Rng
);
same_stream!(
    chacha20_is_rands,
    fairdeal_chacha::ChaCha20Rng,
    rand::rngs::ChaCha20Rng
);

#[test]
fn seeded_from_u64_as_std_rng() {
    for seed in [0, 1, 42, u64::MAX] {
        let mut ours = fairdeal_chacha::ChaCha12Rng::seed_from_u64(seed);
        let mut std = rand::rngs::StdRng::seed_from_u64(seed);
        for _ in 0..1000 {
            assert_eq!(ours.next_u64(), std.next_u64());
        }
    }
}

/// RFC 8439, appendix A.1, test vector #1: the ChaCha20 block function with an all-zero key,
/// counter and nonce. (With counter and nonce zero, the RFC's 32-bit counter and 96-bit nonce
/// and this generator's 64-bit counter and stream lay out the same state.)
#[test]
fn chacha20_matches_rfc_8439_a1_vector_1() {
    let expected: [u8; 64] = [
        0x76, 0xb8, 0xe0, 0xad, 0xa0, 0xf1, 0x3d, 0x90, 0x40, 0x5d, 0x6a, 0xe5, 0x53, 0x86, 0xbd,
        0x28, 0xbd, 0xd2, 0x19, 0xb8, 0xa0, 0x8d, 0xed, 0x1a, 0xa8, 0x36, 0xef, 0xcc, 0x8b, 0x77,
        0x0d, 0xc7, 0xda, 0x41, 0x59, 0x7c, 0x51, 0x57, 0x48, 0x8d, 0x77, 0x24, 0xe0, 0x3f, 0xb8,
        0xd8, 0x4a, 0x37, 0x6a, 0x43, 0xb8, 0xf4, 0x15, 0x18, 0xa1, 0x1c, 0xc3, 0x87, 0xb6, 0x69,
        0xb2, 0xee, 0x65, 0x86,
    ];
    let mut block = [0; 64];
    fairdeal_chacha::ChaCha20Rng::from_seed([0; 32]).fill_bytes(&mut block);
    assert_eq!(block, expected);
}

/// The widest block function the CPU runs (up to the build's cap) is the one in use, so that the
/// tests above test it (a detection that always failed would leave them comparing `rand` with
/// itself).
#[test]
fn the_widest_block_function_is_used() {
    let rng = fairdeal_chacha::ChaCha12Rng::seed_from_u64(1);
    let cap_avx2 = cfg!(fairdeal_chacha_widest = "avx2");
    let cap_portable = cfg!(fairdeal_chacha_widest = "portable");
    #[cfg(target_arch = "x86_64")]
    let expected = if std::is_x86_feature_detected!("avx512f") && !cap_avx2 && !cap_portable {
        "avx512"
    } else if std::is_x86_feature_detected!("avx2") && !cap_portable {
        "avx2"
    } else {
        "portable"
    };
    #[cfg(not(target_arch = "x86_64"))]
    let expected = "portable";
    assert_eq!(rng.block_function(), expected, "{rng:?}");
}
