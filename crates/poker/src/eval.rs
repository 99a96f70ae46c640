//! The table-driven evaluator: additive hand keys, a flush table and perfect-hash tables for
//! rank multisets. The tables are generated at build time (`build.rs` runs `eval/generate.rs`) and
//! compiled in as one `static`, so an evaluation has no lazy-initialisation check and every
//! table is at a fixed offset from one base address.

use fairdeal_cards::{Card, CardSet};

use crate::{HandValue, PokerError};

#[cfg(test)]
mod generate;
mod hash;

// FLUSH, {FIVE,SIX,SEVEN}_{DISP,VALUES,MULT}: see `generate::to_rust`.
include!(concat!(env!("OUT_DIR"), "/eval_tables.rs"));

/// `5^r` for each rank: the base-5 digit of a rank count (counts are at most 4).
const POW5: [u32; 13] = {
    let mut p = [1u32; 13];
    let mut i = 1;
    while i < 13 {
        p[i] = p[i - 1] * 5;
        i += 1;
    }
    p
};

/// Each card's *key*: bits `32..` add `5^rank` (so the sum over a hand is the base-5 number
/// whose digits are the rank counts, below 2^31 for seven cards) and bits `4·suit ..` are a
/// per-suit counter. Padded to 256 entries so that a card's `u8` index needs neither a mask
/// nor a bounds check.
const KEYS: [u64; 256] = {
    let mut k = [0u64; 256];
    let mut c = 0;
    while c < 52 {
        k[c] = (POW5[c >> 2] as u64) << 32 | 1u64 << (4 * (c & 3));
        c += 1;
    }
    k
};

/// Each card's *mask* bit, `16·suit + rank` (padded like [`KEYS`]).
const MASKS: [u64; 256] = {
    let mut m = [0u64; 256];
    let mut c = 0;
    while c < 52 {
        m[c] = 1u64 << (16 * (c & 3) + (c >> 2));
        c += 1;
    }
    m
};

/// A partial hand summarised by two sums, so adding a card costs two additions and evaluating
/// costs a flush test and one table lookup. Cards must be distinct (callers guarantee it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Acc {
    key: u64,
    mask: u64,
}

impl Acc {
    pub(crate) const EMPTY: Acc = Acc { key: 0, mask: 0 };

    #[inline(always)]
    pub(crate) fn add(self, card: Card) -> Acc {
        self.add_index(usize::from(card.index()))
    }

    #[inline(always)]
    pub(crate) fn add_index(self, index: usize) -> Acc {
        Acc {
            key: self.key + TABLES.keys[index & 255],
            mask: self.mask | TABLES.masks[index & 255],
        }
    }

    /// Whether one more card could complete a flush: some suit already holds four cards or
    /// more. (Each suit's counter is at most 7, so adding 4 cannot carry into the next.)
    #[inline(always)]
    pub(crate) fn flush_possible_with_one_more(self) -> bool {
        (((self.key as u32) + 0x4444) & 0x8888) != 0
    }

    /// The base-5 rank-count number (the perfect hashes' key).
    #[inline(always)]
    fn ranks(self) -> u32 {
        (self.key >> 32) as u32
    }

    #[inline(always)]
    pub(crate) fn join(self, other: Acc) -> Acc {
        Acc {
            key: self.key + other.key,
            mask: self.mask | other.mask,
        }
    }
}

/// All evaluator tables in one `static`, so that one base register reaches every table.
/// Sizes: card keys and masks 2 × 2 KiB; flush 16 KiB; 5-card hash 4 KiB of displacements and
/// 16 KiB of values, 6-card 16 + 64 KiB, 7-card 16 + 128 KiB (8,192 buckets of six keys on
/// average; 16,384 buckets measured 5 % slower on random hands, 4,096 take seconds to build).
#[derive(Debug)]
#[repr(C, align(64))]
pub(crate) struct Tables {
    /// Non-flush hands of 7 cards (49,205 rank multisets), keyed by the base-5 number; first,
    /// so that its index needs no offset.
    seven_values: [u16; 65536],
    keys: [u64; 256],
    masks: [u64; 256],
    seven_disp: [u16; 8192],
    /// Indexed by a 13-bit rank mask with at least five bits: the best flush or straight flush.
    flush: [u16; 8192],
    six_disp: [u16; 8192],
    five_disp: [u16; 2048],
    /// Non-flush hands of 6 cards (18,395 rank multisets).
    six_values: [u16; 32768],
    /// Non-flush hands of 5 cards (6,175 rank multisets).
    five_values: [u16; 8192],
}

