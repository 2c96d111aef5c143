//! Inputs from the corpus: input `i` of a run with seed `s` is a pure function of `(s, i)`,
//! so a run is replayed exactly by its seed, whatever the number of workers.
//!
//! The first inputs are the seeds themselves; every later one is a seed with one to four
//! mutations: byte-level (flip, insert, delete, duplicate), line-level (delete, duplicate,
//! swap, splice with another seed), token-level (a token replaced by one from the corpus,
//! a number by a boundary value) and structural (a region opener repeated to nest deeply).

use crate::corpus::{Corpus, token_spans};
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

/// Inputs grow no larger than this (deep nesting of a long line is the largest).
const MAX_INPUT_BYTES: usize = 1 << 20;

/// Numbers at the edges of the types' ranges, of the parser's literals and of loop bounds.
const BOUNDARY_NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2147483647",
    "2147483648",
    "-2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "340282366920938463463374607431768211456",
    "1e308",
    "1e-320",
    "-0.0",
];

/// How deep a repeated region opener nests: around the documented limit, and far past it.
const NEST_DEPTHS: &[usize] = &[8, 63, 64, 65, 200, 5000, 20000];

/// Bytes worth inserting: the format's punctuation, a NUL, and a byte that is not UTF-8.
const INTERESTING_BYTES: &[u8] = b"{}()<>%@,;=:.-\n \0\xff";

pub struct Mutator<'c> {
    corpus: &'c Corpus,
}

