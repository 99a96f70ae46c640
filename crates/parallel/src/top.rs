//! The top level of the shuffle, where every pass over the whole array runs on all threads, in
//! place.
//!
//! Sanders' scatter (1998) with the labelling split over fixed chunks, as in his distributed
//! algorithm, and the exchange between chunks done by swapping whole ranges, as parallel
//! in-place radix sorts do (Obeya et al. 2019, "Regions Sort"). Phases, each a separate pass:
//!
//! 1. **draw** (serial, O(chunks + buckets) generator calls): one label seed per chunk, then one
//!    child generator per bucket, in that fixed order, from the caller's generator; the children
//!    are drawn a wave of buckets at a time (`scatter::waves`), just before phase 6 runs that
//!    wave, so at most `scatter::WAVE` of them are alive;
//! 2. **partition** (parallel over chunks): each chunk is scattered in place by label with its
//!    own seed (`scatter::scatter`, the same American-flag pass as the recursion below), so it
//!    becomes `K` contiguous *pieces*, piece `b` holding the chunk's elements labelled `b`;
//! 3. **pairs** (parallel): bucket `b` is to occupy `[G_b, G_{b+1})`, `G` the prefix sums of
//!    the label counts. Cutting the pieces at the bucket bounds gives *segments*, each with a
//!    label and the bucket whose range it lies in; a segment whose label is not its range's
//!    bucket is misplaced. For every two buckets `q < a`, `q`'s elements labelled `a` are
//!    swapped with `a`'s elements labelled `q`, front to back, until one side runs out (the
//!    pairs are disjoint, so this runs per bucket in parallel). That moves most misplaced
//!    elements; the *remainders* are narrow and many (the two counts of a pair differ by about
//!    the square root of either). The buckets are taken in [`Groups`] of consecutive ones, and
//!    the same swaps run between every two groups, for the remainders labelled for a bucket of
//!    the other group; every swapped range is noted with the label it holds now;
//! 4. **plan** (serial, no data touched): what the group swaps left forms a graph on groups
//!    (an edge from the group a remainder lies in to its label's group) in which every group
//!    has as many elements headed out as elements headed in, so it splits into cycles. One
//!    walk finds them: a cycle `x_0 → x_1 → … → x_{L-1}` of parts of one common width `w` (the
//!    smallest remainder on the cycle), `x_i` lying in the group that `x_{i-1}`'s label is in.
//!    Then every group's list of what is misplaced in it is put together;
//! 5. **exchange** (parallel): the cycles are rotated, the contents of `x_i` moving to `x_{i+1}`
//!    and those of `x_{L-1}` to `x_0`, by `L - 1` range swaps (the cycles' ranges are disjoint,
//!    so in any order, on any threads); now every group's ranges hold exactly its buckets'
//!    elements, and each group, on its own thread, gathers them into its buckets with the same
//!    pair swaps and a walk of its own (the groups are disjoint, so all at once);
//! 6. **buckets** (parallel over buckets): each bucket is shuffled by the in-place recursion of
//!    `scatter.rs`, with its child generator.
//!
//! There are at most as many chunks as buckets (about as many, at the default shape): then
//! nearly every bucket's range holds a segment of nearly every label, and the bucket pair swaps
//! move about 97 % of the misplaced elements (at 10^8 `u32`); the groups take the imbalances
//! between pairs, so that the serial walk sees only the imbalances between pairs of groups
//! (about 8,500 runs instead of 129,000 at 10^8; [`Profile::remaining`] counts them,
//! `examples/scaling` prints them, and the walk's time is the `plan` phase of its profile). The
//! chunk length, the bucket count and the groups depend only on the slice's length and the
//! shape, never on the pool, and every move is a function of the chunks' label counts; so every
//! label, every move and every child generator is the same on any number of threads, and
//! [`shuffle_seq`] runs the same phases on the calling thread.
//!
//! Memory: no copy of the data. The exchange holds O(chunks × buckets) segments and parts, a
//! few machine words each: about 30 MB for 10^8 `u32` (400 MB) at the default shape (512
//! chunks × 512 buckets, about 260,000 segments); see [`MAX_PIECES`]. Everything is safe code:
//! the exchange works on disjoint `&mut` slices cut from the data in address order.

use alloc::vec::Vec;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fairdeal_core::{IndexSampler, Rng, SeedableRng};

use crate::leaf::whole_shuffle;
use crate::scatter::{self, Shape, draw_seed, split_buckets};

/// At most this many chunk × bucket pieces: the number of chunks is lowered (for the length and
/// shape alone) until `chunks × buckets` fits, which bounds the plan's memory (about a hundred
/// bytes per piece, so about 100 MiB at this limit).
pub(crate) const MAX_PIECES: usize = 1 << 20;

/// How many of the walk's most recent buckets it tries to close a cycle at, besides the start.
const CLOSE_LOOKUPS: usize = 6;

/// Wide cycles are rotated in parallel halves down to this many elements per part.
const PARALLEL_WIDTH: usize = 1 << 15;

/// Cycles are rotated in tiles of this many bytes, so that the first range's tile stays in L1
/// while it is swapped with every other range of the cycle.
const TILE_BYTES: usize = 16 << 10;

/// The phases of the top level, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Drawing the chunk label seeds and the bucket child generators (serial).
    Draw,
    /// Scattering every chunk in place into its pieces by label (parallel over chunks).
    Partition,
    /// Cutting the pieces at the bucket bounds and swapping, between every two buckets, what
    /// each holds of the other's; then the same between every two groups of buckets for what
    /// is left (parallel over buckets, then over groups).
    Pairs,
    /// Finding the cycles among the groups that move what the group swaps left, and listing
    /// what is misplaced in each group (serial).
    Plan,
    /// Rotating those cycles, then gathering every group's buckets by swaps and cycles inside
    /// the group, so that every bucket's range holds its elements (parallel over cycles, then
    /// over groups).
    Exchange,
    /// Shuffling every bucket, recursively (parallel over buckets).
    Buckets,
}

impl Phase {
    /// Every phase, in order.
    pub const ALL: [Phase; 6] = [
        Phase::Draw,
        Phase::Partition,
        Phase::Pairs,
        Phase::Plan,
        Phase::Exchange,
        Phase::Buckets,
    ];

    /// A short lower-case name (`"draw"`, `"partition"` …).
    pub const fn name(self) -> &'static str {
        match self {
            Phase::Draw => "draw",
            Phase::Partition => "partition",
            Phase::Pairs => "pairs",
            Phase::Plan => "plan",
            Phase::Exchange => "exchange",
            Phase::Buckets => "buckets",
        }
    }

    /// Whether the phase runs on one thread whatever the pool (Amdahl's serial part).
    pub const fn is_serial(self) -> bool {
        matches!(self, Phase::Draw | Phase::Plan)
    }
}

