//! Joins: walking the keys two storages have in common. The two-storage forms of a
//! [`query`](crate::query()), which takes up to 8 storages, tags and exclusions.
//!
//! A join walks the dense keys of the smaller storage and looks each one up in the other, so it
//! costs **O(min(n, m))** lookups for storages of n and m elements.

use crate::query::{SharedIter, query};
use crate::storage::Columnar;
#[cfg(doc)]
use crate::storage::Storage;

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
    A: Columnar,
    B: Columnar<Key = A::Key>,
{
    Intersection { inner: query((a, b)).into_iter() }
}

/// Calls `f` with every key stored in both `a` and `b`, with `a`'s value mutably.
///
/// The smaller storage drives. Computes in **O(min(n, m))** time for storages of n and m elements.
/// The same as `query((a, b)).for_each(..)`, which takes up to 8 storages.
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
    A: Columnar,
    B: Columnar<Key = A::Key>,
{
    query((a, b)).for_each(|key, (a, b)| f(key, a, b));
}

/// The iterator of [`intersection`].
pub struct Intersection<'a, A: Columnar, B: Columnar<Key = A::Key>> {
    inner: SharedIter<(&'a A, &'a B), ()>,
}

impl<'a, A, B> Iterator for Intersection<'a, A, B>
where
    A: Columnar,
    B: Columnar<Key = A::Key>,
{
    type Item = (A::Key, A::Ref<'a>, B::Ref<'a>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().map(|(key, (a, b))| (key, a, b))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }

    #[inline]
    fn fold<Acc, G>(self, init: Acc, mut g: G) -> Acc
    where
        G: FnMut(Acc, Self::Item) -> Acc,
    {
        self.inner.fold(init, |acc, (key, (a, b))| g(acc, (key, a, b)))
    }
}
