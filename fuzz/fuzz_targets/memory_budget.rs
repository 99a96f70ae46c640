//! `--memory` sizes (`fairdeal shuffle --memory 512M`): `MemoryBudget::from_str` and
//! `parse_at_most` never panic; whatever parses is at least `MIN_BUDGET`, prints (`Display`)
//! as text that parses to the same budget, and `parse_at_most` agrees with `from_str` about
//! every budget within its limit.
#![no_main]

use fairdeal_external::{MIN_BUDGET, MemoryBudget};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let parsed = text.parse::<MemoryBudget>();
    if let Ok(budget) = parsed {
        assert!(budget.bytes() >= MIN_BUDGET, "{text:?} gave {budget:?}");
        let printed = budget.to_string();
        assert_eq!(
            printed.parse(),
            Ok(budget),
            "{text:?} printed as {printed:?}"
        );
    }
    // A limit of 1 GiB: inputs around it exercise both sides.
    let limit = 1 << 30;
    match MemoryBudget::parse_at_most(text, limit) {
        Ok(budget) => assert_eq!(parsed.as_ref(), Ok(&budget)),
        Err(_) => assert!(parsed.is_err() || parsed.is_ok_and(|b| b.bytes() > limit)),
    }
});
