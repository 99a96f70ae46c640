//! The sampler lab: one loop of one subject, to count its instructions under callgrind
//! (`count`), or several subjects timed round robin in one process (`race`).
//!
//! Subjects, all on the backend's generator unless noted:
//!
//! * `ours`: the backend's default sampler (`Batched` for every backend but java and python);
//! * `lemire`: one Lemire draw per index (`Lemire`), the one-draw-per-step reference, from the
//!   end at every length;
//! * `halves`: an experiment, not a fairdeal sampler: two 32-bit Lemire draws from the halves of
//!   one 64-bit word (exact: the halves are independent uniform 32-bit values, and a rejected
//!   half is replaced by a fresh `next_u32`). It measures the issue's "a cheap generator may
//!   prefer fewer multiplications over fewer words" (see docs/benchmarks.md); from the end at
//!   every length, since it pairs the descending bounds;
//! * `prefix`: an experiment with `Batched`'s dice: for a run of 7 bounds that is one
//!   batch (the 7-of-52 deal), die *i* is the high half of `(x·Pᵢ₋₁ mod 2^64)·bᵢ` with the prefix
//!   products `Pᵢ = b₁⋯bᵢ`, the same value as `Batched`'s chain (its *i*-th low half is
//!   `x·Pᵢ₋₁ mod 2^64`) but two multiplies deep instead of *i*; other runs go to `Batched`.
//!   `count` prints a checksum of the final state to stderr, so `ours` and `prefix` can be seen
//!   to deal the same cards;
//! * `twochain`: an experiment with `Batched`'s dice of a 7-card batch: dice 1-4 by the usual
//!   chain from the word `x`, dice 5-7 by a second chain from `x·b₁b₂b₃b₄ mod 2^64` (where the
//!   first chain would be after four dice): the same cards, about half the latency, one more
//!   multiply;
//! * `short3`, `short4`: an experiment that changes the seeded output: `Batched`'s exact 64-bit
//!   batches, but at most 3 (4) dice per word, so each batch is a chain of at most 3 (4)
//!   dependent multiplies and consecutive batches are independent; bounds above 2^20 (2^15)
//!   and the last few bounds go to `Batched`;
//! * `ahead3`, `ahead4`: `short3`, `short4` with the next batch's first word drawn before this
//!   batch's dice front to back (the same words for the same batches, so the same shuffle):
//!   whether the generator's latency, and ChaCha's buffer index kept in memory, wait behind
//!   the previous batch's swaps;
//! * `split2`, `split3`: an experiment that changes the seeded output: the two 32-bit halves of
//!   one 64-bit word are two independent exact batches (product at most 2^28 each, a rejected
//!   half replaced by fresh `next_u32`s) of up to 2 (3) dice each, rolled with 32 × 32 → 64-bit
//!   multiplies: two chains of at most 2 (3) side by side; bounds above 2^28 and the last few
//!   go to `Batched`;
//! * `forward`, `backward`: the backend's default sampler with the Fisher-Yates order fixed
//!   (`Order::Forward` / `Order::Backward`) at every length, where `ours` follows
//!   `Order::fastest`; for `deck52` and `u32_N` they measure which way is faster at each size;
//! * `checked`: the backend's default sampler with the trait's default `swap_run` and
//!   `deal_run` (swaps with bounds checks), the same order and swaps as `ours`: what
//!   `Batched`'s unchecked swaps buy;
//! * `hand` (`deal7` only): `Batched`'s deal of 7 written out by hand with the count a constant
//!   (the same cards as `ours`): what the generic driver costs on top of one batch;
//! * `rand`: rand 0.10's `SliceRandom::shuffle` (for `deal7`: `partial_shuffle`);
//! * `fastrand`: fastrand 2.5's `shuffle` on its own wyrand (for `deal7`: seven
//!   `swap(i, usize(i..52))`), same seed;
//! * `swaps` (`u32_N` only): the swaps alone, the memory's share: the swaps of a Fisher-Yates
//!   in the order `ours` takes (`Order::fastest`), their indices drawn before the race (uniform
//!   in `0..=i` for step `i`, by Lemire from a second generator of the backend) and read from a
//!   `Vec<u32>`, so no die is rolled while timed. No shuffle with these swaps can beat it by
//!   more than the index vector's sequential reads;
//! * `words`, `randwords`: the generator alone: per call, as many `next_u64` and `next_u32`
//!   as `ours` (`randwords`: `rand`) draws on average on this case (counted over 64 calls on a
//!   copy of the data, before the race), summed and nothing else: the generator's share of that
//!   subject's time.
//!
//! Backends: every fairdeal backend by name, and the lab's own `blockctr` (`BlockCtr`: a
//! generator shaped like ChaCha's, a buffer refilled by a call, at a fraction of its cost).
//!
//! Cases: `deal7` (7 of a reused `[u8; 52]`, partial), `deal7_51` (7 of its first 51 cards: a
//! slice that is not a full deck), `deal7x16` (7 of each of 16 reused decks in turn, so one
//! deal's loads do not wait for the previous deal's stores), `deck52` (`[u8; 52]`, in place),
//! `u32_N` (in place on `N` `u32`), `io_N` (inside-out, in place on `N` `u32`).
//!
//! ```text
//! cargo build --release -p fairdeal-benches --example sampler_lab --features lab
//! L=target/release/examples/sampler_lab
//! # instructions per call: (count at ITERS − count at 0) / ITERS
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null $L count wyrand deck52 ours 100000
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null $L count wyrand deck52 ours 0
//! # round robin: median ns per call and median per-round time ratio to the first subject
//! $L race wyrand deck52 61 ours halves fastrand
//! ```

