//! The planner's and the executor's refusals in `fairdeal shuffle`'s words: the library's
//! errors are typed values naming no flag; here they name `--memory`, `-n`, `--algo` and the
//! rest, and say what would work.

use fairdeal_external::MemoryBudget;
use fairdeal_external::exec::{
    ExecError, SPOOL_BLOCK, SPOOL_BYTES_PER_BLOCK, SPOOL_BYTES_PER_RECORD,
};
use fairdeal_external::plan::{
    self, MAX_RANGE_IN_MEMORY, PARALLEL_ALGORITHM, PREFIX_ALGORITHM, PlanError,
    SPARSE_BYTES_PER_SAMPLE, human, human_ceiling, range_bytes,
};

use crate::common::usage;

/// `err` in the command's words, the budget named as `budget` (`--memory 1G`, or the default
/// budget and the limit it comes from).
pub(super) fn plan_message(err: &PlanError, budget: &str) -> String {
    let size_note = |size: &Option<u64>| size.map_or_else(String::new, |s| format!(" ({s} bytes)"));
    match err {
        PlanError::ThreadsWithoutScatter { algorithm } => format!(
            "--threads applies to the parallel shuffle only (no --algo, or --algo \
             {PARALLEL_ALGORITHM}), not to --algo {algorithm}"
        ),
        PlanError::ExactOrderBeyondBudget { backend, size, .. } => format!(
            "--backend {backend} reproduces its language's shuffle only in memory, and the input \
             is larger than {budget}{}: raise --memory, or use --sampler batched or another \
             backend for a shuffle through temporary files",
            size_note(size)
        ),
        PlanError::GnuBeyondBudget { size, .. } => format!(
            "--random-source reproduces GNU shuf's output only with the whole input in memory, \
             as GNU holds it, and the input{} is larger than {budget}: raise --memory, or use \
             --seed instead of --random-source for a shuffle through temporary files",
            size_note(size)
        ),
        PlanError::AlgorithmBeyondBudget {
            algorithm,
            size,
            sample,
            ..
        } => format!(
            "--algo {algorithm} needs the whole input in memory, and it is larger than \
             {budget}{}: raise --memory, or leave out --algo (or use --algo \
             {PARALLEL_ALGORITHM}) for {}",
            size_note(size),
            if *sample {
                "a reservoir sample"
            } else {
                "the external shuffle through temporary files"
            }
        ),
        PlanError::RangeAboveCap { lo, hi, len } => format!(
            "range {lo}-{hi} holds {len} numbers, more than the {MAX_RANGE_IN_MEMORY} a whole \
             shuffle of a range may hold; use -n K to sample from it"
        ),
        PlanError::RangeBeyondBudget {
            lo,
            hi,
            len,
            sample_possible,
            ..
        } => format!(
            "range {lo}-{hi} holds {len} numbers, {} in memory (8 bytes each), more than \
             {budget}; raise --memory to at least {}{}",
            human(range_bytes(*len)),
            human_ceiling(range_bytes(*len)),
            if *sample_possible {
                ""
            } else {
                ", or use -n K to sample from it"
            }
        ),
        PlanError::RangeNeedsPartial { lo, hi, len, .. } => format!(
            "range {lo}-{hi} holds {len} numbers, more than can be held in memory (at most \
             {MAX_RANGE_IN_MEMORY} numbers, 8 bytes each within {budget}), and only --algo \
             {PREFIX_ALGORITHM} can sample from a range without holding it"
        ),
        PlanError::SampleBeyondBudget { k, needed, .. } => format!(
            "a sample of {k} numbers needs about {} ({SPARSE_BYTES_PER_SAMPLE} bytes each), more \
             than {budget}; raise --memory to at least {}",
            human(*needed),
            human_ceiling(*needed)
        ),
    }
}

/// A plan refused, in the user's words. With `--memory` given it is a usage error (exit 2).
/// With the default budget, a refusal about the budget is a runtime failure (exit 1, as GNU's
/// `memory exhausted`): the budget is a fraction of the memory the process may use, and the
/// message names that limit (`ulimit -v`, the cgroup's, physical memory) instead of a
/// `--memory` the user never passed.
pub(super) fn plan_error(
    err: &PlanError,
    budget: MemoryBudget,
    memory_given: bool,
) -> anyhow::Error {
    let given = format!("--memory {budget}");
    if memory_given || err.budget().is_none() {
        return usage(plan_message(err, &given));
    }
    let limit = fairdeal_external::memory_limit_source().map_or_else(
        || "memory".to_owned(),
        |(bytes, source)| format!("{source} ({})", plan::human(bytes)),
    );
    let default = format!(
        "the default budget {budget} (1/{} of {limit})",
        fairdeal_external::DEFAULT_FRACTION
    );
    anyhow::anyhow!("{}", plan_message(err, &default))
}

/// An executor's error, in the user's words: a refusal once the input turned out larger than
/// the budget is a usage error, and the spool's limit names `--repeat` and `--memory`.
pub(super) fn exec_error(err: ExecError) -> anyhow::Error {
    match err {
        ExecError::Refused(refused) => refusal(&refused),
        ExecError::SpoolBeyondBudget { budget, records } => anyhow::anyhow!(
            "--repeat on input beyond --memory {budget} keeps {SPOOL_BYTES_PER_RECORD} bytes per \
             line and {SPOOL_BYTES_PER_BLOCK} per {} KiB in memory, and the input has more than \
             {records} lines (raise --memory)",
            SPOOL_BLOCK >> 10,
        ),
        other => anyhow::Error::new(other),
    }
}

