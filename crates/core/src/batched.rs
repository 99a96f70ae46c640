//! Batched dice: several bounded indices from one 64-bit random word.

use rand_core::Rng;

use crate::{IndexSampler, Order, lemire_index_below};

/// Several exactly uniform indices from one 64-bit random word, after Brackett-Rozinsky and
/// Lemire, *Batched Ranged Random Integer Generation* (Software: Practice and Experience, 2024).
///
/// To roll dice with bounds `b₁, …, b_k` whose product `P` fits in 64 bits, take one random
/// word `x` and for each die multiply: the high half of `x · bᵢ` is the die, the low half is
/// the new `x`. That is `k` multiplications and one RNG call instead of `k` calls. A single
/// rejection check makes the result exact: when the final low half is below `2⁶⁴ mod P` the
/// whole batch is redrawn, so every tuple of dice has exactly `⌊2⁶⁴ / P⌋` words mapping to it
/// (the test suite checks that claim exhaustively with 16-bit words). The final low half is
/// `x · P mod 2⁶⁴` (each step keeps `x · bᵢ mod 2⁶⁴`), so the check is made *before* the dice
/// are rolled, with one wrapping multiplication, and each die is handed on as soon as it is
/// known. The slow path costs one division and is taken with probability below `P / 2⁶⁴`.
///
/// # As a sampler
///
/// `Batched` is the default [`IndexSampler`] of the in-place, partial and inside-out shuffles.
/// Its [`for_each_index_descending`](IndexSampler::for_each_index_descending) and
/// [`for_each_index_ascending`](IndexSampler::for_each_index_ascending) choose the batch size
/// from the current bound: `k` dice while the bound `b` satisfies `b^k <= 2⁶⁰` (at most 12),
/// so that a batch is redrawn at most once in 16 tries: one die per word above 2³⁰, two up to
/// 2³⁰, three up to 2²⁰, four up to 2¹⁵, five up to 2¹², six up to 2¹⁰, …, twelve up to 32. The
/// bounds at or below 19 (whose product, at most 19!, fits in 2⁶⁰) are one batch of up to 18
/// dice. Each batch size is a compile-time constant, so every batch is an unrolled chain of
/// multiplications. Shuffling a 52-card deck takes 4 batches (10, 11, 12 and 18 dice), so 4
/// random words plus about one redraw in fifty shuffles, against log₂ 52! / 64 ≈ 3.52 words of
/// information; dealing 7 cards from 52 is one batch, one word. At N = 1000 and 10⁴ a shuffle
/// spends about 1.15× and 1.22× the information-theoretic minimum (`tests/words_per_shuffle.rs`
/// counts them). A single [`index_below`](IndexSampler::index_below) is plain
/// [`Lemire`](crate::Lemire), and a bound of 1 takes no word (its only index is 0).
///
/// For a generator that keeps a buffer of words (128 bytes or more, such as rand's `StdRng`,
/// ChaCha12), the descending phases and the tabled ascending ones from 8 dice per word on
/// (bounds 99 to 32,768) draw their words ahead, up to 32 at a time (from 8 on with one
/// `fill_bytes` call, read as little-endian `u64`s) and never more than their batches will
/// take, so the batch loop makes no call into the generator. For a generator whose
/// `fill_bytes` bytes are those of its `next_u64` words, as rand's ChaCha generators' are,
/// these are the same words in the same order, so the same shuffles and the same generator
/// state after them; for one whose streams differ (rand_mt's 32-bit `Mt`), the shuffles come
/// partly from its `fill_bytes` stream, equally uniform. (Ascending phases entered anywhere
/// else, or beyond 32,768, still draw word by word with `next_u64`.) With ChaCha12 on the Zen 3
/// the shuffle's lead over rand's grew 1.09–1.35× at 1,000 elements, 1.17–1.23× at 10⁴ and
/// 1.25–1.31× at 2²⁰ (the lab's races and the duels, both builds alternated), and reading the
/// chunks with `fill_bytes` instead of one `next_u64` per word about 4 % more at 10⁴; the small
/// generators (PCG, xoshiro, wyrand) were slower drawn ahead and draw word by word
/// (`docs/notes/2026-11-27-zen3.md`, "Words drawn ahead").
///
/// Batching changes which random words become which indices, so a shuffle with `Batched` is a
/// different (equally fair) permutation from the one [`Lemire`](crate::Lemire) gives for the
/// same seed. `Lemire` is the one-draw-per-step reference path; Java's and Python's samplers in
/// `fairdeal-rng` keep one draw per step because bit-exactness needs it.
///
/// # As a bounded-index API
///
/// [`Batched::indices_below`] rolls a fixed set of dice directly:
///
/// ```
/// use fairdeal_core::Batched;
/// use rand::SeedableRng;
///
/// let mut rng = rand::rngs::StdRng::seed_from_u64(11);
/// // Two dice and a coin from one random word.
/// let [d1, d2, coin] = Batched.indices_below(&mut rng, [6, 6, 2])?;
/// assert!(d1 < 6 && d2 < 6 && coin < 2);
///
/// assert!(Batched.indices_below(&mut rng, [1 << 40, 1 << 40]).is_err()); // 2^80 > 2^64
/// # Ok::<(), fairdeal_core::BatchError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Batched;

/// Why [`Batched::indices_below`] refused a set of bounds.
///
/// ```
/// use fairdeal_core::{BatchError, Batched};
/// use rand::SeedableRng;
/// let mut rng = rand::rngs::StdRng::seed_from_u64(1);
/// assert_eq!(
///     Batched.indices_below(&mut rng, [4, 0]),
///     Err(BatchError::ZeroBound { position: 1 })
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BatchError {
    /// A bound is 0: there is no index below 0.
    #[error("bound number {position} is 0: there is no index below 0")]
    ZeroBound {
        /// Where the zero is in the bounds (0-based).
        position: usize,
    },
    /// The bounds multiply to more than `u64::MAX`, so one 64-bit word cannot hold the batch.
    #[error("the bounds multiply to more than 2^64 - 1; split them into smaller batches")]
    ProductTooLarge,
}

impl Batched {
    /// Rolls one exactly uniform, independent index below each of `bounds` from (usually) a
    /// single 64-bit random word.
    ///
    /// # Errors
    ///
    /// [`BatchError::ZeroBound`] if a bound is 0, [`BatchError::ProductTooLarge`] if the bounds
    /// multiply to more than `u64::MAX`. No random words are drawn then.
    pub fn indices_below<R: Rng + ?Sized, const K: usize>(
        &self,
        rng: &mut R,
        bounds: [usize; K],
    ) -> Result<[usize; K], BatchError> {
        let mut wide = [0u64; K];
        let mut product = 1u64;
        for (position, (&bound, slot)) in bounds.iter().zip(&mut wide).enumerate() {
            if bound == 0 {
                return Err(BatchError::ZeroBound { position });
            }
            *slot = bound as u64;
            product = product
                .checked_mul(bound as u64)
                .ok_or(BatchError::ProductTooLarge)?;
        }
        let mut dice = [0usize; K];
        let x = draw_accepted(|| rng.next_u64(), product);
        let mut slots = dice.iter_mut();
        roll(x, wide, |_, die| {
            if let Some(slot) = slots.next() {
                *slot = die as usize;
            }
        });
        Ok(dice)
    }
}

/// [`batch`]'s choice for the ascending drivers: every batch rolled as two loops.
const HALVES: bool = true;

/// [`batch`]'s choice for the descending drivers: a batch of up to [`MAX_DICE`] dice rolled as
/// one loop.
const WHOLE: bool = false;

/// The largest product of bounds a batch of a run may have (unless it is a single bound): with
/// `P <= 2^60`, a batch is redrawn with probability below `P / 2^64 <= 1/16` (and the
/// division of the slow path is paid at most that often).
const PRODUCT_LIMIT: u64 = 1 << 60;

/// The most dice a batch of the phases holds (a run's final batch may hold up to
/// [`TAIL_DICE`]).
const MAX_DICE: usize = 12;

/// `MAX_BOUND[k]` is the largest top bound at which a batch of `k` dice is used (`k` =
/// 2..=[`MAX_DICE`]): the largest `b` with `b^k <= 2^60`, so that a batch's product stays at or
/// below [`PRODUCT_LIMIT`]. A single die (and the empty batch) fits any bound.
const MAX_BOUND: [u64; MAX_DICE + 1] = {
    let mut table = [u64::MAX; MAX_DICE + 1];
    let mut k = 2;
    while k < table.len() {
        table[k] = largest_kth_root_of_2_pow_60(k as u32);
        k += 1;
    }
    table
};

