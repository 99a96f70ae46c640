/*!
A blackjack engine: validated table rules, a real shoe dealt by any fairdeal [`Shuffler`],
basic strategy computed from the rules, exact dealer probabilities, and a reproducible parallel
simulation that reports the house edge with its standard error.

# Quick start

```
use fairdeal_blackjack::{Rules, SimConfig, Strategy, Surrender, simulate};
use rand::SeedableRng;

// 6 decks, dealer hits soft 17, double after split, late surrender, 3:2, cut card at 75 %.
let rules = Rules { hits_soft_17: true, surrender: Surrender::Late, ..Rules::default() };
let strategy = Strategy::basic(&rules)?;            // exact EV-maximising decisions
println!("{}", strategy.chart());

let config = SimConfig { rounds: 200_000, seed: 42, ..SimConfig::default() };
// The run uses the caller's rayon pool; the result is the same on any number of threads.
let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build()?;
let result = pool.install(|| {
    simulate(&strategy, &config, &fairdeal_partial::Partial::new(), |seed| {
        rand::rngs::StdRng::seed_from_u64(seed)
    })
})?;
println!(
    "house edge {:.3}% ± {:.3}% over {} rounds",
    result.house_edge_percent(),
    result.std_error_percent(),
    result.rounds()
);
assert!(result.house_edge_percent().abs() < 3.0);
# Ok::<(), Box<dyn std::error::Error>>(())
```

# Design

* **Rules** ([`Rules`]) are plain data checked as a whole by [`Rules::validate`]; every entry
  point validates again, so an impossible table is an error, never a panic. Decisions made
  there: *late* surrender without a hole card is rejected (late means "after the peek"), *early*
  surrender without a hole card is allowed (half the bet is kept whatever the dealer's second
  card); "double on 9–11 / 10–11" means **hard** totals; a shoe must be deep enough that one
  round can never run out of cards ([`Rules::worst_case_cards_per_round`] is a proven bound), so
  "too many seats for the shoe" is an error up front.
* **Dealer probabilities** ([`DealerTable`]) come from one exact recursion, over fixed rank
  probabilities for the infinite deck, or without replacement for a given [`Composition`].
* **Strategy** ([`Strategy::basic`]) is an exact *infinite-deck, total-dependent* expected-value
  calculation: stand, hit, double, split (with resplits to the allowed number of hands, DAS,
  one card or play on split aces) and surrender for every hard, soft and pair hand against every
  upcard, conditioned on no dealer blackjack under the peek; with no hole card the dealer's
  blackjack takes doubles and splits too. The chart is the argmax, so it adapts to any rule
  set; [`Strategy::infinite_deck_return`] is the exact value of the game under it. A finite
  shoe changes a few marginal cells (the tests list them); the simulation measures the real edge
  of this strategy on the real shoe, which is slightly higher than that of composition-dependent
  play.
* **Shoe** ([`Shoe`]) deals `fairdeal-cards` cards and randomises lazily with
  [`Shuffler::shuffle_prefix`]: with `fairdeal-partial` that is one swap per card dealt, with
  any other fair shuffler a full shuffle of the remainder; both give uniformly random deals.
* **Simulation** ([`simulate`], [`simulate_chunks`]) splits rounds into fixed chunks of
  [`CHUNK_ROUNDS`]; chunk `c` gets the RNG `make_rng(stream_seed(seed, c))` and a fresh shoe,
  and money is summed in exact integer tenths of a unit, so the result is bit-identical on any
  number of threads and chunk ranges can be run separately and [merged](SimResult::merge).
  Like every engine here, it runs on the caller's rayon pool (choose the thread count with
  `ThreadPool::install`) and reports progress through the optional
  [`SimConfig::progress`] callback.
* **Exact analysis** ([`analyse`]): the expected return of one round off the top of a full
  shoe, by recursion over the remaining shoe composition (integer counts, memoised), with
  composition-dependent play or the chart ([`ExactStrategy`]); its module docs state the split
  model (what a split hand conditions on) and the frames. [`CompositionStrategy`] turns the same decisions
  into a decision function the simulator plays ([`simulate_composition_chunks`]).
* **Counting** (optional, [`Betting::HiLo`]): Hi-Lo true count over the *remaining* decks and
  a linear [`BetRamp`]; play stays basic strategy.
*/
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

/// The README's quick start, compiled and run by `cargo test --doc` so that it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

mod automaton;
mod count;
mod dealer;
mod exact;
mod game;
#[cfg(feature = "serde")]
mod json;
#[cfg(feature = "serde")]
pub mod report;
mod rules;
mod shoe;
mod sim;
mod strategy;
mod tally;

pub use count::{BetRamp, BetRampError, Betting, hi_lo_tag, true_count_floor};
pub use dealer::{
    Composition, DealerError, DealerOutcomes, DealerTable, OUTCOME_NAMES, dealer_outcomes_for_shoe,
};
pub use exact::{
    CompositionStrategy, ExactAnalysis, ExactError, ExactStrategy, HandValues,
    ParseExactStrategyError, analyse, analyse_with_progress,
};
pub use fairdeal_core::{Shard, ShardError, Shuffler};
#[cfg(feature = "serde")]
pub use json::SimDocError;
pub use rules::{
    DoubleRule, HoleCard, ParseRuleError, Payout, Penetration, Rules, RulesError, Surrender,
};
pub use shoe::{Shoe, card_value};
pub use sim::{
    CHUNK_ROUNDS, Progress, SimConfig, SimError, SimResult, SimSums, simulate, simulate_chunks,
    simulate_composition_chunks,
};
pub use strategy::{Action, ActionValues, Hand, Strategy};
pub use tally::Counts;
