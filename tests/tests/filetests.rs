//! Runs every `.kir` file under `tests/filetests/` as one test (docs/ir.md, "File tests").
//!
//! A test kind is one function below; shared file handling lives in
//! `kosmos_tests::filetest`.

use kosmos_tests::filetest::{self, TestFile, diff};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::Path;

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests");
    let files = filetest::collect(&root).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let trials = files
        .into_iter()
        .map(|path| {
            let name = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .display()
                .to_string();
            Trial::test(name, move || run_file(&path).map_err(Failed::from))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

fn run_file(path: &Path) -> Result<(), String> {
    let file = TestFile::read(path)?;
    match file.kind.as_str() {
        "print" => print(&file),
        "parse-error" => parse_error(&file),
        "verify" => verify(&file),
        "run" => kosmos_tests::filerun::run(&file.body).and_then(|out| file.check_expect(&out)),
        other => Err(format!(
            "unknown test kind '{other}' (expected print, parse-error, verify or run)"
        )),
    }
}

/// Parses, verifies, and prints back exactly the file's text after its `; test` line.
fn print(file: &TestFile) -> Result<(), String> {
    if file.expect.is_some() {
        return Err("a print test has no expect block: the file is its own expectation".into());
    }
    let module = kosmos_ir::parse_module(&file.body).map_err(|e| format!("parse error: {e}"))?;
    kosmos_ir::verify_module(&module).map_err(|e| format!("verifier errors:\n{e}"))?;
    let printed = kosmos_ir::print_module(&module);
    let expected = file.body_after_header();
    if printed == expected {
        Ok(())
    } else {
        Err(format!(
            "printed text differs from the file\n{}",
            diff(expected, &printed)
        ))
    }
}

/// Parsing fails with the error in the expect block.
fn parse_error(file: &TestFile) -> Result<(), String> {
    match kosmos_ir::parse_module(&file.body) {
        Ok(_) => Err("the file parsed, but a parse error was expected".into()),
        Err(e) => file.check_expect(&e.to_string()),
    }
}

/// Parsing succeeds and the verifier reports the errors in the expect block (none for an
/// empty block).
fn verify(file: &TestFile) -> Result<(), String> {
    let module = kosmos_ir::parse_module(&file.body).map_err(|e| format!("parse error: {e}"))?;
    let actual = match kosmos_ir::verify_module(&module) {
        Ok(()) => String::new(),
        Err(errors) => errors.to_string(),
    };
    file.check_expect(&actual)
}
