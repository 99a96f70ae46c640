//! Moving a slice's elements into a chosen order without `Clone` or `unsafe`.

/// Rearranges `data` so that `new[p] = old[order[p]]`, with swaps along the cycles of the
/// permutation: O(N) time, no extra memory. `order` must be a permutation of
/// `0..data.len()`; it is used as scratch space (each entry becomes its own index).
pub(crate) fn apply_order<T>(data: &mut [T], order: &mut [usize]) {
    debug_assert_eq!(data.len(), order.len());
    for start in 0..order.len() {
        // Walk the cycle through `start`. A slot whose entry is its own index is done (or a
        // fixed point), so every cycle is walked once.
        let mut p = start;
        loop {
            let q = order[p];
            order[p] = p;
            if q == start {
                break;
            }
            // Slot p receives old[q]; the element that travelled along the cycle (old[start])
            // moves on to slot q, which receives its own element on the next step.
            data.swap(p, q);
            p = q;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::apply_order;
    use alloc::vec::Vec;

    fn all_orders(n: usize) -> Vec<Vec<usize>> {
        if n == 0 {
            return alloc::vec![Vec::new()];
        }
        let mut out = Vec::new();
        for smaller in all_orders(n - 1) {
            for slot in 0..n {
                let mut o = smaller.clone();
                o.insert(slot, n - 1);
                out.push(o);
            }
        }
        out
    }

    #[test]
    fn applies_every_order_of_up_to_six_elements() {
        for n in 0..=6 {
            for order in all_orders(n) {
                let old: Vec<char> = "abcdef".chars().take(n).collect();
                let mut data = old.clone();
                let mut scratch = order.clone();
                apply_order(&mut data, &mut scratch);
                let expected: Vec<char> = order.iter().map(|&i| old[i]).collect();
                assert_eq!(data, expected, "order {order:?}");
            }
        }
    }
}
