//! A real shoe: `fairdeal-cards` cards, any [`Shuffler`], a cut card or a continuous shuffler.

use fairdeal_cards::Card;
use fairdeal_core::{Rng, Shuffler};

use crate::rules::{Rules, RulesError};

/// Blackjack value by card index (`4 · rank + suit`): 2..=9, 10 for T J Q K, 1 for the ace.
const VALUE_BY_INDEX: [u8; 52] = {
    let mut table = [0u8; 52];
    let mut i = 0;
    while i < 52 {
        let rank = i / 4; // 0 = two … 12 = ace
        table[i] = if rank == 12 {
            1
        } else if rank >= 8 {
            10
        } else {
            rank as u8 + 2
        };
        i += 1;
    }
    table
};

/// The blackjack value of a card: 1 for an ace, 10 for ten-valued cards, else its number.
///
/// ```
/// use fairdeal_blackjack::card_value;
/// assert_eq!(card_value("As".parse()?), 1);
/// assert_eq!(card_value("Kd".parse()?), 10);
/// assert_eq!(card_value("7c".parse()?), 7);
/// # Ok::<(), fairdeal_cards::CardError>(())
/// ```
#[inline]
pub fn card_value(card: Card) -> u8 {
    VALUE_BY_INDEX[usize::from(card.index())]
}

/// A multi-deck shoe dealt one card at a time.
///
/// # How cards are randomised
///
/// The shoe never shuffles more than it must. When it is (re)filled, it asks the shuffler for
/// a random *prefix* up to the cut card ([`Shuffler::shuffle_prefix`]); each time dealing
/// reaches the end of the randomised part (after the cut card, while the last round is
/// finished, or in every round of a continuous shuffler) it randomises a further small block
/// of what is left. With `fairdeal-partial` a prefix of `k` cards costs `k` swaps, so a shoe
/// costs one swap per card actually dealt; any other fair shuffler shuffles the whole
/// remainder instead and gives the same distribution, just slower. Either way the cards come
/// out as a uniformly random sequence: each block is a uniform ordered sample of the cards not
/// yet dealt, whatever order they were left in.
///
/// # Cut card
///
/// [`start_round`](Shoe::start_round) reshuffles when the cut card has come out (at least
/// `cut` cards dealt) — so the round during which it appears is finished from the same shoe —
/// and before every round with [`Penetration::Continuous`](crate::Penetration::Continuous).
///
/// If a round ever exhausted the shoe, the discards of earlier rounds would be shuffled and
/// dealt, as a dealer would; [`Rules::validate`] guarantees a round can never need more cards
/// than the shoe holds.
///
/// ```
/// use fairdeal_blackjack::{Rules, Shoe, card_value};
/// use rand::SeedableRng;
/// let mut rng = rand::rngs::StdRng::seed_from_u64(1);
/// // Any Shuffler works; the partial shuffle does one swap per card dealt.
/// let mut shoe = Shoe::new(&Rules::default(), fairdeal_partial::Partial::new())?;
/// shoe.start_round(&mut rng);
/// let card = shoe.draw(&mut rng);
/// assert!((1..=10).contains(&card_value(card)));
/// assert_eq!(shoe.remaining(), 311);
/// # Ok::<(), fairdeal_blackjack::RulesError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Shoe<S> {
    inner: Dealing<Card, S>,
}

impl<S: Shuffler> Shoe<S> {
    /// A shoe for `rules` (decks, penetration, seats) dealt with `shuffler`.
    ///
    /// # Errors
    ///
    /// The rules' [`RulesError`] if they are invalid.
    pub fn new(rules: &Rules, shuffler: S) -> Result<Shoe<S>, RulesError> {
        rules.validate()?;
        let cards = fairdeal_cards::shoe(usize::from(rules.decks))
            .map_err(|_| RulesError::Decks(rules.decks))?;
        Ok(Shoe {
            inner: Dealing::new(rules, cards, shuffler),
        })
    }

    /// Prepares the next round: reshuffles if the cut card came out in an earlier round, if
    /// this is a continuous shuffler, or if nothing has been dealt yet. Returns whether it
    /// reshuffled.
    pub fn start_round<R: Rng + ?Sized>(&mut self, rng: &mut R) -> bool {
        self.inner.start_round(rng)
    }

    /// Deals the next card.
    #[inline]
    pub fn draw<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Card {
        self.inner.draw(rng)
    }

    /// Cards not yet dealt since the last shuffle (what a counter divides by).
    #[inline]
    pub fn remaining(&self) -> usize {
        self.inner.remaining()
    }