/// The largest `b` with `b^k <= 2^60` (`k >= 2`), found by bisection at compile time.
const fn largest_kth_root_of_2_pow_60(k: u32) -> u64 {
    const LIMIT: u128 = PRODUCT_LIMIT as u128;
    // Invariant: lo^k <= 2^60 and (hi + 1)^k > 2^60; 2^30 is the answer for k = 2.
    let (mut lo, mut hi) = (1u128, 1u128 << 30);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        match mid.checked_pow(k) {
            Some(power) if power <= LIMIT => lo = mid,
            _ => hi = mid - 1,
        }
    }
    lo as u64
}

/// The largest bound `t` for which every run of bounds at or below it (down to 2) fits in one
/// batch: `t! <= 2^60`, so `t = 19`. The descending phases stop above it, the ascending ones
/// start above it, and what is left is one batch.
const TAIL_TOP: u64 = 19;

/// The most dice a final (or first) batch may hold: the bounds `TAIL_TOP` down to 2.
const TAIL_DICE: u64 = TAIL_TOP - 1;

const _: () = {
    let mut product: u128 = 1;
    let mut b = 2;
    while b <= TAIL_TOP as u128 {
        product *= b;
        b += 1;
    }
    assert!(product <= PRODUCT_LIMIT as u128 && product * (TAIL_TOP as u128 + 1) > 1 << 60);
    // The phases hand over to the tail at TAIL_TOP with the largest batch, which must fit.
    assert!(MAX_BOUND[MAX_DICE] > TAIL_TOP);
};

/// `PHASE_FLOOR[k]`: the descending phase of `k` dice runs while the top bound is above it
/// (the next phase's [`MAX_BOUND`], and [`TAIL_TOP`] for the last phase).
const PHASE_FLOOR: [u64; MAX_DICE + 1] = {
    let mut table = [TAIL_TOP; MAX_DICE + 1];
    let mut k = 0;
    while k < MAX_DICE {
        table[k] = MAX_BOUND[k + 1];
        k += 1;
    }
    table
};

// `usize` bounds are handled as `u64`; no Rust target has a wider `usize`.
const _: () = assert!(usize::BITS <= u64::BITS);

impl IndexSampler for Batched {
    #[inline]
    fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
        lemire_index_below(rng, bound)
    }

    /// Batches whose size grows as the bounds shrink, then one last batch (see the type's
    /// docs). The calls to `f` are in the same order, with the same bounds, as the default's.
    ///
    /// Forced inline: no call and no stack frame per run of bounds. A 7-of-52 deal took 154
    /// instead of 186 instructions (wyrand) and 14–19 % less time with wyrand and ChaCha12;
    /// whole shuffles moved by −7 % to +5 % in time (docs/notes/2026-11-26-benchmarks-moved.md,
    /// "Time per deal"). The deal runs 130 since `Partial::shuffle_prefix` is inlined as well.
    #[inline(always)]
    fn for_each_index_descending<R, F>(&self, rng: &mut R, high: usize, low: usize, mut f: F)
    where
        R: Rng + ?Sized,
        F: FnMut(usize, usize),
    {
        // Bound 1 has the one index 0 and needs no randomness: it is handed on at the end.
        let ends_at_one = low <= 1 && high >= 1;
        let low = (low as u64).max(2);
        let mut top = high as u64;
        if top >= low {
            let count = top - low + 1;
            if fits_one_batch(top, count) {
                // A short run, such as a hand dealt from a deck, is one batch either way; going
                // straight to it skips the phase dispatch (a 7-of-52 deal took 233 instructions
                // with it, 186 without, wyrand, callgrind, before the forced inline).
                tail_down(rng, top, count, &mut f);
                if ends_at_one {
                    f(1, 0);
                }
                return;
            }
            // Phase k rolls k dice per word while the top bound is above the next phase's
            // limit (the last phase: above TAIL_TOP) and at least k bounds are left. The run
            // starts in the phase its first bound allows.
            let first = dice_for(top);
            macro_rules! phases {
                ($($k:literal),*) => {$(
                    if first <= $k {
                        descend::<R, F, $k>(rng, &mut top, low, PHASE_FLOOR[$k], &mut f);
                    }
                )*};
            }
            phases!(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
            // What is left is one batch: either every bound is at most TAIL_TOP, or fewer
            // bounds are left than the phase that stopped wanted (then their product is below
            // that phase's, so it fits).
            tail_down(rng, top, top.wrapping_sub(low).wrapping_add(1), &mut f);
        }
        if ends_at_one {
            f(1, 0);
        }
    }

    /// The ascending counterpart: one batch for the bounds up to 19 (`TAIL_TOP`), then batches
    /// whose size shrinks as the bounds grow.
    ///
    /// Forced inline, with its phases: `Inplace`'s front-to-back deck then ran 963 instead of
    /// 1,021 instructions (wyrand; 714 with each batch rolled in halves, 439 with the products
    /// tabled and the first phases' bounds constant) and was 9–10 % faster (`sampler_lab race
    /// wyrand deck52 41 forward fastrand`: fastrand / ours 1.21 instead of 1.11; 1.23 instead of
    /// 1.18 at 1,000). Inside-out ran 7–9 % more instructions inlined, in the same time (`io_1000` 1.6 % faster, `io_65536` 0.7 % slower against
    /// fastrand, three runs of each build).
    #[inline(always)]
    fn for_each_index_ascending<R, F>(&self, rng: &mut R, low: usize, high: usize, mut f: F)
    where
        R: Rng + ?Sized,
        F: FnMut(usize, usize),
    {
        let high = high as u64;
        let mut next = (low as u64).max(1);
        if next > high {
            return;
        }
        if next == 1 {
            // Bound 1 has the one index 0 and needs no randomness.
            f(1, 0);
            next = 2;
        }
        if next <= TAIL_TOP && next <= high {
            let last = high.min(TAIL_TOP);
            head_up(rng, next, last - next + 1, &mut f);
            next = last + 1;
        }
        macro_rules! phases {
            ($($k:literal),*) => {$(
                if next > high {
                    return;
                }
                ascend::<R, F, $k>(rng, &mut next, high.min(MAX_BOUND[$k]), &mut f);
            )*};
        }
        phases!(12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2);
        ascend::<R, F, 1>(rng, &mut next, high, &mut f);
    }

    /// The default's swaps without their bounds checks, which the drivers make redundant: the
    /// swaps are those of the checked loop, in the same order, so the permutation is the same.
    ///
    /// A checked swap compares both indices with the length and branches to a panic; the
    /// panic path also makes the compiler store the generator's state to memory after every
    /// word. Without them `Inplace` runs 10.3 k instead of 14.9 k instructions at 1,000
    /// elements (wyrand) and is 1.12× faster against fastrand at 1,000 and 10,000 elements,
    /// 1.10× at 65,536, 1.05× at the deck, but 3–8 % slower at 2^20 (`sampler_lab race B CASE
    /// 21 ours fastrand|rand`, alternated with the checked build; no counters to say why).
    #[inline(always)]
    fn swap_run<T, R: Rng + ?Sized>(&self, rng: &mut R, data: &mut [T], low: usize, order: Order) {
        let n = data.len();
        let base = data.as_mut_ptr();
        let swap = |bound: usize, j: usize| {
            debug_assert!(
                j < bound && bound <= n,
                "bound {bound}, index {j}, length {n}"
            );
            // SAFETY: `bound - 1` and `j` are below `n`, so both pointers are inside `data`
            // (which nothing else touches while `base` is in use), and `ptr::swap` allows them
            // to be equal. The drivers below call this only with the bounds of the run they
            // are given, `max(low, 1)` to `n` (a bound of 1 as `(1, 0)`), each once:
            // `drivers_visit_every_bound_in_order` checks them against the default's one call
            // per bound, and the tabled runs against the batches the drivers roll. Every index
            // is a die, the high half of `x · bound` for a 64-bit `x`, so below `bound`, or
            // the 0 of bound 1.
            #[allow(unsafe_code)]
            unsafe {
                core::ptr::swap(base.add(bound - 1), base.add(j));
            }
        };
        match order {
            Order::Forward => self.for_each_index_ascending(rng, low, n, swap),
            Order::Backward => self.for_each_index_descending(rng, n, low, swap),
        }
    }

    /// The default's swaps without their bounds checks, as in
    /// [`swap_run`](IndexSampler::swap_run): the same swaps in the same order, so the same
    /// deal.
    #[inline(always)]
    fn deal_run<T, R: Rng + ?Sized>(&self, rng: &mut R, data: &mut [T], low: usize) {
        let n = data.len();
        let base = data.as_mut_ptr();
        let swap = |bound: usize, j: usize| {
            debug_assert!(
                j < bound && bound <= n,
                "bound {bound}, index {j}, length {n}"
            );
            let i = n - bound;
            // SAFETY: as in `swap_run`: the driver calls this with each bound of the run from
            // `n` down to `max(low, 1)` once, and `j` below it, so `i = n - bound` and
            // `i + j < n - bound + bound = n` are inside `data`; `ptr::swap` allows equal
            // pointers.
            #[allow(unsafe_code)]
            unsafe {
                core::ptr::swap(base.add(i), base.add(i + j));
            }
        };
        self.for_each_index_descending(rng, n, low, swap);
    }
}

