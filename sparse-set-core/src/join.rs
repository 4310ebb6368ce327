//! Joins: walking the keys two storages have in common.
//!
//! A join walks the dense keys of the smaller storage and looks each one up in the other, so it
//! costs **O(min(n, m))** lookups for storages of n and m elements.

use crate::Storage;

/// Iterates over the keys stored in both `a` and `b`, with both values.
///
/// The smaller storage drives: keys come in its dense order. Computes in
/// **O(min(n, m))** time for storages of n and m elements.
///
/// ```
/// use sparse_set_core::{join, SparseMap};
///
/// let positions: SparseMap<u32, f32> = [(1, 10.0), (2, 20.0), (3, 30.0)].into_iter().collect();
/// let velocities: SparseMap<u32, f32> = [(3, 0.5), (1, 1.0)].into_iter().collect();
/// let mut moved: Vec<(u32, f32)> = join::intersection(&positions, &velocities)
///     .map(|(key, p, v)| (key, p + v))
///     .collect();
/// moved.sort_by_key(|&(key, _)| key);
/// assert_eq!(moved, [(1, 11.0), (3, 30.5)]);
/// ```
pub fn intersection<'a, A, B>(a: &'a A, b: &'a B) -> Intersection<'a, A, B>
where
    A: Storage,
    B: Storage<Key = A::Key>,
{
    Intersection { a, b, a_drives: a.len() <= b.len(), next: 0 }
}

/// Calls `f` with every key stored in both `a` and `b`, with `a`'s value mutably.
///
/// The smaller storage drives. Computes in **O(min(n, m))** time for storages of n and m elements.
///
/// ```
/// use sparse_set_core::{join, SparseMap};
///
/// let mut positions: SparseMap<u32, f32> = [(1, 10.0), (2, 20.0)].into_iter().collect();
/// let velocities: SparseMap<u32, f32> = [(2, 0.5)].into_iter().collect();
/// join::for_each_mut(&mut positions, &velocities, |_, p, v| *p += v);
/// assert_eq!(positions[2], 20.5);
/// assert_eq!(positions[1], 10.0);
/// ```
pub fn for_each_mut<A, B>(a: &mut A, b: &B, mut f: impl FnMut(A::Key, A::Mut<'_>, B::Ref<'_>))
where
    A: Storage,
    B: Storage<Key = A::Key>,
{
    if a.len() <= b.len() {
        for index in 0..a.len() {
            let Some((key, value)) = a.get_index_mut(index) else { break };
            if let Some(other) = b.get(key) {
                f(key, value, other);
            }
        }
    } else {
        for (index, &key) in b.keys().iter().enumerate() {
            if let (Some(value), Some((_, other))) = (a.get_mut(key), b.get_index(index)) {
                f(key, value, other);
            }
        }
    }
}

/// The iterator of [`intersection`].
pub struct Intersection<'a, A: Storage, B: Storage> {
    a: &'a A,
    b: &'a B,
    a_drives: bool,
    next: usize,
}

impl<'a, A, B> Iterator for Intersection<'a, A, B>
where
    A: Storage,
    B: Storage<Key = A::Key>,
{
    type Item = (A::Key, A::Ref<'a>, B::Ref<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let index = self.next;
            self.next += 1;
            if self.a_drives {
                let (key, value) = self.a.get_index(index)?;
                if let Some(other) = self.b.get(key) {
                    return Some((key, value, other));
                }
            } else {
                let (key, other) = self.b.get_index(index)?;
                if let Some(value) = self.a.get(key) {
                    return Some((key, value, other));
                }
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let driver = if self.a_drives { self.a.len() } else { self.b.len() };
        (0, Some(driver.saturating_sub(self.next)))
    }
}
