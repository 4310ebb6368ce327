//! Compile errors of `#[derive(SparseSoa)]`: every misuse gets a precise, spanned message. The
//! expected output lives next to each case in `tests/ui/<topic>/<case>.stderr`; regenerate with
//! `TRYBUILD=overwrite cargo test --test derive_ui` and read the diff.

#[test]
#[cfg_attr(miri, ignore = "compiles test crates")]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*/*.rs");
}