/// The steps of the exchange after which a [`Profile`] counts what is still out of place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// After the partition: every element outside its bucket's range.
    Partition,
    /// After the swaps between every two buckets.
    BucketSwaps,
    /// After the swaps between every two groups of buckets: what the serial walk among the
    /// groups takes. (What is left inside a group is settled by the group's own thread and is
    /// not counted here.)
    GroupSwaps,
}

impl Step {
    /// Every step, in order.
    pub const ALL: [Step; 3] = [Step::Partition, Step::BucketSwaps, Step::GroupSwaps];
}

/// What is out of place at one [`Step`] of the exchange.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Remaining {
    /// Elements outside their bucket's range.
    pub elements: usize,
    /// The runs they lie in: each is one label's elements inside one bucket's range, the unit
    /// the swaps and the walk move.
    pub runs: usize,
}

/// Where the time of one top-level shuffle went: wall time per phase and, per phase, the busy
/// time of every rayon worker that ran a task of it (from
/// [`Parallel::shuffle_profiled`](crate::Parallel::shuffle_profiled)); and how much of the data
/// each step of the exchange left out of place.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    wall: [Duration; 6],
    busy: [Vec<Duration>; 6],
    remaining: [Remaining; 3],
}

impl Profile {
    /// Wall-clock time of `phase` (zero for a slice of at most one leaf, which has no phases).
    pub fn wall(&self, phase: Phase) -> Duration {
        self.wall[phase as usize]
    }

    /// Busy time of `phase` per worker thread (index = rayon's thread index; one entry for
    /// the serial phases and for `shuffle_sequential`).
    pub fn busy(&self, phase: Phase) -> &[Duration] {
        &self.busy[phase as usize]
    }

    /// What was out of place after `step` (all zero for a slice of at most one leaf). The
    /// counts depend only on the slice's length, the shape and the generator, not on the pool.
    pub fn remaining(&self, step: Step) -> Remaining {
        self.remaining[step as usize]
    }

    /// Total wall time of all phases.
    pub fn total(&self) -> Duration {
        self.wall.iter().sum()
    }

    /// Wall time of the serial phases ([`Phase::is_serial`]).
    pub fn serial(&self) -> Duration {
        Phase::ALL
            .iter()
            .filter(|p| p.is_serial())
            .map(|&p| self.wall(p))
            .sum()
    }

    fn add_busy(&mut self, phase: Phase, thread: usize, time: Duration) {
        let per_thread = &mut self.busy[phase as usize];
        if per_thread.len() <= thread {
            per_thread.resize(thread + 1, Duration::ZERO);
        }
        per_thread[thread] += time;
    }
}

/// Records a [`Profile`] when asked to; does nothing (no clock reads) otherwise. It also
/// carries the caller's cancel flag, which the top level reads between phases and buckets.
pub(crate) struct Recorder<'a>(Option<&'a Mutex<Profile>>, Option<&'a AtomicBool>);

impl<'a> Recorder<'a> {
    pub(crate) const fn off() -> Self {
        Self(None, None)
    }

    pub(crate) const fn on(profile: &'a Mutex<Profile>) -> Self {
        Self(Some(profile), None)
    }

    /// No profile; stops early once `cancel` is set.
    pub(crate) const fn cancellable(cancel: &'a AtomicBool) -> Self {
        Self(None, Some(cancel))
    }

    /// Whether the caller asked to stop. Every move is a swap, so the data is a permutation of
    /// itself whenever the shuffle stops.
    pub(crate) fn cancelled(&self) -> bool {
        self.1.is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// Runs a whole phase on the calling thread (its tasks may run on the pool's workers),
    /// charging its wall-clock time to `phase`, and a serial phase's time to one thread too.
    fn phase<O>(&self, phase: Phase, f: impl FnOnce() -> O) -> O {
        let Some(profile) = self.0 else { return f() };
        let since = Instant::now();
        let out = f();
        let elapsed = since.elapsed();
        let mut p = profile.lock().unwrap_or_else(|e| e.into_inner());
        p.wall[phase as usize] += elapsed;
        if phase.is_serial() {
            p.add_busy(phase, 0, elapsed);
        }
        out
    }

    /// Counts what `lists` (every list's misplaced segments) still hold after `step`; reads
    /// nothing when off.
    fn tally<T>(&self, step: Step, lists: &[Vec<Misplaced<'_, T>>]) {
        let Some(profile) = self.0 else { return };
        let mut left = Remaining::default();
        for segment in lists.iter().flatten() {
            if !segment.rest.is_empty() {
                left.elements += segment.rest.len();
                left.runs += 1;
            }
        }
        profile.lock().unwrap_or_else(|e| e.into_inner()).remaining[step as usize] = left;
    }

    /// Runs one task of a parallel phase, charging its time to the current worker.
    fn task<O>(&self, phase: Phase, f: impl FnOnce() -> O) -> O {
        let Some(profile) = self.0 else { return f() };
        let since = Instant::now();
        let out = f();
        let elapsed = since.elapsed();
        let thread = rayon::current_thread_index().unwrap_or(0);
        profile
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .add_busy(phase, thread, elapsed);
        out
    }
}

/// The top level's fixed decomposition of a slice of `len > leaf_len` elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    len: usize,
    bits: u32,
    chunk_len: usize,
    chunks: usize,
}

impl Layout {
    fn new(len: usize, shape: Shape) -> Self {
        let bits = shape.bits_for(len);
        let max_chunks = shape
            .max_chunks
            .min(1 << bits)
            .min(MAX_PIECES >> bits)
            .max(1);
        let chunks = len.div_ceil(shape.chunk_len).clamp(1, max_chunks);
        let chunk_len = len.div_ceil(chunks);
        Self {
            len,
            bits,
            chunk_len,
            chunks: len.div_ceil(chunk_len),
        }
    }

    fn buckets(self) -> usize {
        1 << self.bits
    }
}

/// Phase 1: one label seed per chunk (two generators from it, one to count and one to replay
/// the labels). The bucket children follow, a wave at a time, before phase 6 runs each wave.
fn draw_labels<R: Rng + SeedableRng>(rng: &mut R, layout: Layout) -> Vec<(R, R)> {
    (0..layout.chunks)
        .map(|_| {
            let seed = draw_seed(rng);
            (R::from_seed(seed.clone()), R::from_seed(seed))
        })
        .collect()
}

/// A stretch of a bucket's range holding elements of another label: the part of it not yet
/// moved.
struct Misplaced<'a, T> {
    rest: &'a mut [T],
    /// The label of the elements in `rest`.
    label: usize,
    /// The bucket whose range `rest` lies in.
    bucket: usize,
}

/// Which list a label's elements are headed for at one level of the exchange:
/// `(label >> shift) - base`. The lists are the buckets at the first level (`shift = 0`,
/// `base = 0`), the groups of buckets at the second, and one group's buckets at the third.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key {
    shift: u32,
    base: usize,
}

impl Key {
    const BUCKETS: Key = Key { shift: 0, base: 0 };

