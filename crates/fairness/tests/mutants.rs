//! Tests written to kill mutants that cargo-mutants found surviving in `fairdeal-fairness`
//! (see docs/testing.md, "Mutation testing").

use fairdeal_fairness::SeedPattern;

/// The names reports print are the documented ones, and the same as the patterns' serialized
/// (kebab-case) names, so a report and its JSON agree.
#[test]
fn seed_patterns_are_named_as_documented() {
    for (pattern, name) in [
        (SeedPattern::Consecutive, "consecutive"),
        (SeedPattern::OneBitApart, "one-bit-apart"),
    ] {
        assert_eq!(pattern.name(), name);
        assert_eq!(
            serde_json::to_string(&pattern).unwrap(),
            format!("\"{}\"", pattern.name())
        );
    }
}
