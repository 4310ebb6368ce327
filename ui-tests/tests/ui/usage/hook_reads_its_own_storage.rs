use sparse_soa::SparseMap;
use sparse_soa::observe::Observer;

/// A hook that would read the map it observes.
struct Peek<'a>(&'a SparseMap<u32, i32>);

impl Observer<u32, i32> for Peek<'_> {
    fn inserted(&mut self, _: u32, _: usize, _: &i32) {
        let _ = self.0.len();
    }
}

fn main() {
    let map = SparseMap::<u32, i32>::new();
    let peek = Peek(&map);
    // The map cannot move into its observed form while the hook borrows it.
    let mut observed = map.observed_by(peek);
    observed.insert(1, 1);
}
