//! What the verdicts are checked against: the algorithms' own `AlgorithmInfo` and the backend
//! catalogue of `fairdeal-rng`. Nothing here is typed in: a new algorithm or backend shows up
//! by adding it to its crate.

use fairdeal_core::AlgorithmInfo;

/// Every algorithm with its declared complexity, straight from the algorithm crates.
pub(crate) fn algorithms() -> Vec<AlgorithmInfo> {
    vec![
        fairdeal_inplace::INFO,
        fairdeal_inside_out::INFO,
        fairdeal_partial::INFO,
        fairdeal_naive::NAIVE_INFO,
        fairdeal_naive::BIASED_INFO,
        fairdeal_naive::SORT_KEY_INFO,
    ]
}

/// Every backend name of the catalogue.
pub(crate) fn backends() -> Vec<&'static str> {
    fairdeal_rng::backends().iter().map(|b| b.name).collect()
}

/// The backend the plots of "one line per algorithm" use.
pub(crate) fn default_backend() -> &'static str {
    fairdeal_rng::DEFAULT_BACKEND
}
