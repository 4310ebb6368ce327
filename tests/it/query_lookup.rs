//! Lookups, filters and drivers of queries against a reference over `BTreeMap`s: random storages
//! (a `SparseMap`, a derived storage, three tags), random filter sets (`without`, `with`,
//! `any_of`), and random lists of keys, repeated ones included. `contains`, `get`, `get_mut`,
//! `get_many`, `try_get_many_mut`, `iter_many`, `for_each_many`, `single` and `single_mut` must
//! agree with iteration
//! and with the reference; `drive_by` must walk its member's order; the std iterator must give
//! the same keys backwards.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use sparse_soa::query::{LookupError, SingleError, optional};
use sparse_soa::{Group, SparseMap, SparseSet, SparseSoa, query};
use sparse_soa_test_support::model;

#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
struct Vel {
    dx: i32,
}

/// Which filters a case applies: `without(&t0)`, `with(&t1)`, `any_of((&t2, &t0))`.
#[derive(Clone, Copy, Debug)]
struct Filters {
    without: bool,
    with: bool,
    any_of: bool,
}

#[derive(Clone, Debug)]
struct Case {
    a: BTreeMap<u32, i32>,
    b: BTreeMap<u32, i32>,
    tags: [BTreeSet<u32>; 3],
    filters: Filters,
    /// Lists of three keys for the many-key lookups.
    triples: Vec<[u32; 3]>,
    /// A list of keys for `iter_many` and `for_each_many`.
    list: Vec<u32>,
}

fn keys() -> impl Strategy<Value = BTreeSet<u32>> {
    prop::collection::btree_set(0..40_u32, 0..30)
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::btree_map(0..40_u32, any::<i16>().prop_map(i32::from), 0..30),
        prop::collection::btree_map(0..40_u32, any::<i16>().prop_map(i32::from), 0..30),
        [keys(), keys(), keys()],
        (any::<bool>(), any::<bool>(), any::<bool>()),
        prop::collection::vec([0..44_u32, 0..44_u32, 0..44_u32], 0..12),
        prop::collection::vec(0..44_u32, 0..30),
    )
        .prop_map(|(a, b, tags, (without, with, any_of), triples, list)| Case {
            a,
            b,
            tags,
            filters: Filters { without, with, any_of },
            triples,
            list,
        })
}

impl Case {
    /// Whether the query of the case visits `key`.
    fn visits(&self, key: u32) -> bool {
        let [t0, t1, t2] = &self.tags;
        self.a.contains_key(&key)
            && self.b.contains_key(&key)
            && !(self.filters.without && t0.contains(&key))
            && (!self.filters.with || t1.contains(&key))
            && (!self.filters.any_of || t2.contains(&key) || t0.contains(&key))
    }
}

/// Builds the query of the case over `a` and `b` (with the tags as filters) and runs `body`.
macro_rules! with_query {
    ($case:expr, $a:expr, $b:expr, $tags:expr, |$q:ident| $body:expr) => {{
        let [t0, t1, t2] = $tags;
        let f = $case.filters;
        match (f.without, f.with, f.any_of) {
            (false, false, false) => {
                let mut $q = query(($a, $b));
                $body
            }
            (true, false, false) => {
                let mut $q = query(($a, $b)).without(t0);
                $body
            }
            (false, true, false) => {
                let mut $q = query(($a, $b)).with(t1);
                $body
            }
            (false, false, true) => {
                let mut $q = query(($a, $b)).any_of((t2, t0));
                $body
            }
            (true, true, false) => {
                let mut $q = query(($a, $b)).without(t0).with(t1);
                $body
            }
            (true, false, true) => {
                let mut $q = query(($a, $b)).any_of((t2, t0)).without(t0);
                $body
            }
            (false, true, true) => {
                let mut $q = query(($a, $b)).with(t1).any_of((t2, t0));
                $body
            }
            (true, true, true) => {
                let mut $q = query(($a, $b)).without(t0).with(t1).any_of((t2, t0));
                $body
            }
        }
    }};
}

