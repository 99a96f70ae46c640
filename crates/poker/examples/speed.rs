//! Quick timing of the evaluator and the exhaustive tables: `cargo run --release -p fairdeal-poker --example speed`.

use std::time::Instant;

fn main() {
    fairdeal_poker::warm_up();
    let start = Instant::now();
    let t = fairdeal_poker::exhaustive_7();
    println!(
        "7-card exhaustive: {} hands in {:?}",
        t.total(),
        start.elapsed()
    );
    let start = Instant::now();
    let t = fairdeal_poker::exhaustive_5();
    println!(
        "5-card exhaustive: {} hands in {:?}",
        t.total(),
        start.elapsed()
    );
}