    fn of(self, label: usize) -> usize {
        (label >> self.shift) - self.base
    }
}

/// The buckets in groups of `2^shift` consecutive ones, for the two levels that move what the
/// bucket pair swaps leave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Groups {
    shift: u32,
    count: usize,
}

impl Groups {
    /// `2^(bits - bits / 2)` groups of `2^(bits / 2)` buckets: 32 groups of 16 at the default
    /// 512 buckets.
    fn new(bits: u32) -> Self {
        let shift = bits / 2;
        Self {
            shift,
            count: 1 << (bits - shift),
        }
    }

    /// Buckets per group.
    fn size(self) -> usize {
        1 << self.shift
    }

    /// The group that `bucket` is in.
    fn of(self, bucket: usize) -> usize {
        bucket >> self.shift
    }

    /// The key of the group level.
    fn key(self) -> Key {
        Key {
            shift: self.shift,
            base: 0,
        }
    }

    /// The key of the level inside group `g`: its buckets.
    fn inside(self, g: usize) -> Key {
        Key {
            shift: 0,
            base: g << self.shift,
        }
    }
}

/// Bucket `b`'s range is `bounds[b]..bounds[b + 1]`: the prefix sums of the label counts over
/// all chunks (`pieces[c]` are chunk `c`'s local piece bounds, length `buckets + 1`).
fn bucket_bounds(pieces: &[Vec<usize>], buckets: usize) -> Vec<usize> {
    let mut counts = alloc::vec![0usize; buckets];
    for local in pieces {
        for (count, piece) in counts.iter_mut().zip(local.windows(2)) {
            *count += piece[1] - piece[0];
        }
    }
    let mut bounds = Vec::with_capacity(buckets + 1);
    let mut start = 0;
    bounds.push(0);
    for count in counts {
        start += count;
        bounds.push(start);
    }
    bounds
}

/// The misplaced segments of bucket `r`'s range `range` (which starts at `lo`): the chunks'
/// pieces cut at the range's ends, in address order, without the piece labelled `r`; then
/// sorted by label (a stable sort: address order among equal labels) for the walk's lookups.
fn misplaced_in<'a, T>(
    r: usize,
    range: &'a mut [T],
    lo: usize,
    pieces: &[Vec<usize>],
    chunk_len: usize,
) -> Vec<Misplaced<'a, T>> {
    let hi = lo + range.len();
    let mut out = Vec::new();
    let mut rest = range;
    let mut at = lo;
    while at < hi {
        let c = at / chunk_len;
        let base = c * chunk_len;
        let local = &pieces[c];
        let end = hi.min(base + local[local.len() - 1]);
        // The first piece of chunk `c` that ends after `at`.
        let mut label = local[1..].partition_point(|&e| base + e <= at);
        while at < end {
            let cut = end.min(base + local[label + 1]);
            if cut > at {
                let (segment, tail) = core::mem::take(&mut rest).split_at_mut(cut - at);
                rest = tail;
                if label != r {
                    out.push(Misplaced {
                        rest: segment,
                        label,
                        bucket: r,
                    });
                }
                at = cut;
            }
            label += 1;
        }
    }
    out.sort_by_key(|segment| segment.label);
    out
}

/// Every bucket's misplaced segments after phase 2 (see [`misplaced_in`]), with the bucket
/// bounds; on the calling thread. `pieces[c]` are chunk `c`'s local piece bounds (length
/// `buckets + 1`, from 0 to the chunk's length); chunk `c` starts at `c × chunk_len`.
#[allow(clippy::type_complexity)]
fn segments_seq<'a, T>(
    data: &'a mut [T],
    pieces: &[Vec<usize>],
    chunk_len: usize,
    buckets: usize,
) -> (Vec<usize>, Vec<Vec<Misplaced<'a, T>>>) {
    let bounds = bucket_bounds(pieces, buckets);
    let misplaced = split_buckets(data, &bounds)
        .into_iter()
        .enumerate()
        .map(|(r, range)| misplaced_in(r, range, bounds[r], pieces, chunk_len))
        .collect();
    (bounds, misplaced)
}

/// [`segments_seq`] with the buckets in parallel (the same segments).
#[allow(clippy::type_complexity)]
fn segments_par<'a, T: Send>(
    data: &'a mut [T],
    pieces: &[Vec<usize>],
    chunk_len: usize,
    buckets: usize,
) -> (Vec<usize>, Vec<Vec<Misplaced<'a, T>>>) {
    use rayon::prelude::*;
    let bounds = bucket_bounds(pieces, buckets);
    let misplaced = split_buckets(data, &bounds)
        .into_par_iter()
        .enumerate()
        .map(|(r, range)| misplaced_in(r, range, bounds[r], pieces, chunk_len))
        .collect();
    (bounds, misplaced)
}

/// List `q`'s share of the pair swaps at one level: its segments headed for lists above `q`
/// (sorted by label), and, for every list `a > q` holding segments headed for `q`, those
/// segments.
struct PairWork<'s, 'a, T> {
    ours: &'s mut [Misplaced<'a, T>],
    theirs: Vec<(usize, &'s mut [Misplaced<'a, T>])>,
}

/// Splits the misplaced lists (each sorted by label) into every list's [`PairWork`] under
/// `key`: the pair `q < a` is list `q`'s, which gets `q`'s segments headed for `a` and `a`'s
/// segments headed for `q`. The pairs are disjoint, so the shares can run in any order, on any
/// threads.
fn pair_work<'s, 'a, T>(
    misplaced: &'s mut [Vec<Misplaced<'a, T>>],
    key: Key,
) -> Vec<PairWork<'s, 'a, T>> {
    let mut work: Vec<PairWork<'s, 'a, T>> = Vec::with_capacity(misplaced.len());
    let mut below: Vec<&'s mut [Misplaced<'a, T>]> = Vec::with_capacity(misplaced.len());
    for (r, list) in misplaced.iter_mut().enumerate() {
        let split = list.partition_point(|segment| key.of(segment.label) < r);
        let (low, high) = list.split_at_mut(split);
        work.push(PairWork {
            ours: high,
            theirs: Vec::new(),
        });
        below.push(low);
    }
    for (a, mut low) in below.into_iter().enumerate() {
        while let Some(first) = low.first() {
            let q = key.of(first.label);
            let run = low
                .iter()
                .take_while(|segment| key.of(segment.label) == q)
                .count();
            let (same, rest) = core::mem::take(&mut low).split_at_mut(run);
            work[q].theirs.push((a, same));
            low = rest;
        }
    }
    work
}

