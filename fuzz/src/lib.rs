//! What the fuzz targets share: keys spread over every kind of sparse page and directory lane.

use arbitrary::{Arbitrary, Unstructured};

/// A `u32` key chosen to land in every part of the sparse side: the flat prefix from 0 up, the
/// edges of 512-slot pages (compact pages of up to 8 keys, full pages), the flat lane's growth
/// (page numbers up to a few thousand), the hash lane far beyond it, and the top of the range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SpreadKey(pub u32);

impl<'a> Arbitrary<'a> for SpreadKey {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let low = u32::from(u.arbitrary::<u8>()?);
        let key = match u.int_in_range(0..=7)? {
            // Dense from 0: the flat prefix.
            0 | 1 => u32::from(u.arbitrary::<u16>()?) % 4096,
            // Page edges: 511, 512, 1023, 1024, ... in the first pages.
            2 => (u32::from(u.int_in_range(0..=16_u8)?) * 512).wrapping_add(low % 4).wrapping_sub(2),
            // A few keys per page far apart: compact pages in the flat lane.
            3 => u32::from(u.int_in_range(0..=4000_u16)?) * 512 + low % 8,
            // The hash lane: page numbers far past anything dense.
            4 => u.arbitrary::<u32>()? | 0x4000_0000,
            // The top of the range.
            5 => u32::MAX - low,
            // Anything.
            _ => u.arbitrary()?,
        };
        Ok(SpreadKey(key))
    }
}

/// A `u64` key: above 2^32 most of the time, where the slot no longer fits a `u32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct WideKey(pub u64);

impl<'a> Arbitrary<'a> for WideKey {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let small = u64::from(u.arbitrary::<u16>()?);
        let key = match u.int_in_range(0..=4)? {
            0 => (1 << 32) + small,
            1 => (1 << 32) - 1 - small,
            2 => u64::MAX - small,
            3 => small,
            _ => u.arbitrary()?,
        };
        Ok(WideKey(key))
    }
}
