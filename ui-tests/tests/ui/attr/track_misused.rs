use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
#[sparse_soa(track)]
struct Health {
    #[sparse_soa(track = true)]
    points: u32,
    #[sparse_soa(track, track)]
    regen: u32,
}

fn main() {}
