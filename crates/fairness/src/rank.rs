//! Numbering the `n!` orders of `[0, n)`: Lehmer-code ranks in lexicographic order.

use crate::FairnessError;

/// The largest `n` whose `n!` orders [`rank_permutation`] and [`unrank_permutation`] can number:
/// `20! ≈ 2.4·10^18` is the last factorial below `2^64`.
pub const MAX_RANK_N: usize = 20;

/// `n!`, or `None` when it does not fit in a `u64` (`n > 20`).
///
/// ```
/// assert_eq!(fairdeal_fairness::factorial(3), Some(6));
/// assert_eq!(fairdeal_fairness::factorial(0), Some(1));
/// assert_eq!(fairdeal_fairness::factorial(21), None);
/// ```
pub fn factorial(n: usize) -> Option<u64> {
    (2..=n as u64).try_fold(1u64, u64::checked_mul)
}

/// The lexicographic rank of `perm` among the `n!` orderings of `[0, n)`, `n = perm.len()`.
///
/// The rank is the Lehmer code read as a factorial-base number: `perm[i]`'s digit is how many
/// later values are smaller than it, weighted by `(n - 1 - i)!`. Sorting all orders
/// lexicographically and numbering them from 0 gives the same numbers, so rank 0 is the
/// identity `[0, 1, …, n-1]` and rank `n! - 1` is the reversal. The permutation test indexes its
/// `counts` with these ranks.
///
/// # Errors
///
/// [`FairnessError::RankSizeOutOfRange`] when `n > 20` ([`MAX_RANK_N`]);
/// [`FairnessError::NotAPermutation`] when `perm` holds a value `>= n` or a repeated value.
///
/// ```
/// use fairdeal_fairness::rank_permutation;
/// assert_eq!(rank_permutation(&[0, 1, 2])?, 0);
/// assert_eq!(rank_permutation(&[0, 2, 1])?, 1);
/// assert_eq!(rank_permutation(&[2, 1, 0])?, 5);
/// assert!(rank_permutation(&[0, 0, 1]).is_err());
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
pub fn rank_permutation(perm: &[usize]) -> Result<u64, FairnessError> {
    let n = perm.len();
    if n > MAX_RANK_N {
        return Err(FairnessError::RankSizeOutOfRange { n, max: MAX_RANK_N });
    }
    lehmer_rank(perm).ok_or(FairnessError::NotAPermutation { n })
}

/// The ordering of `[0, n)` whose lexicographic rank is `rank`: the inverse of
/// [`rank_permutation`].
///
/// The CLI uses it to label the rows of its count table.
///
/// # Errors
///
/// [`FairnessError::RankSizeOutOfRange`] when `n > 20`; [`FairnessError::RankOutOfRange`] when
/// `rank >= n!`.
///
/// ```
/// use fairdeal_fairness::unrank_permutation;
/// assert_eq!(unrank_permutation(3, 0)?, [0, 1, 2]);
/// assert_eq!(unrank_permutation(3, 3)?, [1, 2, 0]);
/// assert_eq!(unrank_permutation(3, 5)?, [2, 1, 0]);
/// assert!(unrank_permutation(3, 6).is_err());
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
pub fn unrank_permutation(n: usize, rank: u64) -> Result<Vec<usize>, FairnessError> {
    let count = factorial(n)
        .filter(|_| n <= MAX_RANK_N)
        .ok_or(FairnessError::RankSizeOutOfRange { n, max: MAX_RANK_N })?;
    if rank >= count {
        return Err(FairnessError::RankOutOfRange { rank, n, count });
    }
    let mut remaining: Vec<usize> = (0..n).collect();
    let mut out = Vec::with_capacity(n);
    let mut rest = rank;
    let mut weight = count;
    for left in (1..=n as u64).rev() {
        // weight = left!  ->  (left - 1)!, the number of orders sharing the next leading value.
        weight /= left;
        let digit = (rest / weight) as usize;
        rest %= weight;
        out.push(remaining.remove(digit));
    }
    Ok(out)
}

/// The Lehmer rank of `perm`, or `None` if it is not an ordering of `[0, perm.len())`.
/// `perm.len()` must be at most 20 (the caller checks); O(n²), which is nothing for n ≤ 8.
pub(crate) fn lehmer_rank(perm: &[usize]) -> Option<u64> {
    let n = perm.len();
    let mut seen = 0u32;
    let mut rank = 0u64;
    for (i, &value) in perm.iter().enumerate() {
        if value >= n || seen & (1 << value) != 0 {
            return None;
        }
        seen |= 1 << value;
        let smaller_later = perm[i + 1..].iter().filter(|&&later| later < value).count();
        rank = rank * (n - i) as u64 + smaller_later as u64;
    }
    Some(rank)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_follow_lexicographic_order_for_every_small_n() {
        for n in 0..=6 {
            let count = factorial(n).unwrap();
            let mut previous: Option<Vec<usize>> = None;
            for rank in 0..count {
                let perm = unrank_permutation(n, rank).unwrap();
                assert_eq!(rank_permutation(&perm).unwrap(), rank, "n = {n}");
                if let Some(prev) = previous {
                    assert!(prev < perm, "{prev:?} !< {perm:?}");
                }
                previous = Some(perm);
            }
        }
    }

    #[test]
    fn the_largest_rank_round_trips() {
        let last = factorial(MAX_RANK_N).unwrap() - 1;
        let reversed: Vec<usize> = (0..MAX_RANK_N).rev().collect();
        assert_eq!(unrank_permutation(MAX_RANK_N, last).unwrap(), reversed);
        assert_eq!(rank_permutation(&reversed).unwrap(), last);
    }

    #[test]
    fn bad_inputs_are_errors() {
        assert_eq!(
            rank_permutation(&[0, 3, 1]),
            Err(FairnessError::NotAPermutation { n: 3 })
        );
        assert_eq!(
            rank_permutation(&[1, 1]),
            Err(FairnessError::NotAPermutation { n: 2 })
        );
        let long: Vec<usize> = (0..21).collect();
        assert_eq!(
            rank_permutation(&long),
            Err(FairnessError::RankSizeOutOfRange { n: 21, max: 20 })
        );
        assert_eq!(
            unrank_permutation(21, 0),
            Err(FairnessError::RankSizeOutOfRange { n: 21, max: 20 })
        );
        assert_eq!(
            unrank_permutation(4, 24),
            Err(FairnessError::RankOutOfRange {
                rank: 24,
                n: 4,
                count: 24
            })
        );
        assert_eq!(unrank_permutation(0, 0).unwrap(), Vec::<usize>::new());
    }
}