#[allow(unused_mut, reason = "the queries `with_query!` makes are changed by some bodies only")]
#[allow(clippy::too_many_lines, reason = "one case, every form checked in turn")]
fn run(case: &Case) {
    let mut a: SparseMap<u32, i32> = case.a.iter().map(|(&k, &v)| (k, v)).collect();
    let mut b = VelSoa::new();
    for (&key, &dx) in &case.b {
        b.insert(key, Vel { dx });
    }
    let tags: [SparseSet<u32>; 3] = case.tags.clone().map(|tag| tag.into_iter().collect());
    let [t0, t1, t2] = &tags;
    let mut reference_a = case.a.clone();

    // Iteration: the visited keys, in the driver's order, and `contains` / `get` agree.
    let visited: Vec<u32> = with_query!(case, &a, &b, [t0, t1, t2], |q| {
        let keys: Vec<u32> = q.into_iter().map(|(key, _)| key).collect();
        keys
    });
    let expected: BTreeSet<u32> = (0..44).filter(|&key| case.visits(key)).collect();
    assert_eq!(visited.iter().copied().collect::<BTreeSet<_>>(), expected);
    assert_eq!(visited.len(), expected.len(), "a key visited twice");
    with_query!(case, &a, &b, [t0, t1, t2], |q| {
        for key in 0..44 {
            assert_eq!(q.contains(key), case.visits(key), "contains({key})");
            let got = q.get(key).map(|(value, vel)| (*value, *vel.dx));
            let want = case.visits(key).then(|| (case.a[&key], case.b[&key]));
            assert_eq!(got, want, "get({key})");
        }
        // Backwards, the same keys in reverse.
        let backwards: Vec<u32> = q.into_iter().rev().map(|(key, _)| key).collect();
        assert_eq!(backwards.iter().rev().copied().collect::<Vec<_>>(), visited);
    });

    // `single` and `single_mut`: the one visited key, or why there is none.
    let want = match expected.len() {
        0 => Err(SingleError::Empty),
        1 => {
            let key = *expected.first().unwrap();
            Ok((key, case.a[&key], case.b[&key]))
        }
        _ => Err(SingleError::Multiple),
    };
    with_query!(case, &a, &b, [t0, t1, t2], |q| {
        let mut q = q;
        let got = q.single().map(|(key, (value, vel))| (key, *value, *vel.dx));
        assert_eq!(got, want, "single");
    });
    with_query!(case, &mut a, &b, [t0, t1, t2], |q| {
        let mut q = q;
        let got = q.single_mut().map(|(key, (value, vel))| (key, *value, *vel.dx));
        assert_eq!(got, want, "single_mut");
    });

    // `get_many`: the first missing key's position, or every view.
    with_query!(case, &a, &b, [t0, t1, t2], |q| {
        for triple in &case.triples {
            let got = q.get_many(*triple).map(|views| views.map(|(value, _)| *value));
            let want = match triple.iter().position(|&key| !case.visits(key)) {
                Some(position) => Err(LookupError::Missing { position }),
                None => Ok(triple.map(|key| case.a[&key])),
            };
            assert_eq!(got, want, "get_many({triple:?})");
        }
    });

    // `try_get_many_mut` and `get_mut` write through; repeated keys are refused first.
    with_query!(case, &mut a, &b, [t0, t1, t2], |q| {
        for triple in &case.triples {
            let repeated = (1..3).find_map(|second| {
                triple[..second]
                    .iter()
                    .position(|&key| key == triple[second])
                    .map(|first| (first, second))
            });
            match q.try_get_many_mut(*triple) {
                Ok(views) => {
                    assert!(repeated.is_none() && triple.iter().all(|&key| case.visits(key)));
                    for (key, (value, vel)) in triple.iter().zip(views) {
                        *value += *vel.dx;
                        *reference_a.get_mut(key).unwrap() += case.b[key];
                    }
                }
                Err(LookupError::Repeated { first, second }) => {
                    assert_eq!(repeated, Some((first, second)));
                }
                Err(LookupError::Missing { position }) => {
                    assert!(repeated.is_none());
                    assert_eq!(triple.iter().position(|&key| !case.visits(key)), Some(position));
                }
                Err(error) => panic!("unexpected {error}"),
            }
        }
        for &key in &case.list {
            if let Some((value, _)) = q.get_mut(key) {
                *value ^= 1;
                *reference_a.get_mut(&key).unwrap() ^= 1;
            } else {
                assert!(!case.visits(key));
            }
        }
        // `for_each_many`: a repeated key is visited each time.
        q.for_each_many(case.list.iter().copied(), |key, (value, _)| {
            *value = value.wrapping_mul(3);
            let reference = reference_a.get_mut(&key).unwrap();
            *reference = reference.wrapping_mul(3);
        });
    });
    assert_eq!(a.iter().map(|(k, &v)| (k, v)).collect::<BTreeMap<_, _>>(), reference_a);

    // `iter_many`: the listed keys the query visits, in the list's order.
    with_query!(case, &a, &b, [t0, t1, t2], |q| {
        let got: Vec<(u32, i32)> =
            q.iter_many(case.list.iter().copied()).map(|(k, (v, _))| (k, *v)).collect();
        let want: Vec<(u32, i32)> =
            case.list.iter().filter(|&&k| case.visits(k)).map(|&k| (k, reference_a[&k])).collect();
        assert_eq!(got, want);
    });

    // `drive_by`: the chosen member's dense order, filtered.
    let by_b: Vec<u32> = with_query!(case, &a, &b, [t0, t1, t2], |q| {
        let keys: Vec<u32> = q.drive_by(&b).into_iter().map(|(key, _)| key).collect();
        keys
    });
    let by_b_member: Vec<u32> = with_query!(case, &a, &b, [t0, t1, t2], |q| {
        let keys: Vec<u32> = q.drive_by_member::<1>().into_iter().map(|(key, _)| key).collect();
        keys
    });
    assert_eq!(by_b, by_b_member);
    let b_order: Vec<u32> = b.keys().iter().copied().filter(|&key| case.visits(key)).collect();
    assert_eq!(by_b, b_order);
    let by_a: Vec<u32> = with_query!(case, &a, &b, [t0, t1, t2], |q| {
        let keys: Vec<u32> = q.drive_by_member::<0>().into_iter().map(|(key, _)| key).collect();
        keys
    });
    let a_order: Vec<u32> = a.keys().iter().copied().filter(|&key| case.visits(key)).collect();
    assert_eq!(by_a, a_order);

    // An optional member: visited keys are `a`'s, `b`'s view where it has one.
    let q = query((&a, optional(&b)));
    for key in 0..44 {
        let got = q.get(key).map(|(value, vel)| (*value, vel.map(|vel| *vel.dx)));
        let want = reference_a.get(&key).map(|&value| (value, case.b.get(&key).copied()));
        assert_eq!(got, want);
    }
    // One member and no filter: the exact length, both ways.
    let mut all = query((&a,)).into_iter();
    assert_eq!(all.len(), a.len());
    if all.next_back().is_some() {
        assert_eq!(all.len(), a.len() - 1);
    }
}