use std::hint::black_box;
use std::time::Instant;

use fairdeal_core::{Batched, IndexSampler, Lemire, Order, Rng, Shuffler, lemire_index_below};
use fairdeal_inplace::Inplace;
use fairdeal_inside_out::InsideOut;
use fairdeal_partial::Partial;
use fairdeal_rng::{Backend, BackendVisitor};
use rand::seq::SliceRandom;

/// A sampler `S` with one thing changed: the Fisher-Yates order fixed at every length
/// (`order`; `forward`, `backward`, `lemire`, `halves`), or, with `CHECKED`, the trait's
/// default [`IndexSampler::swap_run`] and [`IndexSampler::deal_run`], which swap with bounds
/// checks (`checked`: the same draws, order and swaps as `S`, so what `S`'s own runs buy is
/// `ours` against `checked` in one race).
#[derive(Debug, Clone, Copy)]
struct Variant<S, const CHECKED: bool> {
    sampler: S,
    order: Option<Order>,
}

/// `sampler` running in `order` at every length.
fn fixed<S>(sampler: S, order: Order) -> Variant<S, false> {
    Variant {
        sampler,
        order: Some(order),
    }
}

/// `sampler` with bounds-checked swaps.
fn checked<S>(sampler: S) -> Variant<S, true> {
    Variant {
        sampler,
        order: None,
    }
}

impl<S: IndexSampler, const CHECKED: bool> IndexSampler for Variant<S, CHECKED> {
    #[inline]
    fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
        self.sampler.index_below(rng, bound)
    }

    #[inline]
    fn shuffle_order(&self, len: usize) -> Order {
        self.order
            .unwrap_or_else(|| self.sampler.shuffle_order(len))
    }

    #[inline(always)]
    fn for_each_index_descending<R, F>(&self, rng: &mut R, high: usize, low: usize, f: F)
    where
        R: Rng + ?Sized,
        F: FnMut(usize, usize),
    {
        self.sampler.for_each_index_descending(rng, high, low, f);
    }

    #[inline(always)]
    fn for_each_index_ascending<R, F>(&self, rng: &mut R, low: usize, high: usize, f: F)
    where
        R: Rng + ?Sized,
        F: FnMut(usize, usize),
    {
        self.sampler.for_each_index_ascending(rng, low, high, f);
    }

    #[inline(always)]
    fn swap_run<T, R: Rng + ?Sized>(&self, rng: &mut R, data: &mut [T], low: usize, order: Order) {
        if !CHECKED {
            return self.sampler.swap_run(rng, data, low, order);
        }
        // The trait's default body: the sampler's runs of bounds, each swap checked.
        let n = data.len();
        let swap = |bound: usize, j: usize| data.swap(bound - 1, j);
        match order {
            Order::Forward => self.for_each_index_ascending(rng, low, n, swap),
            Order::Backward => self.for_each_index_descending(rng, n, low, swap),
        }
    }

    #[inline(always)]
    fn deal_run<T, R: Rng + ?Sized>(&self, rng: &mut R, data: &mut [T], low: usize) {
        if !CHECKED {
            return self.sampler.deal_run(rng, data, low);
        }
        // The trait's default body, as in `swap_run`.
        let n = data.len();
        self.for_each_index_descending(rng, n, low, |bound, j| {
            let i = n - bound;
            data.swap(i, i + j);
        });
    }
}

/// Two 32-bit Lemire draws per 64-bit word (the experiment described in the module docs).
#[derive(Debug, Clone, Copy, Default)]
struct Halves;