/// A refusal once the input turned out larger than the budget (the executor's, or GNU's draw
/// loop's): a usage error naming `--memory`.
pub(crate) fn refusal(err: &PlanError) -> anyhow::Error {
    usage(plan_message(
        err,
        &format!("--memory {}", refused_budget(err)),
    ))
}

/// The budget a refusal names (every refusal beyond the budget names one).
fn refused_budget(err: &PlanError) -> String {
    err.budget()
        .map_or_else(|| "(none)".to_owned(), |budget| budget.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairdeal_external::plan::{Request, Source};

    const GIB: u64 = 1 << 30;

    fn budget(bytes: u64) -> MemoryBudget {
        MemoryBudget::new(bytes).unwrap()
    }

    fn given(err: &PlanError) -> String {
        let budget = refused_budget(err);
        plan_message(err, &format!("--memory {budget}"))
    }

    fn lines(size_hint: Option<u64>, bytes: u64) -> Request<'static> {
        Request::new(Source::Records { size_hint }, budget(bytes))
    }

    fn range(lo: u64, len: u128, bytes: u64) -> Request<'static> {
        Request::new(Source::Range { lo, len }, budget(bytes))
    }

    #[test]
    fn refusals_of_files_known_to_be_too_large_say_what_would_work() {
        let java = Request {
            exact_order: Some("java"),
            ..lines(Some(GIB + 1), GIB)
        };
        let message = given(&plan::plan(&java).unwrap_err());
        assert!(message.contains("raise --memory"), "{message}");
        assert!(message.contains("--sampler batched"), "{message}");
        assert!(
            message.contains("--memory 1G (1073741825 bytes)"),
            "{message}"
        );
        let biased = Request {
            algorithm: Some("biased"),
            ..lines(Some(2 * GIB), GIB)
        };
        let message = given(&plan::plan(&biased).unwrap_err());
        assert!(
            message.starts_with("--algo biased needs the whole"),
            "{message}"
        );
        assert!(message.contains("leave out --algo"), "{message}");
        let gnu = Request {
            gnu: true,
            ..lines(Some(GIB + 1), GIB)
        };
        let message = given(&plan::plan(&gnu).unwrap_err());
        assert!(message.contains("raise --memory"), "{message}");
        assert!(message.contains("use --seed instead"), "{message}");
    }

    #[test]
    fn range_refusals_say_the_real_limit() {
        // N18: a million numbers are under the cap; the budget is what is short.
        let message = given(&plan::plan(&range(1, 1_000_000, 1024)).unwrap_err());
        assert_eq!(
            message,
            "range 1-1000000 holds 1000000 numbers, 7.6 MiB in memory (8 bytes each), more \
             than --memory 1K; raise --memory to at least 7813K, or use -n K to sample from it"
        );
        let message = given(&plan::plan(&range(1, 200_000_000, 100 * GIB)).unwrap_err());
        assert!(message.contains("more than the 100000000"), "{message}");
        assert!(message.ends_with("use -n K to sample from it"), "{message}");
        let request = Request {
            head_count: Some(1_000_000),
            ..range(1, 1 << 40, 1 << 20)
        };
        let message = given(&plan::plan(&request).unwrap_err());
        assert!(
            message.starts_with("a sample of 1000000 numbers needs about 38.1 MiB"),
            "{message}"
        );
        assert!(
            message.contains("raise --memory to at least 39063K"),
            "{message}"
        );
    }

    #[test]
    fn the_library_names_no_flag_and_the_command_names_them() {
        let errors = [
            plan::plan(&Request {
                threads: std::num::NonZeroUsize::new(2),
                algorithm: Some("inplace"),
                ..lines(None, GIB)
            }),
            plan::plan(&Request {
                exact_order: Some("java"),
                ..lines(Some(GIB + 1), GIB)
            }),
            plan::plan(&Request {
                gnu: true,
                ..lines(Some(GIB + 1), GIB)
            }),
            plan::plan(&Request {
                algorithm: Some("naive"),
                head_count: Some(3),
                ..lines(Some(GIB + 1), GIB)
            }),
            plan::plan(&range(1, 200_000_000, 100 * GIB)),
            plan::plan(&range(1, 1_000_000, 1024)),
            plan::plan(&Request {
                head_count: Some(5),
                algorithm: Some("inplace"),
                ..range(1, 200_000_000, GIB)
            }),
            plan::plan(&Request {
                head_count: Some(1_000_000),
                ..range(1, 1 << 40, 1 << 20)
            }),
        ];
        for err in errors.iter().map(|e| e.as_ref().unwrap_err()) {
            let library = err.to_string();
            for flag in ["--", "-n K", "-n "] {
                assert!(!library.contains(flag), "{library}");
            }
            // Negative control: the command's wording names a flag for every refusal.
            let words = given(err);
            assert!(words.contains("--") || words.contains("-n K"), "{words}");
        }
    }
}
