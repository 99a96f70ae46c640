//! Scratch paths for integration tests that are removed when the test is done.
//!
//! Tests write inputs, outputs and `-T` directories under cargo's `CARGO_TARGET_TMPDIR`. A
//! [`Scratch`] owns one such path and deletes it (file or directory tree) when dropped, on
//! success and on a failing assertion alike, so repeated runs do not fill the disk. Set
//! `FAIRDEAL_KEEP_SCRATCH=1` to keep them for a post-mortem.

use std::ffi::OsStr;
use std::fmt;
use std::ops::Deref;
use std::path::{Path, PathBuf};

/// A path under a test's scratch directory, removed when dropped.
///
/// It dereferences to [`Path`], so `scratch.join("x")`, `&*scratch` and `Command::arg(&scratch)`
/// read as they would with a `PathBuf`.
pub struct Scratch(PathBuf);

impl Scratch {
    /// `root/<pid>-<name>`, nothing created yet: the process id keeps concurrent runs of the
    /// same test binary apart. `root` is created if missing.
    pub fn path(root: &Path, name: &str) -> Self {
        std::fs::create_dir_all(root).expect("create the scratch root");
        Scratch(root.join(format!("{}-{name}", std::process::id())))
    }

    /// Like [`Scratch::path`], with an empty directory at the path (a leftover is removed).
    pub fn dir(root: &Path, name: &str) -> Self {
        let scratch = Self::path(root, name);
        remove(&scratch.0);
        std::fs::create_dir_all(&scratch.0).expect("create a scratch directory");
        scratch
    }
}

/// Removes a file or a directory tree; a missing path is fine.
fn remove(path: &Path) {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => {
            let _ = std::fs::remove_dir_all(path);
        }
        Ok(_) => {
            let _ = std::fs::remove_file(path);
        }
        Err(_) => {}
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::env::var_os("FAIRDEAL_KEEP_SCRATCH").is_none() {
            remove(&self.0);
        }
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<OsStr> for Scratch {
    fn as_ref(&self) -> &OsStr {
        self.0.as_os_str()
    }
}

impl fmt::Debug for Scratch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_trees_are_removed_on_drop() {
        let root = std::env::temp_dir().join("fairdeal-testkit-scratch");
        let file = Scratch::path(&root, "file");
        std::fs::write(&file, b"x").unwrap();
        let dir = Scratch::dir(&root, "tree");
        std::fs::create_dir_all(dir.join("a/b")).unwrap();
        std::fs::write(dir.join("a/b/c"), b"y").unwrap();
        let (file_path, dir_path) = (file.to_path_buf(), dir.to_path_buf());
        assert!(file_path.exists() && dir_path.join("a/b/c").exists());
        drop((file, dir));
        assert!(!file_path.exists(), "the file is gone");
        assert!(!dir_path.exists(), "the tree is gone");
    }

    #[test]
    fn a_panicking_test_still_cleans_up() {
        let root = std::env::temp_dir().join("fairdeal-testkit-scratch");
        let mut kept = PathBuf::new();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let dir = Scratch::dir(&root, "panics");
            kept = dir.to_path_buf();
            panic!("an assertion failed");
        }));
        assert!(result.is_err());
        assert!(!kept.as_os_str().is_empty() && !kept.exists());
    }
}
