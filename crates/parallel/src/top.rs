//! The top level of the shuffle, where every pass over the whole array runs on all threads, in
//! place.
//!
//! Sanders' scatter (1998) with the labelling split over fixed chunks, as in his distributed
//! algorithm, and the exchange between chunks done by swapping whole ranges, as parallel
//! in-place radix sorts do (Obeya et al. 2019, "Regions Sort"). Phases, each a separate pass:
//!
//! 1. **draw** (serial, O(chunks + buckets) generator calls): one label seed per chunk, then one
//!    child generator per bucket, in that fixed order, from the caller's generator;
//! 2. **partition** (parallel over chunks): each chunk is scattered in place by label with its
//!    own seed (`scatter::scatter`, the same American-flag pass as the recursion below), so it
//!    becomes `K` contiguous *pieces*, piece `b` holding the chunk's elements labelled `b`;
//! 3. **pairs** (parallel over buckets): bucket `b` is to occupy `[G_b, G_{b+1})`, `G` the
//!    prefix sums of the label counts. Cutting the pieces at the bucket bounds gives *segments*,
//!    each with a label and the bucket whose range it lies in; a segment whose label is not its
//!    range's bucket is misplaced. For every two buckets `q < a`, `q`'s elements labelled `a`
//!    are swapped with `a`'s elements labelled `q`, front to back, until one side runs out
//!    (the pairs are disjoint, so this runs per bucket in parallel);
//! 4. **plan** (serial, no data touched): what the pairs left forms a graph on buckets (an edge
//!    from the bucket a segment lies in to its label) in which every bucket has as many
//!    misplaced elements in its range as there are elements with its label outside it; such a
//!    graph splits into cycles. One walk finds them: a cycle `x_0 → x_1 → … → x_{L-1}` of
//!    segment parts of one common width `w` (the smallest remainder on the cycle), `x_i` lying
//!    in the range of the bucket that is `x_{i-1}`'s label;
//! 5. **exchange** (parallel over cycles, and over parts of wide cycles): every cycle is rotated,
//!    the contents of `x_i` moving to `x_{i+1}` and those of `x_{L-1}` to `x_0`, by `L - 1` range
//!    swaps. The cycles' ranges are disjoint, so they run in any order on any threads; after all
//!    of them bucket `b`'s range holds exactly the elements labelled `b`;
//! 6. **buckets** (parallel over buckets): each bucket is shuffled by the in-place recursion of
//!    `scatter.rs`, with its child generator.
//!
//! There are at most as many chunks as buckets (about as many, at the default shape): then nearly
//! every bucket's range holds a segment of nearly every label, and the pair swaps move about 97 %
//! of the misplaced elements (at 10^8 `u32`); the walk handles the imbalances between pairs. The chunk length and the bucket count depend only on the slice's length and the
//! shape, never on the pool, and the plan is a function of the chunks' label counts; so every label, every
//! cycle and every child generator is the same on any number of threads, and [`shuffle_seq`]
//! runs the same phases on the calling thread.
//!
//! Memory: no copy of the data. The plan holds O(chunks × buckets) segments and cycle parts, a
//! few machine words each: about 30 MB for 10^8 `u32` (400 MB) at the default shape (512
//! chunks × 512 buckets, about a million parts); see [`MAX_PIECES`]. Everything is safe code:
//! the exchange works on disjoint `&mut` slices cut from the data in address order.

use alloc::vec::Vec;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fairdeal_core::{IndexSampler, Rng, SeedableRng};

use crate::leaf::prefetching_fisher_yates;
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
    /// each holds of the other's (parallel over buckets).
    Pairs,
    /// Finding the cycles that move what the pairs left (serial).
    Plan,
    /// Rotating the cycles, so that every bucket's range holds its elements (parallel).
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

/// Where the time of one top-level shuffle went: wall time per phase and, per phase, the busy
/// time of every rayon worker that ran a task of it (from
/// [`Parallel::shuffle_profiled`](crate::Parallel::shuffle_profiled)).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    wall: [Duration; 6],
    busy: [Vec<Duration>; 6],
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

