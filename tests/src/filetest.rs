//! Shared machinery of the `.kir` file tests (`tests/filetests/`, run by
//! `tests/filetests.rs`): finding the files, reading a file's kind and expect block,
//! comparing output, and rewriting the expect block when blessing.
//!
//! A file starts with `; test <kind>`; its expected output, where the kind has one, comes
//! last, after a line `; expect:`, each output line written as `; <line>` (`;` alone for an
//! empty line), or, for long outputs such as assembly, in files beside it
//! ([`TestFile::check_beside`]).

use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Set to `1` to rewrite expect blocks (and expected files) from the actual output instead of
/// comparing.
pub const BLESS_VAR: &str = "KOSMOS_BLESS";
/// The line that starts a file's expected output.
pub const EXPECT_LINE: &str = "; expect:";

/// One test file, split into its parts.
#[derive(Clone, Debug)]
pub struct TestFile {
    pub path: PathBuf,
    /// The whole file.
    pub text: String,
    /// The word after `; test`.
    pub kind: String,
    /// The file up to (not including) the `; expect:` line; the whole file without one.
    pub body: String,
    /// The expected output lines, prefixes removed; `None` without an expect block.
    pub expect: Option<Vec<String>>,
}

impl TestFile {
    pub fn read(path: &Path) -> Result<TestFile, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        TestFile::parse(path, text)
    }

    /// Splits `text` (the contents of `path`) into header, body and expect block.
    pub fn parse(path: &Path, text: String) -> Result<TestFile, String> {
        let first = text.lines().next().unwrap_or("");
        let kind = first
            .strip_prefix("; test ")
            .map(str::trim)
            .filter(|k| !k.is_empty() && !k.contains(char::is_whitespace))
            .ok_or_else(|| format!("line 1: expected '; test <kind>', found {first:?}"))?
            .to_string();

        let mut body = String::new();
        let mut expect = None::<Vec<String>>;
        for (i, line) in text.split_inclusive('\n').enumerate() {
            let content = line.trim_end_matches(['\n', '\r']);
            match &mut expect {
                None if content == EXPECT_LINE => expect = Some(Vec::new()),
                None => body.push_str(line),
                Some(lines) => {
                    let out = match content.strip_prefix(';') {
                        Some(rest) => rest.strip_prefix(' ').unwrap_or(rest),
                        None if content.trim().is_empty() => continue,
                        None => {
                            return Err(format!(
                                "line {}: expected '; <output>' in the expect block, found {content:?}",
                                i + 1
                            ));
                        }
                    };
                    lines.push(out.to_string());
                }
            }
        }
        // Trailing empty lines of the block carry no output.
        if let Some(lines) = &mut expect {
            while lines.last().is_some_and(String::is_empty) {
                lines.pop();
            }
        }
        Ok(TestFile {
            path: path.to_path_buf(),
            text,
            kind,
            body,
            expect,
        })
    }

    /// The body without its `; test` line.
    pub fn body_after_header(&self) -> &str {
        self.body.split_once('\n').map_or("", |(_, rest)| rest)
    }

    /// Compares `actual` with the expect block, or rewrites the block when blessing.
    pub fn check_expect(&self, actual: &str) -> Result<(), String> {
        let actual_lines: Vec<String> = actual.lines().map(str::to_string).collect();
        if blessing() {
            if self.expect.as_ref() != Some(&actual_lines) {
                self.bless(&actual_lines)?;
            }
            return Ok(());
        }
        match &self.expect {
            None => Err(format!(
                "no '{EXPECT_LINE}' block; the output was:\n{actual}\n\
                 (run with {BLESS_VAR}=1 to write it into the file)"
            )),
            Some(expected) if *expected == actual_lines => Ok(()),
            Some(expected) => Err(format!(
                "output differs from the expect block (run with {BLESS_VAR}=1 to update it)\n{}",
                diff(&expected.join("\n"), actual)
            )),
        }
    }

    /// Compares `actual` with the file beside this one named `<stem>.<suffix>` (`atomics.kir`
    /// and `sm_90a.s`: `atomics.sm_90a.s`), or writes that file when blessing.
    pub fn check_beside(&self, suffix: &str, actual: &str) -> Result<(), String> {
        let path = self.path.with_extension(suffix);
        let expected = std::fs::read_to_string(&path).ok();
        if blessing() {
            if expected.as_deref() != Some(actual) {
                std::fs::write(&path, actual)
                    .map_err(|e| format!("cannot bless {}: {e}", path.display()))?;
            }
            return Ok(());
        }
        match expected {
            None => Err(format!(
                "no {} (run with {BLESS_VAR}=1 to write it)",
                path.display()
            )),
            Some(expected) if expected == actual => Ok(()),
            Some(expected) => Err(format!(
                "output differs from {} (run with {BLESS_VAR}=1 to update it)\n{}",
                path.display(),
                diff(&expected, actual)
            )),
        }
    }

    /// Rewrites the file: its body, then an expect block holding `lines`.
    fn bless(&self, lines: &[String]) -> Result<(), String> {
        let mut text = self.body.clone();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(EXPECT_LINE);
        text.push('\n');
        for line in lines {
            if line.is_empty() {
                text.push_str(";\n");
            } else {
                let _ = writeln!(text, "; {line}");
            }
        }
        std::fs::write(&self.path, text)
            .map_err(|e| format!("cannot bless {}: {e}", self.path.display()))
    }
}

