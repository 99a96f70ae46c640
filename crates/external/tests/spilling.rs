//! `ExternalShuffle::shuffle_spilling`: the scatter into in-memory buckets that spills to files
//! only when the budget runs out. Its output must be exactly `shuffle_in`'s on the same bytes
//! and seed (in memory or spilled, however the input arrives), exactly uniform through the
//! in-memory buckets, and it must make no temporary files while the input fits.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use fairdeal_core::SeedableRng;
use fairdeal_external::{ExternalError, ExternalShuffle, MemoryBudget, Summary};
use fairdeal_testkit::{block_position_p_value, permutation_p_value};
use rand_pcg::Pcg64;

mod common;
use common::{Counting, indices, is_empty_dir, record};

/// A budget that holds every input of these tests, so nothing spills.
const LARGE: u64 = 256 << 20;

fn shuffler(budget: u64) -> ExternalShuffle {
    ExternalShuffle::new(MemoryBudget::new(budget).unwrap(), b'\n')
}

/// A reader that hands out a few bytes at a time, as a pipe may.
struct Trickle<'a>(&'a [u8], usize);

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.1.min(buf.len()).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// Runs `shuffle_spilling` with the first `prefix` bytes handed over as the prefix and the
/// rest read from `rest`; temporary files go to a directory made in `parent` on demand.
/// Returns the output, the summary and whether the scratch directory was asked for.
fn spilling<G: fairdeal_core::Rng + SeedableRng + Send>(
    shuffle: &ExternalShuffle,
    prefix: &[u8],
    rest: impl Read + Send,
    rng: &mut G,
    parent: &Path,
) -> (Vec<u8>, Summary, bool) {
    let mut output = Vec::new();
    let mut dir: Option<tempfile::TempDir> = None;
    let mut make = || -> Result<PathBuf, ExternalError> {
        let made = tempfile::tempdir_in(parent).map_err(|source| ExternalError::TempCreate {
            dir: parent.to_path_buf(),
            source,
        })?;
        let path = made.path().to_path_buf();
        dir = Some(made);
        Ok(path)
    };
    let summary = shuffle
        .shuffle_spilling(prefix.to_vec(), rest, &mut output, &mut make, rng, &mut ())
        .unwrap();
    let asked = dir.is_some();
    drop(dir);
    (output, summary, asked)
}

/// Varied records: short, empty, duplicated, binary, one longer than a memory block
/// (600 KB), and a last one without newline.
fn varied_input() -> Vec<u8> {
    let mut input = Vec::new();
    for i in 0..3000u32 {
        match i % 9 {
            0 => input.push(b'\n'),
            1 => input.extend_from_slice(b"duplicate\n"),
            2 => input.extend_from_slice(&[0, 0xff, b'\r', b'\n']),
            _ => input.extend_from_slice(
                format!("record {i} {}\n", "y".repeat(i as usize % 70)).as_bytes(),
            ),
        }
        if i == 1500 {
            input.extend_from_slice(&vec![b'L'; 600 << 10]);
            input.push(b'\n');
        }
    }
    input.extend_from_slice(b"no newline at the end");
    input
}

/// In memory (nothing spilled), spilled part way, spilled at once and recursing, and with
/// `spill_at_once`: for every budget and however the input is split and read, the output is
/// `shuffle_in`'s.
#[test]
fn the_output_is_the_external_shuffles_in_memory_or_spilled() {
    let input = varied_input();
    let parent = tempfile::tempdir().unwrap();
    for budget in [1 << 10, 16 << 10, 1 << 20, 4 << 20, LARGE] {
        let shuffle = shuffler(budget);
        let mut rng = Pcg64::seed_from_u64(budget);
        let mut expected = Vec::new();
        let reference = shuffle
            .shuffle(&input[..], &mut expected, parent.path(), &mut rng, &mut ())
            .unwrap();
        for (split, piece) in [(0, 1 << 20), (0, 7), (100, 1), (input.len() / 2, 4096)] {
            let mut rng = Pcg64::seed_from_u64(budget);
            let (output, summary, asked) = spilling(
                &shuffle,
                &input[..split],
                Trickle(&input[split..], piece),
                &mut rng,
                parent.path(),
            );
            assert!(
                output == expected,
                "budget {budget}, split {split}, pieces of {piece}: not shuffle_in's output"
            );
            assert_eq!(summary.records, reference.records);
            assert_eq!(summary.bytes, input.len() as u64 + 1);
            assert_eq!(asked, summary.bucket_files > 0);
            if budget == LARGE {
                assert!(!asked, "spilled within a budget that holds the input");
                assert_eq!(summary.depth, 1);
            } else {
                assert!(asked, "budget {budget} cannot hold 0.75 MB");
                assert_eq!(summary.depth, reference.depth, "budget {budget}");
            }
            assert!(is_empty_dir(parent.path()));

            // Spilled from the first record (as for a file known to be larger than the
            // budget): the same output, through files even where memory would have held it.
            let mut rng = Pcg64::seed_from_u64(budget);
            let (at_once, summary, asked) = spilling(
                &shuffle.spill_at_once(true),
                &input[..split],
                Trickle(&input[split..], piece),
                &mut rng,
                parent.path(),
            );
            assert!(
                at_once == expected,
                "budget {budget}, split {split}, pieces of {piece}: spilled at once, not shuffle_in's output"
            );
            assert!(
                asked && summary.bucket_files > 0,
                "budget {budget}: not spilled"
            );
            assert_eq!(summary.records, reference.records);
            assert_eq!(summary.depth, reference.depth.max(1), "budget {budget}");
            assert!(is_empty_dir(parent.path()));
        }
    }
}

