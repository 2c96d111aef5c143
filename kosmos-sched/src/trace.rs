//! Traces of scheduled runs: Chrome/Perfetto trace JSON and an SVG timeline (one row per
//! workgroup, one colour per role).

use crate::abi::{Role, TraceEvent};
use std::fmt::Write as _;

/// Colour of each role in the SVG timeline.
pub fn role_colour(role: Role) -> &'static str {
    match role {
        Role::Compute => "#3b7dd8",
        Role::Comm => "#e8893a",
        Role::Wait => "#c9c9c9",
    }
}

fn origin(events: &[TraceEvent]) -> u64 {
    events.iter().map(|e| e.start).min().unwrap_or(0)
}

/// The Chrome trace-event JSON (`chrome://tracing`, <https://ui.perfetto.dev>): one
/// process per rank, one thread per workgroup, one complete event (`"ph": "X"`) per
/// interval, times in microseconds from the earliest start.
pub fn chrome_json(events: &[TraceEvent]) -> String {
    let t0 = origin(events);
    let us = |ns: u64| (ns - t0) as f64 / 1e3;
    let mut out: Vec<serde_json::Value> = events
        .iter()
        .map(|e| {
            serde_json::json!({
                "name": format!("{} {}", e.role.name(), e.task),
                "cat": e.role.name(),
                "ph": "X",
                "pid": e.rank,
                "tid": e.workgroup,
                "ts": us(e.start),
                "dur": us(e.end.max(e.start)) - us(e.start),
                "args": { "task": e.task },
            })
        })
        .collect();
    let mut ranks: Vec<u32> = events.iter().map(|e| e.rank).collect();
    ranks.sort_unstable();
    ranks.dedup();
    out.extend(ranks.into_iter().map(|r| {
        serde_json::json!({
            "name": "process_name", "ph": "M", "pid": r,
            "args": { "name": format!("rank {r}") },
        })
    }));
    serde_json::json!({ "traceEvents": out, "displayTimeUnit": "ns" }).to_string()
}

/// An SVG timeline: one row per (rank, workgroup), a rectangle per interval coloured by
/// role (compute in the row's upper half, communication and waits in its lower half), a
/// time axis in microseconds and a legend.
pub fn svg_timeline(events: &[TraceEvent], title: &str) -> String {
    let mut rows: Vec<(u32, u32)> = events.iter().map(|e| (e.rank, e.workgroup)).collect();
    rows.sort_unstable();
    rows.dedup();
    let t0 = origin(events);
    let span = events
        .iter()
        .map(|e| e.end.max(e.start) - t0)
        .max()
        .unwrap_or(0)
        .max(1);
    let (left, top, row_h, width) = (110.0, 40.0, 14.0, 900.0);
    let height = top + rows.len() as f64 * row_h + 50.0;
    let x = |ns: u64| left + (ns - t0) as f64 / span as f64 * width;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{height}" font-family="sans-serif" font-size="11">"#,
        left + width + 20.0
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="16" font-size="13">{}</text>"#,
        escape(title)
    );
    for (i, (rank, wg)) in rows.iter().enumerate() {
        let y = top + i as f64 * row_h;
        let _ = writeln!(
            s,
            r#"<text x="4" y="{}">rank {rank} wg {wg}</text>"#,
            y + row_h - 3.0
        );
    }
    for e in events {
        let Some(row) = rows.iter().position(|r| *r == (e.rank, e.workgroup)) else {
            continue;
        };
        // Compute above, communication and waits below: the subgroups of a
        // warp-specialised workgroup run both at once.
        let half = (row_h - 2.0) / 2.0;
        let below = if e.role == Role::Compute { 0.0 } else { half };
        let y = top + row as f64 * row_h + 1.0 + below;
        let (x0, x1) = (x(e.start), x(e.end.max(e.start)));
        let _ = writeln!(
            s,
            r#"<rect x="{x0:.2}" y="{y}" width="{:.2}" height="{half}" fill="{}"><title>{} task {}: {} ns</title></rect>"#,
            (x1 - x0).max(0.5),
            role_colour(e.role),
            e.role.name(),
            e.task,
            e.end.saturating_sub(e.start)
        );
    }
    let axis_y = top + rows.len() as f64 * row_h + 14.0;
    for i in 0..=5 {
        let ns = span * i / 5;
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{axis_y}" text-anchor="middle">{:.1} us</text>"#,
            left + ns as f64 / span as f64 * width,
            ns as f64 / 1e3
        );
    }
    for (i, role) in Role::ALL.iter().enumerate() {
        let lx = left + i as f64 * 110.0;
        let ly = axis_y + 12.0;
        let _ = writeln!(
            s,
            r#"<rect x="{lx}" y="{ly}" width="12" height="12" fill="{}"/><text x="{}" y="{}">{}</text>"#,
            role_colour(*role),
            lx + 16.0,
            ly + 10.0,
            role.name()
        );
    }
    s.push_str("</svg>\n");
    s
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events() -> Vec<TraceEvent> {
        vec![
            TraceEvent {
                rank: 0,
                workgroup: 1,
                role: Role::Comm,
                task: 3,
                start: 1000,
                end: 3000,
            },
            TraceEvent {
                rank: 1,
                workgroup: 0,
                role: Role::Compute,
                task: 0,
                start: 2000,
                end: 5000,
            },
            TraceEvent {
                rank: 0,
                workgroup: 0,
                role: Role::Wait,
                task: 2,
                start: 1500,
                end: 1600,
            },
        ]
    }

    #[test]
    fn chrome_json_has_one_complete_event_per_interval() {
        let v: serde_json::Value = serde_json::from_str(&chrome_json(&events())).unwrap();
        let list = v["traceEvents"].as_array().unwrap();
        let complete: Vec<_> = list.iter().filter(|e| e["ph"] == "X").collect();
        assert_eq!(complete.len(), 3);
        assert_eq!(complete[0]["ts"], 0.0);
        assert_eq!(complete[0]["dur"], 2.0);
        assert_eq!(complete[1]["pid"], 1);
        assert_eq!(complete[1]["cat"], "compute");
        assert_eq!(list.iter().filter(|e| e["ph"] == "M").count(), 2);
    }

    #[test]
    fn svg_has_a_row_per_workgroup_and_a_rect_per_interval() {
        let svg = svg_timeline(&events(), "a <test>");
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<title>").count(), 3);
        assert_eq!(svg.matches(">rank ").count(), 3);
        assert!(svg.contains(role_colour(Role::Comm)) && svg.contains("a &lt;test&gt;"));
        // Times from the earliest start, 4 us across 900 px: the compute interval (1-4 us)
        // starts a quarter in and runs to the right edge.
        assert!(svg.contains(r#"x="335.00" y="69" width="675.00""#), "{svg}");
    }
}
