//! Poker spots (`fairdeal poker equity AsAh KdKc --board ... --dead ...`): `Spot::parse` never
//! panics on any hands, board and dead-card text. The input is split on `|` into the board, the
//! dead cards and up to 12 hands.
#![no_main]

use fairdeal_poker::Spot;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let mut parts = text.split('|');
    let board = parts.next().unwrap_or("");
    let dead = parts.next().unwrap_or("");
    let hands: Vec<&str> = parts.take(12).collect();
    let _ = Spot::parse(&hands, board, dead);
});
