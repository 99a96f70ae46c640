//! The top level of the shuffle, where every pass over the whole array runs on all threads.
//!
//! One scatter (Sanders 1998) with the labelling split over fixed chunks, as in Sanders'
//! distributed algorithm: chunk `c` labels its own elements from its own generator, and every
//! element goes straight to its place in a scratch buffer, into the part of its bucket reserved
//! for chunk `c`. Phases, each a separate pass:
//!
//! 1. **draw** (serial, O(chunks + buckets) generator calls): one label seed per chunk, then one
//!    child generator per bucket, in that fixed order, from the caller's generator;
//! 2. **count** (parallel over chunks, no memory traffic): chunk `c` counts its labels, giving
//!    the chunks × buckets matrix `M`;
//! 3. **plan** (serial, O(chunks × buckets)): bucket `b` occupies `[G_b, G_{b+1})` with
//!    `G_b = Σ_{b' < b} Σ_c M[c][b']`, and inside it chunk `c`'s piece starts at
//!    `G_b + Σ_{c' < c} M[c'][b]`;
//! 4. **scatter** (parallel over chunks): chunk `c` replays its label stream over its elements in
//!    order and moves each one to the next free slot of its piece in the scratch buffer;
//! 5. **buckets** (parallel over buckets): each bucket is shuffled in the scratch buffer by the
//!    in-place recursion of `scatter.rs`, with its child generator;
//! 6. **copy back** (parallel): the scratch buffer is moved back into the caller's slice.
//!
//! The chunk length and the bucket count depend only on the slice's length and the shape, never
//! on the pool, so every label, every destination and every child generator is the same on any
//! number of threads; [`shuffle_seq`] runs the same phases on the calling thread.
//!
//! Memory: a scratch buffer of `len` elements (one copy of the data, allocated per call and
//! freed before returning) and `chunks × buckets` counters. The elements are moved bitwise
//! (`T` needs no `Clone`), which is this module's `unsafe`; see the `// SAFETY:` comments.

use alloc::vec::Vec;
use core::mem::MaybeUninit;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fairdeal_core::{IndexSampler, Rng, SeedableRng};

use crate::leaf::prefetching_fisher_yates;
use crate::prefetch::prefetch;
use crate::scatter::{self, Labels, Shape, draw_seed, split_buckets};

/// How far ahead of a piece's write head the scatter prefetches, in bytes.
const PREFETCH_AHEAD_BYTES: usize = 256;

/// The phases of the top level, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Drawing the chunk label seeds and the bucket child generators (serial).
    Draw,
    /// Counting every chunk's labels (parallel over chunks).
    Count,
    /// Prefix sums and carving the scratch buffer into pieces (serial).
    Plan,
    /// Moving every element into its piece of the scratch buffer (parallel over chunks).
    Scatter,
    /// Shuffling every bucket, recursively (parallel over buckets).
    Buckets,
    /// Moving the scratch buffer back into the caller's slice (parallel).
    CopyBack,
}

impl Phase {
    /// Every phase, in order.
    pub const ALL: [Phase; 6] = [
        Phase::Draw,
        Phase::Count,
        Phase::Plan,
        Phase::Scatter,
        Phase::Buckets,
        Phase::CopyBack,
    ];

