//! The external shuffle from the outside: exact uniformity with a budget small enough that
//! every run scatters (and recurses), nothing lost or duplicated, reservoir sampling, and
//! honest failure with the temporary files removed.

use std::convert::Infallible;
use std::io::{self, Read, Write};
use std::path::Path;

use fairdeal_core::SeedableRng;
use fairdeal_core::rand_core::TryRng;
use fairdeal_external::{ExternalError, ExternalShuffle, Loaded, MemoryBudget, Progress, Summary};
use fairdeal_testkit::{block_position_p_value, lehmer_rank, permutation_p_value};
use rand_pcg::Pcg64;

mod common;
use common::{Counting, indices, is_empty_dir, record};

/// The smallest budget, 1 KiB: a few records of 500 bytes already need a second level.
fn tiny() -> ExternalShuffle {
    ExternalShuffle::new(MemoryBudget::new(1024).unwrap(), b'\n')
}

/// A fresh, empty directory for one test's temporary files.
fn temp_parent() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Runs the external shuffle (always the external path, whatever the size).
fn shuffle_bytes(
    shuffle: &ExternalShuffle,
    input: &[u8],
    rng: &mut Pcg64,
    parent: &Path,
) -> (Vec<u8>, Summary) {
    let mut output = Vec::new();
    let summary = shuffle
        .shuffle(input, &mut output, parent, rng, &mut ())
        .unwrap();
    (output, summary)
}

fn sorted_records(bytes: &[u8]) -> Vec<&[u8]> {
    let mut records: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
    records.sort_unstable();
    records
}

/// Every one of the 4! orders is equally likely. Records of 500 bytes against a 1 KiB budget:
/// a bucket with two or more of them is scattered again (about one run in six), and one
/// record of 1,100 bytes is larger than the budget and is streamed through.
#[test]
fn every_order_is_equally_likely_with_recursion_and_an_oversized_record() {
    let shuffle = tiny();
    let parent = temp_parent();
    let widths = [500, 500, 1100, 500];
    let input: Vec<u8> = widths
        .iter()
        .enumerate()
        .flat_map(|(i, &w)| record(i, w))
        .collect();
    let mut rng = Pcg64::seed_from_u64(2026);
    let mut deeper = 0;
    let p = permutation_p_value(4, 1_200, |v| {
        let (output, summary) = shuffle_bytes(&shuffle, &input, &mut rng, parent.path());
        deeper += u32::from(summary.depth > 1);
        v.copy_from_slice(&indices(&output));
    });
    assert!(p > 1e-6, "p = {p}");
    assert!(deeper > 100, "only {deeper} runs recursed");
    assert!(is_empty_dir(parent.path()));
}

#[test]
fn negative_control_labels_that_are_not_random_are_rejected() {
    let shuffle = tiny();
    let parent = temp_parent();
    let input: Vec<u8> = (0..4).flat_map(|i| record(i, 500)).collect();
    let mut rng = Counting;
    let p = permutation_p_value(4, 240, |v| {
        let mut output = Vec::new();
        shuffle
            .shuffle(&input[..], &mut output, parent.path(), &mut rng, &mut ())
            .unwrap();
        v.copy_from_slice(&indices(&output));
    });
    assert!(p < 1e-9, "p = {p}");
}

/// The position test on 600 records of 64 bytes with a 1 KiB budget (two or three levels):
/// which tenth of the input lands in which tenth of the output.
#[test]
fn positions_are_uniform_on_a_deeper_shuffle() {
    let shuffle = tiny();
    let parent = temp_parent();
    let n = 600;
    let input: Vec<u8> = (0..n).flat_map(|i| record(i, 64)).collect();
    let mut rng = Pcg64::seed_from_u64(11);
    let mut depth = 0;
    let p = block_position_p_value(n, 10, 150, |v| {
        let (output, summary) = shuffle_bytes(&shuffle, &input, &mut rng, parent.path());
        depth = depth.max(summary.depth);
        for (slot, i) in v.iter_mut().zip(indices(&output)) {
            *slot = i as u32;
        }
    });
    assert!(p > 1e-6, "p = {p}");
    assert!(depth >= 2, "depth {depth}");
    assert!(is_empty_dir(parent.path()));
}

