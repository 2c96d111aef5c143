//! Output of the benchmarks: an aligned text table on stdout and a JSON file.

use std::fmt::Write as _;

/// One JSON value of a flat record.
#[derive(Clone, Debug)]
pub enum Field {
    Str(String),
    Num(f64),
    Int(u64),
}

impl Field {
    fn json(&self) -> String {
        match self {
            Field::Str(s) => format!("\"{}\"", escape(s)),
            // JSON has no NaN or infinity: an unmeasured figure is null.
            Field::Num(x) if !x.is_finite() => "null".into(),
            Field::Num(x) => format!("{x}"),
            Field::Int(x) => x.to_string(),
        }
    }
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// A flat JSON object with its keys in insertion order.
pub fn object(fields: &[(&str, Field)]) -> String {
    let body: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("\"{}\": {}", escape(k), v.json()))
        .collect();
    format!("{{{}}}", body.join(", "))
}

/// `{ header fields..., "results": [rows...] }`, one row per line.
pub fn document(header: &[(&str, Field)], rows: &[String]) -> String {
    let head = object(header);
    let head = &head[..head.len() - 1];
    let sep = if header.is_empty() { "" } else { ", " };
    format!("{head}{sep}\"results\": [\n  {}\n]}}\n", rows.join(",\n  "))
}

/// Columns padded to their widest cell; the first column left-aligned, the others right.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut width: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(&width).enumerate() {
            if i == 0 {
                let _ = write!(s, "{cell:<w$}");
            } else {
                let _ = write!(s, "  {cell:>w$}");
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(header.to_vec());
    for row in rows {
        out += &line(row.iter().map(String::as_str).collect());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes_and_nulls() {
        let o = object(&[
            ("name", Field::Str("a \"b\"\n".into())),
            ("x", Field::Num(f64::NAN)),
            ("n", Field::Int(3)),
            ("y", Field::Num(1.5)),
        ]);
        assert_eq!(
            o,
            r#"{"name": "a \"b\"\u000a", "x": null, "n": 3, "y": 1.5}"#
        );
        let d = document(
            &[("bench", Field::Str("g".into()))],
            &[o.clone(), o.clone()],
        );
        assert!(d.starts_with("{\"bench\": \"g\", \"results\": [\n  {"));
        assert!(d.ends_with("}\n]}\n"));
    }

    #[test]
    fn table_aligns_columns() {
        let t = table(
            &["shape", "x"],
            &[
                vec!["long name".into(), "1.0".into()],
                vec!["s".into(), "10.25".into()],
            ],
        );
        assert_eq!(t, "shape          x\nlong name    1.0\ns          10.25\n");
    }
}