/// Lemire's method on the 32-bit value `r`, replacing it with fresh `next_u32`s while rejected.
#[inline(always)]
fn lemire_from<R: Rng + ?Sized>(rng: &mut R, r: u32, bound: u32) -> u32 {
    let mut product = u64::from(r) * u64::from(bound);
    if (product as u32) < bound {
        let threshold = bound.wrapping_neg() % bound;
        while (product as u32) < threshold {
            product = u64::from(rng.next_u32()) * u64::from(bound);
        }
    }
    (product >> 32) as u32
}

impl IndexSampler for Halves {
    fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
        lemire_index_below(rng, bound)
    }

    #[inline]
    fn for_each_index_descending<R, F>(&self, rng: &mut R, high: usize, low: usize, mut f: F)
    where
        R: Rng + ?Sized,
        F: FnMut(usize, usize),
    {
        let ends_at_one = low <= 1 && high >= 1;
        let low = low.max(2);
        let mut bound = high;
        while bound >= low && u32::try_from(bound).is_err() {
            f(bound, lemire_index_below(rng, bound));
            bound -= 1;
        }
        while bound > low {
            let word = rng.next_u64();
            let first = lemire_from(rng, (word >> 32) as u32, bound as u32);
            let second = lemire_from(rng, word as u32, (bound - 1) as u32);
            f(bound, first as usize);
            f(bound - 1, second as usize);
            bound -= 2;
        }
        if bound == low {
            f(bound, lemire_index_below(rng, bound));
        }
        if ends_at_one {
            f(1, 0);
        }
    }
}

/// Whether `Batched` keeps the word `x` for a batch whose bounds multiply to `product`: the
/// division only when the cheap test fails.
#[inline(always)]
fn kept(x: u64, product: u64) -> bool {
    let leftover = x.wrapping_mul(product);
    leftover >= product || leftover >= product.wrapping_neg() % product
}

/// `Batched`'s accepted word for a batch whose bounds multiply to `product`.
#[inline(always)]
fn accepted_word<R: Rng + ?Sized>(rng: &mut R, product: u64) -> u64 {
    loop {
        let x = rng.next_u64();
        if kept(x, product) {
            return x;
        }
    }
}

/// `Batched`'s dice of the accepted word `x` for `bounds`, handed to `f` in order.
#[inline(always)]
fn roll64<F: FnMut(usize, usize)>(mut x: u64, bounds: impl IntoIterator<Item = u64>, f: &mut F) {
    for b in bounds {
        let full = u128::from(x) * u128::from(b);
        f(b as usize, (full >> 64) as usize);
        x = full as u64;
    }
}

/// `Batched`'s dice of a 7-card batch from `C` independent chains instead of one (the
/// experiments `prefix`, `C = 7`, and `twochain`, `C = 2`, of the module docs). The dice are cut
/// into `C` runs of at most `ceil(7 / C)`; the run starting at die `s` starts from
/// `x · b₁⋯b_s mod 2^64`, which is where `Batched`'s single chain is after `s` dice, and goes on
/// by the same widening products. Same dice, shorter chains, `C - 1` more multiplies.
#[derive(Debug, Clone, Copy, Default)]
struct Chains<const C: usize>;

impl<const C: usize> IndexSampler for Chains<C> {
    fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
        Batched.index_below(rng, bound)
    }

    #[inline(always)]
    fn for_each_index_descending<R, F>(&self, rng: &mut R, high: usize, low: usize, mut f: F)
    where
        R: Rng + ?Sized,
        F: FnMut(usize, usize),
    {
        const K: usize = 7;
        // Exactly 7 bounds, each from 2 to the largest `b` with `b^7 <= 2^60` (380): `Batched`
        // rolls them as one batch of 7 dice from one accepted word. Anything else goes to
        // `Batched` itself.
        if low < 2 || high < low || high - low + 1 != K || high as u64 > const { kth_root(7, 60) } {
            Batched.for_each_index_descending(rng, high, low, f);
            return;
        }
        let bounds: [u64; K] = std::array::from_fn(|i| (high - i) as u64);
        let mut prefix = [1u64; K + 1];
        for i in 0..K {
            prefix[i + 1] = prefix[i] * bounds[i];
        }
        let x = accepted_word(rng, prefix[K]);
        let run = K.div_ceil(C);
        let mut state: [u64; C] = std::array::from_fn(|c| x.wrapping_mul(prefix[(c * run).min(K)]));
        // In the order of the dice, as the swaps need them; the chains share no data, so the
        // core overlaps their multiplies.
        for i in 0..K {
            let s = &mut state[i / run];
            let m = u128::from(*s) * u128::from(bounds[i]);
            *s = m as u64;
            f(bounds[i] as usize, (m >> 64) as usize);
        }
    }
}