static TABLES: Tables = Tables {
    seven_values: SEVEN_VALUES,
    keys: KEYS,
    masks: MASKS,
    seven_disp: SEVEN_DISP,
    flush: FLUSH,
    six_disp: SIX_DISP,
    five_disp: FIVE_DISP,
    six_values: SIX_VALUES,
    five_values: FIVE_VALUES,
};

/// The evaluator tables (compiled in).
#[inline(always)]
pub(crate) fn tables() -> &'static Tables {
    &TABLES
}

/// The perfect-hash lookup of `key` in a table of `S` slots and `B` buckets (see
/// [`hash`]): one multiply, a shift, the displacement load, an add and the value load.
#[inline(always)]
fn phf_get<const S: usize, const B: usize>(
    mult: u32,
    disp: &[u16; B],
    values: &[u16; S],
    key: u32,
) -> HandValue {
    let h = hash::hash(mult, key);
    let d = disp[hash::bucket(h, B.trailing_zeros())];
    HandValue::from_raw(values[hash::slot(h, d, S.trailing_zeros())])
}

/// Bit 3 of each suit's counter plus 3: set exactly for a suit holding five cards or more.
#[inline(always)]
fn flush_bits(acc: Acc) -> u32 {
    ((acc.key as u32) + 0x3333) & 0x8888
}

/// [`Tables::flush_value`] out of line, for [`evaluate`]: about 3 % of random 7-card hands hold
/// a flush, and with this lookup out of the way the common path falls through without a jump.
/// (The enumerations keep it inline: their loops meet flushes more often, and a call there
/// measured slower.)
#[cold]
#[inline(never)]
fn flush_lookup(acc: Acc) -> HandValue {
    TABLES.flush_value(acc).unwrap_or_default()
}

impl Tables {
    /// The best flush or straight flush of the hand `acc`, if it holds five cards or more of
    /// one suit (with at most seven cards it can then hold neither quads nor a full house).
    #[inline(always)]
    fn flush_value(&self, acc: Acc) -> Option<HandValue> {
        let flush = flush_bits(acc);
        if flush != 0 {
            let suit = flush.trailing_zeros() >> 2;
            Some(HandValue::from_raw(
                self.flush[((acc.mask >> (16 * suit)) & 0x1fff) as usize],
            ))
        } else {
            None
        }
    }

    /// The value of a hand of `n` (5, 6 or 7) cards that holds no flush: its rank multiset's.
    #[inline(always)]
    fn no_flush(&self, acc: Acc, n: usize) -> HandValue {
        match n {
            7 => self.seven(acc.ranks()),
            6 => phf_get(SIX_MULT, &self.six_disp, &self.six_values, acc.ranks()),
            _ => phf_get(FIVE_MULT, &self.five_disp, &self.five_values, acc.ranks()),
        }
    }

    /// The value of a hand of `n` (5, 6 or 7) distinct cards summarised by `acc` (callers
    /// know `n`, so the mask's bits need not be counted again).
    #[inline(always)]
    pub(crate) fn value(&self, acc: Acc, n: usize) -> HandValue {
        match self.flush_value(acc) {
            Some(v) => v,
            None => self.no_flush(acc, n),
        }
    }

    /// The value of six cards summarised by `acc` plus one more card of rank `rank` (0 = two),
    /// for callers that know no flush is possible ([`Acc::flush_possible_with_one_more`] is
    /// false): then every card of that rank gives the same value, so it is looked up once.
    #[inline(always)]
    pub(crate) fn value7_no_flush_plus_rank(&self, acc: Acc, rank: usize) -> HandValue {
        debug_assert!(!acc.flush_possible_with_one_more());
        self.seven(acc.ranks() + POW5[rank])
    }

