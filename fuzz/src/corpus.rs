//! The seed inputs: every `.kir` file test, the saved findings among them, and the tokens
//! they are made of (what token-level mutations splice in).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One seed input.
#[derive(Clone, Debug)]
pub struct Seed {
    pub path: PathBuf,
    pub text: String,
}

/// The seed inputs and their token vocabulary.
#[derive(Clone, Debug)]
pub struct Corpus {
    pub seeds: Vec<Seed>,
    /// Every distinct token of the seeds, sorted, so that a seed picks the same token on
    /// every machine.
    pub tokens: Vec<String>,
}

impl Corpus {
    /// Every `.kir` file under `dir`, recursively, in path order.
    pub fn load(dir: &Path) -> Result<Corpus, String> {
        let mut paths = Vec::new();
        for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
            let path = entry.map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
            if path.path().extension().is_some_and(|e| e == "kir") {
                paths.push(path.into_path());
            }
        }
        let seeds = paths
            .into_iter()
            .map(|path| {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                Ok(Seed { path, text })
            })
            .collect::<Result<Vec<_>, String>>()?;
        if seeds.is_empty() {
            return Err(format!("no .kir files under {}", dir.display()));
        }
        let tokens: BTreeSet<&str> = seeds.iter().flat_map(|s| tokens(&s.text)).collect();
        Ok(Corpus {
            tokens: tokens.into_iter().map(str::to_string).collect(),
            seeds,
        })
    }
}

/// Whether `c` continues a word token (names, numbers, `%values`, `@kernels`, `ptr<global>`'s
/// parts, dotted op names such as `atomic.rmw`).
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '%' | '@' | '-' | ':')
}

/// The byte ranges of `text`'s tokens: words, and every other non-space character alone.
pub fn token_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        let mut end = start + c.len_utf8();
        if is_word(c) {
            while let Some(&(i, next)) = chars.peek().filter(|(_, n)| is_word(*n)) {
                end = i + next.len_utf8();
                chars.next();
            }
        }
        spans.push((start, end));
    }
    spans
}

fn tokens(text: &str) -> impl Iterator<Item = &str> {
    token_spans(text).into_iter().map(|(s, e)| &text[s..e])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_words_and_punctuation() {
        let text = "%p = ptr.offset %out, %t, u32 ; x<y>";
        let got: Vec<&str> = tokens(text).collect();
        assert_eq!(
            got,
            [
                "%p",
                "=",
                "ptr.offset",
                "%out",
                ",",
                "%t",
                ",",
                "u32",
                ";",
                "x",
                "<",
                "y",
                ">"
            ]
        );
    }

    #[test]
    fn the_file_tests_load_with_a_vocabulary() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/filetests");
        let corpus = Corpus::load(&dir).unwrap();
        assert!(corpus.seeds.len() > 100, "{} seeds", corpus.seeds.len());
        assert!(corpus.tokens.iter().any(|t| t == "atomic.rmw"));
    }
}