impl<'c> Mutator<'c> {
    pub fn new(corpus: &'c Corpus) -> Mutator<'c> {
        Mutator { corpus }
    }

    /// Input `index` of the run seeded with `seed`.
    pub fn input(&self, seed: u64, index: u64) -> String {
        let seeds = &self.corpus.seeds;
        if let Some(s) = usize::try_from(index).ok().and_then(|i| seeds.get(i)) {
            return s.text.clone();
        }
        // A multiplier with well-mixed bits keeps neighbouring indices' streams apart.
        let mut rng = SmallRng::seed_from_u64(seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut text = seeds
            .choose(&mut rng)
            .expect("a corpus has seeds")
            .text
            .clone();
        for _ in 0..rng.random_range(1..=4) {
            let mutated = self.mutate_once(&text, &mut rng);
            if mutated.len() <= MAX_INPUT_BYTES {
                text = mutated;
            }
        }
        text
    }

    fn mutate_once(&self, text: &str, rng: &mut SmallRng) -> String {
        match rng.random_range(0..10) {
            0 => mutate_bytes(text, rng),
            1 => delete_lines(text, rng),
            2 => duplicate_lines(text, rng),
            3 => swap_lines(text, rng),
            4 => self.splice(text, rng),
            5 | 6 => self.replace_token(text, rng),
            7 | 8 => replace_number(text, rng),
            _ => nest(text, rng),
        }
    }

    fn replace_token(&self, text: &str, rng: &mut SmallRng) -> String {
        let spans = token_spans(text);
        let (Some(&(start, end)), Some(token)) =
            (spans.choose(rng), self.corpus.tokens.choose(rng))
        else {
            return text.to_string();
        };
        format!("{}{token}{}", &text[..start], &text[end..])
    }

    /// The first part of this input's lines and the last part of another seed's.
    fn splice(&self, text: &str, rng: &mut SmallRng) -> String {
        let other = &self
            .corpus
            .seeds
            .choose(rng)
            .expect("a corpus has seeds")
            .text;
        let (a, b) = (lines(text), lines(other));
        let cut_a = rng.random_range(0..=a.len());
        let cut_b = rng.random_range(0..=b.len());
        join(a[..cut_a].iter().chain(&b[cut_b..]).copied())
    }
}

fn lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

fn join<'a>(lines: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// A random range `start..end` of 1 to 8 elements of a sequence of `len`; `None` when empty.
fn some_range(len: usize, rng: &mut SmallRng) -> Option<(usize, usize)> {
    if len == 0 {
        return None;
    }
    let start = rng.random_range(0..len);
    let end = (start + rng.random_range(1..=8)).min(len);
    Some((start, end))
}

fn mutate_bytes(text: &str, rng: &mut SmallRng) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let at = rng.random_range(0..=bytes.len());
    match rng.random_range(0..4) {
        0 if at < bytes.len() => bytes[at] ^= 1 << rng.random_range(0..8),
        1 => bytes.insert(at, *INTERESTING_BYTES.choose(rng).expect("not empty")),
        2 => {
            if let Some((start, end)) = some_range(bytes.len(), rng) {
                bytes.drain(start..end);
            }
        }
        _ => {
            if let Some((start, end)) = some_range(bytes.len(), rng) {
                let copy = bytes[start..end].to_vec();
                bytes.splice(at..at, copy);
            }
        }
    }
    // The parser takes text: bytes that are not UTF-8 become U+FFFD, itself worth parsing.
    String::from_utf8_lossy(&bytes).into_owned()
}

fn delete_lines(text: &str, rng: &mut SmallRng) -> String {
    let mut l = lines(text);
    if let Some((start, end)) = some_range(l.len(), rng) {
        l.drain(start..end);
    }
    join(l)
}

fn duplicate_lines(text: &str, rng: &mut SmallRng) -> String {
    let mut l = lines(text);
    if let Some((start, end)) = some_range(l.len(), rng) {
        let copy = l[start..end].to_vec();
        let at = rng.random_range(0..=l.len());
        l.splice(at..at, copy);
    }
    join(l)
}

fn swap_lines(text: &str, rng: &mut SmallRng) -> String {
    let mut l = lines(text);
    if !l.is_empty() {
        let (a, b) = (rng.random_range(0..l.len()), rng.random_range(0..l.len()));
        l.swap(a, b);
    }
    join(l)
}

fn replace_number(text: &str, rng: &mut SmallRng) -> String {
    let numbers: Vec<(usize, usize)> = token_spans(text)
        .into_iter()
        .filter(|&(s, e)| {
            text[s..e]
                .trim_start_matches('-')
                .starts_with(|c: char| c.is_ascii_digit())
        })
        .collect();
    let (Some(&(start, end)), Some(n)) = (numbers.choose(rng), BOUNDARY_NUMBERS.choose(rng)) else {
        return text.to_string();
    };
    format!("{}{n}{}", &text[..start], &text[end..])
}

/// Repeats a region's opening line (`if %c {`, `for ... {`) to nest its body deeply, closing
/// each copy with `yield` and `}` (or, half the time, leaving them all open).
fn nest(text: &str, rng: &mut SmallRng) -> String {
    let l = lines(text);
    let openers: Vec<usize> = (0..l.len())
        .filter(|&i| l[i].trim_end().ends_with('{') && !l[i].trim_start().starts_with("kernel"))
        .collect();
    let Some(&open) = openers.choose(rng) else {
        return text.to_string();
    };
    let copies = *NEST_DEPTHS.choose(rng).expect("not empty") - 1;
    let mut out: Vec<&str> = l[..open].to_vec();
    out.extend(std::iter::repeat_n(l[open], copies));
    if rng.random_bool(0.5) {
        out.extend(&l[open..]);
        return join(out);
    }
    // The line holding the opener's matching brace.
    let mut depth = 0i64;
    let close = (open..l.len()).find(|&i| {
        depth += l[i].matches('{').count() as i64 - l[i].matches('}').count() as i64;
        depth <= 0
    });
    let close = close.unwrap_or(l.len() - 1);
    out.extend(&l[open..=close]);
    for _ in 0..copies {
        out.extend(["yield", "}"]);
    }
    out.extend(&l[close + 1..]);
    join(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Seed;
    use std::path::PathBuf;

    fn corpus() -> Corpus {
        let text = "kernel @k(%c: i1) max_workgroup_size 1 {\n  if %c {\n    yield\n  }\n}\n";
        Corpus {
            seeds: vec![Seed {
                path: PathBuf::from("k.kir"),
                text: text.to_string(),
            }],
            tokens: vec!["%c".into(), "42".into()],
        }
    }

    #[test]
    fn inputs_are_replayed_by_seed_and_index() {
        let corpus = corpus();
        let m = Mutator::new(&corpus);
        assert_eq!(
            m.input(7, 0),
            corpus.seeds[0].text,
            "input 0 is the seed itself"
        );
        let run: Vec<String> = (1..200).map(|i| m.input(7, i)).collect();
        assert_eq!(run, (1..200).map(|i| m.input(7, i)).collect::<Vec<_>>());
        assert!(run.iter().any(|t| *t != corpus.seeds[0].text));
        assert_ne!(run, (1..200).map(|i| m.input(8, i)).collect::<Vec<_>>());
    }

    #[test]
    fn nesting_closes_every_copy() {
        let corpus = corpus();
        let text = &corpus.seeds[0].text;
        let nested = (0..64)
            .map(|s| nest(text, &mut SmallRng::seed_from_u64(s)))
            .find(|t| t.matches('{').count() == t.matches('}').count() && t.len() > 200)
            .expect("some seed nests and closes");
        assert_eq!(
            nested.matches("if %c {").count(),
            nested.matches("yield").count()
        );
    }
}
