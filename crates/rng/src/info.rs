//! What a backend says about itself, and the "how many deck orders can it reach" arithmetic.

/// A backend's self-description: the single source of truth for `fairdeal backends`, the
/// benchmark report and the docs.
///
/// Build one with [`BackendInfo::new`], which *computes* [`max_full_permutation_n`] from
/// `state_bits`, so the two can never disagree.
///
/// [`max_full_permutation_n`]: BackendInfo::max_full_permutation_n
///
/// ```
/// use fairdeal_rng::{Backend, backend::Java};
/// let info = Java::INFO;
/// assert_eq!(info.name, "java");
/// assert_eq!(info.state_bits, 48);
/// assert!(!info.crypto);
/// // 16! ≈ 2^44.3 fits in 48 bits of state, 17! ≈ 2^48.3 does not.
/// assert_eq!(info.max_full_permutation_n, 16);
/// assert!(!info.reaches_every_order(52));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BackendInfo {
    /// Stable, lower-case name used on the command line and in reports (`"chacha12"`).
    pub name: &'static str,
    /// One or two sentences for people: the algorithm, its period, and its caveats. Every
    /// non-cryptographic backend says so here.
    pub summary: &'static str,
    /// Bits of state a seed can set: `log2` of the number of distinct starting points. Counters
    /// that only advance (ChaCha's block counter) are not counted, because a freshly seeded
    /// generator always starts them at zero.
    pub state_bits: u32,
    /// Whether the generator is a cryptographically secure PRNG (its future output cannot be
    /// predicted from past output). Only the ChaCha backends are.
    pub crypto: bool,
    /// The largest `n` with `n! <= 2^state_bits`: up to this many elements, a freshly seeded
    /// generator has at least as many starting points as there are orders, so every order is
    /// reachable in principle. Above it, most orders can never be dealt. A 52-card deck needs
    /// `log2(52!) ≈ 225.6` bits.
    pub max_full_permutation_n: u32,
    /// The bounded-index sampler the backend shuffles with: `"batched"`, `"java-nextint"` or
    /// `"python-randbelow"`.
    pub sampler: &'static str,
}

impl BackendInfo {
    /// Describes a backend; `max_full_permutation_n` is derived from `state_bits`.
    ///
    /// ```
    /// use fairdeal_rng::BackendInfo;
    /// let info = BackendInfo::new("toy", "a toy", 64, false, "lemire");
    /// assert_eq!(info.max_full_permutation_n, 20); // 20! < 2^64 < 21!
    /// ```
    pub const fn new(
        name: &'static str,
        summary: &'static str,
        state_bits: u32,
        crypto: bool,
        sampler: &'static str,
    ) -> Self {
        Self {
            name,
            summary,
            state_bits,
            crypto,
            max_full_permutation_n: max_full_permutation_n(state_bits),
            sampler,
        }
    }

    /// Whether the backend's own sampler reproduces another language's index draws (Java's
    /// `nextInt`, CPython's `_randbelow`): a shuffle that should match that language must then
    /// keep its algorithm and draw order (in-place Fisher-Yates, one draw per bound).
    ///
    /// ```
    /// let java = fairdeal_rng::backend_info("java").unwrap();
    /// assert!(java.language_exact());
    /// assert!(!fairdeal_rng::backend_info("pcg64").unwrap().language_exact());
    /// ```
    pub fn language_exact(&self) -> bool {
        matches!(self.sampler, "java-nextint" | "python-randbelow")
    }

    /// Whether every one of the `n!` orders of `n` elements can be reached from a fresh seed,
    /// i.e. `n <= max_full_permutation_n`.
    ///
    /// This is a counting argument, necessary but not sufficient: a generator with enough
    /// states can still reach orders unevenly. The fairness tests cover that part.
    pub const fn reaches_every_order(&self, n: u32) -> bool {
        n <= self.max_full_permutation_n
    }
}

/// The largest `n` with `n! <= 2^state_bits`.
///
/// Computed in integer arithmetic, so it runs in `const` context: `n!` is carried as a 64-bit
/// mantissa and a binary exponent, rounded *up* at every step, so the answer can only err on
/// the conservative side. It is in fact exact for every `n` up to 2,200 (every state size up to
/// MT19937's 19,937 bits): the tests check that the rounded-down and rounded-up factorials
/// always have the same bit length, and agree with exact `u128` factorials and with sums of
/// `log2 k`.
///
/// ```
/// use fairdeal_rng::max_full_permutation_n;
/// assert_eq!(max_full_permutation_n(0), 1); // 1! = 1 = 2^0
/// assert_eq!(max_full_permutation_n(1), 2); // 2! = 2
/// assert_eq!(max_full_permutation_n(226), 52); // 52! ≈ 2^225.6
/// assert_eq!(max_full_permutation_n(225), 51);
/// ```
pub const fn max_full_permutation_n(state_bits: u32) -> u32 {
    let mut high = Approx::ONE;
    let mut n: u32 = 1; // 1! = 1 <= 2^b for every b >= 0.
    loop {
        let next = n + 1;
        high = high.mul(next as u64, true);
        // `high >= next!`, so `high <= 2^b` proves `next! <= 2^b`.
        if !high.at_most_pow2(state_bits) {
            return n;
        }
        n = next;
    }
}

/// `mantissa · 2^exponent`, with the mantissa kept below 2^64.
#[derive(Clone, Copy)]
struct Approx {
    mantissa: u64,
    exponent: u32,
}

impl Approx {
    const ONE: Self = Self {
        mantissa: 1,
        exponent: 0,
    };

