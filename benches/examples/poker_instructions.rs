//! Instruction counts for the poker evaluators, free of the timing noise of a shared machine.
//!
//! Evaluates the same 1,000,000 random 7-card hands with fairdeal or rs_poker 5.0.0 (or
//! neither, to measure the set-up) and prints a checksum. Run each mode under callgrind and
//! subtract the `none` total:
//!
//! ```text
//! cargo build --release -p fairdeal-benches --example poker_instructions
//! for m in none fairdeal rs_poker; do
//!   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.$m \
//!     target/release/examples/poker_instructions $m 2>&1 | grep Collected
//! done
//! ```

use std::hint::black_box;

use fairdeal_cards::{Card, standard_deck};
use fairdeal_core::Shuffler;
use fairdeal_partial::Partial;
use fairdeal_rng::Backend;
use rs_poker::core::{Card as RsCard, Rankable, Suit as RsSuit, Value as RsValue};

const HANDS: usize = 1_000_000;

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let mut rng = <fairdeal_rng::backend::Pcg64Mcg as Backend>::seeded(fairdeal_benches::SEED);
    let mut deck = standard_deck();
    let hands: Vec<[Card; 7]> = (0..HANDS)
        .map(|_| {
            Partial::new()
                .shuffle_prefix(&mut deck, 7, &mut rng)
                .expect("7 <= 52");
            deck[..7].try_into().expect("7 cards")
        })
        .collect();
    let rs_hands: Vec<[RsCard; 7]> = hands
        .iter()
        .map(|h| {
            h.map(|c| {
                RsCard::new(
                    RsValue::from_u8(c.rank().index()),
                    RsSuit::from_u8(c.suit().index()),
                )
            })
        })
        .collect();
    let mut sum = 0u64;
    match mode.as_str() {
        "none" => {}
        "fairdeal" => {
            for h in &hands {
                sum += u64::from(fairdeal_poker::evaluate(black_box(h)).map_or(0, |v| v.get()));
            }
        }
        "rs_poker" => {
            for h in &rs_hands {
                sum += u64::from(black_box(&h[..]).rank().category() as u8);
            }
        }
        other => {
            eprintln!("usage: poker_instructions none|fairdeal|rs_poker (got {other:?})");
            std::process::exit(2);
        }
    }
    println!("{sum}");
}
