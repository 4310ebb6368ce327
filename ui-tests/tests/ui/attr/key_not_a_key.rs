use sparse_soa::SparseSoa;

// Numbers that are no key, and text: refused by the derive, once each.
#[derive(SparseSoa)]
#[sparse_soa(key = i32)]
struct Position {
    x: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(key = core::primitive::f64)]
struct Velocity {
    dx: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(key = String)]
struct Name {
    text: &'static str,
}

// The struct itself: refused once too.
#[derive(SparseSoa)]
#[sparse_soa(key = Self)]
struct Mass {
    kg: f32,
}

fn main() {}