    /// A short lower-case name (`"draw"`, `"count"` …).
    pub const fn name(self) -> &'static str {
        match self {
            Phase::Draw => "draw",
            Phase::Count => "count",
            Phase::Plan => "plan",
            Phase::Scatter => "scatter",
            Phase::Buckets => "buckets",
            Phase::CopyBack => "copy-back",
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

/// The scratch buffer could not be allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[error("cannot allocate the {bytes}-byte scratch buffer of the parallel shuffle")]
pub struct ScratchError {
    /// The size that was asked for.
    pub bytes: usize,
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
        let chunks = len.div_ceil(shape.chunk_len).clamp(1, shape.max_chunks);
        let chunk_len = len.div_ceil(chunks);
        Self {
            len,
            bits: shape.bits_for(len),
            chunk_len,
            chunks: len.div_ceil(chunk_len),
        }
    }

    fn buckets(self) -> usize {
        1 << self.bits
    }

    fn chunk_size(self, c: usize) -> usize {
        self.chunk_len.min(self.len - c * self.chunk_len)
    }
}

/// Phase 1: one label seed per chunk (two generators from it: one counts, one replays), then one
/// child generator per bucket.
#[allow(clippy::type_complexity)]
fn draw<R: Rng + SeedableRng>(rng: &mut R, layout: Layout) -> (Vec<R>, Vec<R>, Vec<R>) {
    let mut counters = Vec::with_capacity(layout.chunks);
    let mut replays = Vec::with_capacity(layout.chunks);
    for _ in 0..layout.chunks {
        let seed = draw_seed(rng);
        counters.push(R::from_seed(seed.clone()));
        replays.push(R::from_seed(seed));
    }
    let children = (0..layout.buckets()).map(|_| R::from_rng(rng)).collect();
    (counters, replays, children)
}

/// Phase 3: the bucket bounds `G` (length `buckets + 1`) and the scratch buffer carved into
/// pieces, `pieces[c][b]` being chunk `c`'s part of bucket `b` (bucket-major in memory, chunk
/// order inside a bucket).
#[allow(clippy::type_complexity)]
fn plan<'s, T>(
    scratch: &'s mut [MaybeUninit<T>],
    counts: &[usize],
    layout: Layout,
) -> (Vec<usize>, Vec<Vec<&'s mut [MaybeUninit<T>]>>) {
    let k = layout.buckets();
    let mut bounds = Vec::with_capacity(k + 1);
    let mut pieces: Vec<Vec<&mut [MaybeUninit<T>]>> =
        (0..layout.chunks).map(|_| Vec::with_capacity(k)).collect();
    let mut rest = scratch;
    let mut start = 0;
    for b in 0..k {
        bounds.push(start);
        for (c, row) in pieces.iter_mut().enumerate() {
            let m = counts[c * k + b];
            let (piece, tail) = core::mem::take(&mut rest).split_at_mut(m);
            row.push(piece);
            rest = tail;
            start += m;
        }
    }
    bounds.push(start);
    (bounds, pieces)
}

/// Phase 4 for one chunk: replays its labels over its elements, in order, moving each element
/// to the next free slot of the piece its label names.
///
/// # Panics
///
/// If the replayed labels do not have the counted counts (a generator whose `from_seed` is not
/// deterministic): then some piece would stay partly unwritten. `chunk` is only read, so it
/// still holds every element when that happens.
fn scatter_chunk<T, R: Rng>(
    chunk: &mut [T],
    pieces: &mut [&mut [MaybeUninit<T>]],
    replay: R,
    bits: u32,
) {
    let mut labels = Labels::new(replay, bits);
    let mut filled = alloc::vec![0usize; pieces.len()];
    let ahead = (PREFETCH_AHEAD_BYTES / core::mem::size_of::<T>().max(1)).max(1);
    for element in chunk.iter() {
        let label = labels.next_label();
        let at = filled[label];
        let piece = &mut *pieces[label];
        // The indexing is bounds-checked: a replay with more labels `b` than counted panics here,
        // before anything is written out of place.
        let slot = &mut piece[at];
        // SAFETY: `element` is a valid, initialised `T`. Reading it makes a bitwise copy; the
        // original in `chunk` is never used again except as the destination of the final copy
        // back (which overwrites it without dropping it), so every element ends up owned exactly
        // once. If anything panics before the copy back, `chunk` still holds every original
        // element and the scratch copies are freed without being dropped (the scratch `Vec`
        // has length 0), so nothing is dropped twice.
        #[allow(unsafe_code)]
        slot.write(unsafe { core::ptr::read(element) });
        filled[label] = at + 1;
        prefetch(piece, at + ahead);
    }
    // Every element was written in bounds, and the pieces' lengths sum to the chunk's length;
    // so every slot is written exactly when every piece is exactly full.
    for (piece, &f) in pieces.iter().zip(&filled) {
        assert_eq!(
            piece.len(),
            f,
            "the label replay differs from the count: the generator's from_seed is not deterministic"
        );
    }
}

