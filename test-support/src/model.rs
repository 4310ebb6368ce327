//! The configuration of the model tests (proptest, feature `proptest`).

use proptest::test_runner::{Config, FileFailurePersistence};

/// A model test's configuration, given inside `proptest!` as
/// `#![proptest_config(model::config())]`: 64 cases, or as many as the `PROPTEST_CASES`
/// environment variable says (CI runs 256), or 4 under miri, which runs about a thousand times
/// slower. A failing case is saved beside the test's source file, in
/// `<file>.proptest-regressions`, and the cases saved there run first every time; under miri,
/// whose isolation forbids reading files, nothing is saved or read.
///
/// ```
/// use sparse_soa_test_support::model;
///
/// let config = model::config();
/// let asked = std::env::var("PROPTEST_CASES").ok().and_then(|cases| cases.parse().ok());
/// assert_eq!(config.cases, if cfg!(miri) { 4 } else { asked.unwrap_or(64) });
/// assert_eq!(config.failure_persistence.is_some(), !cfg!(miri));
/// ```
#[must_use]
pub fn config() -> Config {
    Config {
        cases: if cfg!(miri) {
            4
        } else {
            std::env::var("PROPTEST_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(64)
        },
        failure_persistence: if cfg!(miri) {
            None
        } else {
            Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions")))
        },
        ..Config::default()
    }
}