/// Whether the descending run of `count` bounds from `top` down (`1 <= count <= top - 1`) is
/// rolled as a single batch by the phases of
/// [`for_each_index_descending`](IndexSampler::for_each_index_descending): every bound is at
/// most [`TAIL_TOP`] (the tail batch), or `count` dice fit the first phase (`top^count <= 2^60`,
/// so the phase of `dice_for(top) >= count` dice rolls them as its one batch, or leaves them to
/// the tail). Taking the batch directly then draws the same word and rolls the same dice.
#[inline(always)]
fn fits_one_batch(top: u64, count: u64) -> bool {
    top <= TAIL_TOP || (count <= MAX_DICE as u64 && top <= MAX_BOUND[count as usize])
}

/// How many dice a batch whose largest bound is `bound` may hold: the largest
/// `k <= MAX_DICE` with `bound <= MAX_BOUND[k]`, or 1.
#[inline(always)]
fn dice_for(bound: u64) -> usize {
    let mut k = 1;
    while k < MAX_DICE && bound <= MAX_BOUND[k + 1] {
        k += 1;
    }
    k
}

/// Rolls the last `count` bounds of a descending run, `top` down to `top - count + 1`, as one
/// batch (`count <= TAIL_DICE`; the caller has checked that their product fits). The count is
/// a constant in each arm, so every batch is an unrolled chain of multiplications.
#[inline(always)]
fn tail_down<R, F>(rng: &mut R, top: u64, count: u64, f: &mut F)
where
    R: Rng + ?Sized,
    F: FnMut(usize, usize),
{
    macro_rules! arms {
        ($($k:literal),*) => {
            match count {
                $($k => {
                    let bounds = core::array::from_fn(|i| top - i as u64);
                    batch::<R, F, $k, WHOLE>(rng, bounds, f)
                })*
                // 0: nothing left.
                _ => {}
            }
        };
    }
    arms!(
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18
    );
}

/// Rolls the first `count` bounds of an ascending run, `first` up to `first + count - 1`, as
/// one batch (`count <= TAIL_DICE`, all bounds at most [`TAIL_TOP`]).
#[inline(always)]
fn head_up<R, F>(rng: &mut R, first: u64, count: u64, f: &mut F)
where
    R: Rng + ?Sized,
    F: FnMut(usize, usize),
{
    macro_rules! arms {
        ($($k:literal),*) => {
            match count {
                $($k => {
                    let bounds = core::array::from_fn(|i| first + i as u64);
                    batch::<R, F, $k, HALVES>(rng, bounds, f)
                })*
                _ => {}
            }
        };
    }
    arms!(
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18
    );
}

const _: () = assert!(TAIL_DICE == 18, "the arms of tail_down and head_up");

/// Rolls batches of `K` dice for the bounds `top, top - 1, …` while `top > floor` and at least
/// `K` bounds down to `low` remain; `top` ends one below the last bound rolled.
#[inline(always)]
fn descend<R, F, const K: usize>(rng: &mut R, top: &mut u64, low: u64, floor: u64, f: &mut F)
where
    R: Rng + ?Sized,
    F: FnMut(usize, usize),
{
    if draws_ahead(rng) {
        let batches_left = |&top: &u64| {
            // One batch per `K` bounds above `floor`, and one per `K` bounds down to `low`
            // (`top + 1 - low`, written so that it cannot overflow: top >= low - 1, low >= 2).
            if top <= floor {
                0
            } else {
                (top - floor)
                    .div_ceil(K as u64)
                    .min(top.wrapping_sub(low).wrapping_add(1) / K as u64)
            }
        };
        draw_ahead(rng, top, batches_left, |top, x| {
            let t = *top;
            let bounds: [u64; K] = core::array::from_fn(|i| t - i as u64);
            let product = bounds.iter().product();
            if accepted(x.wrapping_mul(product), product) {
                roll_batch::<F, K, WHOLE>(x, bounds, f);
                *top -= K as u64;
            }
        });
        return;
    }
    // `top + 1 - low`, written so that it cannot overflow (top >= low - 1, low >= 2).
    while *top > floor && top.wrapping_sub(low).wrapping_add(1) >= K as u64 {
        let t = *top;
        batch::<R, F, K, WHOLE>(rng, core::array::from_fn(|i| t - i as u64), f);
        *top -= K as u64;
    }
}

/// Rolls batches of `K` dice for the bounds `next, next + 1, …` while the batch's largest bound
/// is at most `last`; `next` ends one above the last bound rolled.
///
/// A phase entered where the ascending run from 2 enters it (`ASCENT_START[K]`, for
/// `K >= TABLED_DICE`) takes each batch's product and acceptance threshold from
/// [`ASCENT_PRODUCTS`] and [`ASCENT_THRESHOLDS`]: two loads instead of `K - 1`
/// multiplications and the fallback division (see [`batch_of_threshold`]). If such a phase has
/// at most [`CONSTANT_BATCHES`] batches (12 down to 9 dice: bounds 20 to 98), its bounds are
/// then compile-time constants, as the first batch's (2 to 19) are. A phase entered anywhere
/// else computes its products and checks its words as [`batch`] does.
///
/// Inlined into [`for_each_index_ascending`](IndexSampler::for_each_index_ascending) (see
/// there).
#[inline(always)]
fn ascend<R, F, const K: usize>(rng: &mut R, next: &mut u64, last: u64, f: &mut F)
where
    R: Rng + ?Sized,
    F: FnMut(usize, usize),
{
    if ASCENT_LEN[K] > CONSTANT_BATCHES && *next == ASCENT_START[K] && draws_ahead(rng) {
        // As below (a tabled phase entered at its start whose bounds are not constants), with
        // the words drawn ahead. The state: the next bound and how many batches are rolled.
        let batches_left = |&(next, m): &(u64, usize)| {
            // The phase's batches, and those whose largest bound is at most `last`.
            let fit = if next + (K as u64 - 1) > last {
                0
            } else {
                ((last - next + 1) / K as u64) as usize
            };
            (ASCENT_LEN[K] - m).min(fit) as u64
        };
        let mut state = (*next, 0);
        draw_ahead(rng, &mut state, batches_left, |(next, m), x| {
            let at = ASCENT_AT[K] + *m;
            if x.wrapping_mul(ASCENT_PRODUCTS[at]) >= ASCENT_THRESHOLDS[at] {
                let first = *next;
                roll_batch::<F, K, HALVES>(x, core::array::from_fn(|i| first + i as u64), f);
                *next = first + K as u64;
                *m += 1;
            }
        });
        *next = state.0;
        return;
    }
    if ASCENT_LEN[K] > 0 && *next == ASCENT_START[K] {
        // Entered at its start: every batch of the phase is tabled, product and threshold.
        let mut m = 0;
        while m < ASCENT_LEN[K] {
            let first = if ASCENT_LEN[K] <= CONSTANT_BATCHES {
                ASCENT_START[K] + (m * K) as u64
            } else {
                *next
            };
            if first + (K as u64 - 1) > last {
                return;
            }
            let bounds: [u64; K] = core::array::from_fn(|i| first + i as u64);
            let at = ASCENT_AT[K] + m;
            let (product, threshold) = if ASCENT_LEN[K] <= CONSTANT_BATCHES {
                // Constant bounds: the compiler folds both to constants.
                let product: u64 = bounds.iter().product();
                (product, product.wrapping_neg() % product)
            } else {
                (ASCENT_PRODUCTS[at], ASCENT_THRESHOLDS[at])
            };
            batch_of_threshold::<R, F, K>(rng, bounds, product, threshold, f);
            *next = first + K as u64;
            m += 1;
        }
        // The phase is complete: its next batch would pass `MAX_BOUND[K]`.
        return;
    }
    while *next <= last && last - *next >= K as u64 - 1 {
        let first = *next;
        let bounds = core::array::from_fn(|i| first + i as u64);
        batch::<R, F, K, HALVES>(rng, bounds, f);
        // Overflow means the bound u64::MAX itself was just rolled: the run is complete.
        match first.checked_add(K as u64) {
            Some(n) => *next = n,
            None => return,
        }
    }
}