/// Several megabytes of varied records (empty ones, duplicates, binary bytes, a last record
/// without newline) through three levels: the output holds exactly the input's records.
#[test]
fn nothing_is_lost_or_duplicated_on_a_larger_input() {
    let mut rng = Pcg64::seed_from_u64(5);
    let mut input = Vec::new();
    for i in 0..120_000u32 {
        match i % 7 {
            0 => input.push(b'\n'),
            1 => input.extend_from_slice(b"duplicate\n"),
            2 => input.extend_from_slice(&[0, 0xff, 0xfe, b'\r', b'\n']),
            _ => input.extend_from_slice(
                format!("record {i} {}\n", "x".repeat(i as usize % 90)).as_bytes(),
            ),
        }
    }
    input.extend_from_slice(b"no newline at the end");
    let shuffle = ExternalShuffle::new(MemoryBudget::new(16 << 10).unwrap(), b'\n');
    let parent = temp_parent();
    let (output, summary) = shuffle_bytes(&shuffle, &input, &mut rng, parent.path());
    assert!(summary.depth >= 2, "{summary:?}");
    assert_eq!(summary.records, 120_001);
    assert_eq!(summary.bytes, input.len() as u64 + 1);
    let mut expected = input.clone();
    expected.push(b'\n');
    assert_eq!(sorted_records(&output), sorted_records(&expected));
    assert_ne!(output, expected);
    assert!(is_empty_dir(parent.path()));
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

/// The output depends on the records, the seed and the budget, not on how the input arrives.
#[test]
fn the_same_seed_gives_the_same_output_however_the_input_is_read() {
    let input: Vec<u8> = (0..3000).flat_map(|i| record(i, 20)).collect();
    let shuffle = ExternalShuffle::new(MemoryBudget::new(8 << 10).unwrap(), b'\n');
    let parent = temp_parent();
    let run = |reader: &mut dyn Read| {
        let mut output = Vec::new();
        let mut rng = Pcg64::seed_from_u64(99);
        let Loaded::TooLarge(prefix, rest) = shuffle.load(reader, None).unwrap() else {
            panic!("60 KB fits in 8 KiB");
        };
        shuffle
            .shuffle(
                prefix.chain(rest),
                &mut output,
                parent.path(),
                &mut rng,
                &mut (),
            )
            .unwrap();
        output
    };
    let whole = run(&mut &input[..]);
    assert_eq!(run(&mut Trickle(&input, 7)), whole);
    assert_eq!(run(&mut Trickle(&input, 1)), whole);
    let mut rng = Pcg64::seed_from_u64(100);
    assert_ne!(
        shuffle_bytes(&shuffle, &input, &mut rng, parent.path()).0,
        whole
    );
}

#[test]
fn load_keeps_what_fits_and_hands_back_the_rest() {
    let shuffle = tiny();
    // 40 records of 9 bytes: 40 * (9 + 16) = 1000 <= 1024.
    let fits: Vec<u8> = (0..40).flat_map(|i| record(i, 9)).collect();
    match shuffle.load(&fits[..], Some(fits.len() as u64)).unwrap() {
        Loaded::InMemory(bytes) => assert_eq!(bytes, fits),
        Loaded::TooLarge(..) => panic!("fits"),
    }
    // One more record does not.
    let more: Vec<u8> = (0..41).flat_map(|i| record(i, 9)).collect();
    let Loaded::TooLarge(prefix, mut rest) = shuffle.load(Trickle(&more, 3), None).unwrap() else {
        panic!("does not fit");
    };
    let mut all = prefix.into_inner();
    rest.read_to_end(&mut all).unwrap();
    assert_eq!(all, more);
    // An empty input fits.
    assert!(matches!(shuffle.load(&b""[..], Some(0)), Ok(Loaded::InMemory(b)) if b.is_empty()));
}

/// `sample(k)`: every ordered pair of distinct records of five equally likely (Algorithm R,
/// then a shuffle of the reservoir).
#[test]
fn samples_are_uniform_ordered_subsets() {
    let shuffle = tiny();
    let input: Vec<u8> = (0..5).flat_map(|i| record(i, 2)).collect();
    let mut rng = Pcg64::seed_from_u64(3);
    let mut counts = [0u64; 25];
    for _ in 0..20_000 {
        let sample = shuffle.sample(Trickle(&input, 4), 2, &mut rng).unwrap();
        let idx: Vec<usize> = sample
            .iter()
            .map(|r| std::str::from_utf8(&r[..1]).unwrap().parse().unwrap())
            .collect();
        assert_ne!(idx[0], idx[1]);
        counts[idx[0] * 5 + idx[1]] += 1;
    }
    let pairs: Vec<u64> = (0..25)
        .filter(|c| c / 5 != c % 5)
        .map(|c| counts[c])
        .collect();
    let (_, p) = fairdeal_testkit::chi_square_uniform(&pairs);
    assert!(p > 1e-6, "p = {p}");
    // All of a short input, in a uniformly random order.
    let mut orders = vec![0u64; 6];
    for _ in 0..6_000 {
        let sample = shuffle.sample(&b"0\n1\n2"[..], 10, &mut rng).unwrap();
        let perm: Vec<usize> = sample.iter().map(|r| usize::from(r[0] - b'0')).collect();
        assert_eq!(sample.iter().map(Vec::len).collect::<Vec<_>>(), [2, 2, 2]);
        orders[lehmer_rank(&perm)] += 1;
    }
    let (_, p) = fairdeal_testkit::chi_square_uniform(&orders);
    assert!(p > 1e-6, "p = {p}");
    assert!(
        shuffle
            .sample(&b"a\nb\n"[..], 0, &mut rng)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_sample_larger_than_the_budget_is_refused() {
    let shuffle = tiny();
    let input: Vec<u8> = (0..200).flat_map(|i| record(i, 30)).collect();
    let mut rng = Pcg64::seed_from_u64(3);
    let err = shuffle.sample(&input[..], 100, &mut rng).unwrap_err();
    assert!(
        matches!(err, ExternalError::SampleTooLarge { k: 100, .. }),
        "{err}"
    );
}

/// A writer that fails once `left` bytes have been written (a full disk, `ulimit -f`).
struct FailingWriter {
    left: usize,
}

impl Write for FailingWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::from_raw_os_error(28)); // ENOSPC
        }
        let n = buf.len().min(self.left);
        self.left -= n;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A reader that fails after `left` bytes (a bad disk, a dropped network mount).
struct FailingReader<'a> {
    data: &'a [u8],
    left: usize,
}