/// The largest `b` with `b^k <= 2^bits` (`k >= 1`), by bisection.
const fn kth_root(k: u32, bits: u32) -> u64 {
    let limit: u128 = 1 << bits;
    let (mut lo, mut hi) = (1u128, 1u128 << 32);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        match mid.checked_pow(k) {
            Some(power) if power <= limit => lo = mid,
            _ => hi = mid - 1,
        }
    }
    lo as u64
}

/// One exact 64-bit batch of `K` dice (`Batched`'s method), handed to `f` in order.
#[inline(always)]
fn batch64<R: Rng + ?Sized, F: FnMut(usize, usize), const K: usize>(
    rng: &mut R,
    bounds: [u64; K],
    f: &mut F,
) {
    let x = accepted_word(rng, bounds.iter().product());
    roll64(x, bounds, f);
}

/// Whether the 32-bit `x` is kept for a 32-bit batch of product `p`.
#[inline(always)]
fn accept32(x: u32, p: u32) -> bool {
    let l = x.wrapping_mul(p);
    l >= p || l >= p.wrapping_neg() % p
}

/// Two exact 32-bit batches of `K` dice each from one 64-bit word (its halves are independent
/// uniform 32-bit values; a rejected half is replaced by fresh `next_u32`s): two independent
/// chains of `K` 32 × 32 → 64-bit multiplies.
#[inline(always)]
fn batch32x2<R: Rng + ?Sized, F: FnMut(usize, usize), const K: usize>(
    rng: &mut R,
    a: [u32; K],
    b: [u32; K],
    f: &mut F,
) {
    let pa: u32 = a.iter().product();
    let pb: u32 = b.iter().product();
    let w = rng.next_u64();
    let mut xa = (w >> 32) as u32;
    let mut xb = w as u32;
    while !accept32(xa, pa) {
        xa = rng.next_u32();
    }
    while !accept32(xb, pb) {
        xb = rng.next_u32();
    }
    let mut da = [0u32; K];
    let mut db = [0u32; K];
    for (i, (&ba, &bb)) in a.iter().zip(&b).enumerate() {
        let fa = u64::from(xa) * u64::from(ba);
        let fb = u64::from(xb) * u64::from(bb);
        da[i] = (fa >> 32) as u32;
        db[i] = (fb >> 32) as u32;
        xa = fa as u32;
        xb = fb as u32;
    }
    for (&bound, &die) in a.iter().zip(&da).chain(b.iter().zip(&db)) {
        f(bound as usize, die as usize);
    }
}

/// Short 64-bit batches: at most `MAX` dice per word (`b^k <= 2^60`), so a batch's chain is at
/// most `MAX` multiplies; what is left below goes to `Batched`. With `AHEAD` (`ahead*`), the
/// front-to-back run draws the next batch's first word before rolling this batch's dice, after
/// this batch's word is accepted: the same words go to the same batches, so the same shuffle.
#[derive(Debug, Clone, Copy, Default)]
struct Short<const MAX: usize, const AHEAD: bool = false>;

impl<const MAX: usize, const AHEAD: bool> IndexSampler for Short<MAX, AHEAD> {
    fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
        lemire_index_below(rng, bound)
    }

    #[inline(always)]
    fn for_each_index_descending<R, F>(&self, rng: &mut R, high: usize, low: usize, mut f: F)
    where
        R: Rng + ?Sized,
        F: FnMut(usize, usize),
    {
        let lo2 = low.max(2) as u64;
        let mut top = high as u64;
        macro_rules! phases {
            ($($k:literal),*) => {$(
                if $k <= MAX {
                    // Phase k while the next phase cannot take over.
                    let floor = if $k < MAX { const { kth_root($k + 1, 60) } } else { 0 };
                    while top > floor && (top + 1).saturating_sub(lo2) >= $k && top <= const { kth_root($k, 60) } {
                        let t = top;
                        batch64::<R, F, $k>(rng, core::array::from_fn(|i| t - i as u64), &mut f);
                        top -= $k;
                    }
                }
            )*};
        }
        phases!(1, 2, 3, 4, 5, 6, 7, 8);
        Batched.for_each_index_descending(rng, top as usize, low, f);
    }

    /// Front to back: batches of `MAX` dice while their largest bound allows it, the rest to
    /// `Batched`.
    #[inline(always)]
    fn for_each_index_ascending<R, F>(&self, rng: &mut R, low: usize, high: usize, mut f: F)
    where
        R: Rng + ?Sized,
        F: FnMut(usize, usize),
    {
        if low <= 1 && high >= 1 {
            f(1, 0);
        }
        let high = high as u64;
        let mut next = low.max(2) as u64;
        let k = MAX as u64;
        let limit = high.min(const { kth_root(MAX as u32, 60) });
        // The next batch's first word, drawn ahead (`AHEAD` only).
        let mut ahead = None;
        while next + k - 1 <= limit {
            let first = next;
            let bounds: [u64; MAX] = core::array::from_fn(|i| first + i as u64);
            let product: u64 = bounds.iter().product();
            let mut x = ahead.take().unwrap_or_else(|| rng.next_u64());
            while !kept(x, product) {
                x = rng.next_u64();
            }
            next += k;
            if AHEAD && next + k - 1 <= limit {
                ahead = Some(rng.next_u64());
            }
            roll64(x, bounds, &mut f);
        }
        if next <= high {
            Batched.for_each_index_ascending(rng, next as usize, high as usize, f);
        }
    }
}