/// Whether [`BLESS_VAR`] asks for expect blocks to be rewritten.
pub fn blessing() -> bool {
    std::env::var(BLESS_VAR).is_ok_and(|v| v == "1")
}

/// Every `.kir` file under `dir`, recursively, in sorted order.
pub fn collect(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let kir = |e: &walkdir::DirEntry| e.path().extension().is_some_and(|x| x == "kir");
    let entries = walkdir::WalkDir::new(dir).sort_by_file_name().into_iter();
    let files = entries.filter(|e| e.as_ref().map_or(true, kir));
    files
        .map(|e| e.map(walkdir::DirEntry::into_path))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))
}

/// Both texts, with the first differing line marked.
pub fn diff(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let first = (0..e.len().max(a.len()))
        .find(|&i| e.get(i) != a.get(i))
        .unwrap_or(0);
    let mut out = format!("first difference at output line {}\n", first + 1);
    for (label, lines) in [("expected", &e), ("actual", &a)] {
        let _ = writeln!(out, "--- {label}:");
        for (i, line) in lines.iter().enumerate() {
            let mark = if i == first { '>' } else { ' ' };
            let _ = writeln!(out, "{mark} {line}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_header_body_and_expect_block() {
        let text =
            "; test verify\nkernel @k() max_workgroup_size 1 {\n}\n; expect:\n; a: b\n;\n; c\n\n";
        let file = TestFile::parse(Path::new("x.kir"), text.to_string()).unwrap();
        assert_eq!(file.kind, "verify");
        assert_eq!(
            file.body,
            "; test verify\nkernel @k() max_workgroup_size 1 {\n}\n"
        );
        assert_eq!(
            file.body_after_header(),
            "kernel @k() max_workgroup_size 1 {\n}\n"
        );
        assert_eq!(
            file.expect,
            Some(vec!["a: b".to_string(), String::new(), "c".to_string()])
        );
    }

    #[test]
    fn rejects_a_missing_header_and_stray_expect_lines() {
        assert!(TestFile::parse(Path::new("x.kir"), "kernel @k".to_string()).is_err());
        let text = "; test verify\n; expect:\nnot a comment\n".to_string();
        let err = TestFile::parse(Path::new("x.kir"), text).unwrap_err();
        assert!(err.starts_with("line 3:"), "{err}");
    }
}
