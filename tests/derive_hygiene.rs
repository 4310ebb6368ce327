//! The generated code compiles in hostile surroundings: no implicit prelude, user types named
//! like the prelude's, a re-exported runtime, and the user's strictest lints; and every shape of
//! struct works (generics, lifetimes, const generics, `where` clauses, tuple structs, raw
//! identifiers, one field, renamed accessors), and a public world with a private storage type
//! spawns rows derived beside types that shadow the prelude's names, also when a `macro_rules!`
//! declares it. With the `serde` feature, the same holds for the
//! serde impls of storages marked `#[sparse_soa(serde)]`.

#![deny(warnings, missing_docs, clippy::pedantic)]

/// Generated code must name nothing through the prelude, and must not be confused by user types
/// that shadow its names.
#[no_implicit_prelude]
pub mod no_prelude {
    /// Shadows `core::option::Option`.
    pub struct Option;
    /// Shadows `Some`.
    pub struct Some;
    /// Shadows `None`.
    pub struct None;
    /// Shadows `Vec`.
    pub struct Vec;
    /// Shadows `Result`.
    pub struct Result;
    /// Shadows `Ok`.
    pub struct Ok;
    /// Shadows `Err`.
    pub struct Err;
    /// Shadows `Box`.
    pub struct Box;
    /// Shadows `Iterator`.
    pub struct Iterator;
    /// Shadows `Default`.
    pub struct Default;
    /// Shadows `Clone`.
    pub struct Clone;
    /// Shadows the crate `core` by a module of the same name.
    pub mod core {}
    /// Shadows the crate `alloc`.
    pub mod alloc {}
    /// Shadows the runtime's name.
    pub mod sparse_soa {}

    /// A component in a module without a prelude.
    #[derive(
        ::sparse_soa::SparseSoa, ::core::clone::Clone, ::core::fmt::Debug, ::core::cmp::PartialEq,
    )]
    pub struct Position {
        /// Horizontal.
        pub x: f32,
        /// Vertical.
        pub y: f32,
    }

    /// Exercises the generated API where nothing is in scope.
    ///
    /// # Panics
    ///
    /// If a clone differs from its original.
    #[must_use]
    pub fn exercise() -> usize {
        let mut positions = PositionSoa::new();
        positions.insert(1, Position { x: 1.0, y: 2.0 });
        positions.insert(2, Position { x: 3.0, y: 4.0 });
        let _ = positions.remove(1);
        positions.retain(|_, _| true);
        positions.sort_by(|a, _, b, _| ::core::cmp::Ord::cmp(a, b));
        let copy = ::core::clone::Clone::clone(&positions);
        ::core::assert!(copy == positions);
        positions.len()
    }

    /// A component keyed by `Entity`, in a module without a prelude.
    #[derive(::sparse_soa::SparseSoa)]
    #[sparse_soa(key = ::sparse_soa::Entity)]
    pub struct Velocity {
        /// Horizontal.
        pub dx: f32,
    }

    /// A row of `world_rows::Space`, derived in a module without a prelude, with fields named
    /// like the generated code's parameters.
    #[derive(::sparse_soa::Bundle)]
    pub struct Row {
        /// Stored in `velocities`.
        pub world: Velocity,
        /// Stored in `labels`.
        pub entity: u32,
    }
}

/// A world beside user types that shadow the prelude's names, spawning rows derived without a
/// prelude. (A world cannot be derived under `#[no_implicit_prelude]`, which hides the
/// `diagnostic` attribute namespace its generated implementations use: a limit of the
/// compiler.)
pub mod world_rows {
    use crate::no_prelude::{Row, Velocity, VelocitySoa};

    /// Shadows `core::option::Option`.
    pub struct Option;
    /// Shadows `Some`.
    pub struct Some;
    /// Shadows `None`.
    pub struct None;
    /// Shadows `Vec`.
    pub struct Vec;
    /// Shadows `Result`.
    pub struct Result;
    /// Shadows `Iterator`.
    pub struct Iterator;

    /// A component of this module alone.
    #[derive(sparse_soa::SparseSoa)]
    #[sparse_soa(key = sparse_soa::Entity)]
    struct Secret {
        code: u8,
    }

    /// A public world, with a storage of a private type among its public ones.
    #[derive(sparse_soa::World)]
    pub struct Space {
        /// The allocator.
        pub entities: sparse_soa::Entities,
        /// Velocities.
        pub velocities: VelocitySoa,
        /// Labels.
        pub labels: sparse_soa::SparseMap<sparse_soa::Entity, u32>,
        secrets: SecretSoa,
    }