/// Two 32-bit batches of `k` dice per 64-bit word (`b^k <= 2^28` per half), `k` up to `MAX`;
/// what is left below goes to `Batched`.
#[derive(Debug, Clone, Copy, Default)]
struct Split<const MAX: usize>;

impl<const MAX: usize> IndexSampler for Split<MAX> {
    fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
        lemire_index_below(rng, bound)
    }

    #[inline(always)]
    fn for_each_index_descending<R, F>(&self, rng: &mut R, high: usize, low: usize, mut f: F)
    where
        R: Rng + ?Sized,
        F: FnMut(usize, usize),
    {
        let lo2 = low.max(2) as u64;
        let mut top = high as u64;
        if top > const { kth_root(1, 28) } {
            let stop = const { kth_root(1, 28) }.max(lo2 - 1);
            Batched.for_each_index_descending(rng, top as usize, stop as usize + 1, &mut f);
            top = stop;
        }
        macro_rules! phases {
            ($($k:literal),*) => {$(
                if $k <= MAX {
                    let floor = if $k < MAX { const { kth_root($k + 1, 28) } } else { 0 };
                    while top > floor && top + 1 >= lo2 + 2 * $k {
                        let t = top as u32;
                        batch32x2::<R, F, $k>(
                            rng,
                            core::array::from_fn(|i| t - i as u32),
                            core::array::from_fn(|i| t - ($k + i) as u32),
                            &mut f,
                        );
                        top -= 2 * $k;
                    }
                }
            )*};
        }
        phases!(1, 2, 3, 4, 5, 6);
        Batched.for_each_index_descending(rng, top as usize, low, f);
    }
}

/// The lab's own backend `blockctr`: ChaCha's shape without its cost. Words come from
/// `rand_core`'s `BlockRng` over a 64-word buffer, as ChaCha's do (the index kept in the buffer,
/// a refill call every 32 `next_u64`), but the refill is a cheap scalar mix of a counter that is
/// never inlined. `ours` on it against `ours` on wyrand tells whether a buffered generator's shape
/// (a call inside the batch loop, the index in memory) or ChaCha's block function slows the loop.
#[derive(Debug, Clone, Copy, Default)]
struct BlockCtr;

/// [`BlockCtr`]'s refill: 64 words of a multiply-xorshift of a counter.
#[derive(Debug, Clone)]
struct CounterCore(u64);

impl rand::rand_core::block::Generator for CounterCore {
    type Output = [u32; 64];

    #[inline(never)]
    fn generate(&mut self, out: &mut [u32; 64]) {
        for word in out.iter_mut() {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let z = self.0.wrapping_mul(0xbf58_476d_1ce4_e5b9);
            *word = (z ^ (z >> 31)) as u32;
        }
    }
}

/// [`BlockCtr`]'s generator.
#[derive(Debug)]
struct BlockCtrRng(rand::rand_core::block::BlockRng<CounterCore>);

impl rand::rand_core::TryRng for BlockCtrRng {
    type Error = core::convert::Infallible;
    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.0.next_word())
    }
    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.0.next_u64_from_u32())
    }
    #[inline]
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Self::Error> {
        self.0.fill_bytes(dest);
        Ok(())
    }
}

impl rand::SeedableRng for BlockCtrRng {
    type Seed = [u8; 8];
    fn from_seed(seed: [u8; 8]) -> Self {
        Self(rand::rand_core::block::BlockRng::new(CounterCore(
            u64::from_le_bytes(seed),
        )))
    }
}

impl Backend for BlockCtr {
    type Rng = BlockCtrRng;
    type Sampler = Batched;
    const INFO: fairdeal_rng::BackendInfo = fairdeal_rng::BackendInfo::new(
        "blockctr",
        "the lab's buffered counter generator",
        64,
        false,
        "batched",
    );
}

