//! Exact distributions by enumerating every draw path: a scripted sampler walks all sequences
//! of indices the algorithm can draw, each sequence being equally likely under a perfect
//! sampler, and the tests count which order each path produces.

use std::cell::RefCell;
use std::collections::BTreeMap;

use fairdeal_core::{IndexSampler, Rng, Shuffler};
use fairdeal_naive::{Biased, Naive};
use rand::SeedableRng;

/// Replays `choices` and, past their end, chooses 0; records every bound it is asked for.
#[derive(Default)]
struct Script {
    choices: RefCell<Vec<usize>>,
    bounds: RefCell<Vec<usize>>,
}

impl IndexSampler for Script {
    fn index_below<R: Rng + ?Sized>(&self, _rng: &mut R, bound: usize) -> usize {
        let mut bounds = self.bounds.borrow_mut();
        let step = bounds.len();
        bounds.push(bound);
        let mut choices = self.choices.borrow_mut();
        if step == choices.len() {
            choices.push(0);
        }
        choices[step]
    }
}

/// For every draw path of `shuffle` on `[0, n)`: the number of paths giving each order, and
/// the product of the bounds along the paths (all paths must have the same product, so they
/// are equally likely).
fn paths_per_order<F>(n: usize, shuffle: F) -> (BTreeMap<Vec<usize>, u64>, u64)
where
    F: Fn(&Script, &mut [usize]),
{
    let mut counts = BTreeMap::new();
    let mut weight = None;
    let mut next: Vec<usize> = Vec::new();
    loop {
        let script = Script {
            choices: RefCell::new(next.clone()),
            ..Script::default()
        };
        let mut v: Vec<usize> = (0..n).collect();
        shuffle(&script, &mut v);
        *counts.entry(v).or_insert(0) += 1;
        let choices = script.choices.into_inner();
        let bounds = script.bounds.into_inner();
        let product: u64 = bounds.iter().map(|&b| b as u64).product();
        assert_eq!(
            *weight.get_or_insert(product),
            product,
            "unequal path weights"
        );
        // Odometer: bump the last choice that can still grow, drop the ones after it.
        match (0..choices.len())
            .rev()
            .find(|&i| choices[i] + 1 < bounds[i])
        {
            Some(i) => {
                next = choices[..=i].to_vec();
                next[i] += 1;
            }
            None => break,
        }
    }
    let weight = weight.unwrap_or(1);
    // Every draw path was visited exactly once.
    assert_eq!(counts.values().sum::<u64>(), weight);
    (counts, weight)
}

fn rng() -> rand_pcg::Pcg64 {
    rand_pcg::Pcg64::seed_from_u64(0)
}

#[test]
fn wrong_range_on_three_elements_is_27_paths_onto_6_orders() {
    let (counts, paths) = paths_per_order(3, |s, v| Biased::with_sampler(s).shuffle(v, &mut rng()));
    assert_eq!(paths, 27);
    // Starting from [1, 2, 3] (here [0, 1, 2]): three orders get 5 paths, three get 4.
    let expected: BTreeMap<Vec<usize>, u64> = [
        (vec![0, 1, 2], 4),
        (vec![0, 2, 1], 5),
        (vec![1, 0, 2], 5),
        (vec![1, 2, 0], 5),
        (vec![2, 0, 1], 4),
        (vec![2, 1, 0], 4),
    ]
    .into_iter()
    .collect();
    assert_eq!(counts, expected);
}

#[test]
fn wrong_range_on_four_elements_is_256_paths_onto_24_orders() {
    let (counts, paths) = paths_per_order(4, |s, v| Biased::with_sampler(s).shuffle(v, &mut rng()));
    assert_eq!(paths, 256);
    assert_eq!(counts.len(), 24);
    let mut spread: Vec<u64> = counts.values().copied().collect();
    spread.sort_unstable();
    assert_eq!(
        spread,
        [
            8, 8, 9, 9, 9, 9, 10, 10, 10, 10, 10, 10, 10, 11, 11, 11, 11, 11, 11, 11, 14, 14, 14,
            15
        ]
    );
    // The most likely order, 15/256 against a fair 10.67/256: swap the two pairs.
    assert_eq!(counts[&vec![1, 0, 3, 2]], 15);
}

#[test]
fn naive_maps_its_paths_one_to_one_onto_all_orders() {
    for n in 1..=6 {
        let (counts, paths) =
            paths_per_order(n, |s, v| Naive::with_sampler(s).shuffle(v, &mut rng()));
        let factorial: u64 = (1..=n as u64).product();
        assert_eq!(paths, factorial, "n = {n}");
        assert_eq!(counts.len() as u64, factorial, "n = {n}");
        assert!(counts.values().all(|&c| c == 1), "n = {n}");
    }
}

/// `Naive::with_sampler` takes the sampler by value; a shared reference to the script works
/// through this impl.
impl IndexSampler for &Script {
    fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
        (**self).index_below(rng, bound)
    }
}
