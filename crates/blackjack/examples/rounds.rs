//! Plays blackjack rounds on one thread, for profiling the engine without the CLI: the speed
//! target's game (6 decks, S17, DAS, split to 4, cut card at 75 %, one seat, flat bets, basic
//! strategy), dealt by `partial` on ChaCha12 (`rand`'s `StdRng`).
//!
//! ```text
//! cargo build --release -p fairdeal-blackjack --example rounds
//! valgrind --tool=callgrind target/release/examples/rounds 300000   # minus `rounds 1`
//! ```

use fairdeal_blackjack::{Penetration, Rules, SimConfig, Strategy, simulate};
use rand::SeedableRng;

fn main() {
    let rounds: u64 = std::env::args()
        .nth(1)
        .map_or(Ok(10_000_000), |a| a.parse())
        .expect("usage: rounds [ROUNDS]");
    let rules = Rules {
        decks: 6,
        penetration: Penetration::CutCard(0.75),
        ..Rules::default()
    };
    let strategy = Strategy::basic(&rules).expect("valid rules");
    let config = SimConfig {
        rounds,
        seed: 1,
        ..SimConfig::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    let result = pool
        .install(|| {
            simulate(&strategy, &config, &fairdeal_partial::Partial::new(), |s| {
                rand::rngs::StdRng::seed_from_u64(s)
            })
        })
        .expect("valid configuration");
    println!(
        "{} rounds, house edge {:.4} % ± {:.4}",
        result.rounds(),
        result.house_edge_percent(),
        result.std_error_percent()
    );
}