/// What to run: `case`, `subject`, `iters` calls.
struct Run<'a> {
    case: &'a str,
    subject: &'a str,
    iters: u64,
}

/// A generator that counts the words drawn from it.
struct Counting<'a, R> {
    rng: &'a mut R,
    u64s: u64,
    u32s: u64,
}

impl<R: Rng> rand::rand_core::TryRng for Counting<'_, R> {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        self.u32s += 1;
        Ok(self.rng.next_u32())
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.u64s += 1;
        Ok(self.rng.next_u64())
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Self::Error> {
        self.u32s += dest.len().div_ceil(4) as u64;
        self.rng.fill_bytes(dest);
        Ok(())
    }
}

/// The `next_u64` and `next_u32` calls per call of `ours` (`rand`: rand's shuffle) on this
/// case, rounded, from 64 calls on a copy of the state's data (for `words`, `randwords`).
fn words_per_call<B: Backend>(case: &str, rand: bool, st: &mut State<B>) -> (u64, u64) {
    const CALLS: u64 = 64;
    let mut work = st.work.clone();
    let mut rng = Counting {
        rng: &mut st.rng,
        u64s: 0,
        u32s: 0,
    };
    let run = Run {
        case,
        subject: if rand { "rand" } else { "ours" },
        iters: CALLS,
    };
    if rand {
        run_rand(&run, &mut work, &mut rng);
    } else {
        run_with(B::Sampler::default(), &run, &mut work, &mut rng);
    }
    (
        (rng.u64s + CALLS / 2) / CALLS,
        (rng.u32s + CALLS / 2) / CALLS,
    )
}

/// The data the subjects shuffle, kept between calls (the deck is never restored).
#[derive(Clone)]
struct Work {
    deck: [u8; 52],
    decks: [[u8; 52]; 16],
    data: Vec<u32>,
    /// `swaps`: the index of step `i` (in `0..=i`) at `indices[i]`; empty unless `u32_N`.
    indices: Vec<u32>,
}

/// Everything the subjects work on.
struct State<B: Backend> {
    work: Work,
    rng: B::Rng,
    fastrand: fastrand::Rng,
    /// `(next_u64, next_u32)` calls per call for `words` (`[0]`) and `randwords` (`[1]`),
    /// counted on first use.
    words: [Option<(u64, u64)>; 2],
}

/// The case with the sampler `s` on `rng`.
fn run_with<S: IndexSampler, R: Rng>(s: S, run: &Run<'_>, work: &mut Work, rng: &mut R) {
    let Work {
        deck, decks, data, ..
    } = work;
    match run.case {
        "deal7" | "deal7_51" => {
            // `deal7_51`: a deck short of one card takes the general path, not the 52-card one.
            let cards = if run.case == "deal7" { 52 } else { 51 };
            let p = Partial::with_sampler(s);
            for _ in 0..run.iters {
                p.shuffle_prefix(black_box(&mut deck[..cards]), 7, rng)
                    .expect("7 <= 51");
            }
        }
        "deal7x16" => {
            // Each deal on the next of 16 decks, so that a deal's loads do not wait for the
            // previous deal's stores into the same cards: how much of a deal's time is that.
            let p = Partial::with_sampler(s);
            for round in 0..run.iters {
                let d = &mut decks[round as usize % decks.len()];
                p.shuffle_prefix(black_box(&mut d[..]), 7, rng)
                    .expect("7 <= 52");
            }
        }
        "deck52" => {
            let p = Inplace::with_sampler(s);
            for _ in 0..run.iters {
                p.shuffle(black_box(&mut deck[..]), rng);
            }
        }
        c if c.starts_with("io_") => {
            let p = InsideOut::with_sampler(s);
            for _ in 0..run.iters {
                p.shuffle(black_box(&mut data[..]), rng);
            }
        }
        _ => {
            let p = Inplace::with_sampler(s);
            for _ in 0..run.iters {
                p.shuffle(black_box(&mut data[..]), rng);
            }
        }
    }
}

/// The case with rand 0.10's `SliceRandom::shuffle` (for `deal7`: `partial_shuffle`) on `rng`.
fn run_rand<R: Rng>(run: &Run<'_>, work: &mut Work, rng: &mut R) {
    match run.case {
        "deal7" => {
            for _ in 0..run.iters {
                black_box(black_box(&mut work.deck[..]).partial_shuffle(rng, 7));
            }
        }
        "deck52" => {
            for _ in 0..run.iters {
                black_box(&mut work.deck[..]).shuffle(rng);
            }
        }
        _ => {
            for _ in 0..run.iters {
                black_box(&mut work.data[..]).shuffle(rng);
            }
        }
    }
}