    /// Cards in the full shoe.
    pub fn len(&self) -> usize {
        self.inner.cards.len()
    }

    /// Always false: a shoe holds at least one deck.
    pub fn is_empty(&self) -> bool {
        self.inner.cards.is_empty()
    }

    /// How many times the shoe has been (re)shuffled.
    pub fn shuffles(&self) -> u64 {
        self.inner.shuffles
    }

    /// The cards dealt since the last shuffle, in order.
    pub fn dealt(&self) -> &[Card] {
        &self.inner.cards[..self.inner.pos]
    }
}

/// The shoe the simulation deals from: the same cards in the same order as [`Shoe`] with the
/// same shuffler and generator (the shuffler's swaps depend on positions only), each stored as
/// its blackjack value, so a draw is one load with no card-to-value lookup.
pub(crate) type ValueShoe<S> = Dealing<u8, S>;

impl<S: Shuffler> ValueShoe<S> {
    /// The value shoe of [`Shoe::new`]`(rules, shuffler)`.
    pub(crate) fn values(rules: &Rules, shuffler: S) -> Result<ValueShoe<S>, RulesError> {
        rules.validate()?;
        let cards = fairdeal_cards::shoe(usize::from(rules.decks))
            .map_err(|_| RulesError::Decks(rules.decks))?;
        Ok(Dealing::new(
            rules,
            cards.into_iter().map(card_value).collect(),
            shuffler,
        ))
    }
}

/// The dealing machinery of [`Shoe`], for any kind of card.
#[derive(Debug, Clone)]
pub(crate) struct Dealing<T, S> {
    cards: Vec<T>,
    shuffler: S,
    /// Next card to deal.
    pos: usize,
    /// `cards[pos..ready]` is already randomised.
    ready: usize,
    /// First card of the current round (earlier ones are discards).
    round_start: usize,
    /// Reshuffle when `pos >= cut`; `None` = continuous shuffler.
    cut: Option<usize>,
    /// Cards randomised per block after the first.
    block: usize,
    /// The shoe ran dry mid-round: reshuffle before the next one whatever the cut card says.
    force_reshuffle: bool,
    shuffles: u64,
}

impl<T: Copy, S: Shuffler> Dealing<T, S> {
    /// Takes validated rules.
    fn new(rules: &Rules, cards: Vec<T>, shuffler: S) -> Dealing<T, S> {
        let len = cards.len();
        Dealing {
            cards,
            shuffler,
            pos: len,
            ready: len,
            round_start: 0,
            cut: rules.cut_card().map(|c| c as usize),
            // About one round's worth of cards: 2 per hand plus a few hits.
            block: 3 * (usize::from(rules.seats) + 1) + 2,
            force_reshuffle: false,
            shuffles: 0,
        }
    }

    /// See [`Shoe::start_round`].
    #[inline]
    pub(crate) fn start_round<R: Rng + ?Sized>(&mut self, rng: &mut R) -> bool {
        let reshuffle = self.force_reshuffle
            || match self.cut {
                Some(cut) => self.pos >= cut,
                None => true,
            };
        if reshuffle {
            self.reshuffle(rng);
        } else {
            self.round_start = self.pos;
        }
        reshuffle
    }

