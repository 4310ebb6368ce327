//! Keeping a mirror of a storage in sync through its move journal: a `Vec` stands in for a GPU
//! buffer of instance data, uploaded from the storage's values row by row.
//!
//! Each frame changes the storage at random: new instances, removed ones (each swap-remove
//! moves the last row into the gap), writes through `get_mut`, now and then a sort by depth, and
//! the changes a `Group` makes when instances join or leave it (the group swaps rows to keep its
//! members aligned). At the end of the frame the mirror catches up from the journal's coalesced
//! patch: it copies only the rows written or moved into. A second mirror, of the keys, replays
//! the ordered changes instead, as a mirror with state of its own would.
//!
//! Both mirrors are checked against the storage every frame, and the program prints the bytes
//! uploaded against a full upload per frame.
//!
//! Run with `cargo run --release --example gpu_mirror`.

use sparse_soa::observe::{Change, Journal};
use sparse_soa::{Group, SparseMap};

/// What one instance uploads: a position and a colour (16 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Instance {
    position: [f32; 3],
    colour: u32,
}

/// The instances, observed by a journal, grouped with the instances that cast shadows: a
/// group moves the rows of its members, and the journal sees each move.
type Instances = SparseMap<u32, Instance, u32, Journal<u32>>;
type Scene = Group<(Instances, SparseMap<u32, ()>)>;

/// A small deterministic generator (splitmix64), so every run prints the same numbers.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u32) -> u32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        u32::try_from((z ^ (z >> 31)) % u64::from(n)).expect("below a u32")
    }
}

const KEYS: u32 = 40_000;
const FRAMES: u32 = 120;

/// One frame of random changes.
fn frame(scene: &mut Scene, rng: &mut Rng, number: u32) {
    for _ in 0..200 {
        let key = rng.below(KEYS);
        let (x, depth) = (f32::from(u16::try_from(key % 1000).expect("small")), rng.below(100));
        let instance = Instance {
            position: [x, 0.0, f32::from(u16::try_from(depth).expect("small"))],
            colour: key,
        };
        scene.member_mut::<0>().insert(key, instance);
    }
    for _ in 0..200 {
        scene.member_mut::<0>().remove(rng.below(KEYS));
    }
    for _ in 0..100 {
        // Instances that start or stop casting shadows join or leave the group.
        let key = rng.below(KEYS);
        if rng.below(2) == 0 {
            scene.member_mut::<1>().insert(key, ());
        } else {
            scene.member_mut::<1>().remove(key);
        }
    }
    for _ in 0..400 {
        if let Some(instance) = scene.member_mut::<0>().get_mut(rng.below(KEYS)) {
            instance.position[1] += 1.0;
        }
    }
    if number % 30 == 29 {
        // A depth sort of the shadow casters, front to back: the member's journal hears the
        // swaps that apply it (a journal on the group itself would hear one permutation).
        scene.sort_by(|_, (a, ()), _, (b, ())| a.position[2].total_cmp(&b.position[2]));
    }
}

fn main() {
    let mut rng = Rng(7);
    let mut scene: Scene = Group::new((Instances::default(), SparseMap::new()));
    for key in 0..KEYS / 2 {
        scene.member_mut::<0>().insert(key * 2, Instance { colour: key, ..Instance::default() });
        if key % 3 == 0 {
            scene.member_mut::<1>().insert(key * 2, ());
        }
    }
    // Both mirrors start as a full upload; the journal starts from there.
    let (instances, _) = scene.members();
    let mut buffer: Vec<Instance> = instances.values().to_vec();
    let mut keys: Vec<u32> = instances.keys().to_vec();
    scene.member_mut::<0>().observer_mut().clear();

    let row = size_of::<Instance>();
    let (mut patched, mut full, mut resyncs) = (0, 0, 0);
    for number in 0..FRAMES {
        frame(&mut scene, &mut rng, number);
        let (instances, _) = scene.members();
        let journal = instances.observer();

        // The key mirror replays the ordered changes, or rebuilds if the journal overflowed.
        if let Ok(changes) = journal.changes() {
            for change in changes {
                match change {
                    Change::Push { key } => keys.push(key),
                    Change::Replace { index, key } => keys[index] = key,
                    Change::Write { .. } => {}
                    Change::SwapRemove { index } => drop(keys.swap_remove(index)),
                    Change::Swap { a, b } => keys.swap(a, b),
                    Change::Permute { order } => keys = order.map(|old| keys[old]).collect(),
                    Change::Truncate { len } => keys.truncate(len),
                }
            }
        } else {
            resyncs += 1;
            keys = instances.keys().to_vec();
        }

        // The buffer copies the dirty rows.
        let patch = journal.patch();
        buffer.resize(patch.len(), Instance::default());
        for rows in patch.ranges() {
            buffer[rows.clone()].copy_from_slice(&instances.values()[rows]);
        }
        patched += patch.dirty_rows() * row;
        full += patch.len() * row;

        assert_eq!(keys, instances.keys(), "the key mirror after frame {number}");
        assert_eq!(buffer, instances.values(), "the buffer after frame {number}");
        scene.member_mut::<0>().observer_mut().clear();
    }

    let (instances, _) = scene.members();
    println!("{} instances, {} in the shadow group, {FRAMES} frames", instances.len(), scene.len());
    println!(
        "uploaded through the patch: {:>9} bytes ({} per frame)",
        patched,
        patched / FRAMES as usize
    );
    println!(
        "a full upload every frame:  {:>9} bytes ({} per frame)",
        full,
        full / FRAMES as usize
    );
    let per_mille = patched * 1000 / full;
    println!("the patch uploads {}.{}% of a full upload", per_mille / 10, per_mille % 10);
    println!("key mirror replays: {} of {FRAMES} frames, {resyncs} resyncs", FRAMES - resyncs);
    println!("both mirrors matched the storage after every frame");
}
