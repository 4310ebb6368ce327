//! A member's hook that panics in the middle of a group's change: every step of a fixed
//! sequence of changes (inserts and removals through the member and excluded handles, the
//! group's `remove`, sorts, a nested level's changes) is run with a member observer that panics
//! at its `n`th event, for every `n` the sequence reaches: in a flat group, in a family whose
//! group member panics, and in a family of three levels whose nested member panics. After
//! each step, panicked or not, every prefix is aligned, a journal on another member (which
//! hears every move the group made, the panicking one's included) replays into that member's
//! keys, and the group's journal replays into its prefix (or, after a flat group's sort that
//! stopped part of the way, asks for a resync).

use std::panic::{AssertUnwindSafe, catch_unwind};

use sparse_soa::group::Nested;
use sparse_soa::observe::{Journal, Observer};
use sparse_soa::{Group, Removed, SparseMap, SparseSet};
use sparse_soa_test_support::mirror::replay_keys;

/// Records the keys it hears removed and panics on hearing key 2 removed (after recording
/// it): a hook that refuses one removal, for a storage of any value type.
#[derive(Default)]
pub(crate) struct RefusesTwo(pub(crate) Vec<u32>);

impl<V> Observer<u32, V> for RefusesTwo {
    fn removed(&mut self, key: u32, _: &V, _: Removed<u32>) {
        self.0.push(key);
        assert_ne!(key, 2, "unlucky remove");
    }
}

/// `Bomb(n + 1)` panics at its `n`th event of any kind, once (`Bomb(usize::MAX)`, never in a
/// test). Also the bomb of `observe`'s tuple test.
#[derive(Default)]
pub(crate) struct Bomb(pub(crate) usize);

impl Bomb {
    fn tick(&mut self) {
        self.0 = self.0.saturating_sub(1);
        if self.0 == 1 {
            self.0 = 0;
            panic!("boom");
        }
    }
}

impl<V> Observer<u32, V> for Bomb {
    fn inserted(&mut self, _: u32, _: usize, _: &V) {
        self.tick();
    }
    fn replaced(&mut self, _: u32, _: usize, _: &V, _: &V) {
        self.tick();
    }
    fn removed(&mut self, _: u32, _: &V, _: Removed<u32>) {
        self.tick();
    }
    fn swapped(&mut self, _: usize, _: usize) {
        self.tick();
    }
}

type Bombed = SparseMap<u32, u32, u32, Bomb>;
type Mirrored = SparseMap<u32, u32, u32, Journal<u32>>;

/// Runs `steps` on a group made by `make(fuse)`, for every fuse until one outlasts the steps,
/// keeping a mirror of the group's keys (its `keys` once made); `check(group, mirror, fuse,
/// step)` after every step. Returns how many fuses went off.
fn sweep<G>(
    make: impl Fn(usize) -> G,
    keys: impl Fn(&G) -> Vec<u32>,
    steps: &[&dyn Fn(&mut G)],
    check: impl Fn(&mut G, &mut Vec<u32>, usize, usize),
) -> usize {
    let mut fired = 0;
    for fuse in 1.. {
        let mut group = make(fuse + 1);
        let mut mirror = keys(&group);
        let mut panics = 0;
        for (index, step) in steps.iter().enumerate() {
            panics += usize::from(catch_unwind(AssertUnwindSafe(|| step(&mut group))).is_err());
            check(&mut group, &mut mirror, fuse, index);
        }
        if panics == 0 {
            return fired;
        }
        fired += panics;
    }
    unreachable!()
}

