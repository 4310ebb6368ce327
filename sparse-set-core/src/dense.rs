//! Dense index widths: what one slot of the sparse array stores.

use core::fmt::Debug;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
    impl Sealed for usize {}
}

/// The integer type a sparse slot stores: a position in the dense arrays.
///
/// A narrower width makes the sparse array smaller (one byte per possible key with `u8`) and bounds
/// the number of elements: a set with dense width `D` holds at most [`D::MAX_LEN`](Self::MAX_LEN)
/// elements, and inserting past it is an [`Error::DenseIndexOverflow`](crate::Error), never a
/// silent wrap-around.
///
/// Implemented for `u8`, `u16`, `u32` and `usize`; sealed.
///
/// ```
/// use sparse_set_core::{DenseIndex, SparseSet};
///
/// assert_eq!(<u8 as DenseIndex>::MAX_LEN, 255);
/// let mut small = SparseSet::<u32, u8>::new();
/// for key in 0..255 {
///     small.insert(key);
/// }
/// assert!(small.try_insert(1000).is_err());
/// ```
pub trait DenseIndex:
    Copy + Eq + Ord + Default + Debug + Send + Sync + 'static + sealed::Sealed
{
    /// The most elements a set with this width can hold: the type's maximum value.
    const MAX_LEN: usize;
    /// The type's name, for error messages.
    const NAME: &'static str;
    /// The zero value that fills a fresh sparse page.
    #[doc(hidden)]
    const ZERO: Self;
    /// How many words of this width hold a `u32` version beside a slot (see the sparse prefix
    /// of versioned sets).
    #[doc(hidden)]
    const VERSION_WORDS: usize;

    /// Converts a stored slot value (a dense position plus one) to this width.
    ///
    /// Callers guarantee `index <= MAX_LEN`; a larger value is truncated (debug builds assert).
    #[doc(hidden)]
    fn from_usize(index: usize) -> Self;

    /// Widens the stored position back to `usize`.
    #[doc(hidden)]
    fn to_usize(self) -> usize;
}

macro_rules! impl_dense {
    ($($t:ident),*) => {$(
        impl DenseIndex for $t {
            const MAX_LEN: usize = $t::MAX as usize;
            const NAME: &'static str = stringify!($t);
            const ZERO: Self = 0;
            const VERSION_WORDS: usize = 4_usize.div_ceil(size_of::<$t>());

            #[inline]
            fn from_usize(index: usize) -> Self {
                debug_assert!(index <= Self::MAX_LEN);
                index as $t
            }

            #[inline]
            fn to_usize(self) -> usize {
                self as usize
            }
        }
    )*};
}

impl_dense!(u8, u16, u32, usize);

/// `additional` rows, capped to what width `D` still addresses past `len` rows
/// (`len <= D::MAX_LEN`): what a reservation asks for, so that a narrow width never reserves
/// room it cannot use.
#[inline]
pub(crate) fn cap_rows<D: DenseIndex>(additional: usize, len: usize) -> usize {
    additional.min(D::MAX_LEN - len)
}
