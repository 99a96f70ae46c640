//! The spill files of a running external shuffle, inspected and damaged from inside the
//! input reader, while the shuffle holds them: they must be private (0600 whatever the umask),
//! anonymous (no name in the scratch directory, so nothing survives the process), one per
//! level, and checked on read-back (a truncated or changed spill is an error, never output).
#![cfg(target_os = "linux")]

use std::io::{self, Read};
use std::os::unix::fs::{FileExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use fairdeal_core::SeedableRng;
use fairdeal_external::{ExternalError, ExternalShuffle, MemoryBudget};
use rand_pcg::Pcg64;

/// Record `i` padded to `width` bytes with its newline.
fn record(i: usize, width: usize) -> Vec<u8> {
    format!("{i:0>w$}\n", w = width - 1).into_bytes()
}

/// The descriptors of this process open on a deleted file in `dir`: the anonymous spill
/// files (`O_TMPFILE` shows as `dir/#inode (deleted)`).
fn spill_fds(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc/self/fd").unwrap() {
        let fd = entry.unwrap().path();
        let Ok(target) = std::fs::read_link(&fd) else {
            continue;
        };
        let target = target.to_string_lossy().into_owned();
        if target.starts_with(&*dir.to_string_lossy()) && target.ends_with(" (deleted)") {
            found.push(fd);
        }
    }
    found
}

/// The input, served in 4 KiB reads; after `after` bytes, calls `at_spill` once with the
/// spill files then open (it has seen a spill by then: the input is 16 budgets).
struct Watched<'a, F: FnMut(&[PathBuf])> {
    data: &'a [u8],
    served: usize,
    after: usize,
    dir: &'a Path,
    at_spill: F,
    called: bool,
}

impl<F: FnMut(&[PathBuf])> Read for Watched<'_, F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.served >= self.after && !self.called {
            self.called = true;
            (self.at_spill)(&spill_fds(self.dir));
        }
        let n = buf.len().min(4096).min(self.data.len() - self.served);
        buf[..n].copy_from_slice(&self.data[self.served..self.served + n]);
        self.served += n;
        Ok(n)
    }
}

/// 200,000 records of 20 bytes (4 MB) at a 400 KB budget: spilled, one level, and each
/// bucket larger than its 64 KiB write buffer, so on disk well before the input ends.
fn input() -> Vec<u8> {
    (0..200_000).flat_map(|i| record(i, 20)).collect()
}

const BUDGET: u64 = 400_000;

/// Runs the spilling shuffle with `at_spill` called once most of the input has been read.
fn run(
    at_spill: impl FnMut(&[PathBuf]) + Send,
) -> (Result<Vec<u8>, ExternalError>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let data = input();
    let reader = Watched {
        data: &data,
        served: 0,
        after: data.len() - 10_000,
        dir: dir.path(),
        at_spill,
        called: false,
    };
    let shuffle = ExternalShuffle::new(MemoryBudget::new(BUDGET).unwrap(), b'\n');
    let mut output = Vec::new();
    let path = dir.path().to_path_buf();
    let result = shuffle
        .shuffle_spilling(
            Vec::new(),
            reader,
            &mut output,
            &mut || Ok(path.clone()),
            &mut Pcg64::seed_from_u64(1),
            &mut (),
        )
        .map(|_| output);
    (result, dir)
}

#[test]
fn spills_are_private_anonymous_and_one_per_level_whatever_the_umask() {
    // The most permissive umask: only the mode the files are created with protects them.
    let old = rustix::process::umask(rustix::fs::Mode::empty());
    let mut seen = Vec::new();
    let (result, dir) = run(|fds| {
        for fd in fds {
            let meta = std::fs::metadata(fd).unwrap();
            seen.push((meta.permissions().mode() & 0o777, meta.len()));
        }
    });
    rustix::process::umask(old);
    let output = result.unwrap();
    assert_eq!(output.len(), input().len());
    // One spill file for the level, holding the 32 buckets, with data in it.
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].0, 0o600);
    assert!(seen[0].1 > BUDGET, "{seen:?}");
    // Nothing ever had a name in the scratch directory, and nothing is open any more.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    assert!(spill_fds(dir.path()).is_empty());
}

/// Opens the spill file behind a descriptor of this process for writing, as another process
/// of the same user could through `/proc/PID/fd`.
fn reopen(fd: &Path) -> std::fs::File {
    std::fs::OpenOptions::new().write(true).open(fd).unwrap()
}

#[test]
fn a_truncated_spill_is_an_error_not_short_output() {
    let (result, _dir) = run(|fds| {
        assert_eq!(fds.len(), 1);
        reopen(&fds[0]).set_len(1000).unwrap();
    });
    // Later appends go past the new end, so the cut-off bytes read back as a hole of zeros:
    // caught by the checksum (a cut after the last append reads back short, tested in the
    // library's unit tests).
    let error = result.unwrap_err();
    assert!(
        matches!(error, ExternalError::TempDamaged { .. }),
        "{error:?}"
    );
}

#[test]
fn a_changed_byte_in_a_spill_is_an_error_not_wrong_output() {
    let (result, _dir) = run(|fds| {
        assert_eq!(fds.len(), 1);
        reopen(&fds[0]).write_all_at(b"#", 500).unwrap();
    });
    let error = result.unwrap_err();
    assert!(
        matches!(error, ExternalError::TempDamaged { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("checksum"), "{error}");
}

#[test]
fn negative_control_the_same_run_without_damage_succeeds() {
    let (result, _dir) = run(|fds| assert_eq!(fds.len(), 1));
    let mut output = result.unwrap();
    let mut expected = input();
    let sort = |bytes: &mut Vec<u8>| {
        let mut lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
        lines.sort_unstable();
        lines.concat()
    };
    output = sort(&mut output);
    expected = sort(&mut expected);
    assert_eq!(output, expected);
}

#[test]
fn a_deep_shuffle_holds_one_spill_file_per_level_in_use() {
    // 4 MB at a 2 KB budget: three levels or more. The reader cannot see the deeper levels (they
    // are made after the input is read), so count what was created through the summary and
    // check that nothing named was ever left.
    let dir = tempfile::tempdir().unwrap();
    let data = input();
    let shuffle = ExternalShuffle::new(MemoryBudget::new(2048).unwrap(), b'\n');
    let mut output = Vec::new();
    let summary = shuffle
        .shuffle_in(
            &data[..],
            &mut output,
            dir.path(),
            &mut Pcg64::seed_from_u64(2),
            &mut (),
        )
        .unwrap();
    assert!(summary.depth >= 3, "{summary:?}");
    assert_eq!(output.len(), data.len());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
