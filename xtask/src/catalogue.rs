//! What the verdicts are checked against: the algorithms' own `AlgorithmInfo` and the backend
//! catalogue of `fairdeal-rng`. Nothing here is typed in: a new algorithm or backend shows up
//! by adding it to its crate.

use fairdeal::AlgorithmInfo;

/// Every algorithm with its declared complexity: the facade's registry, which is made of the
/// algorithm crates' own `INFO` constants.
pub(crate) fn algorithms() -> &'static [AlgorithmInfo] {
    fairdeal::ALGORITHMS
}

/// Every backend name of the catalogue.
pub(crate) fn backends() -> Vec<&'static str> {
    fairdeal::rng::backends().iter().map(|b| b.name).collect()
}

/// The backend the plots of "one line per algorithm" use.
pub(crate) fn default_backend() -> &'static str {
    fairdeal::rng::DEFAULT_BACKEND
}