impl<'a, T> PairWork<'_, 'a, T> {
    /// Swaps, for every `a` in turn, what list `q` holds for `a` with what `a` holds for `q`,
    /// front to back, until one side runs out: cycles of two parts, carried out at once. Hands
    /// every swapped part to `land` with the label its elements have now (at the bucket level
    /// that is its bucket, so the part is in place).
    fn swap(self, key: Key, mut land: impl FnMut(Misplaced<'a, T>)) {
        let PairWork { ours, theirs } = self;
        for (a, theirs) in theirs {
            let from = ours.partition_point(|segment| key.of(segment.label) < a);
            let run = ours[from..]
                .iter()
                .take_while(|segment| key.of(segment.label) == a)
                .count();
            let ours = &mut ours[from..from + run];
            let (mut i, mut j) = (0, 0);
            while i < ours.len() && j < theirs.len() {
                let (mine, other) = (&mut ours[i], &mut theirs[j]);
                let width = mine.rest.len().min(other.rest.len());
                let (mine_part, rest) = core::mem::take(&mut mine.rest).split_at_mut(width);
                mine.rest = rest;
                let (other_part, rest) = core::mem::take(&mut other.rest).split_at_mut(width);
                other.rest = rest;
                mine_part.swap_with_slice(other_part);
                land(Misplaced {
                    rest: mine_part,
                    label: other.label,
                    bucket: mine.bucket,
                });
                land(Misplaced {
                    rest: other_part,
                    label: mine.label,
                    bucket: other.bucket,
                });
                i += usize::from(mine.rest.is_empty());
                j += usize::from(other.rest.is_empty());
            }
        }
    }
}

/// Cycles of equally wide parts of the data whose rotation moves what is left at one level
/// into its lists' ranges.
struct Cycles<'a, T> {
    /// The parts of every cycle, cycle after cycle, all of a cycle's parts equally wide.
    parts: Vec<&'a mut [T]>,
    /// Per part, before the rotation: the label of its elements and the bucket it lies in.
    held: Vec<(usize, usize)>,
    /// Cycle `i` is `parts[ends[i - 1]..ends[i]]` (with `ends[-1] = 0`).
    ends: Vec<usize>,
}

impl<'a, T> Cycles<'a, T> {
    /// Walks the misplaced segments' graph under `key`, emitting one cycle each time the walk
    /// comes back to a list it has visited, until every segment is used up. Every list with a
    /// segment left is the start of walks until none is left. A walk never gets stuck:
    /// arriving at list `r` means that an element headed for `r` lies outside `r`'s range, so
    /// `r`'s range holds a misplaced element (the counts balance, and every rotation keeps them
    /// balanced). Every cycle uses up at least one segment, so there are at most as many cycles
    /// as segments.
    ///
    /// Where it can, the walk takes a segment headed for the list it started from or for one of
    /// the last [`CLOSE_LOOKUPS`] on its path, closing a cycle at once, which keeps cycles
    /// short and so cuts the segments into fewer parts.
    fn find(misplaced: &mut [Vec<Misplaced<'a, T>>], key: Key) -> Self {
        const OFF: usize = usize::MAX;
        let segments: usize = misplaced.iter().map(Vec::len).sum();
        let mut found = Cycles {
            parts: Vec::with_capacity(4 * segments),
            held: Vec::with_capacity(4 * segments),
            ends: Vec::with_capacity(segments),
        };
        let mut cursor = alloc::vec![0usize; misplaced.len()];
        let mut on_path = alloc::vec![OFF; misplaced.len()];
        // (list, index of the segment taken in it)
        let mut path: Vec<(usize, usize)> = Vec::new();
        for first in 0..misplaced.len() {
            while next_left(&misplaced[first], &mut cursor[first]).is_some() {
                let mut at = first;
                loop {
                    let list = &misplaced[at];
                    // Close a cycle if this list holds a segment headed for a list on the
                    // path: the start first, then the most recent ones.
                    let taken = path
                        .first()
                        .into_iter()
                        .chain(path.iter().rev().take(CLOSE_LOOKUPS))
                        .find_map(|&(on, _)| headed_for(list, key, on));
                    let Some(taken) = taken.or_else(|| next_left(list, &mut cursor[at])) else {
                        unreachable!("the misplaced counts balance, so a walk never gets stuck")
                    };
                    let to = key.of(list[taken].label);
                    on_path[at] = path.len();
                    path.push((at, taken));
                    let closes = on_path[to];
                    if closes == OFF {
                        at = to;
                        continue;
                    }
                    let cycle = &path[closes..];
                    let width = cycle
                        .iter()
                        .map(|&(r, i)| misplaced[r][i].rest.len())
                        .min()
                        .unwrap_or(0);
                    for &(r, i) in cycle {
                        let segment = &mut misplaced[r][i];
                        let (part, rest) = core::mem::take(&mut segment.rest).split_at_mut(width);
                        segment.rest = rest;
                        found.parts.push(part);
                        found.held.push((segment.label, segment.bucket));
                        on_path[r] = OFF;
                    }
                    found.ends.push(found.parts.len());
                    path.truncate(closes);
                    if path.is_empty() {
                        break;
                    }
                    // Go on from the list the cycle closed at: the path's last segment still
                    // points there.
                    at = to;
                }
            }
        }
        found
    }

    /// The parts grouped by cycle.
    fn cycles(&mut self) -> Vec<&mut [&'a mut [T]]> {
        let mut cycles = Vec::with_capacity(self.ends.len());
        let mut rest = &mut self.parts[..];
        let mut from = 0;
        for &end in &self.ends {
            let (cycle, tail) = core::mem::take(&mut rest).split_at_mut(end - from);
            cycles.push(cycle);
            rest = tail;
            from = end;
        }
        cycles
    }

    /// After the rotation: every part with the label of what it holds now, which is what the
    /// cycle's previous part held before.
    fn landed(self) -> impl Iterator<Item = Misplaced<'a, T>> {
        let Cycles { parts, held, ends } = self;
        let (mut cycle, mut start) = (0, 0);
        parts.into_iter().enumerate().map(move |(i, rest)| {
            if i == ends[cycle] {
                start = i;
                cycle += 1;
            }
            let previous = if i == start { ends[cycle] - 1 } else { i - 1 };
            Misplaced {
                rest,
                label: held[previous].0,
                bucket: held[i].1,
            }
        })
    }
}