    #[inline(never)]
    fn reshuffle<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        self.force_reshuffle = false;
        self.pos = 0;
        self.ready = 0;
        self.round_start = 0;
        self.shuffles += 1;
        // With a cut card, randomise everything up to it in one call (one swap per card
        // with a partial shuffler); a continuous shuffler needs about one round.
        let first = self.cut.unwrap_or(self.block).min(self.cards.len());
        self.randomise(first, rng);
    }

    fn randomise<R: Rng + ?Sized>(&mut self, k: usize, rng: &mut R) {
        let rest = &mut self.cards[self.pos..];
        let k = k.min(rest.len());
        // `k <= rest.len()` so this cannot fail; the error arm keeps it panic-free anyway.
        if self.shuffler.shuffle_prefix(rest, k, rng).is_ok() {
            self.ready = self.pos + k;
        } else {
            self.shuffler.shuffle(rest, rng);
            self.ready = self.cards.len();
        }
    }

    /// See [`Shoe::draw`].
    #[inline]
    pub(crate) fn draw<R: Rng + ?Sized>(&mut self, rng: &mut R) -> T {
        if self.pos == self.ready {
            self.refill(rng);
        }
        let card = self.cards[self.pos];
        self.pos += 1;
        card
    }

    /// The next `N` cards: `N` [`draw`](Dealing::draw)s, with one check instead of `N` when
    /// they are all randomised already. A hint only: forced inline, the CLI's build ran 14
    /// instructions per round fewer but 2.6 % slower (docs/blackjack.md).
    #[inline]
    pub(crate) fn draw_array<R: Rng + ?Sized, const N: usize>(&mut self, rng: &mut R) -> [T; N] {
        let pos = self.pos;
        if self.ready - pos >= N
            && let Some(cards) = self
                .cards
                .get(pos..pos + N)
                .and_then(|s| <[T; N]>::try_from(s).ok())
        {
            self.pos = pos + N;
            return cards;
        }
        core::array::from_fn(|_| self.draw(rng))
    }

    /// The next `N` cards without dealing them, and how many of them are randomised already
    /// (dealt as they are); `None` when fewer than `N` cards are left.
    #[inline]
    pub(crate) fn peek<const N: usize>(&self) -> Option<([T; N], usize)> {
        let ahead = self.cards.get(self.pos..self.pos + N)?;
        Some((<[T; N]>::try_from(ahead).ok()?, self.ready - self.pos))
    }

    /// Deals the next `n` cards, which must be randomised already (`n` at most the count
    /// [`peek`](Dealing::peek) returned), and returns them.
    #[inline]
    pub(crate) fn skip(&mut self, n: usize) -> &[T] {
        debug_assert!(n <= self.ready - self.pos);
        let start = self.pos;
        self.pos += n;
        self.cards.get(start..self.pos).unwrap_or_default()
    }

    #[cold]
    fn refill<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        if self.pos == self.cards.len() {
            // The shoe ran dry mid-round: bring the discards back (cards on the table stay
            // out) and continue from them. Unreachable for validated rules; if the table held
            // every card, start over from the whole shoe rather than panic.
            let len = self.cards.len();
            if self.round_start > 0 {
                self.cards.rotate_left(self.round_start);
                self.pos = len - self.round_start;
            } else {
                self.pos = 0;
            }
            self.round_start = 0;
            // The cut card has certainly passed: reshuffle before the next round.
            self.force_reshuffle = true;
            self.shuffles += 1;
        }
        self.randomise(self.block, rng);
    }

    /// See [`Shoe::remaining`].
    #[inline]
    pub(crate) fn remaining(&self) -> usize {
        self.cards.len() - self.pos
    }

    /// The values dealt since the last shuffle, in order.
    #[cfg(test)]
    pub(crate) fn dealt(&self) -> &[T] {
        &self.cards[..self.pos]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Penetration;
    use rand::SeedableRng;

    /// The simulation's value shoe deals exactly the values of the cards [`Shoe`] deals with the
    /// same shuffler and seed, through reshuffles at the cut card, a continuous shuffler and
    /// refills past the cut card; a value shoe with another seed deals other values (the
    /// comparison can fail).
    #[test]
    fn the_value_shoe_deals_the_values_of_the_shoes_cards() {
        let base = Rules::default();
        for rules in [
            base,
            Rules {
                decks: 1,
                penetration: Penetration::CutCard(0.5),
                ..base
            },
            Rules {
                penetration: Penetration::Continuous,
                seats: 3,
                ..base
            },
        ] {
            let shuffler = fairdeal_partial::Partial::new();
            let mut cards = Shoe::new(&rules, shuffler).unwrap();
            let mut values = ValueShoe::values(&rules, shuffler).unwrap();
            let mut other = ValueShoe::values(&rules, shuffler).unwrap();
            let mut rng_c = rand_pcg::Pcg64Mcg::seed_from_u64(5);
            let mut rng_v = rng_c.clone();
            let mut rng_o = rand_pcg::Pcg64Mcg::seed_from_u64(6);
            let (mut dealt, mut differ) = (0, false);
            for round in 0..2_000 {
                let a = cards.start_round(&mut rng_c);
                assert_eq!(a, values.start_round(&mut rng_v), "round {round}");
                other.start_round(&mut rng_o);
                // Rounds of 4 to 12 cards, so refills past the cut card happen too.
                if round % 2 == 0 {
                    let first: [u8; 4] = values.draw_array(&mut rng_v);
                    for v in first {
                        assert_eq!(v, card_value(cards.draw(&mut rng_c)), "round {round}");
                    }
                }
                for _ in 0..4 + round % 9 {
                    let card = cards.draw(&mut rng_c);
                    assert_eq!(card_value(card), values.draw(&mut rng_v), "round {round}");
                    differ |= other.draw(&mut rng_o) != card_value(card);
                    dealt += 1;
                }
                assert_eq!(cards.remaining(), values.remaining());
            }
            assert_eq!(cards.shuffles(), values.shuffles);
            assert!(dealt > 10 * cards.len() && differ);
        }
    }
}