    #[inline(always)]
    fn seven(&self, key: u32) -> HandValue {
        phf_get(SEVEN_MULT, &self.seven_disp, &self.seven_values, key)
    }

    /// The value of exactly seven cards summarised by `acc`.
    #[inline(always)]
    pub(crate) fn value7(&self, acc: Acc) -> HandValue {
        match self.flush_value(acc) {
            Some(v) => v,
            None => self.seven(acc.ranks()),
        }
    }
}

/// Evaluates a hand of 5, 6 or 7 distinct cards: the value of its best five cards.
///
/// ```
/// use fairdeal_cards::parse_cards;
/// use fairdeal_poker::{Category, evaluate};
/// let v = evaluate(&parse_cards("As Ks Qs Js Ts 2c 2d")?)?;
/// assert_eq!(v.category(), Category::StraightFlush);
/// assert!(evaluate(&parse_cards("As Ks")?).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`PokerError::HandSize`] unless there are 5 to 7 cards, [`PokerError::DuplicateCard`] when
/// a card appears twice.
#[inline]
pub fn evaluate(cards: &[Card]) -> Result<HandValue, PokerError> {
    // Seven cards (the common case) first and inline, as straight-line code: the fold unrolls
    // and the lookup knows its size; other lengths take one call.
    match <&[Card; 7]>::try_from(cards) {
        Ok(hand) => evaluate_n(hand),
        Err(_) => evaluate_other(cards),
    }
}

/// [`evaluate`] for any length but seven.
#[inline(never)]
fn evaluate_other(cards: &[Card]) -> Result<HandValue, PokerError> {
    if let Ok(hand) = <&[Card; 6]>::try_from(cards) {
        evaluate_n(hand)
    } else if let Ok(hand) = <&[Card; 5]>::try_from(cards) {
        evaluate_n(hand)
    } else {
        Err(PokerError::HandSize { len: cards.len() })
    }
}

/// [`evaluate`] for a hand of exactly `N` (5, 6 or 7) cards.
#[inline(always)]
fn evaluate_n<const N: usize>(cards: &[Card; N]) -> Result<HandValue, PokerError> {
    // The card bits are summed (with the key, in one 128-bit addition) as well as joined: a
    // repeated card carries in the sum and sets no new bit in the union, so the two differ
    // exactly when a card repeats (cheaper than counting the union's bits without a `popcnt`
    // instruction). The key and the check share the addition, so the key is complete before
    // the check's branch and the cards' indices need not stay live across it.
    let (sum, mask) = cards.iter().fold((0u128, 0u64), |(s, m), &c| {
        let i = usize::from(c.index());
        let (key, bit) = (TABLES.keys[i], TABLES.masks[i]);
        (s + (u128::from(key) << 64 | u128::from(bit)), m | bit)
    });
    if sum as u64 != mask {
        return Err(duplicate(cards));
    }
    let acc = Acc {
        key: (sum >> 64) as u64,
        mask,
    };
    if flush_bits(acc) != 0 {
        return Ok(flush_lookup(acc));
    }
    Ok(tables().no_flush(acc, N))
}

/// The error for a hand with a repeated card (off the hot path).
#[cold]
#[inline(never)]
fn duplicate(cards: &[Card]) -> PokerError {
    let mut seen = CardSet::new();
    let card = cards.iter().copied().find(|&c| !seen.insert(c));
    PokerError::DuplicateCard {
        card: card.unwrap_or(cards[0]),
    }
}

