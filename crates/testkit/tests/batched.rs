//! `Batched` as a sampler: its run loops hand out exactly the default loops' bounds, in order,
//! and every batch fits in one 64-bit word. With the algorithms proven exact under the
//! one-draw-per-bound scripted sampler (each algorithm crate's tests/exact.rs) and every batch
//! proven exact over all 16-bit words (fairdeal-core's `batched` unit tests), this completes
//! the proof that the default shuffles are exact — whatever batch rule `Batched` uses.

use fairdeal_core::{Batched, Lemire};
use fairdeal_testkit::enumerate::assert_runs_like_the_default;

#[test]
fn every_short_run_is_handed_out_in_order_in_batches_that_fit() {
    let runs = (0..=130usize).flat_map(|high| (0..=high + 1).map(move |low| (high, low)));
    assert_runs_like_the_default(&Batched, runs);
}

#[test]
fn long_runs_and_runs_at_the_top_of_the_range_do_too() {
    let n = fairdeal_testkit::ACROSS_BATCH_LIMITS;
    assert_runs_like_the_default(
        &Batched,
        [
            (n, 2),
            (n, n - 40),
            (1 << 31, (1 << 31) - 40),
            (1 << 32, (1 << 32) - 40),
            (usize::MAX, usize::MAX - 40),
            (2000, 1000),
        ],
    );
    assert_runs_like_the_default(&Lemire, [(n, 2)]);
}
