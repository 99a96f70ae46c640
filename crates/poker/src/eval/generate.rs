//! Generates the evaluator's tables: a slow, obviously-correct reference evaluation of every
//! rank multiset and flush mask, the dense hand values, and the perfect hashes.
//!
//! Only `std` is used: the build script (`build.rs`) compiles this file to write the tables
//! into the crate as Rust source, and the crate's tests compile it to check them.

use super::hash::{bucket, hash, slot};

/// `5^r` for each rank: the base-5 digit of a rank count (counts are at most 4).
pub(crate) const POW5: [u32; 13] = {
    let mut p = [1u32; 13];
    let mut i = 1;
    while i < 13 {
        p[i] = p[i - 1] * 5;
        i += 1;
    }
    p
};

// Category indices (`Category as u32`, weakest first).
const HIGH_CARD: u32 = 0;
const ONE_PAIR: u32 = 1;
const TWO_PAIR: u32 = 2;
const THREE_OF_A_KIND: u32 = 3;
const STRAIGHT: u32 = 4;
const FLUSH: u32 = 5;
const FULL_HOUSE: u32 = 6;
const FOUR_OF_A_KIND: u32 = 7;
const STRAIGHT_FLUSH: u32 = 8;

/// The "raw" value of the best five cards: category in bits 20.., then up to five ranks
/// (4 bits each, most significant first) in the order poker compares them. Raw values order
/// hands correctly but are sparse; the tables store their dense rank instead.
fn raw(category: u32, ranks: &[u32]) -> u32 {
    let mut v = category << 20;
    for (i, &r) in ranks.iter().enumerate() {
        v |= r << (16 - 4 * i);
    }
    v
}

/// The top rank of the best straight in a 13-bit rank mask, if any (the wheel's top is the five).
pub(crate) fn straight_top(mask: u32) -> Option<u32> {
    (4..13u32)
        .rev()
        .find(|&top| mask >> (top - 4) & 0x1f == 0x1f)
        .or_else(|| (mask & 0x100f == 0x100f).then_some(3))
}

/// The highest `k` ranks of `mask`, highest first.
fn top_ranks(mask: u32, k: usize) -> Vec<u32> {
    (0..13u32)
        .rev()
        .filter(|r| mask >> r & 1 == 1)
        .take(k)
        .collect()
}

/// Raw value of the best flush-or-straight-flush in a suit holding the ranks in `mask`.
fn raw_flush(mask: u32) -> u32 {
    match straight_top(mask) {
        Some(top) => raw(STRAIGHT_FLUSH, &[top]),
        None => raw(FLUSH, &top_ranks(mask, 5)),
    }
}

/// Raw value of the best five cards of a hand with these rank counts, ignoring flushes.
pub(crate) fn raw_counts(counts: &[u32; 13]) -> u32 {
    let at_least = |k: u32| -> u32 {
        (0..13)
            .filter(|&r| counts[r as usize] >= k)
            .fold(0, |m, r| m | 1 << r)
    };
    let present = at_least(1);
    let highest = |mask: u32| 31 - mask.leading_zeros();
    let quads = at_least(4);
    if quads != 0 {
        let q = highest(quads);
        return raw(FOUR_OF_A_KIND, &[q, highest(present & !(1 << q))]);
    }
    let trips = at_least(3);
    let pairs = at_least(2);
    if trips != 0 {
        let t = highest(trips);
        let rest = pairs & !(1 << t);
        if rest != 0 {
            return raw(FULL_HOUSE, &[t, highest(rest)]);
        }
    }
    if let Some(top) = straight_top(present) {
        return raw(STRAIGHT, &[top]);
    }
    if trips != 0 {
        let t = highest(trips);
        let mut ranks = vec![t];
        ranks.extend(top_ranks(present & !(1 << t), 2));
        return raw(THREE_OF_A_KIND, &ranks);
    }
    if pairs.count_ones() >= 2 {
        let p = top_ranks(pairs, 2);
        let kicker = highest(present & !(1 << p[0]) & !(1 << p[1]));
        return raw(TWO_PAIR, &[p[0], p[1], kicker]);
    }
    if pairs != 0 {
        let p = highest(pairs);
        let mut ranks = vec![p];
        ranks.extend(top_ranks(present & !(1 << p), 3));
        return raw(ONE_PAIR, &ranks);
    }
    raw(HIGH_CARD, &top_ranks(present, 5))
}

/// Every rank-count vector with `n` cards (at most 4 per rank), with its base-5 key.
pub(crate) fn multisets(n: u32) -> Vec<([u32; 13], u32)> {
    fn rec(rank: usize, left: u32, counts: &mut [u32; 13], out: &mut Vec<([u32; 13], u32)>) {
        if rank == 13 {
            if left == 0 {
                let key = (0..13).map(|r| counts[r] * POW5[r]).sum();
                out.push((*counts, key));
            }
            return;
        }
        for c in 0..=left.min(4) {
            counts[rank] = c;
            rec(rank + 1, left - c, counts, out);
        }
        counts[rank] = 0;
    }
    let mut out = Vec::new();
    rec(0, n, &mut [0; 13], &mut out);
    out
}

/// A perfect hash table: the multiplier, one displacement per bucket and one packed hand
/// value (`category << 12 | position`) per slot (0 where no key lands).
pub(crate) struct Phf {
    /// The odd multiplier of [`hash`].
    pub(crate) mult: u32,
    /// One displacement per bucket.
    pub(crate) disp: Vec<u16>,
    /// One value per slot.
    pub(crate) values: Vec<u16>,
}

