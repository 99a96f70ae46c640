//! Blackjack rule names (`fairdeal blackjack simulate --double 9-11 --surrender late --payout 6:5
//! --strategy basic --spread 1-8`, and `HoleCard` for library users): every library `FromStr`
//! never panics, and whatever it accepts prints (`Display`) as text that parses to the same
//! value; a parsed bet ramp is a valid one.
#![no_main]

use core::fmt::{Debug, Display};
use core::str::FromStr;

use fairdeal_blackjack::{BetRamp, DoubleRule, ExactStrategy, HoleCard, Payout, Surrender};
use libfuzzer_sys::fuzz_target;

/// `text` fails to parse, or parses to a value that prints as text parsing to it again.
fn reparses<T>(text: &str)
where
    T: FromStr + Display + PartialEq + Debug,
    T::Err: Debug,
{
    if let Ok(value) = text.parse::<T>() {
        let printed = value.to_string();
        assert_eq!(
            printed.parse::<T>().ok(),
            Some(value),
            "{text:?} printed as {printed:?}"
        );
    }
}

fuzz_target!(|text: &str| {
    reparses::<DoubleRule>(text);
    reparses::<Surrender>(text);
    reparses::<Payout>(text);
    reparses::<HoleCard>(text);
    reparses::<ExactStrategy>(text);
    reparses::<BetRamp>(text);
    if let Ok(ramp) = text.parse::<BetRamp>() {
        assert_eq!(
            ramp.validate(),
            Ok(()),
            "{text:?} parsed to an invalid ramp"
        );
    }
});
