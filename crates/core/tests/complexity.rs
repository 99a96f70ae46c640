//! `Complexity`'s notation, display and predicted exponent, and `check_prefix`'s boundary:
//! cargo-mutants found them untested (docs/testing.md).

use fairdeal_core::Complexity;

#[test]
fn each_class_prints_its_notation_and_predicts_its_exponent() {
    let classes = [
        (Complexity::Linear, "O(N)", 1.0),
        (Complexity::Linearithmic, "O(N log N)", 1.0),
        (Complexity::Quadratic, "O(N²)", 2.0),
    ];
    for (class, notation, exponent) in classes {
        assert_eq!(class.notation(), notation);
        assert_eq!(class.to_string(), notation);
        assert_eq!(class.exponent(), exponent, "{class}");
    }
}

/// `check_prefix` at its boundary: a prefix as long as the slice is allowed, one more is not.
#[test]
fn a_prefix_may_be_as_long_as_the_slice() {
    use fairdeal_core::{ShuffleError, check_prefix};
    assert_eq!(check_prefix(52, 52), Ok(()));
    assert_eq!(check_prefix(0, 0), Ok(()));
    assert_eq!(
        check_prefix(1, 0),
        Err(ShuffleError::SampleTooLarge {
            requested: 1,
            available: 0
        })
    );
}