/// Builds the perfect hash of `entries` (distinct keys, at most 3/4 of the slots) over
/// `1 << log2_slots` slots and `1 << log2_buckets` buckets. Tries multipliers until no two
/// keys of one bucket share a home slot (one displacement moves them together) and every
/// bucket, largest first, finds a displacement.
pub(crate) fn build_phf(entries: &[(u32, u16)], log2_slots: u32, log2_buckets: u32) -> Phf {
    let (slots, buckets) = (1usize << log2_slots, 1usize << log2_buckets);
    'attempt: for attempt in 0u64.. {
        let mult = ((0x9E37_79B9_7F4A_7C15 ^ attempt.wrapping_mul(0xD1B5_4A32_D192_ED03)) >> 32)
            as u32
            | 1;
        let mut by_bucket: Vec<Vec<(u32, u16)>> = vec![Vec::new(); buckets];
        for &(key, value) in entries {
            let h = hash(mult, key);
            by_bucket[bucket(h, log2_buckets)].push((h, value));
        }
        for keys in &by_bucket {
            let mut homes: Vec<usize> = keys.iter().map(|&(h, _)| slot(h, 0, log2_slots)).collect();
            homes.sort_unstable();
            if homes.windows(2).any(|w| w[0] == w[1]) {
                continue 'attempt;
            }
        }
        let mut order: Vec<usize> = (0..buckets).collect();
        order.sort_by_key(|&b| core::cmp::Reverse(by_bucket[b].len()));
        let mut taken = vec![false; slots];
        let mut values = vec![0u16; slots];
        let mut disp = vec![0u16; buckets];
        for &b in &order {
            if by_bucket[b].is_empty() {
                break;
            }
            let free = |d: u16| {
                by_bucket[b]
                    .iter()
                    .all(|&(h, _)| !taken[slot(h, d, log2_slots)])
            };
            let Some(d) = (0..=u16::MAX).take(slots).find(|&d| free(d)) else {
                continue 'attempt;
            };
            disp[b] = d;
            for &(h, value) in &by_bucket[b] {
                let s = slot(h, d, log2_slots);
                taken[s] = true;
                values[s] = value;
            }
        }
        return Phf { mult, disp, values };
    }
    unreachable!("the attempt loop only ends by returning")
}

/// All tables of the evaluator, as packed hand values.
pub(crate) struct Generated {
    /// Indexed by a 13-bit rank mask with at least five bits: the best flush or straight flush.
    pub(crate) flush: Vec<u16>,
    /// Non-flush hands of 5 cards (6,175 rank multisets), keyed by the base-5 number.
    pub(crate) five: Phf,
    /// Non-flush hands of 6 cards (18,395 rank multisets).
    pub(crate) six: Phf,
    /// Non-flush hands of 7 cards (49,205 rank multisets).
    pub(crate) seven: Phf,
}

/// `log2` of the slot and bucket counts of the 5-, 6- and 7-card hashes.
pub(crate) const SIZES: [(u32, u32); 3] = [(13, 11), (15, 13), (16, 13)];

/// Generates every table.
pub(crate) fn generate() -> Generated {
    // Every 5-card class, as raw values: non-flush rank multisets and 5-rank flush masks.
    let mut classes: Vec<u32> = multisets(5).iter().map(|(c, _)| raw_counts(c)).collect();
    classes.extend(
        (0u32..1 << 13)
            .filter(|m| m.count_ones() == 5)
            .map(raw_flush),
    );
    classes.sort_unstable();
    classes.dedup();
    // Dense position of each raw value within its category, packed `category << 12 | position`.
    let dense = |r: u32| -> u16 {
        let first = classes.partition_point(|&c| c >> 20 < r >> 20);
        let at = classes.partition_point(|&c| c < r);
        (((r >> 20) << 12) as usize | (at - first)) as u16
    };
    let flush = (0u32..1 << 13)
        .map(|m| {
            if m.count_ones() >= 5 {
                dense(raw_flush(m))
            } else {
                0
            }
        })
        .collect();
    let phf = |n: u32, (log2_slots, log2_buckets): (u32, u32)| {
        let entries: Vec<(u32, u16)> = multisets(n)
            .iter()
            .map(|(counts, key)| (*key, dense(raw_counts(counts))))
            .collect();
        build_phf(&entries, log2_slots, log2_buckets)
    };
    Generated {
        flush,
        five: phf(5, SIZES[0]),
        six: phf(6, SIZES[1]),
        seven: phf(7, SIZES[2]),
    }
}

/// The tables as Rust source: `const` arrays and multipliers for `eval.rs` to `include!`.
pub(crate) fn to_rust(g: &Generated) -> String {
    use std::fmt::Write;
    let mut s = String::from("// Generated by build.rs from src/eval/generate.rs: do not edit.\n");
    let mut array = |name: &str, v: &[u16]| {
        // Each array is read once, to initialise the evaluator's one `static`.
        let _ = write!(
            s,
            "#[allow(clippy::large_const_arrays, reason = \"read once, by the TABLES static\")]\n\
             const {name}: [u16; {}] = [",
            v.len()
        );
        for (i, x) in v.iter().enumerate() {
            if i % 24 == 0 {
                s.push('\n');
            }
            let _ = write!(s, "{x},");
        }
        s.push_str("\n];\n");
    };
    array("FLUSH", &g.flush);
    for (name, p) in [("FIVE", &g.five), ("SIX", &g.six), ("SEVEN", &g.seven)] {
        array(&format!("{name}_DISP"), &p.disp);
        array(&format!("{name}_VALUES"), &p.values);
    }
    for (name, p) in [("FIVE", &g.five), ("SIX", &g.six), ("SEVEN", &g.seven)] {
        let _ = writeln!(s, "const {name}_MULT: u32 = {:#010x};", p.mult);
    }
    s
}