/// The first segment of `list` (sorted by label) from `cursor` on with elements left, moving
/// `cursor` past the used-up ones.
fn next_left<T>(list: &[Misplaced<'_, T>], cursor: &mut usize) -> Option<usize> {
    while *cursor < list.len() && list[*cursor].rest.is_empty() {
        *cursor += 1;
    }
    (*cursor < list.len()).then_some(*cursor)
}

/// A segment of `list` (sorted by label) headed for list `to` under `key`, with elements left.
fn headed_for<T>(list: &[Misplaced<'_, T>], key: Key, to: usize) -> Option<usize> {
    let from = first_at_least(list, key, to);
    list[from..]
        .iter()
        .take_while(|segment| key.of(segment.label) == to)
        .position(|segment| !segment.rest.is_empty())
        .map(|i| from + i)
}

/// The first index of `list` (sorted by label) headed for list `to` or later. At the bucket
/// levels a range usually holds about one segment per label, so the answer is often at `to` or
/// just before it: look there first, then search.
fn first_at_least<T>(list: &[Misplaced<'_, T>], key: Key, to: usize) -> usize {
    let is_first = |i: usize| {
        i <= list.len()
            && (i == list.len() || key.of(list[i].label) >= to)
            && (i == 0 || key.of(list[i - 1].label) < to)
    };
    for guess in [to, to.wrapping_sub(1)] {
        if is_first(guess) {
            return guess;
        }
    }
    list.partition_point(|segment| key.of(segment.label) < to)
}

/// Rotates one cycle: the contents of part `i` move to part `i + 1`, the last part's to part 0.
/// `L - 1` swaps of part 0 with parts 1, 2, … do it, tile by tile so part 0's tile stays in L1.
fn rotate<T>(cycle: &mut [&mut [T]]) {
    let Some((first, others)) = cycle.split_first_mut() else {
        return;
    };
    let tile = (TILE_BYTES / core::mem::size_of::<T>().max(1)).max(1);
    let width = first.len();
    let mut at = 0;
    while at < width {
        let end = (at + tile).min(width);
        for other in others.iter_mut() {
            first[at..end].swap_with_slice(&mut other[at..end]);
        }
        at = end;
    }
}

/// [`rotate`] on the rayon pool, wide cycles cut into parallel halves (every part at the same
/// offsets, so each half is itself a rotation).
fn rotate_par<T: Send>(cycle: &mut [&mut [T]]) {
    let width = cycle.first().map_or(0, |p| p.len());
    if width <= PARALLEL_WIDTH {
        rotate(cycle);
        return;
    }
    let (mut left, mut right): (Vec<&mut [T]>, Vec<&mut [T]>) = cycle
        .iter_mut()
        .map(|part| part.split_at_mut(width / 2))
        .unzip();
    rayon::join(|| rotate_par(&mut left), || rotate_par(&mut right));
}

/// The per-bucket lists of what the bucket pair swaps left, one list of lists per group.
#[allow(clippy::type_complexity)]
fn by_group<'a, T: 'a>(
    misplaced: Vec<Vec<Misplaced<'a, T>>>,
    groups: Groups,
) -> Vec<Vec<Vec<Misplaced<'a, T>>>> {
    let mut lists = misplaced.into_iter();
    (0..groups.count)
        .map(|_| lists.by_ref().take(groups.size()).collect())
        .collect()
}

/// Group `g`'s remainders (its buckets' lists after the bucket pair swaps), split into those
/// headed for another group, sorted by label, and those that stay in the group.
#[allow(clippy::type_complexity)]
fn split_group<'a, T: 'a>(
    g: usize,
    lists: Vec<Vec<Misplaced<'a, T>>>,
    groups: Groups,
) -> (Vec<Misplaced<'a, T>>, Vec<Misplaced<'a, T>>) {
    let (mut leaving, staying): (Vec<_>, Vec<_>) = lists
        .into_iter()
        .flatten()
        .filter(|segment| !segment.rest.is_empty())
        .partition(|segment| groups.of(segment.label) != g);
    leaving.sort_by_key(|segment| segment.label);
    (leaving, staying)
}

/// One group's share of the group pair swaps; returns the swapped parts that are not in their
/// bucket yet, by the group they lie in.
fn swap_groups<'a, T: 'a>(work: PairWork<'_, 'a, T>, groups: Groups) -> Vec<Vec<Misplaced<'a, T>>> {
    let mut landed: Vec<Vec<Misplaced<'a, T>>> = (0..groups.count).map(|_| Vec::new()).collect();
    work.swap(groups.key(), |part| {
        if part.label != part.bucket {
            landed[groups.of(part.bucket)].push(part);
        }
    });
    landed
}

/// What every group's last level works on: its remainders that stay in it, what the group pair
/// swaps moved into it (one list per swapping group), and what the group cycles moved into it.
#[allow(clippy::type_complexity)]
fn arrivals<'a, T: 'a>(
    groups: Groups,
    staying: Vec<Vec<Misplaced<'a, T>>>,
    landed: Vec<Vec<Vec<Misplaced<'a, T>>>>,
    cycles: Cycles<'a, T>,
) -> Vec<Vec<Vec<Misplaced<'a, T>>>> {
    let mut per_group: Vec<Vec<Vec<Misplaced<'a, T>>>> =
        staying.into_iter().map(|list| alloc::vec![list]).collect();
    for from in landed {
        for (into, list) in per_group.iter_mut().zip(from) {
            into.push(list);
        }
    }
    let mut moved: Vec<Vec<Misplaced<'a, T>>> = (0..groups.count).map(|_| Vec::new()).collect();
    for part in cycles.landed() {
        if part.label != part.bucket {
            moved[groups.of(part.bucket)].push(part);
        }
    }
    for (into, list) in per_group.iter_mut().zip(moved) {
        into.push(list);
    }
    per_group
}

/// The last level, for group `g`, whose ranges hold only elements labelled for its buckets by
/// now: moves every one of them into its bucket by pair swaps and cycles among the group's
/// buckets, on the calling thread.
fn settle_group<'a, T: 'a>(
    g: usize,
    groups: Groups,
    items: impl IntoIterator<Item = Misplaced<'a, T>>,
) {
    let key = groups.inside(g);
    let mut lists: Vec<Vec<Misplaced<'a, T>>> = (0..groups.size()).map(|_| Vec::new()).collect();
    for item in items {
        if item.label != item.bucket && !item.rest.is_empty() {
            lists[key.of(item.bucket)].push(item);
        }
    }
    for list in &mut lists {
        list.sort_by_key(|segment| segment.label);
    }
    for work in pair_work(&mut lists, key) {
        work.swap(key, |_| {});
    }
    for list in &mut lists {
        list.retain(|segment| !segment.rest.is_empty());
    }
    let mut cycles = Cycles::find(&mut lists, key);
    for cycle in cycles.cycles() {
        rotate(cycle);
    }
}