fn run_once<B: Backend>(run: &Run<'_>, st: &mut State<B>) {
    match run.subject {
        "ours" => run_with(B::Sampler::default(), run, &mut st.work, &mut st.rng),
        "forward" => run_with(
            fixed(B::Sampler::default(), Order::Forward),
            run,
            &mut st.work,
            &mut st.rng,
        ),
        "backward" => run_with(
            fixed(B::Sampler::default(), Order::Backward),
            run,
            &mut st.work,
            &mut st.rng,
        ),
        "checked" => run_with(
            checked(B::Sampler::default()),
            run,
            &mut st.work,
            &mut st.rng,
        ),
        // From the end at every length: `Halves` pairs the descending bounds, and
        // `Order::fastest` would run both forward, one `index_below` per step, up to 16,384.
        "lemire" => run_with(
            fixed(Lemire, Order::Backward),
            run,
            &mut st.work,
            &mut st.rng,
        ),
        "halves" => run_with(
            fixed(Halves, Order::Backward),
            run,
            &mut st.work,
            &mut st.rng,
        ),
        "prefix" => run_with(Chains::<7>, run, &mut st.work, &mut st.rng),
        "twochain" => run_with(Chains::<2>, run, &mut st.work, &mut st.rng),
        "short3" => run_with(Short::<3>, run, &mut st.work, &mut st.rng),
        "short4" => run_with(Short::<4>, run, &mut st.work, &mut st.rng),
        "short5" => run_with(Short::<5>, run, &mut st.work, &mut st.rng),
        "short6" => run_with(Short::<6>, run, &mut st.work, &mut st.rng),
        "ahead3" => run_with(Short::<3, true>, run, &mut st.work, &mut st.rng),
        "ahead4" => run_with(Short::<4, true>, run, &mut st.work, &mut st.rng),
        "split2" => run_with(Split::<2>, run, &mut st.work, &mut st.rng),
        "split3" => run_with(Split::<3>, run, &mut st.work, &mut st.rng),
        "hand" if run.case == "deal7" => {
            // Batched's 7-of-52 deal written out with the count a constant: same word, same
            // dice, same swaps as `ours` (the checksum of `count` agrees); what the generic path
            // costs on top of it.
            for _ in 0..run.iters {
                let d = black_box(&mut st.work.deck[..]);
                let n = d.len() as u64;
                let b: [u64; 7] = std::array::from_fn(|i| n - i as u64);
                let p: u64 = b.iter().product();
                let mut x = accepted_word(&mut st.rng, p);
                for (i, &bi) in b.iter().enumerate() {
                    let f = u128::from(x) * u128::from(bi);
                    x = f as u64;
                    d.swap(i, i + (f >> 64) as usize);
                }
            }
        }
        "words" | "randwords" => {
            let rand = run.subject == "randwords";
            let (u64s, u32s) = match st.words[usize::from(rand)] {
                Some(w) => w,
                None => {
                    let w = words_per_call(run.case, rand, st);
                    st.words[usize::from(rand)] = Some(w);
                    w
                }
            };
            let mut sum = 0u64;
            for _ in 0..run.iters {
                for _ in 0..u64s {
                    sum = sum.wrapping_add(st.rng.next_u64());
                }
                for _ in 0..u32s {
                    sum = sum.wrapping_add(u64::from(st.rng.next_u32()));
                }
            }
            black_box(sum);
        }
        "swaps" => {
            let Work { data, indices, .. } = &mut st.work;
            assert!(run.case.starts_with("u32_"), "swaps: only the u32_N cases");
            for _ in 0..run.iters {
                let data = black_box(&mut data[..]);
                let steps = indices[..data.len()].iter().enumerate().skip(1);
                match Order::fastest(data.len()) {
                    Order::Forward => steps.for_each(|(i, &j)| data.swap(i, j as usize)),
                    Order::Backward => steps.rev().for_each(|(i, &j)| data.swap(i, j as usize)),
                }
            }
        }
        "rand" => run_rand(run, &mut st.work, &mut st.rng),
        "fastrand" => match run.case {
            "deal7" => {
                for _ in 0..run.iters {
                    let deck = black_box(&mut st.work.deck[..]);
                    for i in 0..7 {
                        deck.swap(i, st.fastrand.usize(i..52));
                    }
                }
            }
            "deck52" => {
                for _ in 0..run.iters {
                    st.fastrand.shuffle(black_box(&mut st.work.deck[..]));
                }
            }
            _ => {
                for _ in 0..run.iters {
                    st.fastrand.shuffle(black_box(&mut st.work.data[..]));
                }
            }
        },
        other => {
            eprintln!("sampler_lab: error: unknown subject {other:?}");
            std::process::exit(2);
        }
    }
    black_box((&st.work.deck, &st.work.data));
}

