//! Each misuse of `#[kernel]` is a compile error at the user's tokens (`ui/*.rs`, expected
//! output in `ui/*.stderr`; regenerate with `TRYBUILD=overwrite` and review the diff).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/pass/*.rs");
    t.compile_fail("tests/ui/*.rs");
}
