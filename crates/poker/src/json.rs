//! The JSON form of an equity report (feature `serde`): written by `fairdeal poker equity
//! --json`, and read back by `fairdeal merge`, which adds shards' integer tallies up to the
//! whole run's.

use serde::{Deserialize, Serialize};

use crate::{EquityReport, EquityTally, PokerError, Spot};

/// An equity report as JSON: the spot (seat hands, board, dead cards as text), each seat's
/// fractions and the integer tallies they come from.
///
/// ```
/// use fairdeal_poker::{EquityDoc, Spot, equity_exact};
/// let spot = Spot::parse(&["AsAh", "KsKh"], "2c7d9h", "")?;
/// let report = equity_exact(&spot)?;
/// let doc = EquityDoc::new(&report, &spot);
/// assert_eq!((doc.board.as_str(), doc.players[0].hand.as_str()), ("2c7d9h", "AsAh"));
/// let back: EquityDoc = serde_json::from_value(serde_json::to_value(&doc)?)?;
/// assert_eq!(back.spot()?, spot);
/// assert_eq!(back.tally(), report.tally);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EquityDoc {
    /// Whether every deal was enumerated ([`EquityReport::exact`]).
    pub exact: bool,
    /// Deals scored.
    pub trials: u64,
    /// The board cards, e.g. `2c7d9h`.
    pub board: String,
    /// The dead cards.
    pub dead: String,
    /// One entry per seat, in seat order.
    pub players: Vec<PlayerDoc>,
}

/// One seat of an [`EquityDoc`]: its fractions, and the integer tallies they come from (deals
/// won alone, deals tied, pot shares from ties in units of 1/[`SHARE_UNIT`](crate::SHARE_UNIT)
/// pot).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayerDoc {
    /// The seat's hand, e.g. `AsKs`, or `random`.
    pub hand: String,
    /// Fraction of deals won alone.
    pub win: f64,
    /// Fraction of deals tied.
    pub tie: f64,
    /// Share of the pots won.
    pub equity: f64,
    /// Deals won alone.
    pub wins: u64,
    /// Deals tied.
    pub ties: u64,
    /// Pot shares from ties.
    pub shares: u64,
}

impl EquityDoc {
    /// The document of `report` on `spot`.
    pub fn new(report: &EquityReport, spot: &Spot) -> EquityDoc {
        fn cards<C: ToString>(cards: &[C]) -> String {
            cards.iter().map(ToString::to_string).collect()
        }
        EquityDoc {
            exact: report.exact,
            trials: report.trials,
            board: cards(spot.board()),
            dead: cards(spot.dead()),
            players: report
                .players
                .iter()
                .enumerate()
                .map(|(i, p)| PlayerDoc {
                    hand: p.seat.to_string(),
                    win: p.win,
                    tie: p.tie,
                    equity: p.equity,
                    wins: report.tally.wins[i],
                    ties: report.tally.ties[i],
                    shares: report.tally.shares[i],
                })
                .collect(),
        }
    }

    /// The spot the document describes.
    ///
    /// # Errors
    ///
    /// As [`Spot::parse`].
    pub fn spot(&self) -> Result<Spot, PokerError> {
        let hands: Vec<&str> = self.players.iter().map(|p| p.hand.as_str()).collect();
        Spot::parse(&hands, &self.board, &self.dead)
    }

    /// The document's tallies as written (seats past the ninth are ignored); check them with
    /// [`EquityTally::check`] before adding them up.
    pub fn tally(&self) -> EquityTally {
        let mut tally = EquityTally {
            deals: self.trials,
            ..EquityTally::default()
        };
        for (i, player) in self.players.iter().enumerate().take(9) {
            tally.wins[i] = player.wins;
            tally.ties[i] = player.ties;
            tally.shares[i] = player.shares;
        }
        tally
    }
}
