//! [`Rows`]: a storage's dense arrays as slices side by side (the keys and every column), which
//! can be split in two and walked as one iterator; and [`Aligned`], the rows of several storages
//! whose keys are the same, position by position (a [`Group`](crate::Group)'s aligned prefix).
//!
//! Rows are what iteration without lookups is built on: a [`Group`](crate::Group) hands out the
//! rows of its members' aligned prefix, and with the `rayon` feature, parallel iteration splits
//! rows into chunks ([`Rows::split_at`]) that keep every column in lockstep.
//!
//! # Invariant
//!
//! Every slice of one `Rows` value has the same length: row `i` of every column belongs to
//! `keys()[i]`. Each implementation keeps it by construction (its slices come from a storage,
//! whose columns have the length of its keys) and [`split_at`](Rows::split_at) cuts every slice
//! at the same position. An [`Aligned`] value is only made by a group, from rows of one length
//! whose keys are equal position by position.

use core::iter::FusedIterator;

use crate::key::Key;

/// The rows of a storage, or of several aligned storages: the keys and every column as slices of
/// one length, row `i` of each belonging to key `i`.
///
/// Implemented by the column views of every storage that is [`Columnar`](crate::Columnar):
/// `{Name}Columns` / `{Name}ColumnsMut` of a derived storage,
/// [`map::Columns`](crate::map::Columns) / [`map::ColumnsMut`](crate::map::ColumnsMut) of a
/// [`SparseMap`](crate::SparseMap), [`set::Keys`](crate::set::Keys) of a
/// [`SparseSet`](crate::SparseSet), and [`Aligned`] rows of a [`Group`](crate::Group).
///
/// ```
/// use sparse_set_core::{Rows, SparseMap};
///
/// let mut map: SparseMap<u32, f32> = (0..6).map(|key| (key, key as f32)).collect();
/// let (front, back) = map.columns_mut().split_at(4);
/// assert_eq!((front.len(), back.len()), (4, 2));
/// for (_, value) in back.into_rows() {
///     *value = 0.0;
/// }
/// assert_eq!(map.values(), &[0.0, 1.0, 2.0, 3.0, 0.0, 0.0]);
/// ```
pub trait Rows: Sized {
    /// The key type.
    type Key: Key;
    /// The view of one row: `()` for keys alone, a reference for a map's values, a struct of
    /// references for a derived storage, a tuple of those for aligned storages.
    type Row;
    /// The iterator over `(key, row)` pairs that [`into_rows`](Self::into_rows) returns.
    type Iter: DoubleEndedIterator<Item = (Self::Key, Self::Row)> + ExactSizeIterator;

    /// The keys, in row order.
    ///
    /// Computes in **O(1)** time.
    fn keys(&self) -> &[Self::Key];

    /// The number of rows: the length of the shortest slice (every slice's, as a storage hands
    /// them out; slices put together by hand may differ, and [`into_rows`](Self::into_rows)
    /// yields this many rows). A query's loop over a driving storage is bounded by it, so it
    /// reads the keys and every column with no other check.
    ///
    /// Computes in **O(columns)** time.
    #[inline]
    fn len(&self) -> usize {
        self.keys().len()
    }

    /// Whether there are no rows.
    ///
    /// Computes in **O(1)** time.
    #[inline]
    fn is_empty(&self) -> bool {
        self.keys().is_empty()
    }

    /// Splits every slice at `mid`: rows `0..mid` and rows `mid..len`, each still in lockstep.
    ///
    /// Computes in **O(columns)** time.
    ///
    /// # Panics
    ///
    /// If `mid > len()`, as `slice::split_at`.
    fn split_at(self, mid: usize) -> (Self, Self);

    /// Walks the rows in order, yielding each key and its row view.
    ///
    /// Computes in **O(1)** time per step, without bounds checks per column.
    fn into_rows(self) -> Self::Iter;
}

/// The rows of several storages whose keys are equal position by position: row `i` of every
/// part belongs to the same key. Made by a [`Group`](crate::Group) over its aligned prefix;
/// iterating yields the key once and a tuple with each part's row.
///
/// ```
/// use sparse_set_core::{Group, Rows, SparseMap};
///
/// let a: SparseMap<u32, char> = [(1, 'a'), (2, 'b'), (3, 'c')].into_iter().collect();
/// let b: SparseMap<u32, u8> = [(3, 30), (1, 10)].into_iter().collect();
/// let group = Group::new((a, b));
/// let rows: Vec<(u32, (&char, &u8))> = group.rows().into_rows().collect();
/// assert_eq!(rows.len(), 2);
/// assert!(rows.contains(&(1, (&'a', &10))) && rows.contains(&(3, (&'c', &30))));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Aligned<T>(T);

impl<T> Aligned<T> {
    /// Rows whose parts are aligned: the caller has checked that every part has the same keys
    /// in the same order.
    pub(crate) fn new(parts: T) -> Self {
        Aligned(parts)
    }

    /// Each part's rows, as a tuple.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, char> = [(1, 'a')].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(1, 10)].into_iter().collect();
    /// let mut group = Group::new((a, b));
    /// let (a, b) = group.rows_mut().into_parts();
    /// b.values[0] += 1;
    /// assert_eq!((&*a.values, &*b.values), (&['a'][..], &[11][..]));
    /// ```
    pub fn into_parts(self) -> T {
        self.0
    }