/// Evaluates a set of 5, 6 or 7 cards (a set cannot hold duplicates).
///
/// ```
/// use fairdeal_cards::parse_card_set;
/// use fairdeal_poker::{Category, evaluate_set};
/// let v = evaluate_set(parse_card_set("5c 4d 3h 2s Ac 9d")?)?;
/// assert_eq!(v.category(), Category::Straight);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`PokerError::HandSize`] unless the set holds 5 to 7 cards.
pub fn evaluate_set(cards: CardSet) -> Result<HandValue, PokerError> {
    if !(5..=7).contains(&cards.len()) {
        return Err(PokerError::HandSize { len: cards.len() });
    }
    let acc = cards.iter().fold(Acc::EMPTY, |a, c| a.add(c));
    Ok(tables().value(acc, cards.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiset_counts() {
        assert_eq!(generate::multisets(5).len(), 6175);
        assert_eq!(generate::multisets(6).len(), 18395);
        assert_eq!(generate::multisets(7).len(), 49205);
    }

    #[test]
    fn straights() {
        assert_eq!(generate::straight_top(0x1f), Some(4));
        assert_eq!(generate::straight_top(0x100f), Some(3));
        assert_eq!(generate::straight_top(0x1f00), Some(12));
        assert_eq!(generate::straight_top(0x0e0f), None);
    }

    /// Every key of `n` cards has a slot of its own, holding a value of the right category.
    fn check_perfect<const S: usize, const B: usize>(
        mult: u32,
        disp: &[u16; B],
        values: &[u16; S],
        n: u32,
    ) {
        let mut used = vec![false; S];
        for (counts, key) in generate::multisets(n) {
            let h = hash::hash(mult, key);
            let slot = hash::slot(
                h,
                disp[hash::bucket(h, B.trailing_zeros())],
                S.trailing_zeros(),
            );
            assert!(!used[slot], "two {n}-card keys share slot {slot}");
            used[slot] = true;
            let value = phf_get(mult, disp, values, key);
            assert_eq!(value.category() as u32, generate::raw_counts(&counts) >> 20);
        }
    }

    #[test]
    fn phf_is_perfect() {
        let t = tables();
        check_perfect(FIVE_MULT, &t.five_disp, &t.five_values, 5);
        check_perfect(SIX_MULT, &t.six_disp, &t.six_values, 6);
        check_perfect(SEVEN_MULT, &t.seven_disp, &t.seven_values, 7);
    }

    /// The compiled-in tables are what the generator produces (the build script ran it).
    #[test]
    fn compiled_tables_equal_a_fresh_generation() {
        let g = generate::generate();
        assert!(
            generate::to_rust(&g) == include_str!(concat!(env!("OUT_DIR"), "/eval_tables.rs")),
            "the build script's tables differ from a fresh generation"
        );
        let t = tables();
        assert_eq!(g.flush, t.flush);
        for (p, mult, disp, values) in [
            (&g.five, FIVE_MULT, &t.five_disp[..], &t.five_values[..]),
            (&g.six, SIX_MULT, &t.six_disp[..], &t.six_values[..]),
            (&g.seven, SEVEN_MULT, &t.seven_disp[..], &t.seven_values[..]),
        ] {
            assert_eq!((p.mult, &p.disp[..], &p.values[..]), (mult, disp, values));
        }
    }

    /// The exhaustive table's shortcut: when six cards hold at most three of every suit, each
    /// seventh card's value is the rank-only lookup, so the cards of one rank share it.
    #[test]
    fn per_rank_lookup_matches_per_card_lookup() {
        let t = tables();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let (mut shortcut, mut fallback) = (0, 0);
        for _ in 0..20_000 {
            // A fixed xorshift picks six distinct cards (the slight modulo bias is harmless).
            let mut deck: Vec<usize> = (0..52).collect();
            for i in 0..6 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let j = i + (state % (52 - i) as u64) as usize;
                deck.swap(i, j);
            }
            let six = deck[..6].iter().fold(Acc::EMPTY, |a, &c| a.add_index(c));
            let most_in_a_suit = (0..4)
                .map(|suit| deck[..6].iter().filter(|&&c| c & 3 == suit).count())
                .max()
                .unwrap_or(0);
            assert_eq!(six.flush_possible_with_one_more(), most_in_a_suit >= 4);
            if six.flush_possible_with_one_more() {
                fallback += 1;
                continue;
            }
            shortcut += 1;
            for &g in &deck[6..] {
                assert_eq!(
                    t.value7(six.add_index(g)),
                    t.value7_no_flush_plus_rank(six, g >> 2)
                );
            }
        }
        assert!(shortcut > 0 && fallback > 0, "{shortcut} / {fallback}");
    }
}
