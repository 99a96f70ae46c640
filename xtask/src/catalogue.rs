//! What the verdicts are checked against: the algorithms' own `AlgorithmInfo` and the backend
//! catalogue of `fairdeal-rng`. Nothing here is typed in: a new algorithm or backend shows up
//! by adding it to its crate.

use fairdeal::AlgorithmInfo;

use crate::model::CASE_DEAL;

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

/// The headline algorithm of a case, which the report's digests compare with the peers: the
/// O(k) partial shuffle for dealing, the facade's default algorithm otherwise.
pub(crate) fn headline(case: &str) -> &'static str {
    if case == CASE_DEAL {
        fairdeal::partial::INFO.name
    } else {
        fairdeal::DEFAULT_ALGORITHM
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headlines_are_registry_algorithms() {
        for case in [
            CASE_DEAL,
            crate::model::CASE_SHUFFLE,
            crate::model::CASE_DECK,
        ] {
            let name = headline(case);
            assert!(
                algorithms().iter().any(|a| a.name == name),
                "{case}: {name}"
            );
        }
        assert_ne!(headline(CASE_DEAL), headline(crate::model::CASE_SHUFFLE));
    }
}