/// Phases 3–5 on the current rayon pool: moves every element of `data` (partitioned into
/// `pieces`) into its bucket's range, and returns the bucket bounds.
fn exchange_par<T: Send>(
    data: &mut [T],
    pieces: &[Vec<usize>],
    layout: Layout,
    recorder: &Recorder<'_>,
) -> Vec<usize> {
    use rayon::prelude::*;
    let groups = Groups::new(layout.bits);

    let (bounds, mut leaving, staying, landed) = recorder.phase(Phase::Pairs, || {
        let (bounds, mut misplaced) =
            segments_par(data, pieces, layout.chunk_len, layout.buckets());
        recorder.tally(Step::Partition, &misplaced);
        pair_work(&mut misplaced, Key::BUCKETS)
            .into_par_iter()
            .for_each(|work| recorder.task(Phase::Pairs, || work.swap(Key::BUCKETS, |_| {})));
        recorder.tally(Step::BucketSwaps, &misplaced);
        let (mut leaving, staying): (Vec<_>, Vec<_>) = by_group(misplaced, groups)
            .into_par_iter()
            .enumerate()
            .map(|(g, lists)| recorder.task(Phase::Pairs, || split_group(g, lists, groups)))
            .unzip();
        let landed: Vec<_> = pair_work(&mut leaving, groups.key())
            .into_par_iter()
            .map(|work| recorder.task(Phase::Pairs, || swap_groups(work, groups)))
            .collect();
        leaving.par_iter_mut().for_each(|list| {
            recorder.task(Phase::Pairs, || {
                list.retain(|segment| !segment.rest.is_empty());
            });
        });
        recorder.tally(Step::GroupSwaps, &leaving);
        (bounds, leaving, staying, landed)
    });
    let mut cycles = recorder.phase(Phase::Plan, || Cycles::find(&mut leaving, groups.key()));
    recorder.phase(Phase::Exchange, || {
        cycles
            .cycles()
            .into_par_iter()
            .for_each(|cycle| recorder.task(Phase::Exchange, || rotate_par(cycle)));
    });
    let arrivals = recorder.phase(Phase::Plan, || arrivals(groups, staying, landed, cycles));
    recorder.phase(Phase::Exchange, || {
        arrivals.into_par_iter().enumerate().for_each(|(g, items)| {
            recorder.task(Phase::Exchange, || {
                settle_group(g, groups, items.into_iter().flatten());
            });
        });
    });
    bounds
}

/// [`exchange_par`] on the calling thread: the same moves in the same order within every
/// group, so the same result.
fn exchange_seq<T>(
    data: &mut [T],
    pieces: &[Vec<usize>],
    layout: Layout,
    recorder: &Recorder<'_>,
) -> Vec<usize> {
    let groups = Groups::new(layout.bits);

    let (bounds, mut leaving, staying, landed) = recorder.phase(Phase::Pairs, || {
        let (bounds, mut misplaced) =
            segments_seq(data, pieces, layout.chunk_len, layout.buckets());
        recorder.tally(Step::Partition, &misplaced);
        for work in pair_work(&mut misplaced, Key::BUCKETS) {
            recorder.task(Phase::Pairs, || work.swap(Key::BUCKETS, |_| {}));
        }
        recorder.tally(Step::BucketSwaps, &misplaced);
        let (mut leaving, staying): (Vec<_>, Vec<_>) = by_group(misplaced, groups)
            .into_iter()
            .enumerate()
            .map(|(g, lists)| recorder.task(Phase::Pairs, || split_group(g, lists, groups)))
            .unzip();
        let landed: Vec<_> = pair_work(&mut leaving, groups.key())
            .into_iter()
            .map(|work| recorder.task(Phase::Pairs, || swap_groups(work, groups)))
            .collect();
        for list in &mut leaving {
            recorder.task(Phase::Pairs, || {
                list.retain(|segment| !segment.rest.is_empty());
            });
        }
        recorder.tally(Step::GroupSwaps, &leaving);
        (bounds, leaving, staying, landed)
    });
    let mut cycles = recorder.phase(Phase::Plan, || Cycles::find(&mut leaving, groups.key()));
    recorder.phase(Phase::Exchange, || {
        for cycle in cycles.cycles() {
            recorder.task(Phase::Exchange, || rotate(cycle));
        }
    });
    let arrivals = recorder.phase(Phase::Plan, || arrivals(groups, staying, landed, cycles));
    recorder.phase(Phase::Exchange, || {
        for (g, items) in arrivals.into_iter().enumerate() {
            recorder.task(Phase::Exchange, || {
                settle_group(g, groups, items.into_iter().flatten());
            });
        }
    });
    bounds
}

/// The whole shuffle with every top-level pass on the current rayon pool.
pub(crate) fn shuffle_par<T, R, S>(
    data: &mut [T],
    rng: &mut R,
    shape: Shape,
    sampler: S,
    recorder: &Recorder<'_>,
) where
    T: Send,
    R: Rng + SeedableRng + Send,
    S: IndexSampler + Copy + Send + Sync,
{
    use rayon::prelude::*;
    if shape.whole(data.len()) {
        whole_shuffle(data, rng, sampler, shape.leaf_len);
        return;
    }
    let layout = Layout::new(data.len(), shape);

    let labels = recorder.phase(Phase::Draw, || draw_labels(rng, layout));
    if recorder.cancelled() {
        return;
    }

    let pieces: Vec<Vec<usize>> = recorder.phase(Phase::Partition, || {
        data.par_chunks_mut(layout.chunk_len)
            .zip(labels)
            .map(|(chunk, (counter, replay))| {
                recorder.task(Phase::Partition, || {
                    scatter::scatter_with(chunk, layout.bits, counter, replay)
                })
            })
            .collect()
    });

    if recorder.cancelled() {
        return;
    }
    let bounds = exchange_par(data, &pieces, layout, recorder);
    if recorder.cancelled() {
        return;
    }

    let mut waves = scatter::waves(split_buckets(data, &bounds), rng);
    while let Some(wave) = recorder.phase(Phase::Draw, || waves.next()) {
        recorder.phase(Phase::Buckets, || {
            let strip = scatter::strip_len(wave.len());
            wave.into_par_iter().chunks(strip).for_each(|strip| {
                scatter::in_order(strip, |bucket, child, after| {
                    if recorder.cancelled() {
                        return;
                    }
                    recorder.task(Phase::Buckets, || {
                        scatter::shuffle_node(bucket, child, shape, sampler, after, scatter::Rayon);
                    });
                });
            });
        });
        if recorder.cancelled() {
            return;
        }
    }
}