/// The most batches a phase may have for [`ascend`] to roll them with constant bounds when
/// it is entered at its start: the phases of 12, 11, 10 and 9 dice (1, 1, 2 and 4 batches).
///
/// With constant bounds the compiler proved every swap's two indices in range (the die is the high
/// half of a product with a constant, so below it) and dropped their checks, when the swaps still
/// had them (`swap_run` has none since): `Inplace`'s front-to-back deck ran 439 instead of 700
/// instructions (wyrand) and was 1.04× faster (fastrand / ours 1.385 → 1.44, pcg64 vs rand 3.37 →
/// 3.72); 200 elements 1.27 → 1.32. Up to 10 (the phase of 8 dice as well) ran fewer instructions
/// but slower: 1.39 at the deck, 1.21 at 200 (`sampler_lab race wyrand CASE 31 forward fastrand`,
/// the builds alternated).
const CONSTANT_BATCHES: usize = 4;

/// The ascending phases whose batches are tabled: `K` dice per word for `K` from this to
/// [`MAX_DICE`], the bounds 20 to 32,768 (7,937 batches; products and thresholds 124 KiB).
///
/// With the product tabled, its `K - 1` multiplications no longer compete with the dice's for
/// the multipliers; with the threshold, the word's check is one compare with no division behind
/// it, and the batch loop keeps its values in registers. Against fastrand (`sampler_lab race
/// wyrand CASE 21 forward fastrand`, alternated with the build before): products of 5 dice up
/// tabled, 1,000 elements 1.24 → 1.29×; thresholds as well, 1.29 → 1.40× (14.9 k instead of
/// 16.6 k instructions), 4,096 elements 1.29 → 1.44×; the phase of 4 dice (4,093 to 32,768)
/// as well, 10,000 elements 1.27 → 1.40×, 32,768 1.13 → 1.32×. The deck is unchanged (its
/// tabled phases had constant bounds already).
const TABLED_DICE: usize = 4;

/// `ASCENT_START[K]`: the first bound of phase `K` in the ascending run from 2 with no upper
/// end, batched as [`for_each_index_ascending`](IndexSampler::for_each_index_ascending)
/// batches it (one batch up to [`TAIL_TOP`], then phase `K` while a batch's largest bound is at
/// most `MAX_BOUND[K]`); `ASCENT_LEN[K]`: how many batches the phase rolls; both 0 below
/// [`TABLED_DICE`]. A phase entered at its start rolls its batches at `start + m·K`, however the
/// run got there.
const ASCENT_START: [u64; MAX_DICE + 1] = ascent_phases().0;

/// See [`ASCENT_START`].
const ASCENT_LEN: [usize; MAX_DICE + 1] = ascent_phases().1;

/// `ASCENT_AT[K]`: where phase `K`'s products begin in [`ASCENT_PRODUCTS`] (phases in run
/// order, `MAX_DICE` first).
const ASCENT_AT: [usize; MAX_DICE + 1] = {
    let mut at = [0; MAX_DICE + 1];
    let mut offset = 0;
    let mut k = MAX_DICE;
    while k >= TABLED_DICE {
        at[k] = offset;
        offset += ASCENT_LEN[k];
        k -= 1;
    }
    at
};

/// The number of tabled batches.
const ASCENT_BATCHES: usize = ASCENT_AT[TABLED_DICE] + ASCENT_LEN[TABLED_DICE];

/// The product of each tabled batch's bounds, phase by phase ([`ASCENT_AT`]), computed at
/// compile time.
static ASCENT_PRODUCTS: [u64; ASCENT_BATCHES] = ascent_products();

/// The values of [`ASCENT_PRODUCTS`].
const fn ascent_products() -> [u64; ASCENT_BATCHES] {
    let mut products = [0; ASCENT_BATCHES];
    let mut k = MAX_DICE;
    while k >= TABLED_DICE {
        let mut m = 0;
        while m < ASCENT_LEN[k] {
            let first = ASCENT_START[k] + (m * k) as u64;
            let mut product: u64 = 1;
            let mut i = 0;
            while i < k as u64 {
                product *= first + i;
                i += 1;
            }
            products[ASCENT_AT[k] + m] = product;
            m += 1;
        }
        k -= 1;
    }
    products
}

/// `2^64 mod P` for each product `P` of [`ASCENT_PRODUCTS`]: the exact acceptance threshold
/// of the batch (a word is kept when `x · P mod 2^64` is at least it), so a tabled batch needs
/// neither the cheap `>= P` test nor the division behind it.
static ASCENT_THRESHOLDS: [u64; ASCENT_BATCHES] = {
    let products = ascent_products();
    let mut thresholds = [0; ASCENT_BATCHES];
    let mut i = 0;
    while i < ASCENT_BATCHES {
        let p = products[i];
        thresholds[i] = p.wrapping_neg() % p;
        i += 1;
    }
    thresholds
};

/// [`ASCENT_START`] and [`ASCENT_LEN`], by walking the run.
const fn ascent_phases() -> ([u64; MAX_DICE + 1], [usize; MAX_DICE + 1]) {
    let mut start = [0; MAX_DICE + 1];
    let mut len = [0; MAX_DICE + 1];
    let mut next = TAIL_TOP + 1;
    let mut k = MAX_DICE;
    while k >= TABLED_DICE {
        start[k] = next;
        while next + k as u64 - 1 <= MAX_BOUND[k] {
            next += k as u64;
            len[k] += 1;
        }
        k -= 1;
    }
    (start, len)
}

/// Rolls one batch of dice for `bounds` (whose product fits in a word) and hands
/// `(bound, die)` to `f` in order. The product is known before the word is drawn, so the
/// acceptance check comes first and each die goes to `f` as soon as it is rolled.
///
/// With `TWO_LOOPS` ([`HALVES`], the ascending drivers), and for any batch of more than
/// [`MAX_DICE`] dice (the 13–18 of a run's first or last batch), the dice are rolled as two
/// loops of `K / 2` and `K - K / 2`, the second going on from the first's low half: the same
/// dice, but loops the compiler unrolls. As one loop, the 18 dice that open a front-to-back deck
/// stayed a loop over bounds stored on the stack, two bounds checks per swap; in halves
/// `Inplace`'s deck runs 714 instead of 963 instructions (wyrand) and is 1.06× faster,
/// inside-out on 1,000 and 10,000 elements 1.07× and 1.10× faster. The descending phases (at
/// most 12 dice) stay one loop: in halves they ran 1 % more instructions and 4–5 % slower at
/// 10^4 and 2^20 (`sampler_lab race wyrand CASE 31 ours fastrand`, both builds alternated;
/// `docs/benchmarks.md`).
#[inline(always)]
fn batch<R, F, const K: usize, const TWO_LOOPS: bool>(rng: &mut R, bounds: [u64; K], f: &mut F)
where
    R: Rng + ?Sized,
    F: FnMut(usize, usize),
{
    let x = draw_accepted(|| rng.next_u64(), bounds.iter().product());
    roll_batch::<F, K, TWO_LOOPS>(x, bounds, f);
}

/// Rolls the dice of the accepted word `x` for `bounds` and hands `(bound, die)` to `f` in
/// order, as [`batch`] describes (in two loops with `TWO_LOOPS` or more than [`MAX_DICE`]
/// dice).
#[inline(always)]
fn roll_batch<F, const K: usize, const TWO_LOOPS: bool>(x: u64, bounds: [u64; K], f: &mut F)
where
    F: FnMut(usize, usize),
{
    let mut hand_on = |bound: u64, die: u64| f(bound as usize, die as usize);
    if TWO_LOOPS || K > MAX_DICE {
        let (first, second) = bounds.split_at(K / 2);
        let x = roll(x, first.iter().copied(), &mut hand_on);
        roll(x, second.iter().copied(), hand_on);
    } else {
        roll(x, bounds, hand_on);
    }
}

/// [`batch`] with the bounds' product and the exact acceptance threshold known (`threshold`
/// is `2^64 mod product`, from [`ASCENT_THRESHOLDS`]): a word is kept when
/// `x · product mod 2^64 >= threshold`, one test and no division behind it. The same words are
/// kept and the same dice rolled as [`batch`] would; always in halves (the ascending drivers').
#[inline(always)]
fn batch_of_threshold<R, F, const K: usize>(
    rng: &mut R,
    bounds: [u64; K],
    product: u64,
    threshold: u64,
    f: &mut F,
) where
    R: Rng + ?Sized,
    F: FnMut(usize, usize),
{
    let x = loop {
        let x = rng.next_u64();
        if x.wrapping_mul(product) >= threshold {
            break x;
        }
    };
    let mut hand_on = |bound: u64, die: u64| f(bound as usize, die as usize);
    let (first, second) = bounds.split_at(K / 2);
    let x = roll(x, first.iter().copied(), &mut hand_on);
    roll(x, second.iter().copied(), hand_on);
}