impl Read for FailingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::from_raw_os_error(5)); // EIO
        }
        let n = buf.len().min(self.left).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        self.left -= n;
        Ok(n)
    }
}

#[test]
fn a_failing_output_is_an_error_and_leaves_no_temporary_files() {
    let input: Vec<u8> = (0..20_000).flat_map(|i| record(i, 30)).collect();
    let shuffle = ExternalShuffle::new(MemoryBudget::new(32 << 10).unwrap(), b'\n');
    let parent = temp_parent();
    for left in [0, 1000, 300_000] {
        let mut rng = Pcg64::seed_from_u64(1);
        let err = shuffle
            .shuffle(
                &input[..],
                FailingWriter { left },
                parent.path(),
                &mut rng,
                &mut (),
            )
            .unwrap_err();
        assert!(matches!(err, ExternalError::Output(_)), "{err}");
        assert_eq!(err.io_error().unwrap().raw_os_error(), Some(28));
        assert!(is_empty_dir(parent.path()), "after failing at {left}");
    }
}

#[test]
fn a_failing_input_is_an_error_and_leaves_no_temporary_files() {
    let input: Vec<u8> = (0..20_000).flat_map(|i| record(i, 30)).collect();
    let shuffle = ExternalShuffle::new(MemoryBudget::new(32 << 10).unwrap(), b'\n');
    let parent = temp_parent();
    let mut rng = Pcg64::seed_from_u64(1);
    let reader = FailingReader {
        data: &input,
        left: 400_000,
    };
    let err = shuffle
        .shuffle(reader, Vec::new(), parent.path(), &mut rng, &mut ())
        .unwrap_err();
    assert!(matches!(err, ExternalError::Input(_)), "{err}");
    assert!(is_empty_dir(parent.path()));
}