/// The scratch buffer after phase 4, every slot written, as a slice of `T`.
fn assume_written<T>(scratch: &mut [MaybeUninit<T>]) -> &mut [T] {
    // SAFETY: called only after every chunk's `scatter_chunk` returned, i.e. after every slot
    // of every piece (the pieces tile the whole buffer) was written with a valid `T`
    // (`scatter_chunk` checks that each of its pieces is exactly full). `MaybeUninit<T>` has
    // the same layout as `T`.
    #[allow(unsafe_code)]
    unsafe {
        &mut *(core::ptr::from_mut::<[MaybeUninit<T>]>(scratch) as *mut [T])
    }
}

/// Phase 6 for one stretch: moves `from` (shuffled scratch) over `to` (the caller's slice,
/// whose elements were all moved out by phase 4).
fn move_back<T>(to: &mut [T], from: &mut [T]) {
    assert_eq!(to.len(), from.len());
    // SAFETY: `to`'s elements were all moved out bitwise into the scratch buffer (phase 4), so
    // overwriting them without dropping is right; `from` holds each of them exactly once and
    // is never dropped (the scratch `Vec` has length 0). The ranges do not overlap (distinct
    // allocations) and have the same length.
    #[allow(unsafe_code)]
    unsafe {
        core::ptr::copy_nonoverlapping(from.as_ptr(), to.as_mut_ptr(), to.len());
    }
}

/// Scratch space for `len` elements: the spare capacity of an empty `Vec`, so that dropping it
/// frees the memory and never drops an element.
fn scratch<T>(len: usize) -> Result<Vec<T>, ScratchError> {
    let mut buffer = Vec::new();
    buffer.try_reserve_exact(len).map_err(|_| ScratchError {
        bytes: len.saturating_mul(core::mem::size_of::<T>()),
    })?;
    Ok(buffer)
}

/// The whole shuffle with every top-level pass on the current rayon pool.
pub(crate) fn shuffle_par<T, R, S>(
    data: &mut [T],
    rng: &mut R,
    shape: Shape,
    sampler: S,
    recorder: &Recorder<'_>,
) -> Result<(), ScratchError>
where
    T: Send,
    R: Rng + SeedableRng + Send,
    S: IndexSampler + Copy + Send + Sync,
{
    use rayon::prelude::*;
    if data.len() <= shape.leaf_len {
        prefetching_fisher_yates(data, rng, sampler);
        return Ok(());
    }
    let layout = Layout::new(data.len(), shape);
    let k = layout.buckets();
    let mut buffer = scratch::<T>(layout.len)?;

    let since = recorder.start();
    let (counters, replays, children) = draw(rng, layout);
    recorder.phase(Phase::Draw, since);

    let since = recorder.start();
    let mut counts = alloc::vec![0usize; layout.chunks * k];
    counts
        .par_chunks_mut(k)
        .zip(counters)
        .enumerate()
        .for_each(|(c, (row, counter))| {
            recorder.task(Phase::Count, || {
                Labels::new(counter, layout.bits).count(layout.chunk_size(c), row);
            });
        });
    recorder.phase(Phase::Count, since);

    let since = recorder.start();
    let space = &mut buffer.spare_capacity_mut()[..layout.len];
    let (bounds, mut pieces) = plan(space, &counts, layout);
    recorder.phase(Phase::Plan, since);

    let since = recorder.start();
    data.par_chunks_mut(layout.chunk_len)
        .zip(pieces.par_iter_mut())
        .zip(replays)
        .for_each(|((chunk, row), replay)| {
            recorder.task(Phase::Scatter, || {
                scatter_chunk(chunk, row, replay, layout.bits);
            });
        });
    drop(pieces);
    recorder.phase(Phase::Scatter, since);

    let since = recorder.start();
    let shuffled = assume_written(&mut buffer.spare_capacity_mut()[..layout.len]);
    split_buckets(shuffled, &bounds)
        .into_par_iter()
        .zip(children)
        .for_each(|(bucket, mut child)| {
            recorder.task(Phase::Buckets, || {
                scatter::shuffle_par(bucket, &mut child, shape, sampler);
            });
        });
    recorder.phase(Phase::Buckets, since);

    let since = recorder.start();
    data.par_chunks_mut(layout.chunk_len)
        .zip(shuffled.par_chunks_mut(layout.chunk_len))
        .for_each(|(to, from)| recorder.task(Phase::CopyBack, || move_back(to, from)));
    recorder.phase(Phase::CopyBack, since);
    Ok(())
}

