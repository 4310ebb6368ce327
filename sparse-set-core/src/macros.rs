//! Forwarding boilerplate for the iterator newtypes, written once.
//!
//! Each public iterator wraps a std iterator in a private `inner` field (so the std type is not
//! part of the public API) and maps its items through a function. These macros write the
//! `Iterator` and `DoubleEndedIterator` methods that forward to `inner`: not only `next`, but
//! the ones std specialises (`nth`, `count`, `last`, `fold`), so the newtype costs nothing.

/// The `Iterator` methods of a newtype over `self.inner`, each item passed through `$map`.
macro_rules! iterator_methods {
    ($map:expr) => {
        #[inline]
        fn next(&mut self) -> ::core::option::Option<Self::Item> {
            self.inner.next().map($map)
        }

        #[inline]
        fn size_hint(&self) -> (usize, ::core::option::Option<usize>) {
            self.inner.size_hint()
        }

        #[inline]
        fn count(self) -> usize {
            ::core::iter::ExactSizeIterator::len(&self.inner)
        }

        #[inline]
        fn nth(&mut self, n: usize) -> ::core::option::Option<Self::Item> {
            self.inner.nth(n).map($map)
        }

        #[inline]
        fn last(mut self) -> ::core::option::Option<Self::Item> {
            ::core::iter::DoubleEndedIterator::next_back(&mut self)
        }

        #[inline]
        fn fold<B, F>(self, init: B, f: F) -> B
        where
            F: FnMut(B, Self::Item) -> B,
        {
            self.inner.map($map).fold(init, f)
        }
    };
}

/// The `DoubleEndedIterator` methods of a newtype over `self.inner`, each item passed through
/// `$map`.
macro_rules! double_ended_iterator_methods {
    ($map:expr) => {
        #[inline]
        fn next_back(&mut self) -> ::core::option::Option<Self::Item> {
            self.inner.next_back().map($map)
        }

        #[inline]
        fn nth_back(&mut self, n: usize) -> ::core::option::Option<Self::Item> {
            self.inner.nth_back(n).map($map)
        }
    };
}
