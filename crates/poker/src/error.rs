//! Everything a caller can get wrong.

use fairdeal_cards::{Card, CardError};
use fairdeal_core::{ShardError, ShuffleError};

/// Errors from evaluating hands, running tables and computing equities with bad inputs.
///
/// ```
/// use fairdeal_poker::{PokerError, Spot};
/// let err = Spot::parse(&["AsAh", "AsKd"], "", "").unwrap_err();
/// assert!(matches!(err, PokerError::DuplicateCard { .. }));
/// assert_eq!(err.to_string(), "card As is used more than once");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PokerError {
    /// Malformed card text.
    #[error(transparent)]
    Card(#[from] CardError),
    /// Malformed card text in one of a spot's inputs, named: `hand 1 "XxAh": invalid rank …`.
    #[error("{what} {text:?}: {error}")]
    CardText {
        /// Which input: `"hand 2"`, `"board"` or `"dead cards"`.
        what: String,
        /// The input as given.
        text: String,
        /// What is wrong with it.
        error: CardError,
    },
    /// The same card appears twice (in one hand, or across hands, board and dead cards).
    #[error("card {card} is used more than once")]
    DuplicateCard {
        /// The repeated card.
        card: Card,
    },
    /// A hand to evaluate must hold 5, 6 or 7 cards.
    #[error("a hand to evaluate needs 5 to 7 cards, not {len}")]
    HandSize {
        /// The number of cards given.
        len: usize,
    },
    /// Hold'em hole cards are exactly two.
    #[error("player {player} has {len} hole {}; Hold'em needs exactly 2", card_noun(*.len))]
    HoleCards {
        /// The player's position (1-based; 0 when a single hand was parsed on its own).
        player: usize,
        /// The number of cards given.
        len: usize,
    },
    /// The board holds 0, 3, 4 or 5 cards.
    #[error("a board has 0, 3, 4 or 5 cards, not {len}")]
    BoardSize {
        /// The number of board cards given.
        len: usize,
    },
    /// Hold'em equity needs 2 to 9 players.
    #[error("equity needs 2 to 9 players, not {players}")]
    Players {
        /// The number of players given.
        players: usize,
    },
    /// The deck cannot supply the cards still to deal.
    #[error("{needed} more cards are needed but only {available} remain in the deck")]
    NotEnoughCards {
        /// Cards still to deal (random hole cards and the rest of the board).
        needed: usize,
        /// Cards left after the known hands, board and dead cards.
        available: usize,
    },
    /// Exact enumeration was requested for a space too large to enumerate.
    #[error("exact enumeration would visit {outcomes} deals (limit {limit}); use Monte Carlo")]
    TooManyOutcomes {
        /// The number of deals an exact enumeration would visit.
        outcomes: u128,
        /// The largest number accepted.
        limit: u128,
    },
    /// A simulation of zero hands or trials.
    #[error("the number of hands or trials must be at least 1")]
    NoTrials,
    /// More Monte Carlo trials than the tallies can count.
    #[error("{trials} trials is more than the {max} an equity run can count")]
    TooManyTrials {
        /// The number of trials asked for.
        trials: u64,
        /// The largest number accepted.
        max: u64,
    },
    /// The table size must be 5 or 7 cards.
    #[error("hand tables are for 5 or 7 cards, not {cards}")]
    TableCards {
        /// The number of cards asked for.
        cards: usize,
    },
    /// The shuffler refused a request.
    #[error(transparent)]
    Shuffle(#[from] ShuffleError),
    /// A shard with no chunks of this run.
    #[error(transparent)]
    Shard(#[from] ShardError),
}

/// "card" or "cards", so that one card reads "1 hole card".
fn card_noun(count: usize) -> &'static str {
    if count == 1 { "card" } else { "cards" }
}
