//! Hand after hand from one deck, never restored.

use alloc::vec::Vec;

use fairdeal_core::{Batched, IndexSampler, Rng, ShuffleError, Shuffler};

use crate::Partial;

/// Owns a deck and deals uniformly random hands from it, one partial shuffle per hand, without
/// putting the deck back in order between hands.
///
/// Each [`deal`](Dealer::deal) of `k` cards costs `k` draws and `k` swaps, whatever the deck
/// size. The cards of a hand stay in the deck (they are its first `k` slots), so every hand is
/// dealt from the full deck, like a poker table that collects all cards after each round but
/// does not sort them. Reusing the disordered deck is fair: a fair partial shuffle picks each
/// ordered `k`-sample with the same probability from *any* starting order, so each hand is
/// uniform and independent of the hands before it.
///
/// ```
/// use fairdeal_partial::Dealer;
/// use rand::SeedableRng;
///
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(11);
/// let mut dealer = Dealer::new(vec!["A", "K", "Q", "J", "T"]);
/// let first: Vec<&str> = dealer.deal(2, &mut rng)?.to_vec();
/// let second: Vec<&str> = dealer.deal(2, &mut rng)?.to_vec();
/// assert_eq!(first.len() + second.len(), 4);
/// assert_eq!(dealer.len(), 5); // the deck keeps all its cards
/// assert!(dealer.deal(6, &mut rng).is_err());
/// # Ok::<(), fairdeal_core::ShuffleError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Dealer<T, S = Batched> {
    deck: Vec<T>,
    shuffler: Partial<S>,
}

impl<T> Dealer<T> {
    /// A dealer for `deck` using the default [`Batched`] sampler. The deck's current order is
    /// irrelevant to fairness.
    pub const fn new(deck: Vec<T>) -> Self {
        Self {
            deck,
            shuffler: Partial::new(),
        }
    }
}

impl<T, S> Dealer<T, S> {
    /// A dealer for `deck` drawing its indices through `sampler`.
    pub const fn with_sampler(deck: Vec<T>, sampler: S) -> Self {
        Self {
            deck,
            shuffler: Partial::with_sampler(sampler),
        }
    }

    /// The deck in its current order (the last hand dealt is its first slots).
    pub fn deck(&self) -> &[T] {
        &self.deck
    }

    /// How many cards the deck holds (dealing never changes it).
    pub fn len(&self) -> usize {
        self.deck.len()
    }

    /// Whether the deck is empty (then only hands of 0 cards can be dealt).
    pub fn is_empty(&self) -> bool {
        self.deck.is_empty()
    }

    /// Gives the deck back, in its current order.
    pub fn into_deck(self) -> Vec<T> {
        self.deck
    }
}

impl<T, S: IndexSampler> Dealer<T, S> {
    /// Deals a uniformly random ordered hand of `k` distinct cards: a partial shuffle of the
    /// deck's first `k` slots (O(k)), which are returned.
    ///
    /// # Errors
    ///
    /// [`ShuffleError::SampleTooLarge`] when `k` exceeds the deck; the deck is then untouched.
    pub fn deal<R: Rng + ?Sized>(&mut self, k: usize, rng: &mut R) -> Result<&[T], ShuffleError> {
        self.shuffler.shuffle_prefix(&mut self.deck, k, rng)?;
        Ok(&self.deck[..k])
    }
}

impl<T, S: Default> Default for Dealer<T, S> {
    /// A dealer with an empty deck.
    fn default() -> Self {
        Self::with_sampler(Vec::new(), S::default())
    }
}