/// `count` or `race` on one backend.
struct Lab {
    args: Vec<String>,
}

impl BackendVisitor for Lab {
    type Output = ();
    fn visit<B: Backend>(self) {
        let args = self.args;
        let case = args[2].as_str();
        let n = case
            .split_once('_')
            .map_or(52, |(_, n)| n.parse().expect("case u32_N or io_N"));
        let mut st = State::<B> {
            work: Work {
                deck: std::array::from_fn(|i| i as u8),
                decks: [std::array::from_fn(|i| i as u8); 16],
                data: (0..n as u32).collect(),
                indices: if case.starts_with("u32_") {
                    let mut rng = B::seeded(fairdeal_benches::SEED + 1);
                    (0..n)
                        .map(|i| lemire_index_below(&mut rng, i + 1) as u32)
                        .collect()
                } else {
                    Vec::new()
                },
            },
            rng: B::seeded(fairdeal_benches::SEED),
            fastrand: fastrand::Rng::with_seed(fairdeal_benches::SEED),
            words: [None; 2],
        };
        if args[0] == "count" {
            let iters = args[4].parse().expect("iters");
            run_once(
                &Run {
                    case,
                    subject: &args[3],
                    iters,
                },
                &mut st,
            );
            // FNV-1a of the final deck and data: equal for two subjects that dealt the same.
            let sum = st
                .work
                .deck
                .iter()
                .copied()
                .chain(st.work.data.iter().flat_map(|v| v.to_le_bytes()))
                .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                    (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
                });
            eprintln!("state checksum {sum:016x}");
            return;
        }
        let rounds: usize = args[3].parse().expect("rounds");
        let subjects = &args[4..];
        // Calibrate on the first subject: about 300 µs per subject per round. A first call can
        // take far longer than the rest (page faults, cold caches): without a call before it the
        // calibration once stopped at a handful of iterations.
        let mut iters = 1u64;
        run_once(
            &Run {
                case,
                subject: &subjects[0],
                iters: 16,
            },
            &mut st,
        );
        loop {
            let start = Instant::now();
            let run = Run {
                case,
                subject: &subjects[0],
                iters,
            };
            run_once(&run, &mut st);
            let t = start.elapsed().as_nanos() as f64;
            if t > 75_000.0 {
                iters = ((iters as f64) * 300_000.0 / t).max(1.0) as u64;
                break;
            }
            iters *= 2;
        }
        let warm_up = 5;
        let mut times = vec![Vec::new(); subjects.len()];
        for round in 0..warm_up + rounds {
            // Rotate the order every round.
            for j in 0..subjects.len() {
                let which = (j + round) % subjects.len();
                let run = Run {
                    case,
                    subject: &subjects[which],
                    iters,
                };
                let start = Instant::now();
                run_once(&run, &mut st);
                if round >= warm_up {
                    times[which].push(start.elapsed().as_nanos() as f64 / iters as f64);
                }
            }
        }
        let quartiles = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            (v[v.len() / 4], v[v.len() / 2], v[3 * v.len() / 4])
        };
        for (j, subject) in subjects.iter().enumerate() {
            let ratios = (0..rounds).map(|r| times[j][r] / times[0][r]).collect();
            let (q1, ratio, q3) = quartiles(ratios);
            let (_, ns, _) = quartiles(times[j].clone());
            println!(
                "{case:<10} {:<9} {subject:<9} {ns:>11.1} ns/call  time / {}'s {ratio:.3} [{q1:.3}–{q3:.3}]",
                B::INFO.name,
                subjects[0]
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage =
        "usage: sampler_lab count BACKEND CASE SUBJECT ITERS | race BACKEND CASE ROUNDS SUBJECT...";
    let ok = match args.first().map(String::as_str) {
        Some("count") => args.len() == 5,
        Some("race") => args.len() >= 5,
        _ => false,
    };
    if !ok {
        eprintln!("sampler_lab: error: {usage}");
        std::process::exit(2);
    }
    let backend = args[1].clone();
    if backend == BlockCtr::INFO.name {
        Lab { args }.visit::<BlockCtr>();
        return;
    }
    if let Err(e) = fairdeal_rng::with_backend(&backend, Lab { args }) {
        eprintln!("sampler_lab: error: {e}");
        std::process::exit(2);
    }
}
