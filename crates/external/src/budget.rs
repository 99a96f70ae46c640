//! The memory budget: how many bytes of records may be held in memory at once.

use std::fmt;
use std::str::FromStr;

/// Bytes counted per record when deciding whether a chunk fits the budget: the `&[u8]` that
/// indexes it while it is shuffled in memory.
pub const INDEX_BYTES_PER_RECORD: u64 = 16;

/// The smallest budget accepted: 1 KiB. Smaller budgets work the same way, only with more
/// recursion; this bound keeps a typo such as `--memory 1` from turning a shuffle into a
/// million tiny files.
pub const MIN_BUDGET: u64 = 1024;

/// The default budget is this fraction (1/`DEFAULT_FRACTION`) of physical memory.
pub const DEFAULT_FRACTION: u64 = 4;

/// The default budget when physical memory cannot be read: 1 GiB.
pub const FALLBACK_BUDGET: u64 = 1 << 30;

/// A number of bytes of records that may be held in memory at once, at least [`MIN_BUDGET`].
///
/// A chunk of `b` bytes holding `r` records is held in memory only when
/// `b + 16 r <= budget` (16 bytes is the slice that indexes each record, see
/// [`INDEX_BYTES_PER_RECORD`]).
///
/// ```
/// use fairdeal_external::MemoryBudget;
/// assert_eq!("512M".parse::<MemoryBudget>().unwrap().bytes(), 512 << 20);
/// assert_eq!("4G".parse::<MemoryBudget>().unwrap().bytes(), 4 << 30);
/// assert_eq!("1536".parse::<MemoryBudget>().unwrap().bytes(), 1536);
/// assert!("12Q".parse::<MemoryBudget>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MemoryBudget(u64);

/// A memory budget that could not be parsed or is out of range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BudgetError {
    /// Not a number with an optional `K`, `M`, `G` or `T` suffix.
    #[error(
        "invalid size '{0}': expected a whole number of bytes with an optional K, M, G or T suffix (e.g. 512M)"
    )]
    Malformed(String),
    /// Smaller than [`MIN_BUDGET`].
    #[error("size '{0}' is below the minimum of 1K")]
    TooSmall(String),
    /// Larger than 2^64 bytes, or than the limit the caller set (physical memory).
    #[error("size '{text}' is more than the {limit} bytes allowed")]
    TooLarge {
        /// The size as given.
        text: String,
        /// The largest accepted size.
        limit: u64,
    },
}

impl MemoryBudget {
    /// A budget of `bytes` bytes.
    ///
    /// # Errors
    ///
    /// [`BudgetError::TooSmall`] below [`MIN_BUDGET`].
    pub fn new(bytes: u64) -> Result<Self, BudgetError> {
        if bytes < MIN_BUDGET {
            return Err(BudgetError::TooSmall(bytes.to_string()));
        }
        Ok(Self(bytes))
    }

    /// The budget in bytes.
    pub const fn bytes(self) -> u64 {
        self.0
    }

    /// Whether a chunk of `bytes` bytes holding `records` records may be held in memory.
    pub fn holds(self, bytes: u64, records: u64) -> bool {
        records
            .checked_mul(INDEX_BYTES_PER_RECORD)
            .and_then(|index| index.checked_add(bytes))
            .is_some_and(|total| total <= self.0)
    }

    /// Parses `text` as [`FromStr`] does, and also refuses budgets above `limit` (e.g. the
    /// machine's physical memory).
    ///
    /// # Errors
    ///
    /// As [`FromStr`], plus [`BudgetError::TooLarge`] above `limit`.
    pub fn parse_at_most(text: &str, limit: u64) -> Result<Self, BudgetError> {
        let budget: Self = text.parse()?;
        if budget.0 > limit {
            return Err(BudgetError::TooLarge {
                text: text.to_owned(),
                limit,
            });
        }
        Ok(budget)
    }

    /// The default budget: 1/[`DEFAULT_FRACTION`] of `physical` bytes of memory (or
    /// [`FALLBACK_BUDGET`] when unknown), at least [`MIN_BUDGET`].
    pub fn default_for(physical: Option<u64>) -> Self {
        let bytes = physical.map_or(FALLBACK_BUDGET, |p| p / DEFAULT_FRACTION);
        Self(bytes.max(MIN_BUDGET))
    }
}

impl FromStr for MemoryBudget {
    type Err = BudgetError;