/// The journal of `member` (which hears every move the group made, the panicking one's too)
/// replays into its keys from nothing, and the group's `journal` replays `mirror` into the
/// group's `keys`, or asks for a resync, only after the steps in `resyncs`.
fn check_journals(
    member: &Mirrored,
    journal: &Journal<u32>,
    keys: &[u32],
    mirror: &[u32],
    resyncs: &[usize],
    (fuse, step): (usize, usize),
) {
    let replayed = replay_keys(Vec::new(), member.observer());
    assert_eq!(replayed.as_deref(), Some(member.keys()), "fuse {fuse}, step {step}: a member");
    match replay_keys(mirror.to_vec(), journal) {
        Some(replayed) => assert_eq!(replayed, keys, "fuse {fuse}, step {step}: the group"),
        None => assert!(resyncs.contains(&step), "fuse {fuse}: a resync after step {step}"),
    }
}

fn map<O: Observer<u32, u32>>(
    keys: impl IntoIterator<Item = u32>,
    observer: O,
) -> SparseMap<u32, u32, u32, O> {
    let mut map = SparseMap::with_observer(observer);
    map.extend(keys.into_iter().map(|key| (key, key)));
    map
}

type Flat = Group<(Bombed, Mirrored), (SparseSet<u32>,), (), Journal<u32>>;

#[test]
fn a_panicking_member_hook_leaves_the_group_aligned() {
    let make = |fuse| -> Flat {
        let bomb = map(0..12, Bomb(usize::MAX));
        let members = (bomb, map((4..16).rev(), Journal::new()));
        let mut group = Group::with_excluded(members, (SparseSet::from_iter([5, 9]),))
            .observed_by(Journal::new());
        group.observer_mut().clear();
        // Armed once the group is made: its construction's moves do not count.
        group.member_mut::<0>().observer_mut().0 = fuse;
        group
    };
    let steps: [&dyn Fn(&mut Flat); 14] = [
        &|g| {
            let _ = g.member_mut::<1>().insert(2, 0);
        },
        &|g| {
            let _ = g.member_mut::<0>().insert(14, 0);
        },
        &|g| {
            let _ = g.member_mut::<0>().remove(6);
        },
        &|g| {
            let _ = g.member_mut::<1>().remove(8);
        },
        &|g| {
            let _ = g.excluded_mut::<0>().insert(7, ());
        },
        &|g| {
            let _ = g.excluded_mut::<0>().remove(9);
        },
        &|g| {
            let _ = g.remove(10);
        },
        &|g| g.sort_keys(),
        &|g| g.sort_unstable_by(|a, _, b, _| b.cmp(a)),
        &|g| {
            let _ = g.member_mut::<0>().insert(20, 0);
        },
        &|g| {
            let _ = g.member_mut::<1>().insert(20, 0);
        },
        &|g| {
            let _ = g.remove(4);
        },
        &|g| {
            let _ = g.excluded_mut::<0>().remove(5);
        },
        &|g| {
            let _ = g.member_mut::<0>().remove(11);
        },
    ];
    let fired = sweep(
        make,
        |group| group.keys().to_vec(),
        &steps,
        |group, mirror, fuse, step| {
            group.assert_invariants();
            // The group's journal asks for a resync after a sort that stopped part of the way.
            check_journals(
                &group.members().1,
                group.observer(),
                group.keys(),
                mirror,
                &[7, 8],
                (fuse, step),
            );
            *mirror = group.keys().to_vec();
            group.observer_mut().clear();
        },
    );
    assert!(fired > 20, "{fired} fuses went off");
}

type Family =
    Group<(Bombed,), (SparseSet<u32>,), Nested<(Mirrored,), (SparseSet<u32>,)>, Journal<u32>>;

