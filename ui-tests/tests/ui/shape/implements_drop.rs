use sparse_soa::SparseSoa;

// A struct with `Drop` cannot be split into columns, whether its fields can be moved out of it
// (all `Copy`) or not.
#[derive(SparseSoa)]
struct Handle {
    id: u32,
    slot: u32,
}

impl Drop for Handle {
    fn drop(&mut self) {}
}

#[derive(SparseSoa)]
struct Named {
    id: u32,
    name: String,
}

impl Drop for Named {
    fn drop(&mut self) {}
}

#[derive(SparseSoa)]
struct Generic<T: Clone> {
    value: T,
}

impl<T: Clone> Drop for Generic<T> {
    fn drop(&mut self) {}
}

#[derive(SparseSoa)]
struct Marker;

impl Drop for Marker {
    fn drop(&mut self) {}
}

fn main() {}