/// How many words [`draw_ahead`] draws at most at a time: a phase's batches take their words
/// in chunks of this many (256 bytes on the stack).
const AHEAD_WORDS: usize = 32;

/// The fewest words [`draw_ahead`] reads with one `fill_bytes` call; a shorter chunk is drawn
/// word by word. Below it the zeroed buffer and the copy cost more than the generator's
/// per-word checks: read with `fill_bytes` throughout, ChaCha12's 52-element shuffle ran
/// 2.6 % (front to back) and 15 % (from the end) more instructions, with this limit 0.6 % and
/// 1 % (the Zen 3 note).
const FILL_FROM_WORDS: usize = 8;

/// The size from which a generator is taken to keep a buffer of words, and the drivers draw
/// its words ahead ([`draws_ahead`]): 128 bytes, 16 words.
const BUFFERED_FROM_BYTES: usize = 128;

/// Whether the drivers draw a chunk's words ahead ([`draw_ahead`]) for this generator: when it
/// is at least [`BUFFERED_FROM_BYTES`] large, as a generator that keeps a buffer of words is
/// (rand's `StdRng` holds 64 ChaCha words beside its key, a Mersenne Twister 624 words). Such a
/// generator refills its buffer inside `next_u64`, and a batch loop that holds that call keeps
/// its position and bounds on the stack; the small generators (PCG, xoshiro, wyrand: 8 to 32
/// bytes, their next word computed in registers) are faster drawn one word per batch. The
/// shuffles and the generator's state after them are the same either way
/// (`words_drawn_ahead_are_the_words_one_by_one`), so this decides speed only. For a sized
/// generator it is a constant.
#[inline(always)]
fn draws_ahead<R: ?Sized>(rng: &R) -> bool {
    core::mem::size_of_val(rng) >= BUFFERED_FROM_BYTES
}

/// Rolls a phase's batches from words drawn ahead: `state` is where the phase stands,
/// `batches_left(state)` how many batches it has left (0 ends it), and `offer(state, word)`
/// rolls the next batch from `word` and advances `state` if the batch accepts the word, or
/// leaves `state` as it is (a rejected word is skipped: its batch takes the next word). The
/// words come a chunk of up to [`AHEAD_WORDS`] at a time, drawn before the batches are rolled,
/// so the batch loop holds no call into the generator. A chunk of [`FILL_FROM_WORDS`] or more
/// is read with one `fill_bytes` call as little-endian 64-bit words, so a buffered generator
/// copies its words out in one go instead of checking its position word by word (ChaCha12 at
/// 10⁴ elements: 1.8 of 17.5 instructions per element fewer, the Zen 3 note); a shorter one
/// with `next_u64`.
///
/// A chunk holds no more words than batches are left (each batch takes at least one), and a
/// chunk whose words run out leaves its last batches to the next chunk, so every word drawn is
/// used. For a generator whose `fill_bytes` gives the little-endian bytes of the words its
/// `next_u64` would return (rand's ChaCha generators, so `StdRng`, and every generator of
/// `fairdeal-rng` that is drawn ahead: their tests check it), these are the words
/// one word per batch draws, in the same order, and the generator is left where that leaves it:
/// the same shuffles, and the same state after them. `rand_core` does not require that
/// agreement; a generator whose streams differ (rand_mt's 32-bit `Mt`, whose `next_u64` puts its
/// first `u32` high) gets shuffles rolled partly from its `fill_bytes` stream instead, as
/// uniform.
#[inline(always)]
fn draw_ahead<R, S>(
    rng: &mut R,
    state: &mut S,
    batches_left: impl Fn(&S) -> u64,
    mut offer: impl FnMut(&mut S, u64),
) where
    R: Rng + ?Sized,
{
    let mut words = [0; AHEAD_WORDS];
    loop {
        let left = batches_left(state);
        if left == 0 {
            return;
        }
        let words = &mut words[..left.min(AHEAD_WORDS as u64) as usize];
        if words.len() >= FILL_FROM_WORDS {
            fill_words(rng, words);
        } else {
            for word in words.iter_mut() {
                *word = rng.next_u64();
            }
        }
        for &x in words.iter() {
            offer(state, x);
        }
    }
}

/// Fills `words` (at most [`AHEAD_WORDS`]) from one `fill_bytes` call, read as little-endian
/// 64-bit words.
///
/// Kept out of line. Inlined into [`draw_ahead`], its zeroed byte buffer and the copy sat in
/// every phase's loop: ChaCha12's shuffle of 10⁴ elements ran 162 k instructions instead of
/// 153.4 k (at 52, where chunks are short, 610 either way front to back, 991 against 1,002
/// from the end: `sampler_lab count`), and on an Intel Xeon its duels against rand read 8 % / 14 %
/// / 7 % lower at 10³ / 10⁴ / 2^20 and 4 % higher at 52. Out of line only from 16 words read
/// lower than this at every size (`docs/notes/2026-12-06-intel.md`).
#[inline(never)]
fn fill_words<R: Rng + ?Sized>(rng: &mut R, words: &mut [u64]) {
    let mut bytes = [0; AHEAD_WORDS * 8];
    let bytes = &mut bytes[..words.len() * 8];
    rng.fill_bytes(bytes);
    for (word, bytes) in words.iter_mut().zip(bytes.chunks_exact(8)) {
        *word = u64::from_le_bytes(bytes.try_into().expect("chunks of 8 bytes"));
    }
}

/// An unsigned machine word and the operations batched dice need. Implemented for `u64` (the
/// production word) and, in tests, for `u16`, where every word can be enumerated.
trait Word: Copy + Ord {
    /// The full product `self · other`, as (high half, low half).
    fn widening_mul(self, other: Self) -> (Self, Self);
    /// `self · other mod 2^BITS`.
    fn wrapping_mul(self, other: Self) -> Self;
    /// `2^BITS mod self`, for `self >= 1`.
    fn wrap_rem(self) -> Self;
}

impl Word for u64 {
    #[inline(always)]
    fn widening_mul(self, other: Self) -> (Self, Self) {
        let full = u128::from(self) * u128::from(other);
        ((full >> 64) as u64, full as u64)
    }
    #[inline(always)]
    fn wrapping_mul(self, other: Self) -> Self {
        u64::wrapping_mul(self, other)
    }
    #[inline(always)]
    fn wrap_rem(self) -> Self {
        self.wrapping_neg() % self
    }
}

/// Rolls the dice of the word `x`, one per bound: each die is the high half of `x · bound`, and
/// the low half carries on to the next die. Hands `(bound, die)` to `f` in order and returns the
/// final low half, which equals `x · P mod 2^BITS` for the product `P` of the bounds.
#[inline(always)]
fn roll<W: Word>(mut x: W, bounds: impl IntoIterator<Item = W>, mut f: impl FnMut(W, W)) -> W {
    for bound in bounds {
        let (die, low) = x.widening_mul(bound);
        f(bound, die);
        x = low;
    }
    x
}

/// Whether a word is kept for a batch whose bounds multiply to `product` (at least 1), given
/// its final low half `leftover = x · product mod 2^BITS`. The words whose leftover is below
/// `2^BITS mod product` are exactly the surplus that would make some tuples more likely; the
/// cheap `leftover >= product` test settles almost every batch without the division.
#[inline(always)]
fn accepted<W: Word>(leftover: W, product: W) -> bool {
    leftover >= product || leftover >= product.wrap_rem()
}