    /// Parses a whole number of bytes with an optional binary suffix: `K` (2^10), `M` (2^20),
    /// `G` (2^30) or `T` (2^40), in either case, optionally followed by `B` or `iB` (`512M`,
    /// `4GiB`, `1k`), as GNU `sort -S` reads sizes.
    fn from_str(text: &str) -> Result<Self, BudgetError> {
        let malformed = || BudgetError::Malformed(text.to_owned());
        let digits_end = text
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len());
        let (digits, suffix) = text.split_at(digits_end);
        if digits.is_empty() {
            return Err(malformed());
        }
        let shift = match suffix.to_ascii_uppercase().as_str() {
            "" | "B" => 0,
            "K" | "KB" | "KIB" => 10,
            "M" | "MB" | "MIB" => 20,
            "G" | "GB" | "GIB" => 30,
            "T" | "TB" | "TIB" => 40,
            _ => return Err(malformed()),
        };
        let too_large = || BudgetError::TooLarge {
            text: text.to_owned(),
            limit: u64::MAX,
        };
        let number: u64 = digits.parse().map_err(|_| too_large())?;
        let bytes = number.checked_mul(1 << shift).ok_or_else(too_large)?;
        if bytes < MIN_BUDGET {
            return Err(BudgetError::TooSmall(text.to_owned()));
        }
        Ok(Self(bytes))
    }
}

impl fmt::Display for MemoryBudget {
    /// The budget in the largest binary unit that divides it (`256M`, `1536K`, `1000`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (shift, unit) in [(40, 'T'), (30, 'G'), (20, 'M'), (10, 'K')] {
            if self.0.is_multiple_of(1 << shift) {
                return write!(f, "{}{unit}", self.0 >> shift);
            }
        }
        write!(f, "{}", self.0)
    }
}

/// The machine's physical memory in bytes (`MemTotal` in `/proc/meminfo`), or `None` where
/// that cannot be read (not Linux).
pub fn physical_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_mem_total(&meminfo)
}

/// The memory this process may use, in bytes: the smallest of physical memory
/// ([`physical_memory`]), the cgroup's limit (v2 `memory.max`, v1
/// `memory.limit_in_bytes`) and the resource limits `RLIMIT_AS` and `RLIMIT_DATA`
/// (`ulimit -v`, `ulimit -d`); `None` when none of them is known. The default budget is a
/// fraction of this ([`MemoryBudget::default_for`]), so a shuffle in a container or under
/// `ulimit -v` goes external instead of failing to allocate.
pub fn memory_limit() -> Option<u64> {
    memory_limit_source().map(|(limit, _)| limit)
}

/// Where [`memory_limit`] comes from: the limit a message about the default budget names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryLimitSource {
    /// The machine's physical memory.
    Physical,
    /// The cgroup's memory limit (a container, a systemd unit, a batch job).
    Cgroup,
    /// `RLIMIT_AS`, `ulimit -v`.
    AddressSpace,
    /// `RLIMIT_DATA`, `ulimit -d`.
    Data,
}

impl fmt::Display for MemoryLimitSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Physical => "physical memory",
            Self::Cgroup => "the cgroup's memory limit",
            Self::AddressSpace => "ulimit -v",
            Self::Data => "ulimit -d",
        })
    }
}

/// [`memory_limit`] with the limit it is: the smallest of them, and which one.
pub fn memory_limit_source() -> Option<(u64, MemoryLimitSource)> {
    let rlimit = |resource| rustix::process::getrlimit(resource).current;
    [
        (physical_memory(), MemoryLimitSource::Physical),
        (cgroup_limit(), MemoryLimitSource::Cgroup),
        (
            rlimit(rustix::process::Resource::As),
            MemoryLimitSource::AddressSpace,
        ),
        (
            rlimit(rustix::process::Resource::Data),
            MemoryLimitSource::Data,
        ),
    ]
    .into_iter()
    .filter_map(|(limit, source)| limit.map(|limit| (limit, source)))
    .min_by_key(|&(limit, _)| limit)
}

/// The address space this process may still map, in bytes: `RLIMIT_AS` (`ulimit -v`) minus
/// `VmSize` from `/proc/self/status`; `None` without a limit (or where it cannot be read).
/// Thread pools size themselves to it: every thread reserves a stack and a malloc arena.
pub fn address_space_left() -> Option<u64> {
    let limit = rustix::process::getrlimit(rustix::process::Resource::As).current?;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let used = kib_field(&status, "VmSize:")?;
    Some(limit.saturating_sub(used))
}

/// The stack of every worker thread a thread pool starts, set explicitly (Rust's default, which
/// `RUST_MIN_STACK` could change) so that a thread's cost is known before it starts.
pub const WORKER_STACK: u64 = 2 << 20;

