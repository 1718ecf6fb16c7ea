//! The one stable sort the app's own lists go through (parser constructs, JSON blobs, tool
//! calls, secrets, Wikipedia pages, the chat list).
//!
//! Why not `Vec::sort_by` at each place: the standard stable sort is instantiated afresh for
//! every element type and comparator, about 3.5 KB of WebAssembly each, and eight call sites
//! cost 31 KB before compression (measured with twiggy; docs/performance.md, "Bundle size"). Here the
//! standard sort runs once, on positions (`usize`) behind one `dyn` comparator, so it is compiled
//! once; each call site only adds the small generic step that moves the items into that order.
//! The result is exactly that of `sort_by`: stable, O(n log n).

use core::cmp::Ordering;

/// Sorts `items` stably by `compare`, like `slice::sort_by`.
pub fn sort_by<T>(items: &mut Vec<T>, mut compare: impl FnMut(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    {
        let view: &[T] = items;
        sort_positions(&mut order, &mut |a, b| compare(&view[a], &view[b]));
    }
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(order.iter().filter_map(|&i| slots[i].take()));
}

/// Sorts `items` stably by the key `key` gives, like `slice::sort_by_key`.
pub fn sort_by_key<T, K: Ord>(items: &mut Vec<T>, mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// The only instantiation of the standard stable sort: positions, one comparator type.
#[inline(never)]
fn sort_positions(order: &mut [usize], compare: &mut dyn FnMut(usize, usize) -> Ordering) {
    order.sort_by(|&a, &b| compare(a, b));
}

#[cfg(test)]
mod tests;
