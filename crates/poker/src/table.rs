//! Category counts: the exhaustive 5- and 7-card tables and the exact probabilities.

use std::sync::OnceLock;

use rayon::prelude::*;

use crate::eval::{Acc, tables};
use crate::{Category, PokerError};

/// How many hands fell in each [`Category`] (indexed by [`Category::index`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct CategoryCounts {
    /// `counts[c.index()]` hands of category `c`.
    pub counts: [u64; 9],
}

impl CategoryCounts {
    /// The count for one category.
    #[inline]
    pub const fn get(&self, category: Category) -> u64 {
        self.counts[category as usize]
    }

    /// The number of hands counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The fraction of hands in each category (all zero when nothing was counted).
    pub fn fractions(&self) -> [f64; 9] {
        let total = self.total();
        self.counts.map(|c| {
            if total == 0 {
                0.0
            } else {
                c as f64 / total as f64
            }
        })
    }

    /// Adds another table's counts to this one.
    pub fn merge(&mut self, other: &CategoryCounts) {
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            *a += b;
        }
    }

    /// This table's counts plus `other`'s, or `None` when a sum passes 2^64 − 1 (shards of one
    /// run add up with this: `fairdeal merge`).
    ///
    /// ```
    /// use fairdeal_poker::CategoryCounts;
    /// let one = CategoryCounts { counts: [1; 9] };
    /// assert_eq!(one.checked_merge(&one).map(|c| c.total()), Some(18));
    /// assert_eq!(CategoryCounts { counts: [u64::MAX; 9] }.checked_merge(&one), None);
    /// ```
    pub fn checked_merge(&self, other: &CategoryCounts) -> Option<CategoryCounts> {
        let mut sum = *self;
        for (a, b) in sum.counts.iter_mut().zip(other.counts) {
            *a = a.checked_add(b)?;
        }
        Some(sum)
    }

    /// `(category, count)` pairs from straight flush down to high card (the order tables are
    /// printed in).
    pub fn iter_best_first(&self) -> impl Iterator<Item = (Category, u64)> + '_ {
        Category::ALL.iter().rev().map(|&c| (c, self.get(c)))
    }
}

/// Counts the categories of all C(52,5) = 2,598,960 five-card hands (nested loops carrying
/// the partial hand, parallel over the first card on the current rayon pool).
///
/// ```
/// let t = fairdeal_poker::exhaustive_5();
/// assert_eq!(t.total(), 2_598_960);
/// ```
pub fn exhaustive_5() -> CategoryCounts {
    let t = tables();
    (0..48usize)
        .into_par_iter()
        .map(|a| {
            let mut counts = [0u64; 9];
            let pa = Acc::EMPTY.add_index(a);
            for b in a + 1..49 {
                let pb = pa.add_index(b);
                for c in b + 1..50 {
                    let pc = pb.add_index(c);
                    for d in c + 1..51 {
                        let pd = pc.add_index(d);
                        for e in d + 1..52 {
                            counts[t.value(pd.add_index(e), 5).category_index()] += 1;
                        }
                    }
                }
            }
            CategoryCounts { counts }
        })
        .reduce(CategoryCounts::default, |mut x, y| {
            x.merge(&y);
            x
        })
}

/// Counts the categories of all C(52,7) = 133,784,560 seven-card hands (best five of seven).
///
/// Seven nested loops carry the partial hand's two additive sums, so each hand costs two
/// additions, a flush test and one table lookup. When the first six cards hold at most three
/// of every suit, no seventh card can make a flush and the cards of one rank share a value: the
/// last loop then makes one lookup per rank instead of one per card. The first card's loop
/// runs in parallel on the
/// current rayon pool (use `rayon::ThreadPoolBuilder::install` to choose the thread count).
/// The result does not depend on the thread count.
pub fn exhaustive_7() -> CategoryCounts {
    let t = tables();
    (0..46usize)
        .into_par_iter()
        .map(|a| {
            let mut counts = [0u64; 9];
            let pa = Acc::EMPTY.add_index(a);
            for b in a + 1..47 {
                let pb = pa.add_index(b);
                for c in b + 1..48 {
                    let pc = pb.add_index(c);
                    for d in c + 1..49 {
                        let pd = pc.add_index(d);
                        for e in d + 1..50 {
                            let pe = pd.add_index(e);
                            for f in e + 1..51 {
                                let pf = pe.add_index(f);
                                if pf.flush_possible_with_one_more() {
                                    for g in f + 1..52 {
                                        counts[t.value7(pf.add_index(g)).category_index()] += 1;
                                    }
                                } else {
                                    // No flush can appear, so the last card matters only by
                                    // its rank: one lookup per rank, counted once per card
                                    // of that rank still to come (card index = 4·rank + suit).
                                    let mut g = f + 1;
                                    while g < 52 {
                                        let rank = g >> 2;
                                        let next = 4 * (rank + 1);
                                        let value = t.value7_no_flush_plus_rank(pf, rank);
                                        counts[value.category_index()] += (next - g) as u64;
                                        g = next;
                                    }
                                }
                            }
                        }
                    }
                }
            }
            CategoryCounts { counts }
        })
        .reduce(CategoryCounts::default, |mut x, y| {
            x.merge(&y);
            x
        })
}

/// The exhaustive table for 5- or 7-card hands, computed once per process and cached.
///
/// # Errors
///
/// [`PokerError::TableCards`] unless `cards` is 5 or 7.
pub fn exact_counts(cards: usize) -> Result<CategoryCounts, PokerError> {
    static FIVE: OnceLock<CategoryCounts> = OnceLock::new();
    static SEVEN: OnceLock<CategoryCounts> = OnceLock::new();
    match cards {
        5 => Ok(*FIVE.get_or_init(exhaustive_5)),
        7 => Ok(*SEVEN.get_or_init(exhaustive_7)),
        _ => Err(PokerError::TableCards { cards }),
    }
}

/// The exact probability of each category for a random 5- or 7-card hand, from the cached
/// exhaustive enumeration ([`exact_counts`]).
///
/// # Errors
///
/// [`PokerError::TableCards`] unless `cards` is 5 or 7.
pub fn exact_probabilities(cards: usize) -> Result<[f64; 9], PokerError> {
    Ok(exact_counts(cards)?.fractions())
}