#[test]
fn a_panicking_member_hook_leaves_a_family_aligned() {
    let make = |fuse| -> Family {
        let outer = (map(0..12, Bomb(usize::MAX)),);
        let level = Nested::with_excluded(
            (map((2..14).rev(), Journal::new()),),
            (SparseSet::from_iter([3]),),
        );
        let mut family = Group::with_excluded(outer, (SparseSet::from_iter([9]),))
            .nest(level)
            .observed_by(Journal::new());
        family.observer_mut().clear();
        family.member_mut::<0>().observer_mut().0 = fuse;
        family
    };
    let steps: [&dyn Fn(&mut Family); 11] = [
        &|f| {
            let _ = f.nested_member_mut::<0>().insert(1, 0);
        },
        &|f| {
            let _ = f.member_mut::<0>().insert(13, 0);
        },
        &|f| {
            let _ = f.nested_member_mut::<0>().remove(6);
        },
        &|f| {
            let _ = f.member_mut::<0>().remove(7);
        },
        &|f| {
            let _ = f.nested_excluded_mut::<0>().insert(8, ());
        },
        &|f| {
            let _ = f.nested_excluded_mut::<0>().remove(3);
        },
        &|f| {
            let _ = f.excluded_mut::<0>().insert(4, ());
        },
        &|f| {
            let _ = f.remove(10);
        },
        &|f| f.sort_nested_keys(),
        &|f| f.sort_nested_unstable_by(|a, _, b, _| b.cmp(a)),
        &|f| {
            let _ = f.excluded_mut::<0>().remove(9);
        },
    ];
    let fired = sweep(
        make,
        |family| family.keys().to_vec(),
        &steps,
        |family, mirror, fuse, step| {
            family.assert_invariants();
            // A family's sorts report their swaps one by one: never a resync.
            let mirrored = &family.nested().members().inner().0;
            check_journals(mirrored, family.observer(), family.keys(), mirror, &[], (fuse, step));
            *mirror = family.keys().to_vec();
            family.observer_mut().clear();
        },
    );
    assert!(fired > 20, "{fired} fuses went off");
}

type Deep = Group<
    (Mirrored,),
    (SparseSet<u32>,),
    Nested<(Bombed,), (SparseSet<u32>,), Nested<(SparseMap<u32, u32>,)>>,
    Journal<u32>,
>;

#[test]
fn a_panicking_hook_of_a_nested_member_leaves_three_levels_aligned() {
    let make = |fuse| -> Deep {
        let inner = Nested::new((map([1, 3, 5, 7, 9, 11], ()),));
        let level = Nested::with_excluded(
            (map((0..14).rev(), Bomb(usize::MAX)),),
            (SparseSet::from_iter([4]),),
        )
        .nest(inner);
        let mut family =
            Group::with_excluded((map(0..12, Journal::new()),), (SparseSet::from_iter([8]),))
                .nest(level)
                .observed_by(Journal::new());
        family.observer_mut().clear();
        family.nested_member_mut::<0>().observer_mut().0 = fuse;
        family
    };
    let steps: [&dyn Fn(&mut Deep); 13] = [
        &|f| {
            let _ = f.level_member_mut::<2, 0>().insert(2, 0);
        },
        &|f| {
            let _ = f.nested_member_mut::<0>().remove(3);
        },
        &|f| {
            let _ = f.nested_member_mut::<0>().insert(3, 0);
        },
        &|f| {
            let _ = f.member_mut::<0>().remove(5);
        },
        &|f| {
            let _ = f.member_mut::<0>().insert(5, 0);
        },
        &|f| {
            let _ = f.nested_excluded_mut::<0>().remove(4);
        },
        &|f| {
            let _ = f.excluded_mut::<0>().insert(7, ());
        },
        &|f| {
            let _ = f.remove(9);
        },
        &|f| f.sort_level_keys::<2>(),
        &|f| f.sort_level_unstable_by::<2, _>(|a, _, b, _| b.cmp(a)),
        &|f| {
            let _ = f.remove(1);
        },
        &|f| {
            let _ = f.excluded_mut::<0>().remove(8);
        },
        &|f| {
            let _ = f.level_member_mut::<2, 0>().remove(11);
        },
    ];
    let fired = sweep(
        make,
        |family| family.keys().to_vec(),
        &steps,
        |family, mirror, fuse, step| {
            family.assert_invariants();
            check_journals(
                &family.members().0,
                family.observer(),
                family.keys(),
                mirror,
                &[],
                (fuse, step),
            );
            *mirror = family.keys().to_vec();
            family.observer_mut().clear();
        },
    );
    assert!(fired > 20, "{fired} fuses went off");
}