/// [`shuffle_par`] on the calling thread: the same phases, draws and moves.
pub(crate) fn shuffle_seq<T, R, S>(
    data: &mut [T],
    rng: &mut R,
    shape: Shape,
    sampler: S,
    recorder: &Recorder<'_>,
) where
    R: Rng + SeedableRng,
    S: IndexSampler + Copy,
{
    if shape.whole(data.len()) {
        whole_shuffle(data, rng, sampler, shape.leaf_len);
        return;
    }
    let layout = Layout::new(data.len(), shape);

    let labels = recorder.phase(Phase::Draw, || draw_labels(rng, layout));
    if recorder.cancelled() {
        return;
    }

    let pieces: Vec<Vec<usize>> = recorder.phase(Phase::Partition, || {
        data.chunks_mut(layout.chunk_len)
            .zip(labels)
            .map(|(chunk, (counter, replay))| {
                recorder.task(Phase::Partition, || {
                    scatter::scatter_with(chunk, layout.bits, counter, replay)
                })
            })
            .collect()
    });

    if recorder.cancelled() {
        return;
    }
    let bounds = exchange_seq(data, &pieces, layout, recorder);
    if recorder.cancelled() {
        return;
    }

    let mut waves = scatter::waves(split_buckets(data, &bounds), rng);
    while let Some(wave) = recorder.phase(Phase::Draw, || waves.next()) {
        recorder.phase(Phase::Buckets, || {
            scatter::in_order(wave, |bucket, child, after| {
                if recorder.cancelled() {
                    return;
                }
                recorder.task(Phase::Buckets, || {
                    scatter::shuffle_node(bucket, child, shape, sampler, after, scatter::Serial);
                });
            });
        });
        if recorder.cancelled() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(leaf_len: usize, max_bits: u32, chunk_len: usize, max_chunks: usize) -> Shape {
        Shape {
            leaf_len,
            max_bits,
            chunk_len,
            max_chunks,
            whole_len: 0,
        }
    }

    #[test]
    fn the_layout_depends_on_the_length_only_and_covers_it() {
        for len in [2, 3, 10, 100, 1001, 65_537] {
            for s in [shape(1, 1, 1, 1), shape(1, 3, 3, 5), shape(8, 3, 7, 1000)] {
                let l = Layout::new(len, s);
                assert_eq!(l, Layout::new(len, s));
                assert!(l.chunks >= 1 && l.chunks <= s.max_chunks);
                assert!(l.chunks * l.buckets() <= MAX_PIECES.max(l.buckets()));
                assert!((l.chunks - 1) * l.chunk_len < len && l.chunks * l.chunk_len >= len);
            }
        }
        // The piece limit lowers the chunk count for wide fan-outs.
        let wide = Layout::new(1 << 30, shape(1, 16, 1, 1 << 16));
        assert_eq!(wide.chunks, MAX_PIECES >> 16);
    }

    /// Runs the exchange on `(label, position)` pairs laid out as `pieces` say, on the calling
    /// thread and on `pool`; checks that both give the same arrangement, that every bucket's
    /// range holds only its label, and that nothing was lost. Returns the arrangement.
    fn check_exchange(
        pieces: &[Vec<usize>],
        chunk_len: usize,
        bits: u32,
        pool: &rayon::ThreadPool,
    ) -> Vec<(usize, usize)> {
        let buckets = 1 << bits;
        let mut seq = Vec::new();
        for local in pieces {
            for b in 0..buckets {
                for _ in local[b]..local[b + 1] {
                    seq.push((b, seq.len()));
                }
            }
        }
        let layout = Layout {
            len: seq.len(),
            bits,
            chunk_len,
            chunks: pieces.len(),
        };
        let mut par = seq.clone();
        let before = seq.clone();
        let (seq_profile, par_profile) = (Mutex::default(), Mutex::default());
        let bounds = exchange_seq(&mut seq, pieces, layout, &Recorder::on(&seq_profile));
        let par_bounds =
            pool.install(|| exchange_par(&mut par, pieces, layout, &Recorder::on(&par_profile)));
        assert_eq!(bounds, par_bounds);
        assert_eq!(seq, par, "the pool changed the arrangement");
        check_remaining(
            &before,
            pieces,
            chunk_len,
            &bounds,
            &seq_profile.into_inner().unwrap(),
            &par_profile.into_inner().unwrap(),
        );
        for b in 0..buckets {
            let range = &seq[bounds[b]..bounds[b + 1]];
            assert!(range.iter().all(|&(l, _)| l == b), "bucket {b}: {range:?}");
        }
        let mut positions: Vec<usize> = seq.iter().map(|&(_, at)| at).collect();
        positions.sort_unstable();
        assert!(positions.iter().copied().eq(0..seq.len()));
        seq
    }

    /// The counts of what each step left out of place: the same with and without a pool,
    /// never growing from step to step, and after the partition exactly what the layout
    /// `before` the exchange has outside its bucket's range, one run per piece and bucket.
    fn check_remaining(
        before: &[(usize, usize)],
        pieces: &[Vec<usize>],
        chunk_len: usize,
        bounds: &[usize],
        seq: &Profile,
        par: &Profile,
    ) {
        for step in Step::ALL {
            assert_eq!(seq.remaining(step), par.remaining(step), "{step:?}");
        }
        let bucket_of = |at: usize| bounds.partition_point(|&b| b <= at) - 1;
        let elements = (0..before.len())
            .filter(|&at| before[at].0 != bucket_of(at))
            .count();
        let mut runs = 0;
        for (c, local) in pieces.iter().enumerate() {
            for (label, piece) in local.windows(2).enumerate() {
                let (from, to) = (c * chunk_len + piece[0], c * chunk_len + piece[1]);
                runs += (0..bounds.len() - 1)
                    .filter(|&r| r != label && from.max(bounds[r]) < to.min(bounds[r + 1]))
                    .count();
            }
        }
        let want = Remaining { elements, runs };
        assert_eq!(seq.remaining(Step::Partition), want);

        // held[r][s]: elements in bucket r's range labelled s. Two buckets swap as many as
        // both hold of the other's, so |held[r][s] - held[s][r]| of them are left; then two
        // groups do the same with what their buckets have left of the other group's.
        let buckets = bounds.len() - 1;
        let mut held = alloc::vec![alloc::vec![0usize; buckets]; buckets];
        for (at, &(label, _)) in before.iter().enumerate() {
            held[bucket_of(at)][label] += 1;
        }
        let groups = Groups::new(buckets.trailing_zeros());
        let mut between = alloc::vec![alloc::vec![0usize; groups.count]; groups.count];
        let mut after_buckets = 0;
        for r in 0..buckets {
            for s in (0..buckets).filter(|&s| s != r) {
                let left = held[r][s] - held[r][s].min(held[s][r]);
                after_buckets += left;
                between[groups.of(r)][groups.of(s)] += left;
            }
        }
        let after_groups: usize = (0..groups.count)
            .flat_map(|g| (0..groups.count).map(move |h| (g, h)))
            .filter(|&(g, h)| g != h)
            .map(|(g, h)| between[g][h] - between[g][h].min(between[h][g]))
            .sum();
        assert_eq!(seq.remaining(Step::BucketSwaps).elements, after_buckets);
        assert_eq!(seq.remaining(Step::GroupSwaps).elements, after_groups);
    }

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    #[test]
    fn phases_are_named_and_only_draw_and_plan_are_serial() {
        let names: Vec<&str> = Phase::ALL.iter().map(|p| p.name()).collect();
        assert_eq!(
            names,
            ["draw", "partition", "pairs", "plan", "exchange", "buckets"]
        );
        let serial: Vec<Phase> = Phase::ALL.into_iter().filter(|p| p.is_serial()).collect();
        assert_eq!(serial, [Phase::Draw, Phase::Plan]);
    }

    #[test]
    fn a_profile_adds_up_its_phases_and_threads() {
        let ms = Duration::from_millis;
        let mut p = Profile::default();
        p.add_busy(Phase::Pairs, 2, ms(3));
        p.add_busy(Phase::Pairs, 2, ms(4));
        p.add_busy(Phase::Pairs, 0, ms(1));
        assert_eq!(p.busy(Phase::Pairs), [ms(1), Duration::ZERO, ms(7)]);
        assert!(p.busy(Phase::Plan).is_empty());
        p.wall[Phase::Draw as usize] = ms(2);
        p.wall[Phase::Plan as usize] = ms(5);
        p.wall[Phase::Buckets as usize] = ms(11);
        assert_eq!(p.wall(Phase::Plan), ms(5));
        assert_eq!(p.total(), ms(18));
        assert_eq!(p.serial(), ms(7));
    }

    #[test]
    fn the_recorder_charges_serial_phases_to_one_thread_and_tasks_to_their_worker() {
        let s = shape(8, 6, 64, 1000);
        let mut data: Vec<u32> = (0..5000).collect();
        let profile = Mutex::new(Profile::default());
        let sampler = fairdeal_core::Batched;
        let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
        shuffle_seq(&mut data, &mut rng, s, sampler, &Recorder::on(&profile));
        let seq = profile.into_inner().unwrap();
        for phase in Phase::ALL {
            assert_eq!(seq.busy(phase).len(), 1, "{}", phase.name());
        }
        assert_eq!(seq.total(), Phase::ALL.iter().map(|&p| seq.wall(p)).sum());
        assert!(seq.total() > Duration::ZERO);

        let profile = Mutex::new(Profile::default());
        let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
        pool(2).install(|| shuffle_par(&mut data, &mut rng, s, sampler, &Recorder::on(&profile)));
        let par = profile.into_inner().unwrap();
        for phase in Phase::ALL {
            let workers = par.busy(phase).len();
            assert!((1..=2).contains(&workers), "{}: {workers}", phase.name());
        }
        assert_eq!(par.busy(Phase::Draw).len(), 1);
        assert_eq!(par.busy(Phase::Plan).len(), 1);
    }

    #[test]
    fn a_wide_cycle_rotates_the_same_in_parallel_halves() {
        let width = 5 * PARALLEL_WIDTH + 3;
        let mut one: Vec<u32> = (0..3 * width as u32).collect();
        let mut two = one.clone();
        let before: Vec<Vec<u32>> = one.chunks(width).map(<[u32]>::to_vec).collect();
        {
            let (a, rest) = one.split_at_mut(width);
            let (b, c) = rest.split_at_mut(width);
            rotate(&mut [a, b, c]);
        }
        {
            let (a, rest) = two.split_at_mut(width);
            let (b, c) = rest.split_at_mut(width);
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .unwrap();
            pool.install(|| rotate_par(&mut [a, b, c]));
        }
        assert_eq!(one, two);
        // Part i's contents moved to part i + 1, the last part's to part 0.
        assert_eq!(one[..width], before[2][..]);
        assert_eq!(one[width..2 * width], before[0][..]);
        assert_eq!(one[2 * width..], before[1][..]);
    }

    #[test]
    fn the_exchange_gathers_every_bucket_for_small_cases() {
        let pool = pool(3);
        // Two chunks of 5: chunk 0 has 3 in bucket 0 and 2 in bucket 1; chunk 1 has 1 and 4.
        // Bucket 0 is 0..4 and holds label 1 at position 3; bucket 1 holds label 0 at position
        // 5: the pair swap of buckets 0 and 1 exchanges them.
        let after = check_exchange(&[vec![0, 3, 5], vec![0, 1, 5]], 5, 1, &pool);
        assert_eq!(after[3], (0, 5));
        assert_eq!(after[5], (1, 3));
        // Already in place: nothing moves.
        let after = check_exchange(&[vec![0, 4, 4], vec![0, 0, 6]], 4, 1, &pool);
        assert!(after.iter().enumerate().all(|(i, &(_, at))| i == at));
        // Four buckets in groups {0, 1} and {2, 3}: 0..2 holds label 1, 2..4 label 2, 4..6
        // label 0. No bucket pair can swap; the group pair swaps 2..4 with 4..6, and then the
        // pair swap inside group 0 exchanges 0..2 and 2..4.
        let after = check_exchange(&[vec![0, 0, 2, 4, 4], vec![0, 2, 2, 2, 2]], 4, 2, &pool);
        assert_eq!(after, [(0, 4), (0, 5), (1, 0), (1, 1), (2, 2), (2, 3)]);
        // Bucket b's range (position b) holds label b + 2 (mod 8): with groups of two, group g
        // holds only group g + 1's labels, so neither a bucket pair nor a group pair can swap,
        // and one cycle through all four groups moves everything into its group.
        let pieces: Vec<Vec<usize>> = (0..8)
            .map(|c| {
                let label = (c + 2) % 8;
                (0..=8).map(|k| usize::from(k > label)).collect()
            })
            .collect();
        let after = check_exchange(&pieces, 1, 3, &pool);
        assert!(
            after
                .iter()
                .enumerate()
                .all(|(b, &(_, at))| at == (b + 6) % 8)
        );
    }

    /// The fingerprint of the 2,000 arrangements below (changes only on purpose, with the
    /// golden outputs in `tests/determinism.rs` and a CHANGELOG entry).
    const ARRANGEMENTS: u64 = 0x1265_87c6_2a43_dbf5;

    #[test]
    fn the_exchange_gathers_every_bucket_for_many_random_layouts() {
        use fairdeal_core::SeedableRng;
        let pool = pool(3);
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        let mut fingerprint: u64 = 0xcbf2_9ce4_8422_2325;
        for round in 0..2000 {
            // Up to 64 buckets (8 groups of 8), and chunks both shorter and far longer than
            // the bucket count, so that every level has work.
            let bits = rng.next_u32() % 7;
            let buckets = 1 << bits;
            let chunks = 1 + (rng.next_u32() % 12) as usize;
            let longest = if round % 2 == 0 { 12 } else { 400 };
            let chunk_len = 1 + (rng.next_u32() as usize % longest);
            let last_len = 1 + (rng.next_u32() as usize % chunk_len);
            let pieces: Vec<Vec<usize>> = (0..chunks)
                .map(|c| {
                    let len = if c + 1 == chunks { last_len } else { chunk_len };
                    let mut cuts: Vec<usize> = (0..buckets - 1)
                        .map(|_| rng.next_u32() as usize % (len + 1))
                        .collect();
                    cuts.sort_unstable();
                    core::iter::once(0).chain(cuts).chain([len]).collect()
                })
                .collect();
            let after = check_exchange(&pieces, chunk_len, bits, &pool);
            // FNV-1a over every arrangement: which element ends where is part of the seeded
            // output (each bucket is shuffled from it), so any change to which segments the
            // swaps and walks pair up shows here.
            for (label, at) in after {
                for word in [label, at] {
                    fingerprint = (fingerprint ^ word as u64).wrapping_mul(0x100_0000_01b3);
                }
            }
        }
        assert_eq!(fingerprint, ARRANGEMENTS);
    }
}