/// Records a [`Profile`] when asked to; does nothing (no clock reads) otherwise.
pub(crate) struct Recorder<'a>(Option<&'a Mutex<Profile>>);

impl<'a> Recorder<'a> {
    pub(crate) const fn off() -> Self {
        Self(None)
    }

    pub(crate) const fn on(profile: &'a Mutex<Profile>) -> Self {
        Self(Some(profile))
    }

    fn start(&self) -> Option<Instant> {
        self.0.map(|_| Instant::now())
    }

    /// Ends a whole phase that started at `since`.
    fn phase(&self, phase: Phase, since: Option<Instant>) {
        if let (Some(profile), Some(since)) = (self.0, since) {
            let elapsed = since.elapsed();
            let mut p = profile.lock().unwrap_or_else(|e| e.into_inner());
            p.wall[phase as usize] += elapsed;
            if phase.is_serial() {
                p.add_busy(phase, 0, elapsed);
            }
        }
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
/// the labels), then one child generator per bucket.
#[allow(clippy::type_complexity)]
fn draw<R: Rng + SeedableRng>(rng: &mut R, layout: Layout) -> (Vec<(R, R)>, Vec<R>) {
    let labels = (0..layout.chunks)
        .map(|_| {
            let seed = draw_seed(rng);
            (R::from_seed(seed.clone()), R::from_seed(seed))
        })
        .collect();
    let children = (0..layout.buckets()).map(|_| R::from_rng(rng)).collect();
    (labels, children)
}

/// A stretch of a bucket's range holding elements of another label: the part of it not yet
/// moved.
struct Misplaced<'a, T> {
    rest: &'a mut [T],
    label: usize,
}

/// Phase 3's result: where the buckets end up, and the cycles that put them there, as disjoint
/// parts of the data.
struct Plan<'a, T> {
    /// Bucket `b` is `bounds[b]..bounds[b + 1]`; length `buckets + 1`.
    bounds: Vec<usize>,
    /// The parts of every cycle, cycle after cycle, all of a cycle's parts equally wide.
    parts: Vec<&'a mut [T]>,
    /// Cycle `i` is `parts[ends[i - 1]..ends[i]]` (with `ends[-1] = 0`).
    ends: Vec<usize>,
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

/// Bucket `q`'s share of the pair swaps: its segments labelled above `q` (sorted by label), and,
/// for every bucket `a > q` whose range holds segments labelled `q`, those segments.
struct PairWork<'s, 'a, T> {
    ours: &'s mut [Misplaced<'a, T>],
    theirs: Vec<(usize, &'s mut [Misplaced<'a, T>])>,
}

/// Splits the misplaced lists into every bucket's [`PairWork`]: the pair `q < a` is bucket
/// `q`'s, which gets `q`'s segments labelled `a` and `a`'s segments labelled `q`. The pairs are
/// disjoint, so the buckets' shares can run in any order, on any threads.
fn pair_work<'s, 'a, T>(misplaced: &'s mut [Vec<Misplaced<'a, T>>]) -> Vec<PairWork<'s, 'a, T>> {
    let mut work: Vec<PairWork<'s, 'a, T>> = Vec::with_capacity(misplaced.len());
    let mut below: Vec<&'s mut [Misplaced<'a, T>]> = Vec::with_capacity(misplaced.len());
    for (r, list) in misplaced.iter_mut().enumerate() {
        let split = list.partition_point(|segment| segment.label < r);
        let (low, high) = list.split_at_mut(split);
        work.push(PairWork {
            ours: high,
            theirs: Vec::new(),
        });
        below.push(low);
    }
    for (a, mut low) in below.into_iter().enumerate() {
        while let Some(first) = low.first() {
            let q = first.label;
            let run = low.iter().take_while(|segment| segment.label == q).count();
            let (same, rest) = core::mem::take(&mut low).split_at_mut(run);
            work[q].theirs.push((a, same));
            low = rest;
        }
    }
    work
}