/// [`shuffle_par`] on the calling thread: the same phases, draws and moves in the same order.
pub(crate) fn shuffle_seq<T, R, S>(
    data: &mut [T],
    rng: &mut R,
    shape: Shape,
    sampler: S,
    recorder: &Recorder<'_>,
) -> Result<(), ScratchError>
where
    R: Rng + SeedableRng,
    S: IndexSampler + Copy,
{
    if data.len() <= shape.leaf_len {
        prefetching_fisher_yates(data, rng, sampler);
        return Ok(());
    }
    let layout = Layout::new(data.len(), shape);
    let k = layout.buckets();
    let mut buffer = scratch::<T>(layout.len)?;

    let since = recorder.start();
    let (counters, replays, children) = draw(rng, layout);
    recorder.phase(Phase::Draw, since);

    let since = recorder.start();
    let mut counts = alloc::vec![0usize; layout.chunks * k];
    for (c, (row, counter)) in counts.chunks_mut(k).zip(counters).enumerate() {
        recorder.task(Phase::Count, || {
            Labels::new(counter, layout.bits).count(layout.chunk_size(c), row);
        });
    }
    recorder.phase(Phase::Count, since);

    let since = recorder.start();
    let space = &mut buffer.spare_capacity_mut()[..layout.len];
    let (bounds, mut pieces) = plan(space, &counts, layout);
    recorder.phase(Phase::Plan, since);

    let since = recorder.start();
    for ((chunk, row), replay) in data
        .chunks_mut(layout.chunk_len)
        .zip(pieces.iter_mut())
        .zip(replays)
    {
        recorder.task(Phase::Scatter, || {
            scatter_chunk(chunk, row, replay, layout.bits);
        });
    }
    drop(pieces);
    recorder.phase(Phase::Scatter, since);

    let since = recorder.start();
    let shuffled = assume_written(&mut buffer.spare_capacity_mut()[..layout.len]);
    for (bucket, mut child) in split_buckets(shuffled, &bounds).into_iter().zip(children) {
        recorder.task(Phase::Buckets, || {
            scatter::shuffle_seq(bucket, &mut child, shape, sampler);
        });
    }
    recorder.phase(Phase::Buckets, since);

    let since = recorder.start();
    recorder.task(Phase::CopyBack, || move_back(data, shuffled));
    recorder.phase(Phase::CopyBack, since);
    Ok(())
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
                let total: usize = (0..l.chunks).map(|c| l.chunk_size(c)).sum();
                assert_eq!(total, len);
                assert!((0..l.chunks).all(|c| l.chunk_size(c) >= 1));
            }
        }
    }

    #[test]
    fn the_plan_puts_chunk_pieces_in_order_inside_each_bucket() {
        let layout = Layout {
            len: 10,
            bits: 1,
            chunk_len: 5,
            chunks: 2,
        };
        // Chunk 0: 3 in bucket 0, 2 in bucket 1; chunk 1: 1 and 4.
        let counts = [3, 2, 1, 4];
        let mut space: Vec<MaybeUninit<u8>> = (0..10).map(|_| MaybeUninit::uninit()).collect();
        let base = space.as_ptr() as usize;
        let (bounds, pieces) = plan(&mut space, &counts, layout);
        assert_eq!(bounds, [0, 4, 10]);
        let offset = |p: &[MaybeUninit<u8>]| (p.as_ptr() as usize - base, p.len());
        assert_eq!(offset(pieces[0][0]), (0, 3));
        assert_eq!(offset(pieces[1][0]), (3, 1));
        assert_eq!(offset(pieces[0][1]), (4, 2));
        assert_eq!(offset(pieces[1][1]), (6, 4));
    }
}