/// The address space glibc's malloc reserves for the arena of each thread that allocates
/// (`HEAP_MAX_SIZE`, 64 MiB on 64-bit targets): a thread's allocations are served from it, but
/// the whole reservation counts against `ulimit -v` (`RLIMIT_AS`).
pub const ARENA_RESERVATION: u64 = 64 << 20;

/// The address space each worker thread beyond the calling one takes: its stack, the stack's
/// guard page, and its malloc arena.
pub const PER_WORKER: u64 = WORKER_STACK + 4096 + ARENA_RESERVATION;

/// The address space kept free for the work itself, whatever else a caller states: the
/// tables and buffers the engines map apart from any arena, and the calling thread's heap.
/// As much as one more worker: the largest engine table (the poker evaluator's) takes far
/// less (measured in `crates/cli/tests/limits.rs`).
pub const WORK_RESERVE: u64 = PER_WORKER;

/// The address space left under `ulimit -v` does not even hold [`WORK_RESERVE`]: no thread
/// count helps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "the address-space limit (ulimit -v) leaves {} MiB free, less than the {} MiB kept for the \
     work; raise ulimit -v by at least {} MiB",
    .left >> 20,
    WORK_RESERVE >> 20,
    (WORK_RESERVE - .left).div_ceil(1 << 20)
)]
pub struct NoRoomForWork {
    /// The address space left, in bytes (less than [`WORK_RESERVE`]).
    pub left: u64,
}

/// How many threads a pool runs on when `left` bytes of address space are free (`None`: no
/// limit, see [`address_space_left`]) and the work needs `work` bytes beyond
/// [`WORK_RESERVE`]: the calling thread, which costs nothing new, plus as many of the other
/// `asked − 1` workers as fit at [`PER_WORKER`] each.
///
/// ```
/// use fairdeal_external::{PER_WORKER, WORK_RESERVE, fitting_threads};
/// assert_eq!(fitting_threads(8, None, 0), Ok(8));
/// assert_eq!(fitting_threads(8, Some(WORK_RESERVE + 2 * PER_WORKER), 0), Ok(3));
/// ```
///
/// # Errors
///
/// [`NoRoomForWork`] when even the work reserve does not fit.
pub fn fitting_threads(asked: usize, left: Option<u64>, work: u64) -> Result<usize, NoRoomForWork> {
    let Some(left) = left else {
        return Ok(asked);
    };
    if left < WORK_RESERVE {
        return Err(NoRoomForWork { left });
    }
    let room = left - WORK_RESERVE - work.min(left - WORK_RESERVE);
    let extra = usize::try_from(room / PER_WORKER).unwrap_or(usize::MAX);
    Ok(asked.min(extra.saturating_add(1)))
}

/// The memory limit of this process's cgroup (v2, else v1), if it has one.
fn cgroup_limit() -> Option<u64> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let read = |path: String| {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|t| parse_limit(&t))
    };
    let mut limits = Vec::new();
    for line in cgroups.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let path = path.trim_end_matches('/');
        if controllers.is_empty() {
            limits.push(read(format!("/sys/fs/cgroup{path}/memory.max")));
        } else if controllers.split(',').any(|c| c == "memory") {
            limits.push(read(format!(
                "/sys/fs/cgroup/memory{path}/memory.limit_in_bytes"
            )));
            // Inside a container the cgroup's own directory is mounted as the root.
            limits.push(read(
                "/sys/fs/cgroup/memory/memory.limit_in_bytes".to_owned(),
            ));
        }
    }
    limits.into_iter().flatten().min()
}

/// A cgroup limit file's content: a number of bytes, or `max` (v2) or a huge number (v1,
/// "no limit") for none.
fn parse_limit(text: &str) -> Option<u64> {
    let bytes: u64 = text.trim().parse().ok()?;
    (bytes < 1 << 60).then_some(bytes)
}

