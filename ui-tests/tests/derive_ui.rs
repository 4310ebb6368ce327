//! Compile errors of `#[derive(SparseSoa)]`: every misuse gets a precise, spanned message. The
//! expected output lives next to each case in `tests/ui/<topic>/<case>.stderr`.
//!
//! The `.stderr` files hold rustc's own wording and layout, which change between releases, so
//! they were recorded with rustc 1.95 and the test runs only on a 1.95.x stable compiler; on any
//! other it is ignored rather than failing on the compiler's changes. To move to another
//! toolchain, change the version in the `rustversion` attribute below, re-record with
//!
//! ```text
//! TRYBUILD=overwrite cargo test -p sparse-soa-ui-tests
//! ```
//!
//! and read the diff of `tests/ui/` before committing it: only the compiler's wording should
//! change, never which errors are reported or where (see `tests/ui/README.md`).

// Above `#[test]`, which reads `ignore` when it expands: an attribute below it comes too late.
#[rustversion::attr(
    not(stable(1.95)),
    ignore = "the .stderr files were recorded with rustc 1.95; re-record them with `TRYBUILD=overwrite cargo test -p sparse-soa-ui-tests` on this compiler and read the diff"
)]
#[test]
#[cfg_attr(miri, ignore = "compiles test crates")]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*/*.rs");
    // `#[sparse_soa(serde)]` compiles or not depending on the `serde` feature of `sparse-soa`
    // (this package's `serde` feature turns it on).
    #[cfg(not(feature = "serde"))]
    cases.compile_fail("tests/ui/serde/off/*.rs");
    #[cfg(feature = "serde")]
    cases.compile_fail("tests/ui/serde/on/*.rs");
    // The parallel forms name the `rayon` feature when it is off.
    #[cfg(not(feature = "rayon"))]
    cases.compile_fail("tests/ui/rayon/off/*.rs");
    #[cfg(feature = "rayon")]
    cases.compile_fail("tests/ui/rayon/on/*.rs");
}