    /// Each part's rows, borrowed.
    pub(crate) fn parts(&self) -> &T {
        &self.0
    }

    /// Each part's rows, borrowed mutably.
    pub(crate) fn parts_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// The iterator of [`Aligned`] rows: every part's iterator advanced together.
#[derive(Clone, Debug)]
pub struct AlignedIter<T>(T);

macro_rules! aligned_tuple {
    ($first:ident $($part:ident)*) => {
        #[allow(non_snake_case, reason = "the bindings are named after the tuple's type parameters")]
        impl<$first: Rows, $($part: Rows<Key = $first::Key>),*> Rows for Aligned<($first, $($part,)*)> {
            type Key = $first::Key;
            type Row = ($first::Row, $($part::Row,)*);
            type Iter = AlignedIter<($first::Iter, $($part::Iter,)*)>;

            #[inline]
            fn keys(&self) -> &[Self::Key] {
                self.0.0.keys()
            }

            #[inline]
            fn split_at(self, mid: usize) -> (Self, Self) {
                let ($first, $($part,)*) = self.0;
                let $first = $first.split_at(mid);
                $(let $part = $part.split_at(mid);)*
                (Aligned(($first.0, $($part.0,)*)), Aligned(($first.1, $($part.1,)*)))
            }

            #[inline]
            fn into_rows(self) -> Self::Iter {
                let ($first, $($part,)*) = self.0;
                AlignedIter(($first.into_rows(), $($part.into_rows(),)*))
            }
        }

        #[allow(non_snake_case, reason = "the bindings are named after the tuple's type parameters")]
        impl<K, $first, $($part),*> Iterator for AlignedIter<($first, $($part,)*)>
        where
            $first: ExactSizeIterator<Item = (K, $first::Row)> + RowIter,
            $($part: ExactSizeIterator<Item = (K, $part::Row)> + RowIter,)*
        {
            type Item = (K, ($first::Row, $($part::Row,)*));

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "one step of every walk over a group")]
            fn next(&mut self) -> Option<Self::Item> {
                let ($first, $($part,)*) = &mut self.0;
                let (key, $first) = $first.next()?;
                $(let (_, $part) = $part.next()?;)*
                Some((key, ($first, $($part,)*)))
            }

            // A loop of its own, so that the body (`f`, the caller's closure) is inlined into it
            // wherever the walk runs: measured, rayon's `for_each` over the default `fold` left
            // the closure as a call per row, 3x slower than the sequential walk.
            #[inline(always)]
            #[allow(clippy::inline_always, reason = "the loop of every walk over a group")]
            fn fold<Acc, F>(mut self, init: Acc, mut f: F) -> Acc
            where
                F: FnMut(Acc, Self::Item) -> Acc,
            {
                let mut acc = init;
                while let Some(item) = self.next() {
                    acc = f(acc, item);
                }
                acc
            }

            #[inline]
            fn size_hint(&self) -> (usize, Option<usize>) {
                let len = self.0.0.len();
                (len, Some(len))
            }
        }

        #[allow(non_snake_case, reason = "the bindings are named after the tuple's type parameters")]
        impl<K, $first, $($part),*> DoubleEndedIterator for AlignedIter<($first, $($part,)*)>
        where
            $first: DoubleEndedIterator<Item = (K, $first::Row)> + ExactSizeIterator + RowIter,
            $($part: DoubleEndedIterator<Item = (K, $part::Row)> + ExactSizeIterator + RowIter,)*
        {
            #[inline]
            fn next_back(&mut self) -> Option<Self::Item> {
                let ($first, $($part,)*) = &mut self.0;
                let (key, $first) = $first.next_back()?;
                $(let (_, $part) = $part.next_back()?;)*
                Some((key, ($first, $($part,)*)))
            }
        }

        impl<K, $first, $($part),*> ExactSizeIterator for AlignedIter<($first, $($part,)*)>
        where
            $first: ExactSizeIterator<Item = (K, $first::Row)> + RowIter,
            $($part: ExactSizeIterator<Item = (K, $part::Row)> + RowIter,)*
        {
        }

        impl<K, $first, $($part),*> FusedIterator for AlignedIter<($first, $($part,)*)>
        where
            $first: ExactSizeIterator<Item = (K, $first::Row)> + RowIter,
            $($part: ExactSizeIterator<Item = (K, $part::Row)> + RowIter,)*
        {
        }
    };
}

/// Names the row type of an iterator over `(key, row)` pairs, so that [`AlignedIter`] can spell
/// its item. Implemented for every such iterator.
#[doc(hidden)]
pub trait RowIter: Iterator {
    /// The row part of the item.
    type Row;
}

impl<K, R, I: Iterator<Item = (K, R)>> RowIter for I {
    type Row = R;
}

aligned_tuple!(A);
aligned_tuple!(A B);
aligned_tuple!(A B C);
aligned_tuple!(A B C E);
aligned_tuple!(A B C E G);
aligned_tuple!(A B C E G H);
aligned_tuple!(A B C E G H I);
aligned_tuple!(A B C E G H I J);