impl<T> PairWork<'_, '_, T> {
    /// Swaps, for every `a` in turn, `q`'s elements labelled `a` with `a`'s elements labelled
    /// `q`, front to back, until one side runs out: cycles of two parts, carried out at once.
    fn swap(self) {
        let PairWork { ours, theirs } = self;
        for (a, theirs) in theirs {
            let from = ours.partition_point(|segment| segment.label < a);
            let run = ours[from..]
                .iter()
                .take_while(|segment| segment.label == a)
                .count();
            let ours = &mut ours[from..from + run];
            let (mut i, mut j) = (0, 0);
            while i < ours.len() && j < theirs.len() {
                let width = ours[i].rest.len().min(theirs[j].rest.len());
                let (mine, rest) = core::mem::take(&mut ours[i].rest).split_at_mut(width);
                ours[i].rest = rest;
                let (other, rest) = core::mem::take(&mut theirs[j].rest).split_at_mut(width);
                theirs[j].rest = rest;
                mine.swap_with_slice(other);
                i += usize::from(ours[i].rest.is_empty());
                j += usize::from(theirs[j].rest.is_empty());
            }
        }
    }
}

impl<'a, T> Plan<'a, T> {
    /// Plans the exchange from every bucket's misplaced segments.
    fn new(bounds: Vec<usize>, mut misplaced: Vec<Vec<Misplaced<'a, T>>>) -> Self {
        let segments: usize = misplaced.iter().map(Vec::len).sum();
        let mut plan = Plan {
            bounds,
            parts: Vec::with_capacity(4 * segments),
            ends: Vec::with_capacity(segments),
        };
        plan.find_cycles(&mut misplaced);
        plan
    }