/// Every one of the 5! orders is equally likely through the in-memory buckets (5 records, so
/// some runs put two or more in one bucket and the bucket's own shuffle matters).
#[test]
fn every_order_is_equally_likely_in_memory() {
    let shuffle = shuffler(LARGE);
    let parent = tempfile::tempdir().unwrap();
    let input: Vec<u8> = (0..5).flat_map(|i| record(i, 8)).collect();
    let mut rng = Pcg64::seed_from_u64(2027);
    let p = permutation_p_value(5, 3_000, |v| {
        let (output, summary, asked) = spilling(&shuffle, &[], &input[..], &mut rng, parent.path());
        assert!(!asked && summary.bucket_files == 0);
        v.copy_from_slice(&indices(&output));
    });
    assert!(p > 1e-6, "p = {p}");
}

/// The position test through the in-memory buckets: 2,000 records, about 60 per bucket, so
/// the shuffle within each bucket decides most of the order.
#[test]
fn positions_are_uniform_in_memory() {
    let shuffle = shuffler(LARGE);
    let parent = tempfile::tempdir().unwrap();
    let n = 2_000;
    let input: Vec<u8> = (0..n).flat_map(|i| record(i, 12)).collect();
    let mut rng = Pcg64::seed_from_u64(12);
    let p = block_position_p_value(n, 10, 200, |v| {
        let (output, _, asked) = spilling(
            &shuffle,
            &input[..100],
            &input[100..],
            &mut rng,
            parent.path(),
        );
        assert!(!asked);
        for (slot, i) in v.iter_mut().zip(indices(&output)) {
            *slot = i as u32;
        }
    });
    assert!(p > 1e-6, "p = {p}");
}

#[test]
fn negative_control_labels_that_are_not_random_are_rejected_in_memory() {
    let shuffle = shuffler(LARGE);
    let parent = tempfile::tempdir().unwrap();
    let input: Vec<u8> = (0..5).flat_map(|i| record(i, 8)).collect();
    let p = permutation_p_value(5, 3_000, |v| {
        let (output, _, _) = spilling(&shuffle, &[], &input[..], &mut Counting, parent.path());
        v.copy_from_slice(&indices(&output));
    });
    assert!(p < 1e-9, "p = {p}");
    let n = 2_000;
    let input: Vec<u8> = (0..n).flat_map(|i| record(i, 12)).collect();
    let p = block_position_p_value(n, 10, 200, |v| {
        let (output, _, _) = spilling(&shuffle, &[], &input[..], &mut Counting, parent.path());
        for (slot, i) in v.iter_mut().zip(indices(&output)) {
            *slot = i as u32;
        }
    });
    assert!(p < 1e-9, "p = {p}");
}

/// Megabytes of records through the in-memory buckets (many blocks each): the output holds
/// exactly the input's records, in a new order.
#[test]
fn nothing_is_lost_or_duplicated_in_memory() {
    let mut input = Vec::new();
    for i in 0..200_000u32 {
        input.extend_from_slice(format!("{i} {}\n", "z".repeat(i as usize % 50)).as_bytes());
    }
    let shuffle = shuffler(LARGE);
    let parent = tempfile::tempdir().unwrap();
    let mut rng = Pcg64::seed_from_u64(3);
    let (output, summary, asked) = spilling(
        &shuffle,
        &input[..1000],
        Trickle(&input[1000..], 65_537),
        &mut rng,
        parent.path(),
    );
    assert!(!asked);
    assert_eq!(summary.records, 200_000);
    let sorted = |bytes: &[u8]| {
        let mut records: Vec<Vec<u8>> = bytes
            .split_inclusive(|&b| b == b'\n')
            .map(<[u8]>::to_vec)
            .collect();
        records.sort_unstable();
        records
    };
    assert_eq!(sorted(&output), sorted(&input));
    assert_ne!(output, input);
}

/// A scratch directory that cannot be made is an error once the buckets must spill, and
/// no error while they fit.
#[test]
fn a_failing_scratch_directory_matters_only_when_spilling() {
    let input: Vec<u8> = (0..2000).flat_map(|i| record(i, 40)).collect();
    let mut refuse = || -> Result<PathBuf, ExternalError> {
        Err(ExternalError::TempCreate {
            dir: PathBuf::from("/nonexistent"),
            source: io::Error::from(io::ErrorKind::PermissionDenied),
        })
    };
    let mut rng = Pcg64::seed_from_u64(1);
    let mut output = Vec::new();
    shuffler(LARGE)
        .shuffle_spilling(
            Vec::new(),
            &input[..],
            &mut output,
            &mut refuse,
            &mut rng,
            &mut (),
        )
        .unwrap();
    let mut output = Vec::new();
    let err = shuffler(16 << 10)
        .shuffle_spilling(
            Vec::new(),
            &input[..],
            &mut output,
            &mut refuse,
            &mut rng,
            &mut (),
        )
        .unwrap_err();
    assert!(matches!(err, ExternalError::TempCreate { .. }), "{err:?}");
    assert!(
        output.is_empty(),
        "nothing is written before the scatter is done"
    );
}
