use sparse_soa::{Bundle, Entity, SparseSoa};

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Position {
    x: f32,
}

// Rows are structs.
#[derive(Bundle)]
enum Either {
    Left(Position),
}

#[derive(Bundle)]
union Overlap {
    x: u32,
}

// A row holds 1 to 8 components.
#[derive(Bundle)]
struct Nothing;

#[derive(Bundle)]
struct Empty {}

#[derive(Bundle)]
struct Nine(u8, u16, u32, u64, i8, i16, i32, i64, f32);

// The fields take no attributes of their own; the struct takes `crate` (and leaves
// `SparseSoa`'s keys to that derive).
#[derive(Bundle)]
#[sparse_soa(kee = Entity)]
struct Marked {
    #[sparse_soa(skip)]
    position: Position,
}

// One component of each type: two fields of one type would name one storage twice.
#[derive(Bundle)]
struct Twice {
    from: Position,
    to: Position,
}

fn main() {}