/// Draws words from `word` until one is [`accepted`] for a batch with bound product `product`
/// (at least 1), and returns it: the word to [`roll`] that batch from.
#[inline(always)]
fn draw_accepted<W: Word>(mut word: impl FnMut() -> W, product: W) -> W {
    loop {
        let x = word();
        if accepted(x.wrapping_mul(product), product) {
            return x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::String;
    use alloc::vec;
    use alloc::vec::Vec;
    use rand::SeedableRng;
    use statrs::distribution::{ChiSquared, ContinuousCDF};

    impl Word for u16 {
        fn widening_mul(self, other: Self) -> (Self, Self) {
            let full = u32::from(self) * u32::from(other);
            ((full >> 16) as u16, full as u16)
        }
        fn wrapping_mul(self, other: Self) -> Self {
            u16::wrapping_mul(self, other)
        }
        fn wrap_rem(self) -> Self {
            self.wrapping_neg() % self
        }
    }

    /// How often each tuple of dice comes out of the 2^16 possible 16-bit words, with the
    /// rejection rule (`reject = true`) or without it, through the same `roll` and `accepted`
    /// the sampler runs. Tuples are numbered in mixed radix.
    fn tuple_counts<const K: usize>(bounds: [u16; K], reject: bool) -> Vec<u32> {
        let product: u16 = bounds.iter().product();
        let mut counts = vec![0u32; usize::from(product)];
        for word in 0..=u16::MAX {
            // The check the sampler makes before rolling, on the wrapped product.
            let keep = accepted(word.wrapping_mul(product), product);
            let mut index = 0usize;
            let leftover = roll(word, bounds, |bound, die| {
                assert!(die < bound, "die {die} not below {bound}");
                index = index * usize::from(bound) + usize::from(die);
            });
            assert_eq!(
                leftover,
                word.wrapping_mul(product),
                "the final low half is x·P"
            );
            if reject && !keep {
                continue;
            }
            counts[index] += 1;
        }
        counts
    }

    fn all_equal(counts: &[u32]) -> bool {
        counts.iter().all(|&c| c == counts[0])
    }

    /// The exactness claim, checked on every 16-bit word: after rejection every tuple of dice is
    /// reached by exactly ⌊2^16 / P⌋ words. Without the rejection step the same check fails,
    /// so the test can tell an exact batch from a biased one.
    #[test]
    fn every_tuple_equally_often_over_all_16_bit_words() {
        fn check<const K: usize>(bounds: [u16; K]) {
            let product = u32::from(bounds.iter().product::<u16>());
            let counts = tuple_counts(bounds, true);
            assert!(all_equal(&counts), "bounds {bounds:?}: {counts:?}");
            assert_eq!(counts[0], (1 << 16) / product, "bounds {bounds:?}");
            if !(1u32 << 16).is_multiple_of(product) {
                assert!(
                    !all_equal(&tuple_counts(bounds, false)),
                    "bounds {bounds:?}: no bias without rejection?"
                );
            }
        }
        check([7]);
        check([65_535]);
        check([52, 51]);
        check([255, 256]);
        check([100, 99]);
        check([3, 5, 7]);
        check([40, 39, 38]);
        check([10, 9, 8, 7]);
        check([6, 5, 4, 3, 2]);
        check([2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]);
        check([1, 1, 1, 1000]);
        // Every pair of bounds with a product below 2^16 in a sweep of sizes.
        for a in (1..=300u16).step_by(7) {
            for b in (1..=200u16).step_by(11) {
                if u32::from(a) * u32::from(b) <= u32::from(u16::MAX) {
                    check([a, b]);
                    check([b, a]);
                }
            }
        }
    }

    #[test]
    fn indices_below_checks_its_bounds() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
        assert_eq!(
            Batched.indices_below(&mut rng, [0]),
            Err(BatchError::ZeroBound { position: 0 })
        );
        assert_eq!(
            Batched.indices_below(&mut rng, [1 << 32, 1 << 32]),
            Err(BatchError::ProductTooLarge)
        );
        assert_eq!(Batched.indices_below(&mut rng, []), Ok([]));
        assert_eq!(Batched.indices_below(&mut rng, [1, 1]), Ok([0, 0]));
        let max = Batched.indices_below(&mut rng, [usize::MAX]).unwrap();
        assert!(max[0] < usize::MAX);
        for _ in 0..1000 {
            let [a, b, c] = Batched.indices_below(&mut rng, [52, 51, 50]).unwrap();
            assert!(a < 52 && b < 51 && c < 50);
        }
    }

    /// The largest `b` with `b^k <= 2^60` (`k >= 2`), by bisection.
    fn largest_kth_root_of_2_pow_60(k: u32) -> u64 {
        let (mut lo, mut hi) = (1u128, 1u128 << 30);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            match mid.checked_pow(k) {
                Some(power) if power <= 1 << 60 => lo = mid,
                _ => hi = mid - 1,
            }
        }
        lo as u64
    }

    /// Bounds around which the number of dice per batch changes (`k` equal bounds fit below
    /// 2^60 there, `k + 1` do not), for k = 2..=12: 2^30, 2^20, 2^15, 2^12, 2^10 and so on.
    fn limits() -> Vec<u64> {
        (2..=12).map(largest_kth_root_of_2_pow_60).collect()
    }

    /// The limits the production code computes at compile time agree with the test's own
    /// bisection.
    #[test]
    fn max_bounds_are_the_largest_that_fit() {
        for (k, &bound) in MAX_BOUND.iter().enumerate().skip(2) {
            let limit = u128::from(bound);
            assert_eq!(bound, limits()[k - 2]);
            assert!(limit.pow(k as u32) <= 1 << 60, "k = {k}");
            assert!((limit + 1).pow(k as u32) > 1 << 60, "k = {k}");
        }
    }

    /// Hands out the words `2^64 - 1` and `1` in turn. Both are kept for any product of bounds
    /// (`x · P mod 2^64` is `2^64 - P`, resp. `P`, never below `2^64 mod P`), and every die of
    /// the first is its bound minus one (the low half stays `2^64 -` the bounds' product so
    /// far), every die of the second is 0. So consecutive batches alternate between the two, and
    /// the dice show where each batch begins however far ahead the words were drawn.
    struct Alternating {
        high: bool,
    }

    impl rand_core::TryRng for Alternating {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            unreachable!("batches draw 64-bit words")
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            self.high = !self.high;
            Ok(if self.high { u64::MAX } else { 1 })
        }
        fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
            unreachable!("batches draw 64-bit words")
        }
    }

    /// The batches of one run, each as its list of bounds: a new batch begins where the dice
    /// switch between highest and 0 (see [`Alternating`]). Bound 1 takes no word and is left
    /// out.
    fn batches(high: usize, low: usize, ascending: bool) -> Vec<Vec<u64>> {
        let mut out = Vec::<Vec<u64>>::new();
        let mut last_high = None;
        let visit = |bound: usize, die: usize| {
            if bound == 1 {
                return;
            }
            let is_high = die == bound - 1;
            assert!(is_high || die == 0, "bound {bound}, die {die}");
            if last_high != Some(is_high) {
                out.push(Vec::new());
                last_high = Some(is_high);
            }
            out.last_mut().unwrap().push(bound as u64);
        };
        let mut rng = Alternating { high: false };
        if ascending {
            Batched.for_each_index_ascending(&mut rng, low, high, visit);
        } else {
            Batched.for_each_index_descending(&mut rng, high, low, visit);
        }
        out
    }

    /// Pcg64 with every third word replaced by 0 (which most batches reject), padded to `PAD`
    /// bytes so that the drivers draw its words ahead or not ([`draws_ahead`]).
    #[derive(Clone)]
    struct Zeros<const PAD: usize> {
        rng: rand_pcg::Pcg64,
        count: u8,
        /// Whether `fill_bytes` gives other words than `next_u64`.
        swapped: bool,
        _pad: [u8; PAD],
    }

    impl<const PAD: usize> Zeros<PAD> {
        fn new(seed: u64, swapped: bool) -> Self {
            Zeros {
                rng: rand_pcg::Pcg64::seed_from_u64(seed),
                count: 0,
                swapped,
                _pad: [0; PAD],
            }
        }

        /// The next word as the drivers read it when they draw ahead: from `fill_bytes`.
        fn filled_word(&mut self) -> u64 {
            let mut bytes = [0; 8];
            self.fill_bytes(&mut bytes);
            u64::from_le_bytes(bytes)
        }
    }

    impl<const PAD: usize> rand_core::TryRng for Zeros<PAD> {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            unreachable!("batches draw 64-bit words")
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            self.count = (self.count + 1) % 3;
            let word = self.rng.next_u64();
            Ok(if self.count == 0 { 0 } else { word })
        }
        /// The little-endian bytes of the `next_u64` words, or with `swapped` of those words
        /// with their halves exchanged (as rand_mt's 32-bit `Mt` gives them): whole words only,
        /// as the drivers ask for.
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
            assert_eq!(dst.len() % 8, 0, "batches draw whole 64-bit words");
            for chunk in dst.chunks_exact_mut(8) {
                let word = self.try_next_u64()?;
                let word = if self.swapped {
                    word.rotate_left(32)
                } else {
                    word
                };
                chunk.copy_from_slice(&word.to_le_bytes());
            }
            Ok(())
        }
    }

    /// Runs both drivers on `Zeros<PAD>` (its `fill_bytes` words `swapped` or not) across every
    /// kind of phase and compares each with one word per batch, drawn with `next_u64` when the
    /// batch is rolled: the batches of [`batches`], each rolled with [`draw_accepted`] and
    /// [`roll`] straight from a copy of the generator. The dice and the generator's state after
    /// the run must be the same. Returns how many words the reference rejected, or the first
    /// difference.
    fn check_against_one_by_one<const PAD: usize>(swapped: bool) -> Result<usize, String> {
        let mut rejected = 0;
        for (high, low) in [
            (52, 2),
            (1000, 2),
            (40_000, 2),
            (100_000, 17),
            (1 << 20, 1 << 19),
        ] {
            for ascending in [false, true] {
                let mut rng = Zeros::<PAD>::new((high ^ low) as u64, swapped);
                let mut reference = rng.clone();
                let mut dice = Vec::new();
                let visit = |bound: usize, die: usize| {
                    if bound > 1 {
                        dice.push((bound as u64, die as u64));
                    }
                };
                if ascending {
                    Batched.for_each_index_ascending(&mut rng, low, high, visit);
                } else {
                    Batched.for_each_index_descending(&mut rng, high, low, visit);
                }
                let mut expected = Vec::new();
                for batch in batches(high, low, ascending) {
                    let product = batch.iter().product();
                    let mut draws = 0;
                    let x = draw_accepted(
                        || {
                            draws += 1;
                            reference.next_u64()
                        },
                        product,
                    );
                    rejected += draws - 1;
                    roll(x, batch, |bound, die| expected.push((bound, die)));
                }
                if dice != expected {
                    return Err(format!("{high}..{low} ascending={ascending}: other dice"));
                }
                if rng.next_u64() != reference.next_u64() {
                    return Err(format!(
                        "{high}..{low} ascending={ascending}: the generator's state after the run"
                    ));
                }
            }
        }
        Ok(rejected)
    }

    /// Every word a run draws is used, in the generator's order: for a generator whose words
    /// are drawn ahead a chunk at a time, and for one drawn from word by word, the drivers
    /// hand on the dice that one word per batch gives and leave the generator in the same
    /// state, also when words are rejected.
    #[test]
    fn words_drawn_ahead_are_the_words_one_by_one() {
        let large = Zeros::<BUFFERED_FROM_BYTES>::new(0, false);
        assert!(draws_ahead(&large));
        assert!(!draws_ahead(&large.rng));
        // The rejection path ran: a third of the words are 0.
        assert!(check_against_one_by_one::<BUFFERED_FROM_BYTES>(false).unwrap() > 1000);
        assert!(check_against_one_by_one::<0>(false).unwrap() > 1000);
    }

    /// The words drawn ahead are read with `fill_bytes`: for a generator whose `fill_bytes`
    /// words differ from its `next_u64` words (here with their halves exchanged), the
    /// comparison above fails where the words are drawn ahead, and still holds where they are
    /// drawn word by word. So that comparison can fail, and a generator's `fill_bytes` must
    /// agree with its `next_u64` for the shuffles to be those of one word per batch.
    #[test]
    fn words_drawn_ahead_are_read_with_fill_bytes() {
        let mut swapped = Zeros::<0>::new(7, true);
        let mut plain = Zeros::<0>::new(7, false);
        assert_eq!(swapped.filled_word(), plain.next_u64().rotate_left(32));
        assert!(check_against_one_by_one::<BUFFERED_FROM_BYTES>(true).is_err());
        assert!(check_against_one_by_one::<0>(true).unwrap() > 1000);
    }

    /// rand's `StdRng` (ChaCha12, a buffer of 64 words) has its words drawn ahead; the small
    /// generators are drawn from word by word.
    #[test]
    fn buffered_generators_are_drawn_ahead() {
        assert!(draws_ahead(&rand::rngs::StdRng::seed_from_u64(1)));
        assert!(!draws_ahead(&rand_pcg::Pcg64::seed_from_u64(1)));
        assert!(!draws_ahead(&rand_pcg::Pcg64Mcg::seed_from_u64(1)));
        assert!(!draws_ahead(
            &rand::rngs::Xoshiro256PlusPlus::seed_from_u64(1)
        ));
    }

    /// Every batch of every run stays within the product limit (or is a single bound) and
    /// holds at most 18 dice, in both directions.
    #[test]
    fn every_batch_fits_in_a_word() {
        let mut runs = runs();
        for top in [100, 1000, 1 << 12, 1 << 15, 100_000] {
            for low in [2, top / 2, top - 20] {
                runs.push((top, low));
            }
        }
        for (high, low) in runs {
            for ascending in [false, true] {
                for batch in batches(high, low, ascending) {
                    let product: u128 = batch.iter().map(|&b| u128::from(b)).product();
                    assert!(
                        batch.len() == 1 || product <= u128::from(PRODUCT_LIMIT),
                        "{high}..{low} ascending={ascending}: {batch:?}"
                    );
                    assert!(batch.len() <= TAIL_DICE as usize);
                }
            }
        }
    }

    /// Each tabled product is the product of the batch the ascending driver rolls there, and
    /// its threshold `2^64 mod` that product: a run from 2 to just past the last tabled phase
    /// rolls every tabled batch once, with those bounds, and the table holds the phases from
    /// `TABLED_DICE` dice up.
    #[test]
    fn tabled_batches_are_the_batches_rolled() {
        let mut seen = vec![0; ASCENT_BATCHES];
        let high = MAX_BOUND[TABLED_DICE] as usize + 10;
        for batch in batches(high, 2, true) {
            let k = batch.len();
            if !(TABLED_DICE..=MAX_DICE).contains(&k) {
                continue;
            }
            let offset = batch[0] - ASCENT_START[k];
            let m = (offset / k as u64) as usize;
            if offset.is_multiple_of(k as u64) && m < ASCENT_LEN[k] {
                let product: u64 = batch.iter().product();
                let at = ASCENT_AT[k] + m;
                assert_eq!(ASCENT_PRODUCTS[at], product, "{batch:?}");
                // The threshold is 2^64 mod P, the exact edge of `accepted`.
                let threshold = ASCENT_THRESHOLDS[at];
                assert_eq!(
                    u128::from(threshold),
                    (1u128 << 64) % u128::from(product),
                    "{batch:?}"
                );
                assert!(accepted(threshold, product), "{batch:?}");
                assert!(
                    threshold == 0 || !accepted(threshold - 1, product),
                    "{batch:?}"
                );
                seen[at] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
        assert_eq!(ASCENT_START[MAX_DICE], TAIL_TOP + 1);
        // The last tabled phase ends at its limit: the next batch would not fit it.
        let end = ASCENT_START[TABLED_DICE] + (ASCENT_LEN[TABLED_DICE] * TABLED_DICE) as u64;
        assert!(end + TABLED_DICE as u64 - 1 > MAX_BOUND[TABLED_DICE]);
    }

    /// A 52-card deck is the four batches the type's docs describe, either way round, and a
    /// hand of 7 is one batch.
    #[test]
    fn a_deck_is_four_batches() {
        let sizes = |b: Vec<Vec<u64>>| b.iter().map(Vec::len).collect::<Vec<_>>();
        assert_eq!(sizes(batches(52, 2, false)), [10, 11, 12, 18]);
        assert_eq!(sizes(batches(52, 2, true)), [18, 12, 11, 10]);
        assert_eq!(sizes(batches(52, 46, false)), [7]);
        assert_eq!(batches(52, 46, false)[0], [52, 51, 50, 49, 48, 47, 46]);
    }

    /// The short runs the driver rolls directly are single batches, exactly the ones whose
    /// bounds all fit one phase's batch or the tail, and every other run takes more than one
    /// word: the shortcut changes no batch, so no seeded output.
    #[test]
    fn short_runs_are_one_batch() {
        for top in 2..=1100u64 {
            for count in 1..top {
                let low = top - count + 1;
                let cut = batches(top as usize, low as usize, false);
                let all: Vec<u64> = (low..=top).rev().collect();
                if fits_one_batch(top, count) {
                    assert_eq!(cut, [all], "{top} down to {low}");
                } else {
                    assert!(cut.len() > 1, "{top} down to {low}: {cut:?}");
                }
            }
        }
    }

    fn runs() -> Vec<(usize, usize)> {
        let mut runs: Vec<(usize, usize)> = limits()
            .iter()
            .map(|&l| (l as usize + 13, l as usize - 13))
            .collect();
        runs.push((usize::MAX, usize::MAX - 4));
        for high in 0..=40 {
            for low in 0..=high + 1 {
                runs.push((high, low));
            }
        }
        // Ascending runs from the bottom that stop anywhere in the phases rolled with constant
        // bounds (up to 98) and the first tabled ones.
        for high in 41..=200 {
            runs.extend([(high, 1), (high, 2)]);
        }
        runs
    }

    /// The batched drivers call `f` for exactly the bounds the one-at-a-time default does, in
    /// the same order, and every index is below its bound: across each batch-size limit, near
    /// `usize::MAX`, for every short run near the bottom (where the tail batches are) and every
    /// run from the bottom up to 200 (the constant-bound and tabled phases).
    /// `Batched::swap_run` makes exactly the checked loop's swaps (the same permutation from
    /// the same seed), both ways, from the low ends 0, 1, 2, 5 and 1,025 (where inside-out's
    /// second chunk starts), on every length up to 300 and across the tabled phases; in the
    /// test profile its debug assertion also checks every index against its bound and the
    /// length. CI runs it under valgrind.
    #[test]
    fn swap_run_makes_the_checked_swaps() {
        let lengths = (0..=300).chain([1000, 4092, 4093, 4100, 9000, 32_768, 32_780]);
        for n in lengths {
            for low in [0, 1, 2, 5, 1025] {
                for order in [Order::Forward, Order::Backward] {
                    let seed = (n * 8 + low) as u64;
                    let mut fast: Vec<u32> = (0..n as u32).collect();
                    let mut checked = fast.clone();
                    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
                    Batched.swap_run(&mut rng, &mut fast, low, order);
                    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
                    let swap = |bound: usize, j: usize| checked.swap(bound - 1, j);
                    match order {
                        Order::Forward => Batched.for_each_index_ascending(&mut rng, low, n, swap),
                        Order::Backward => {
                            Batched.for_each_index_descending(&mut rng, n, low, swap);
                        }
                    }
                    assert_eq!(fast, checked, "n {n}, low {low}, {order:?}");
                }
            }
        }
    }

    /// `Batched::deal_run` makes exactly the checked loop's swaps (the same deal from the same
    /// seed): whole runs (low ends 0, 1, 2, 5) and deals of 1, 2, 7, 52 and 100 from the front,
    /// on every length up to 300 and across the tabled phases; its debug assertion checks
    /// every index in the test profile. CI runs it under valgrind.
    #[test]
    fn deal_run_makes_the_checked_swaps() {
        let lengths = (0..=300).chain([1000, 4092, 4093, 4100, 9000, 32_768, 32_780]);
        for n in lengths {
            let deals = [1, 2, 7, 52, 100].into_iter().filter(|&k| k <= n);
            for low in [0, 1, 2, 5].into_iter().chain(deals.map(|k| n - k + 1)) {
                let seed = (n * 8 + low) as u64;
                let mut fast: Vec<u32> = (0..n as u32).collect();
                let mut checked = fast.clone();
                let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
                Batched.deal_run(&mut rng, &mut fast, low);
                let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
                Batched.for_each_index_descending(&mut rng, n, low, |bound, j| {
                    checked.swap(n - bound, n - bound + j);
                });
                assert_eq!(fast, checked, "n {n}, low {low}");
            }
        }
    }

    #[test]
    fn drivers_visit_every_bound_in_order() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(9);
        for (high, low) in runs() {
            let mut seen = Vec::new();
            Batched.for_each_index_descending(&mut rng, high, low, |bound, j| {
                assert!(j < bound, "{j} not below {bound}");
                seen.push(bound);
            });
            let want: Vec<usize> = (low.max(1)..=high).rev().collect();
            assert_eq!(seen, want, "descending {high}..={low}");

            let mut seen = Vec::new();
            Batched.for_each_index_ascending(&mut rng, low, high, |bound, j| {
                assert!(j < bound, "{j} not below {bound}");
                seen.push(bound);
            });
            let want: Vec<usize> = (low.max(1)..=high).collect();
            assert_eq!(seen, want, "ascending {low}..={high}");
        }
        // From the top of the range: one die per word, and no overflow.
        let mut seen = Vec::new();
        Batched.for_each_index_ascending(&mut rng, usize::MAX - 2, usize::MAX, |bound, j| {
            assert!(j < bound);
            seen.push(bound);
        });
        assert_eq!(seen, [usize::MAX - 2, usize::MAX - 1, usize::MAX]);
    }

    /// A generator with its top bit stuck at 0: every die's high half is pushed down. The
    /// uniformity test below must reject it.
    struct TopBitStuck(rand_pcg::Pcg64);

    impl rand_core::TryRng for TopBitStuck {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            Ok(self.0.next_u32() >> 1)
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            Ok(self.0.next_u64() >> 1)
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
            self.0.fill_bytes(dst);
            Ok(())
        }
    }

    /// The smallest p-value of a chi-square test over 8 equal-probability bins (by the index's
    /// position in `[0, bound)`) for every bound of the run `high..=low`, and over 4×4 joint
    /// bins for each pair of neighbouring bounds (dice from the same word must be independent).
    fn min_p_value<R: Rng>(rng: &mut R, high: usize, low: usize, runs: usize) -> f64 {
        const BINS: usize = 8;
        const JOINT: usize = 4;
        let width = high - low + 1;
        let mut single = vec![[0u64; BINS]; width];
        let mut joint = vec![[0u64; JOINT * JOINT]; width - 1];
        let mut last = vec![0usize; width];
        for _ in 0..runs {
            Batched.for_each_index_descending(rng, high, low, |bound, j| {
                let slot = high - bound;
                // The bin of j: floor(j * BINS / bound), computed without overflow.
                let bin = ((j as u128 * BINS as u128) / bound as u128) as usize;
                single[slot][bin] += 1;
                last[slot] = ((j as u128 * JOINT as u128) / bound as u128) as usize;
            });
            for (slot, pair) in joint.iter_mut().enumerate() {
                pair[last[slot] * JOINT + last[slot + 1]] += 1;
            }
        }
        // Bin k of [0, bound) holds the j with floor(j·B/bound) = k: its exact probability.
        let probabilities = |bound: usize, bins: usize| -> Vec<f64> {
            (0..bins)
                .map(|k| {
                    let start = (k * bound).div_ceil(bins);
                    let end = ((k + 1) * bound).div_ceil(bins);
                    (end - start) as f64 / bound as f64
                })
                .collect()
        };
        let p_value = |counts: &[u64], probabilities: &[f64]| {
            let total: u64 = counts.iter().sum();
            let chi2: f64 = counts
                .iter()
                .zip(probabilities)
                .map(|(&c, &p)| {
                    let e = p * total as f64;
                    (c as f64 - e).powi(2) / e
                })
                .sum();
            let df = (counts.len() - 1) as f64;
            1.0 - ChiSquared::new(df).unwrap().cdf(chi2)
        };
        let mut min = 1.0f64;
        for (slot, counts) in single.iter().enumerate() {
            min = min.min(p_value(counts, &probabilities(high - slot, BINS)));
        }
        for (slot, counts) in joint.iter().enumerate() {
            let a = probabilities(high - slot, JOINT);
            let b = probabilities(high - slot - 1, JOINT);
            let both: Vec<f64> = a
                .iter()
                .flat_map(|x| b.iter().map(move |y| x * y))
                .collect();
            min = min.min(p_value(counts, &both));
        }
        min
    }

    /// Uniformity and pairwise independence of the dice on both sides of every batch-size limit
    /// and for a deck's bounds (52 down to 2). With ~40 bins tested per run, the threshold is
    /// 1e-7 per bin, so a correct sampler fails with probability below 1e-5 (and the seeds are
    /// fixed). The generator with its top bit stuck must be rejected by the same test.
    #[test]
    fn dice_are_uniform_across_batch_limits() {
        const RUNS: usize = 20_000;
        let mut cases: Vec<(usize, usize)> = limits()
            .iter()
            .map(|&l| (l as usize + 6, l as usize - 6))
            .collect();
        cases.push((52, 2));
        for (i, &(high, low)) in cases.iter().enumerate() {
            let mut rng = rand_pcg::Pcg64::seed_from_u64(100 + i as u64);
            let p = min_p_value(&mut rng, high, low, RUNS);
            assert!(p > 1e-7, "run {high}..={low}: p = {p}");

            let mut broken = TopBitStuck(rand_pcg::Pcg64::seed_from_u64(100 + i as u64));
            let p = min_p_value(&mut broken, high, low, RUNS);
            assert!(
                p < 1e-9,
                "stuck top bit not detected on {high}..={low}: p = {p}"
            );
        }
    }
}