    /// Spawns rows of `Row` and one with a private component; the number of velocities stored.
    ///
    /// # Panics
    ///
    /// If the private component was not stored.
    #[must_use]
    pub fn spawn_rows() -> usize {
        let mut space = Space {
            entities: sparse_soa::Entities::new(),
            velocities: VelocitySoa::new(),
            labels: sparse_soa::SparseMap::new(),
            secrets: SecretSoa::new(),
        };
        let _ = space.spawn(Row { world: Velocity { dx: 1.0 }, entity: 7 });
        let _ = space.spawn((Velocity { dx: 2.0 }, Secret { code: 1 }));
        assert_eq!(space.secrets.code(), &[1]);
        space.spawn_batch((0..3_u32).map(|i| Row { world: Velocity { dx: 0.0 }, entity: i }));
        space.velocities.len()
    }
}

/// A crate that re-exports the runtime under another path, and derives through it.
pub mod reexport {
    /// The runtime, as a dependent crate would re-export it.
    pub use ::sparse_soa as runtime;

    /// Derived with `crate = ...`.
    #[derive(runtime::SparseSoa)]
    #[sparse_soa(crate = crate::reexport::runtime)]
    pub struct Mass {
        /// Kilograms.
        pub kg: f64,
    }

    /// Derived with `crate = "..."`.
    #[derive(runtime::SparseSoa)]
    #[sparse_soa(crate = "crate::reexport::runtime")]
    pub struct Charge(pub f64);
}

/// Every generic shape at once: a lifetime, a bounded type parameter with a default, a const
/// generic with a default, and a `where` clause.
#[derive(sparse_soa::SparseSoa)]
pub struct Labelled<'s, T: Copy = u8, const N: usize = 2>
where
    T: core::fmt::Debug,
{
    /// Borrowed.
    pub name: &'s str,
    /// Generic.
    pub data: [T; N],
    /// A type that mentions no parameter.
    pub id: u64,
}

/// A lifetime named `'a` forces the generated views to pick another.
#[derive(sparse_soa::SparseSoa, Debug)]
pub struct Borrowed<'a, 'b> {
    /// One borrow.
    pub first: &'a str,
    /// Another.
    pub second: &'b [u8],
}

/// A generic parameter without bounds, and a field type that lacks every optional trait.
#[derive(sparse_soa::SparseSoa)]
pub struct Wrapper<T> {
    /// Anything.
    pub inner: T,
    /// Neither `Debug`, `Clone` nor `PartialEq`.
    pub opaque: Opaque,
}

/// Implements nothing.
pub struct Opaque;