    /// Walks the misplaced segments' graph, emitting one cycle each time the walk comes back to
    /// a bucket it has visited. Every bucket with a misplaced element in its range is the start
    /// of walks until none is left. A walk never gets stuck: arriving at bucket `r` means that an
    /// element labelled `r` lies outside `r`'s range, so `r`'s range holds a misplaced element
    /// (the counts balance, and every rotation keeps them balanced). Every cycle uses up at least
    /// one segment, so there are at most as many cycles as segments.
    ///
    /// Where it can, the walk takes a segment labelled with the bucket it started from or with
    /// one of the last [`CLOSE_LOOKUPS`] on its path, closing a cycle at once, which keeps cycles
    /// short and so cuts the segments into fewer parts.
    fn find_cycles(&mut self, misplaced: &mut [Vec<Misplaced<'a, T>>]) {
        const OFF: usize = usize::MAX;
        let mut cursor = alloc::vec![0usize; misplaced.len()];
        let mut on_path = alloc::vec![OFF; misplaced.len()];
        // (bucket, index of the segment taken in its list)
        let mut path: Vec<(usize, usize)> = Vec::new();
        for first in 0..misplaced.len() {
            while next_left(&misplaced[first], &mut cursor[first]).is_some() {
                let mut at = first;
                loop {
                    let list = &misplaced[at];
                    // Close a cycle if this bucket holds a segment labelled with a bucket on
                    // the path: the start first, then the most recent ones.
                    let taken = path
                        .first()
                        .into_iter()
                        .chain(path.iter().rev().take(CLOSE_LOOKUPS))
                        .find_map(|&(on, _)| with_label(list, on));
                    let Some(taken) = taken.or_else(|| next_left(list, &mut cursor[at])) else {
                        unreachable!("the misplaced counts balance, so a walk never gets stuck")
                    };
                    let label = list[taken].label;
                    on_path[at] = path.len();
                    path.push((at, taken));
                    let closes = on_path[label];
                    if closes == OFF {
                        at = label;
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
                        self.parts.push(part);
                        on_path[r] = OFF;
                    }
                    self.ends.push(self.parts.len());
                    path.truncate(closes);
                    if path.is_empty() {
                        break;
                    }
                    // Go on from the bucket the cycle closed at: the path's last segment still
                    // points there.
                    at = label;
                }
            }
        }
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
}

/// The first segment of `list` (sorted by label) from `cursor` on with elements left, moving
/// `cursor` past the used-up ones.
fn next_left<T>(list: &[Misplaced<'_, T>], cursor: &mut usize) -> Option<usize> {
    while *cursor < list.len() && list[*cursor].rest.is_empty() {
        *cursor += 1;
    }
    (*cursor < list.len()).then_some(*cursor)
}

/// A segment of `list` (sorted by label) labelled `label` with elements left.
fn with_label<T>(list: &[Misplaced<'_, T>], label: usize) -> Option<usize> {
    let from = first_at_least(list, label);
    list[from..]
        .iter()
        .take_while(|segment| segment.label == label)
        .position(|segment| !segment.rest.is_empty())
        .map(|i| from + i)
}

/// The first index of `list` (sorted by label) whose label is at least `label`. A bucket's range
/// usually holds one segment of nearly every label, so the answer is usually at `label` or just
/// before it: look there first, then search.
fn first_at_least<T>(list: &[Misplaced<'_, T>], label: usize) -> usize {
    let is_first = |i: usize| {
        i <= list.len()
            && (i == list.len() || list[i].label >= label)
            && (i == 0 || list[i - 1].label < label)
    };
    for guess in [label, label.wrapping_sub(1)] {
        if is_first(guess) {
            return guess;
        }
    }
    list.partition_point(|segment| segment.label < label)
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
    if data.len() <= shape.leaf_len {
        prefetching_fisher_yates(data, rng, sampler);
        return;
    }
    let layout = Layout::new(data.len(), shape);

    let since = recorder.start();
    let (labels, children) = draw(rng, layout);
    recorder.phase(Phase::Draw, since);

    let since = recorder.start();
    let pieces: Vec<Vec<usize>> = data
        .par_chunks_mut(layout.chunk_len)
        .zip(labels)
        .map(|(chunk, (counter, replay))| {
            recorder.task(Phase::Partition, || {
                scatter::scatter_with(chunk, layout.bits, counter, replay)
            })
        })
        .collect();
    recorder.phase(Phase::Partition, since);

    let since = recorder.start();
    let (bounds, mut misplaced) = segments_par(data, &pieces, layout.chunk_len, layout.buckets());
    pair_work(&mut misplaced)
        .into_par_iter()
        .for_each(|work| recorder.task(Phase::Pairs, || work.swap()));
    recorder.phase(Phase::Pairs, since);

    let since = recorder.start();
    let mut plan = Plan::new(bounds, misplaced);
    recorder.phase(Phase::Plan, since);

    let since = recorder.start();
    plan.cycles()
        .into_par_iter()
        .for_each(|cycle| recorder.task(Phase::Exchange, || rotate_par(cycle)));
    let bounds = plan.bounds;
    recorder.phase(Phase::Exchange, since);

    let since = recorder.start();
    split_buckets(data, &bounds)
        .into_par_iter()
        .zip(children)
        .for_each(|(bucket, mut child)| {
            recorder.task(Phase::Buckets, || {
                scatter::shuffle_par(bucket, &mut child, shape, sampler);
            });
        });
    recorder.phase(Phase::Buckets, since);
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
    if data.len() <= shape.leaf_len {
        prefetching_fisher_yates(data, rng, sampler);
        return;
    }
    let layout = Layout::new(data.len(), shape);

    let since = recorder.start();
    let (labels, children) = draw(rng, layout);
    recorder.phase(Phase::Draw, since);

    let since = recorder.start();
    let pieces: Vec<Vec<usize>> = data
        .chunks_mut(layout.chunk_len)
        .zip(labels)
        .map(|(chunk, (counter, replay))| {
            recorder.task(Phase::Partition, || {
                scatter::scatter_with(chunk, layout.bits, counter, replay)
            })
        })
        .collect();
    recorder.phase(Phase::Partition, since);

    let since = recorder.start();
    let (bounds, mut misplaced) = segments_seq(data, &pieces, layout.chunk_len, layout.buckets());
    for work in pair_work(&mut misplaced) {
        recorder.task(Phase::Pairs, || work.swap());
    }
    recorder.phase(Phase::Pairs, since);

    let since = recorder.start();
    let mut plan = Plan::new(bounds, misplaced);
    recorder.phase(Phase::Plan, since);

    let since = recorder.start();
    for cycle in plan.cycles() {
        recorder.task(Phase::Exchange, || rotate(cycle));
    }
    let bounds = plan.bounds;
    recorder.phase(Phase::Exchange, since);

    let since = recorder.start();
    for (bucket, mut child) in split_buckets(data, &bounds).into_iter().zip(children) {
        recorder.task(Phase::Buckets, || {
            scatter::shuffle_seq(bucket, &mut child, shape, sampler);
        });
    }
    recorder.phase(Phase::Buckets, since);
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

    /// Applies the plan to a vector of labels and checks that every bucket's range ends up
    /// holding only its label. Returns the bounds and the cycles' part counts and widths.
    fn check_plan(
        pieces: &[Vec<usize>],
        chunk_len: usize,
        buckets: usize,
    ) -> (Vec<usize>, Vec<(usize, usize)>) {
        let mut labels = Vec::new();
        for local in pieces {
            for b in 0..buckets {
                labels.extend(core::iter::repeat_n(b, local[b + 1] - local[b]));
            }
        }
        let (bounds, mut misplaced) = segments_seq(&mut labels, pieces, chunk_len, buckets);
        for work in pair_work(&mut misplaced) {
            work.swap();
        }
        let mut plan = Plan::new(bounds, misplaced);
        let mut shapes = Vec::new();
        for cycle in plan.cycles() {
            assert!(
                cycle.len() >= 2,
                "a cycle of one part would be a segment in place"
            );
            let width = cycle[0].len();
            assert!(width >= 1 && cycle.iter().all(|p| p.len() == width));
            shapes.push((cycle.len(), width));
            rotate(cycle);
        }
        let bounds = plan.bounds;
        for b in 0..buckets {
            let range = &labels[bounds[b]..bounds[b + 1]];
            assert!(range.iter().all(|&l| l == b), "bucket {b}: {range:?}");
        }
        (bounds, shapes)
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
    fn the_plan_gathers_every_bucket_for_small_cases() {
        // Two chunks of 5: chunk 0 has 3 in bucket 0 and 2 in bucket 1; chunk 1 has 1 and 4.
        // Bucket 0 is 0..4 and holds label 1 at position 3; bucket 1 holds label 0 at position
        // 5: the pair swap of buckets 0 and 1 exchanges them, and no cycle is left.
        let (bounds, cycles) = check_plan(&[vec![0, 3, 5], vec![0, 1, 5]], 5, 2);
        assert_eq!(bounds, [0, 4, 10]);
        assert!(cycles.is_empty(), "two buckets need no cycle: {cycles:?}");
        // Already in place: nothing to do.
        let (_, cycles) = check_plan(&[vec![0, 4, 4], vec![0, 0, 6]], 4, 2);
        assert!(cycles.is_empty());
        // Three buckets that must go round: 0..2 holds label 1, 2..4 label 2, 4..6 label 0.
        let (_, cycles) = check_plan(&[vec![0, 0, 2, 4], vec![0, 2, 2, 2]], 4, 3);
        assert_eq!(cycles, [(3, 2)]);
    }

    #[test]
    fn the_plan_gathers_every_bucket_for_many_random_layouts() {
        use fairdeal_core::SeedableRng;
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        for _ in 0..2000 {
            let buckets = 1 << (rng.next_u32() % 4);
            let chunks = 1 + (rng.next_u32() % 6) as usize;
            let chunk_len = 1 + (rng.next_u32() % 12) as usize;
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
            let (_, cycles) = check_plan(&pieces, chunk_len, buckets);
            // At most as many cycles as segments (pieces cut at most `buckets` more times).
            assert!(cycles.len() <= chunks * buckets + buckets);
        }
    }
}