    /// `self · k`, rounded down or up to a 64-bit mantissa.
    const fn mul(self, k: u64, round_up: bool) -> Self {
        let mut product = self.mantissa as u128 * k as u128;
        let mut exponent = self.exponent;
        while product >> 64 != 0 {
            let dropped = product & 1;
            product >>= 1;
            exponent += 1;
            if round_up && dropped != 0 {
                product += 1;
            }
        }
        Self {
            mantissa: product as u64,
            exponent,
        }
    }

    /// `self <= 2^b`, exactly.
    const fn at_most_pow2(self, b: u32) -> bool {
        if self.exponent > b {
            return false; // mantissa >= 1, so self >= 2^exponent > 2^b
        }
        let shift = b - self.exponent;
        shift >= 64 || self.mantissa as u128 <= 1u128 << shift
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact factorials in u128 settle every `state_bits` below 128.
    #[test]
    fn matches_exact_factorials_below_128_bits() {
        for bits in 0..128u32 {
            let limit = 1u128 << bits;
            let mut fact: u128 = 1;
            let mut n = 1u32;
            while let Some(next) = fact.checked_mul(u128::from(n + 1)) {
                if next > limit {
                    break;
                }
                fact = next;
                n += 1;
            }
            assert_eq!(max_full_permutation_n(bits), n, "bits {bits}");
        }
    }

    /// The rounded-down and rounded-up factorials never straddle a power of two, so the answer
    /// is exact for every state size a real generator has (MT19937's 19,937 included); and it
    /// agrees with the sum of log2(k).
    #[test]
    fn bounds_never_straddle_and_agree_with_log2_sums() {
        let mut low = Approx::ONE;
        let mut high = Approx::ONE;
        let mut log2_fact = 0.0f64;
        for n in 2..=2200u32 {
            low = low.mul(u64::from(n), false);
            high = high.mul(u64::from(n), true);
            log2_fact += f64::from(n).log2();
            let bits_low = 64 - low.mantissa.leading_zeros() + low.exponent;
            let bits_high = 64 - high.mantissa.leading_zeros() + high.exponent;
            assert_eq!(bits_low, bits_high, "n = {n}");
            // n! has bit length floor(log2 n!) + 1.
            assert_eq!(f64::from(bits_low - 1), log2_fact.floor(), "n = {n}");
        }
        for bits in [48, 64, 127, 128, 255, 256, 19937] {
            let n = max_full_permutation_n(bits);
            let log2 = |m: u32| (2..=m).map(|k| f64::from(k).log2()).sum::<f64>();
            assert!(log2(n) <= f64::from(bits) && log2(n + 1) > f64::from(bits));
        }
    }

    /// `mul` is the exact product rounded to a 64-bit mantissa, down or up as asked, with the
    /// fewest bits dropped: the reference divides the exact `u128` product by powers of two.
    #[test]
    fn mul_rounds_the_exact_product_down_or_up_to_64_bits() {
        let cases: [(u64, u32, u64); 10] = [
            (1, 0, 1),
            (12_345, 2, 1 << 40),
            (1 << 63, 0, 4), // 2^65: the dropped bits are all zero, no rounding
            (1 << 63, 7, 6), // 3 · 2^64, on top of an exponent: two zero bits dropped
            (0x8000_0000_0000_0001, 0, 3), // odd product: up differs from down
            ((1 << 63) + 5, 1, 0x1_0000_0003), // many bits dropped, some set
            (u64::MAX, 0, 2), // 2^65 − 2: one zero bit dropped
            (u64::MAX, 3, u64::MAX),
            (0x1084_2108_4210_8421, 4, 31), // 2^65 − 1: up carries into one more shift
            (0xFFFF_FFFF_FFFF_FFFE, 9, 1 << 40),
        ];
        for (mantissa, exponent, k) in cases {
            let exact = u128::from(mantissa) * u128::from(k);
            for round_up in [false, true] {
                let got = Approx { mantissa, exponent }.mul(k, round_up);
                let mut dropped = 0;
                let want = loop {
                    let down = exact >> dropped;
                    let rounded = if round_up && down << dropped != exact {
                        down + 1
                    } else {
                        down
                    };
                    if rounded >> 64 == 0 {
                        break rounded;
                    }
                    dropped += 1;
                };
                assert_eq!(
                    (u128::from(got.mantissa), got.exponent),
                    (want, exponent + dropped),
                    "{mantissa:#x} · 2^{exponent} · {k:#x}, round up {round_up}"
                );
            }
        }
    }

    #[test]
    fn at_most_pow2_compares_exactly() {
        let approx = |mantissa, exponent| Approx { mantissa, exponent };
        assert!(approx(1, 5).at_most_pow2(5)); // equal
        assert!(!approx(2, 5).at_most_pow2(5));
        assert!(!approx(1, 6).at_most_pow2(5)); // the exponent alone is too large
        assert!(approx(1 << 10, 0).at_most_pow2(10));
        assert!(!approx((1 << 10) + 1, 0).at_most_pow2(10));
        assert!(approx(u64::MAX, 0).at_most_pow2(64));
        assert!(!approx(u64::MAX, 1).at_most_pow2(64));
        assert!(approx(u64::MAX, 3).at_most_pow2(200)); // shifts of 64 and more
    }

    #[test]
    fn known_sizes() {
        // log2(52!) = 225.58: a deck needs 226 bits.
        assert_eq!(max_full_permutation_n(48), 16);
        assert_eq!(max_full_permutation_n(64), 20);
        assert_eq!(max_full_permutation_n(225), 51);
        assert_eq!(max_full_permutation_n(226), 52);
        assert_eq!(max_full_permutation_n(256), 57);
        assert_eq!(max_full_permutation_n(19937), 2080);
    }
}