proptest! {
    #![proptest_config(model::config())]

    #[test]
    fn lookups_filters_and_drivers_against_a_reference(case in case()) {
        run(&case);
    }
}

/// A group as a filter and as a member looked up: its aligned keys.
#[test]
fn groups_filter_and_look_up() {
    let a: SparseMap<u32, i32> = (0..6_i32).map(|key| (key.unsigned_abs(), key)).collect();
    let b: SparseMap<u32, i32> = [(1, 10), (3, 30), (5, 50)].into_iter().collect();
    let mut group = Group::new((a, b));
    let names: SparseMap<u32, &str> = [(1, "one"), (2, "two"), (3, "three")].into_iter().collect();

    let aligned: Vec<u32> = query((&names,)).with(&group).into_iter().map(|(key, _)| key).collect();
    assert_eq!(aligned, [1, 3]);
    let others: Vec<u32> =
        query((&names,)).without(&group).into_iter().map(|(key, _)| key).collect();
    assert_eq!(others, [2]);

    let mut q = query((&mut group, &names));
    let [((a1, b1), _), ((a3, b3), _)] = q.get_many_mut([1, 3]);
    std::mem::swap(a1, a3);
    *b1 += *b3;
    assert_eq!(q.get(1).map(|((a, b), name)| (*a, *b, *name)), Some((3, 40, "one")));
    assert_eq!(q.try_get_many_mut([1, 2]).unwrap_err(), LookupError::Missing { position: 1 });
    group.assert_invariants();
}

/// A repeated key in `get_many_mut`'s non-`try` form panics with the error's message.
#[test]
fn get_many_mut_of_a_repeated_key_panics_with_the_positions() {
    let mut a: SparseMap<u32, i32> = [(1, 1)].into_iter().collect();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut q = query((&mut a,));
        let _ = q.get_many_mut([1, 1]);
    }));
    let message = *result.unwrap_err().downcast::<String>().unwrap();
    assert!(message.contains("keys 0 and 1"), "{message}");
}

/// Several mutable views at once, in any order of their rows, from a map and a derived storage.
#[test]
fn get_many_mut_in_any_order_of_rows() {
    let mut a: SparseMap<u32, i32> = (0..8_i32).map(|key| (key.unsigned_abs(), key)).collect();
    let mut b = VelSoa::new();
    for key in (0..8_i32).rev() {
        b.insert(key.unsigned_abs(), Vel { dx: 100 + key });
    }
    let mut q = query((&mut a, &mut b));
    for keys in [[7_i32, 0, 3], [0, 3, 7], [5, 4, 6], [2, 1, 0]] {
        let views = q.get_many_mut(keys.map(i32::unsigned_abs));
        for (key, (value, vel)) in keys.iter().zip(views) {
            assert_eq!((*value, *vel.dx), (*key, 100 + key), "key {key}");
        }
    }
}

/// `drive_by` names a storage the query borrows; any other is refused before iteration.
#[test]
fn drive_by_a_storage_not_in_the_query_panics_naming_it() {
    let a: SparseMap<u32, i32> = [(1, 1), (2, 2)].into_iter().collect();
    let b: SparseMap<u32, i32> = [(2, 2), (1, 1)].into_iter().collect();
    let other: SparseMap<u32, i32> = SparseMap::new();
    let keys: Vec<u32> = query((&a, &b)).drive_by(&b).into_iter().map(|(key, _)| key).collect();
    assert_eq!(keys, [2, 1]);
    for refused in [
        std::panic::catch_unwind(|| drop(query((&a, &b)).drive_by(&other))),
        std::panic::catch_unwind(|| drop(query((&a, optional(&b))).drive_by(&b))),
    ] {
        let message = refused.unwrap_err();
        let message = message.downcast_ref::<String>().unwrap();
        assert!(
            message.starts_with(
                "drive_by: this `SparseMap<u32, i32>` is not a required member of the query"
            ),
            "{message}"
        );
    }
}
