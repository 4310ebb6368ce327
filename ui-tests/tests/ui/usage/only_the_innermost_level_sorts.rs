//! In a family, only the innermost level's prefix can be sorted: sorting a level with a level
//! inside it would scatter that level's rows, so it does not compile.

use sparse_soa::group::Nested;
use sparse_soa::{Group, SparseSet};

fn main() {
    let inner = Nested::new((SparseSet::<u32>::new(),));
    let level = Nested::new((SparseSet::<u32>::new(),)).nest(inner);
    let mut family = Group::new((SparseSet::<u32>::new(),)).nest(level);
    family.sort_level_keys::<2>(); // the innermost: fine
    family.sort_level_keys::<1>(); // level 2 is inside it
    family.sort_nested_keys(); // the same level, by its two-level name
}