/// The bytes of a `Key:   N kB` line of a `/proc` file (`/proc/meminfo`'s `MemTotal:`,
/// `/proc/self/status`'s `VmSize:`), or `None` when no line starts with `key`.
fn kib_field(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line[key.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// `MemTotal:  24684128 kB` → bytes.
fn parse_mem_total(meminfo: &str) -> Option<u64> {
    kib_field(meminfo, "MemTotal:")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_are_sized_to_the_address_space_left() {
        const MIB: u64 = 1 << 20;
        // No limit: as asked.
        assert_eq!(fitting_threads(16, None, u64::MAX), Ok(16));
        // Room for the reserve and three more workers: the caller plus three.
        let left = WORK_RESERVE + 3 * PER_WORKER + MIB;
        assert_eq!(fitting_threads(16, Some(left), 0), Ok(4));
        assert_eq!(fitting_threads(2, Some(left), 0), Ok(2));
        // What the work holds comes first.
        assert_eq!(fitting_threads(16, Some(left), 2 * PER_WORKER), Ok(2));
        assert_eq!(fitting_threads(16, Some(left), u64::MAX), Ok(1));
        // The reserve alone: the calling thread only.
        assert_eq!(fitting_threads(1024, Some(WORK_RESERVE), 0), Ok(1));
        // Not even the reserve: refused, saying what would work.
        let err = fitting_threads(1, Some(WORK_RESERVE - 10 * MIB), 0)
            .unwrap_err()
            .to_string();
        assert!(err.contains("ulimit -v"), "{err}");
        assert!(err.contains("raise ulimit -v by at least 10 MiB"), "{err}");
    }

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        let parse = |s: &str| s.parse::<MemoryBudget>().map(MemoryBudget::bytes);
        assert_eq!(parse("1K"), Ok(1024));
        assert_eq!(parse("1k"), Ok(1024));
        assert_eq!(parse("256M"), Ok(256 << 20));
        assert_eq!(parse("256MiB"), Ok(256 << 20));
        assert_eq!(parse("4G"), Ok(4 << 30));
        assert_eq!(parse("2T"), Ok(2 << 40));
        assert_eq!(parse("4096"), Ok(4096));
        assert_eq!(parse("4096B"), Ok(4096));
        for bad in ["", "M", "-1K", "1.5G", "12Q", " 1K", "1K ", "1KK", "0x10"] {
            assert!(
                matches!(parse(bad), Err(BudgetError::Malformed(_))),
                "{bad:?}"
            );
        }
        assert!(matches!(parse("1023"), Err(BudgetError::TooSmall(_))));
        assert!(matches!(parse("0"), Err(BudgetError::TooSmall(_))));
        assert!(matches!(
            parse("99999999999999999999"),
            Err(BudgetError::TooLarge { .. })
        ));
        assert!(matches!(
            parse("17000000T"),
            Err(BudgetError::TooLarge { .. })
        ));
    }

    #[test]
    fn the_limit_is_enforced_and_sizes_print_back() {
        assert!(MemoryBudget::parse_at_most("2G", 1 << 30).is_err());
        assert_eq!(
            MemoryBudget::parse_at_most("1G", 1 << 30).unwrap().bytes(),
            1 << 30
        );
        for text in ["256M", "1536K", "3G", "5000", "1T"] {
            assert_eq!(text.parse::<MemoryBudget>().unwrap().to_string(), text);
        }
    }

    #[test]
    fn the_default_is_a_quarter_of_physical_memory() {
        assert_eq!(MemoryBudget::default_for(Some(8 << 30)).bytes(), 2 << 30);
        assert_eq!(MemoryBudget::default_for(None).bytes(), FALLBACK_BUDGET);
        assert_eq!(MemoryBudget::default_for(Some(10)).bytes(), MIN_BUDGET);
        assert_eq!(
            parse_mem_total("MemTotal:       24684128 kB\nMemFree: 1 kB\n"),
            Some(24_684_128 * 1024)
        );
        assert_eq!(parse_mem_total("nothing"), None);
        assert_eq!(
            kib_field(
                "Name:\tfairdeal\nVmPeak:\t  245448 kB\nVmSize:\t  245000 kB\n",
                "VmSize:"
            ),
            Some(245_000 * 1024)
        );
        assert_eq!(kib_field("VmRSS: 1 kB", "VmSize:"), None);
    }

    #[test]
    fn cgroup_limits_parse_and_unlimited_is_none() {
        assert_eq!(parse_limit("536870912\n"), Some(512 << 20));
        assert_eq!(parse_limit("max\n"), None);
        assert_eq!(parse_limit("9223372036854771712\n"), None);
        assert_eq!(parse_limit(""), None);
    }

    #[test]
    fn the_limit_is_at_most_physical_memory() {
        if let (Some(limit), Some(physical)) = (memory_limit(), physical_memory()) {
            assert!(limit <= physical);
        }
    }

    #[test]
    fn holding_counts_the_index() {
        let budget = MemoryBudget::new(1024).unwrap();
        assert!(budget.holds(1024 - 16 * 4, 4));
        assert!(!budget.holds(1024 - 16 * 4 + 1, 4));
        assert!(!budget.holds(0, u64::MAX));
    }
}