/// A tuple struct: columns `column_0`, `column_1`, and a renamed third.
#[derive(sparse_soa::SparseSoa, Debug, PartialEq)]
pub struct Triple(pub u8, pub u16, #[sparse_soa(rename = "third")] pub u32);

/// Raw identifiers as fields, and fields named like generated methods, renamed.
#[derive(sparse_soa::SparseSoa)]
pub struct Awkward {
    /// A keyword.
    pub r#type: u8,
    /// Would collide with `len()`.
    #[sparse_soa(rename = "length")]
    pub len: f32,
    /// Would collide with `get()` and `get_mut()`.
    #[sparse_soa(rename = "value")]
    pub get: i32,
    /// Would collide with `keys()`.
    #[sparse_soa(rename = "labels")]
    pub keys: u16,
    /// Shadows nothing; `match` needs `r#`.
    #[sparse_soa(rename = "r#match")]
    pub matched: bool,
}

/// One field; private fields; private struct.
#[derive(sparse_soa::SparseSoa)]
struct Lonely {
    only: u8,
}

/// A world and a row declared by `macro_rules!`, whose names come from the caller and whose
/// field types arrive as raw tokens: their spans carry the macro's hygiene, where the generated
/// methods' `self` must still resolve.
pub mod macro_world {
    /// A component.
    #[derive(sparse_soa::SparseSoa, Clone, Copy)]
    #[sparse_soa(key = sparse_soa::Entity)]
    pub struct Heat {
        /// Degrees.
        pub degrees: f32,
    }

    macro_rules! world {
        ($name:ident { $alloc:ident : [$($a:tt)+] $(, $field:ident : [$($ty:tt)+])* }) => {
            /// A world whose fields' types came through the macro as tokens.
            #[derive(Default, sparse_soa::World)]
            pub struct $name {
                /// The allocator.
                pub $alloc: $($a)+,
                $(
                    /// A storage.
                    pub $field: $($ty)+
                ),*
            }
        };
    }

    macro_rules! row {
        ($name:ident { $($field:ident : [$($ty:tt)+]),* }) => {
            /// A row whose name came from the macro's caller.
            #[derive(sparse_soa::Bundle)]
            pub struct $name {
                $(
                    /// A component.
                    pub $field: $($ty)+
                ),*
            }
        };
    }

    world!(Furnace {
        entities: [sparse_soa::Entities],
        heat: [HeatSoa],
        tags: [sparse_soa::SparseSet<sparse_soa::Entity>]
    });
    row!(Coal { heat: [Heat] });

    /// Spawns rows, checks the world, despawns them; whether every step held.
    #[must_use]
    pub fn spawn_check_despawn() -> bool {
        use sparse_soa::CheckAlive as _;
        let mut furnace = Furnace::default();
        let entity = furnace.spawn(Heat { degrees: 90.0 });
        let coal = furnace.spawn(Coal { heat: Heat { degrees: 20.0 } });
        let checked = furnace.check_alive().is_ok();
        checked && furnace.despawn(entity) && furnace.despawn(coal) && furnace.heat.is_empty()
    }
}

/// Pins down how the shapes work.
#[test]
fn shapes() {
    assert!(macro_world::spawn_check_despawn());
    assert_eq!(no_prelude::exercise(), 1);
    assert_eq!(world_rows::spawn_rows(), 5);

    let mut masses = reexport::MassSoa::new();
    masses.insert(3, reexport::Mass { kg: 2.0 });
    assert_eq!(masses.kg(), &[2.0]);
    let mut charges = reexport::ChargeSoa::new();
    charges.insert(3, reexport::Charge(-1.0));
    assert_eq!(charges.column_0(), &[-1.0]);

    let text = String::from("held");
    let mut labelled: LabelledSoa<'_> = LabelledSoa::new();
    labelled.insert(1, Labelled { name: &text, data: [1, 2], id: 7 });
    assert_eq!(labelled.name(), &["held"]);
    assert_eq!(labelled.get(1).map(|value| *value.data), Some([1, 2]));
    let mut wide: LabelledSoa<'_, i64, 3> = LabelledSoa::new();
    wide.insert(1, Labelled { name: "w", data: [1, 2, 3], id: 0 });
    assert_eq!(wide.data_mut()[0][2], 3);

    let bytes = [1_u8, 2];
    let mut borrowed = BorrowedSoa::new();
    borrowed.insert(4, Borrowed { first: "one", second: &bytes });
    let view = borrowed.get(4).unwrap();
    assert_eq!((*view.first, *view.second), ("one", &bytes[..]));
    assert_eq!(format!("{borrowed:?}"), "{4: Borrowed { first: \"one\", second: [1, 2] }}");

    let mut wrapped = WrapperSoa::new();
    wrapped.insert(0, Wrapper { inner: String::from("s"), opaque: Opaque });
    assert_eq!(wrapped.inner(), &["s"]);
    assert_eq!(wrapped.opaque().len(), 1);

    let mut triples = TripleSoa::new();
    triples.insert(9, Triple(1, 2, 3));
    assert_eq!(
        (triples.column_0(), triples.column_1(), triples.third()),
        (&[1][..], &[2][..], &[3][..])
    );
    let columns = triples.columns_mut();
    columns.column_0[0] += 1;
    columns.third[0] += u32::from(columns.column_1[0]);
    let view = triples.get(9).unwrap();
    assert_eq!((*view.0, *view.1, *view.2), (2, 2, 5));
    assert_eq!(triples.remove(9), Some(Triple(2, 2, 5)));

    let mut awkward = AwkwardSoa::new();
    awkward.insert(1, Awkward { r#type: 1, len: 2.0, get: 3, keys: 4, matched: true });
    assert_eq!(awkward.r#type(), &[1]);
    assert_eq!(awkward.type_mut(), &mut [1]);
    assert_eq!(awkward.length(), &[2.0]);
    assert_eq!(awkward.value(), &[3]);
    assert_eq!(awkward.labels(), &[4]);
    assert_eq!(awkward.r#match(), &[true]);
    assert_eq!(awkward.match_mut(), &mut [true]);
    assert_eq!(awkward.len(), 1);
    let view = awkward.get(1).unwrap();
    assert_eq!((*view.r#type, *view.len, *view.get, *view.keys), (1, 2.0, 3, 4));

    let mut lonely = LonelySoa::new();
    lonely.insert(0, Lonely { only: 5 });
    assert_eq!(lonely.only(), &[5]);
    assert_eq!(lonely.remove(0).map(|value| value.only), Some(5));
}

/// The serde impls where nothing is in scope and user types shadow the names that serde's, the
/// runtime's and the generated code use.
#[cfg(feature = "serde")]
#[no_implicit_prelude]
pub mod serde_no_prelude {
    /// Shadows `core::option::Option`.
    pub struct Option;
    /// Shadows `Some`.
    pub struct Some;
    /// Shadows `None`.
    pub struct None;
    /// Shadows `Result`.
    pub struct Result;
    /// Shadows `Ok`.
    pub struct Ok;
    /// Shadows `Err`.
    pub struct Err;
    /// Shadows `Vec`.
    pub struct Vec;
    /// Shadows `Clone`.
    pub struct Clone;
    /// Shadows serde's trait.
    pub struct Serialize;
    /// Shadows serde's trait.
    pub struct Deserialize;
    /// Shadows the crate `core`.
    pub mod core {}
    /// Shadows the crate `serde`.
    pub mod serde {}
    /// Shadows the runtime's name.
    pub mod sparse_soa {}

    /// A component keyed by `Entity`, saved with serde.
    #[derive(
        ::sparse_soa::SparseSoa,
        ::serde::Serialize,
        ::serde::Deserialize,
        ::core::clone::Clone,
        ::core::fmt::Debug,
        ::core::cmp::PartialEq,
    )]
    #[sparse_soa(serde, key = ::sparse_soa::Entity)]
    pub struct Position {
        /// Horizontal.
        pub x: f32,
        /// Vertical.
        pub y: f32,
    }

    /// A tag, saved with serde.
    #[derive(::sparse_soa::SparseSoa)]
    #[sparse_soa(serde)]
    pub struct Marked;

    /// A JSON round trip where nothing is in scope.
    ///
    /// # Panics
    ///
    /// If the storage does not serialize or does not read back.
    #[must_use]
    pub fn round_trip(storage: &PositionSoa) -> PositionSoa {
        let text = ::serde_json::to_string(storage).unwrap();
        ::serde_json::from_str(&text).unwrap()
    }
}

/// Serde through a re-exported runtime, and generic shapes: a lifetime borrowed from the input,
/// a bounded parameter with a default, a const parameter, a `where` clause, a tuple struct.
#[cfg(feature = "serde")]
pub mod serde_shapes {
    /// Derived with `crate = ...`.
    #[derive(
        crate::reexport::runtime::SparseSoa,
        serde::Serialize,
        serde::Deserialize,
        Clone,
        Debug,
        PartialEq,
    )]
    #[sparse_soa(crate = crate::reexport::runtime, serde)]
    pub struct Mass {
        /// Kilograms.
        pub kg: f64,
    }

    /// Every generic shape at once.
    #[derive(sparse_soa::SparseSoa, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    #[sparse_soa(serde, key = u64, dense = u16)]
    pub struct Labelled<'s, T: Copy = u8, const N: usize = 2>
    where
        T: core::fmt::Debug,
    {
        /// Borrowed from the input.
        pub name: &'s str,
        /// Generic.
        pub data: T,
        /// A type that mentions no parameter.
        pub id: u64,
    }

    /// A tuple struct with a generic column.
    #[derive(sparse_soa::SparseSoa, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    #[sparse_soa(serde)]
    pub struct Pair<T>(pub T, #[sparse_soa(rename = "second")] pub Vec<T>);
}

/// The serde impls work in every shape above.
#[cfg(feature = "serde")]
#[test]
fn serde_shapes() {
    let mut positions = serde_no_prelude::PositionSoa::new();
    let mut entities = sparse_soa::Entities::new();
    positions.insert(entities.spawn(), serde_no_prelude::Position { x: 1.0, y: 2.0 });
    assert_eq!(serde_no_prelude::round_trip(&positions), positions);
    let marked: serde_no_prelude::MarkedSoa = [4, 1].into_iter().collect();
    let text = serde_json::to_string(&marked).unwrap();
    assert_eq!(serde_json::from_str::<serde_no_prelude::MarkedSoa>(&text).unwrap(), marked);

    let mut masses = serde_shapes::MassSoa::new();
    masses.insert(3, serde_shapes::Mass { kg: 2.5 });
    let text = serde_json::to_string(&masses).unwrap();
    assert_eq!(serde_json::from_str::<serde_shapes::MassSoa>(&text).unwrap(), masses);

    let mut labelled: serde_shapes::LabelledSoa<'_, i64, 3> = serde_shapes::LabelledSoa::new();
    labelled.insert(1 << 40, serde_shapes::Labelled { name: "far", data: -4, id: 44 });
    let text = serde_json::to_string(&labelled).unwrap();
    let copy: serde_shapes::LabelledSoa<'_, i64, 3> = serde_json::from_str(&text).unwrap();
    assert_eq!(copy, labelled);

    let pairs: serde_shapes::PairSoa<char> =
        [(2, serde_shapes::Pair('a', vec!['b']))].into_iter().collect();
    let bytes = postcard::to_allocvec(&pairs).unwrap();
    assert_eq!(postcard::from_bytes::<serde_shapes::PairSoa<char>>(&bytes).unwrap(), pairs);
}