#[test]
fn an_unusable_temporary_directory_is_an_error() {
    let parent = temp_parent();
    let missing = parent.path().join("missing");
    let mut rng = Pcg64::seed_from_u64(1);
    let err = tiny()
        .shuffle(&b"a\nb\n"[..], Vec::new(), &missing, &mut rng, &mut ())
        .unwrap_err();
    assert!(matches!(err, ExternalError::TempCreate { .. }), "{err}");
    // A regular file is not a directory either.
    let file = parent.path().join("file");
    std::fs::write(&file, b"").unwrap();
    let err = tiny()
        .shuffle(&b"a\nb\n"[..], Vec::new(), &file, &mut rng, &mut ())
        .unwrap_err();
    assert!(matches!(err, ExternalError::TempCreate { .. }), "{err}");
}

/// Temporary files on `/dev/full`-like storage are not available in a test; a scratch
/// directory removed under the shuffle's feet is: creating the buckets fails cleanly.
#[test]
fn a_vanished_scratch_directory_is_an_error() {
    let parent = temp_parent();
    let scratch = parent.path().join("gone");
    let mut rng = Pcg64::seed_from_u64(1);
    let err = tiny()
        .shuffle_in(&b"a\nb\n"[..], Vec::new(), &scratch, &mut rng, &mut ())
        .unwrap_err();
    assert!(matches!(err, ExternalError::TempCreate { .. }), "{err}");
}

/// Labels that are all zero never split a bucket: the shuffle stops at the depth limit with an
/// error instead of recursing forever.
#[test]
fn a_generator_that_never_splits_is_stopped() {
    #[derive(Clone)]
    struct Zero;
    impl TryRng for Zero {
        type Error = Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Infallible> {
            Ok(0)
        }
        fn try_next_u64(&mut self) -> Result<u64, Infallible> {
            Ok(0)
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
            dst.fill(0);
            Ok(())
        }
    }
    impl SeedableRng for Zero {
        type Seed = [u8; 8];
        fn from_seed(_: [u8; 8]) -> Self {
            Self
        }
    }
    let parent = temp_parent();
    let input: Vec<u8> = (0..10).flat_map(|i| record(i, 300)).collect();
    let err = tiny()
        .shuffle(&input[..], Vec::new(), parent.path(), &mut Zero, &mut ())
        .unwrap_err();
    assert!(matches!(err, ExternalError::TooDeep { .. }), "{err}");
    assert!(is_empty_dir(parent.path()));
}

/// Progress reports add up to the bytes read and written.
#[test]
fn progress_counts_every_byte() {
    #[derive(Default)]
    struct Count(u64, u64);
    impl Progress for Count {
        fn read(&mut self, bytes: u64) {
            self.0 += bytes;
        }
        fn written(&mut self, bytes: u64) {
            self.1 += bytes;
        }
    }
    let input: Vec<u8> = (0..5000).flat_map(|i| record(i, 12)).collect();
    let parent = temp_parent();
    let mut count = Count::default();
    let mut rng = Pcg64::seed_from_u64(1);
    tiny()
        .shuffle(&input[..], io::sink(), parent.path(), &mut rng, &mut count)
        .unwrap();
    assert_eq!((count.0, count.1), (input.len() as u64, input.len() as u64));
}
