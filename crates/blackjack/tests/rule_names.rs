//! Property tests for every rule parser a user reaches through the CLI: printed names parse
//! back to the same value (in any letter case where the parser ignores case), and no input
//! string makes a parser panic; whatever parses prints as a name that parses to the same value.

use core::fmt::Display;
use core::str::FromStr;

use fairdeal_blackjack::{BetRamp, DoubleRule, ExactStrategy, HoleCard, Payout, Surrender};
use proptest::prelude::*;

const DOUBLES: [DoubleRule; 3] = [
    DoubleRule::AnyTwo,
    DoubleRule::NineToEleven,
    DoubleRule::TenToEleven,
];
const SURRENDERS: [Surrender; 3] = [Surrender::None, Surrender::Late, Surrender::Early];
const PAYOUTS: [Payout; 3] = [Payout::ThreeToTwo, Payout::SixToFive, Payout::EvenMoney];
const HOLE_CARDS: [HoleCard; 2] = [HoleCard::Peek, HoleCard::NoHoleCard];
const STRATEGIES: [ExactStrategy; 2] = [ExactStrategy::Composition, ExactStrategy::Basic];

/// Flips the case of the letters selected by `mask`.
fn recase(text: &str, mask: u64) -> String {
    text.chars()
        .enumerate()
        .map(|(i, c)| {
            if mask >> (i % 64) & 1 == 1 {
                c.to_ascii_uppercase()
            } else {
                c
            }
        })
        .collect()
}

/// `text` either fails to parse, or parses to a value whose printed name parses to it again.
fn reparses<T>(text: &str) -> Result<(), TestCaseError>
where
    T: FromStr + Display + PartialEq + core::fmt::Debug,
{
    if let Ok(value) = text.parse::<T>() {
        let printed = value.to_string();
        prop_assert!(
            printed.parse::<T>().ok() == Some(value),
            "{text:?} → {printed:?}"
        );
    }
    Ok(())
}

#[test]
fn every_printed_name_parses_back() {
    for v in DOUBLES {
        assert_eq!(v.to_string().parse(), Ok(v));
    }
    for v in SURRENDERS {
        assert_eq!(v.to_string().parse(), Ok(v));
    }
    for v in PAYOUTS {
        assert_eq!(v.to_string().parse(), Ok(v));
    }
    for v in HOLE_CARDS {
        assert_eq!(v.to_string().parse(), Ok(v));
    }
    for v in STRATEGIES {
        assert_eq!(v.to_string().parse(), Ok(v));
    }
    // The names are distinct within each rule (a parser cannot confuse two values).
    let names: Vec<String> = DOUBLES.iter().map(ToString::to_string).collect();
    assert_eq!(names, ["any", "9-11", "10-11"]);
    let names: Vec<String> = PAYOUTS.iter().map(ToString::to_string).collect();
    assert_eq!(names, ["3:2", "6:5", "1:1"]);
}

proptest! {
    #[test]
    fn names_parse_back_in_any_letter_case(i in 0usize..3, mask in any::<u64>()) {
        let d = DOUBLES[i];
        prop_assert_eq!(recase(&d.to_string(), mask).parse::<DoubleRule>(), Ok(d));
        let s = SURRENDERS[i];
        prop_assert_eq!(recase(&s.to_string(), mask).parse::<Surrender>(), Ok(s));
        let h = HOLE_CARDS[i % 2];
        prop_assert_eq!(recase(&h.to_string(), mask).parse::<HoleCard>(), Ok(h));
        let e = STRATEGIES[i % 2];
        prop_assert_eq!(recase(&e.to_string(), mask).parse::<ExactStrategy>(), Ok(e));
    }

    #[test]
    fn bet_ramps_round_trip(min in 1u32..=1000, extra in 0u32..=1000) {
        let ramp = BetRamp { min, max: (min + extra).min(1000) };
        prop_assert_eq!(ramp.to_string().parse::<BetRamp>(), Ok(ramp));
    }

    #[test]
    fn bet_ramps_that_parse_are_valid(min in any::<u32>(), max in any::<u32>()) {
        let text = format!("{min}-{max}");
        match text.parse::<BetRamp>() {
            Ok(ramp) => {
                prop_assert!(ramp.validate().is_ok());
                prop_assert_eq!((ramp.min, ramp.max), (min, max));
            }
            Err(_) => prop_assert!(min == 0 || max < min || max > 1000),
        }
    }

    #[test]
    fn parsers_never_panic_and_what_parses_reparses(text in "\\PC{0,12}") {
        reparses::<DoubleRule>(&text)?;
        reparses::<Surrender>(&text)?;
        reparses::<Payout>(&text)?;
        reparses::<HoleCard>(&text)?;
        reparses::<ExactStrategy>(&text)?;
        reparses::<BetRamp>(&text)?;
    }

    #[test]
    fn near_misses_never_panic(
        base in prop::sample::select(vec![
            "any", "9-11", "10-11", "none", "late", "early", "3:2", "6:5", "1:1", "peek",
            "enhc", "1-8", "composition", "basic",
        ]),
        at in 0usize..12,
        insert in "[-:./ 0-9a-zA-Z\u{fe0f}\u{0}]{0,2}",
    ) {
        let mut text = base.to_owned();
        let at = (0..=at.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        text.insert_str(at, &insert);
        reparses::<DoubleRule>(&text)?;
        reparses::<Surrender>(&text)?;
        reparses::<Payout>(&text)?;
        reparses::<HoleCard>(&text)?;
        reparses::<ExactStrategy>(&text)?;
        reparses::<BetRamp>(&text)?;
    }
}
