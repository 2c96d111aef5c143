//! What a run did: counts per stage and per kind of crash, as a table and as JSON.

use crate::pipeline::Reached;
use crate::worker::CrashKind;
use std::fmt;
use std::time::Duration;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub inputs: u64,
    pub parsed: u64,
    pub verified: u64,
    pub ran: u64,
    pub compiled: u64,
    pub panics: u64,
    pub aborts: u64,
    pub hangs: u64,
}

impl Counts {
    pub fn add(&mut self, result: Result<Reached, CrashKind>) {
        self.inputs += 1;
        match result {
            Ok(r) => {
                self.parsed += u64::from(r.parsed);
                self.verified += u64::from(r.verified);
                self.ran += u64::from(r.ran);
                self.compiled += u64::from(r.compiled);
            }
            Err(CrashKind::Panic) => self.panics += 1,
            Err(CrashKind::Abort) => self.aborts += 1,
            Err(CrashKind::Hang) => self.hangs += 1,
        }
    }

    pub fn crashes(&self) -> u64 {
        self.panics + self.aborts + self.hangs
    }
}

/// A finished run.
#[derive(Clone, Debug)]
pub struct Summary {
    pub seed: u64,
    pub workers: usize,
    pub elapsed: Duration,
    pub counts: Counts,
    /// Files written for crashes not already saved.
    pub new_findings: Vec<String>,
}

impl Summary {
    pub fn inputs_per_second(&self) -> f64 {
        self.counts.inputs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn to_json(&self) -> serde_json::Value {
        let c = &self.counts;
        serde_json::json!({
            "seed": self.seed,
            "workers": self.workers,
            "seconds": self.elapsed.as_secs_f64(),
            "inputs": c.inputs,
            "inputs_per_second": self.inputs_per_second(),
            "parsed": c.parsed,
            "verified": c.verified,
            "ran": c.ran,
            "compiled": c.compiled,
            "panics": c.panics,
            "aborts": c.aborts,
            "hangs": c.hangs,
            "new_findings": self.new_findings,
        })
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = &self.counts;
        let rows = [
            ("seed", self.seed.to_string()),
            ("seconds", format!("{:.1}", self.elapsed.as_secs_f64())),
            ("inputs", c.inputs.to_string()),
            ("inputs/s", format!("{:.1}", self.inputs_per_second())),
            ("parsed", c.parsed.to_string()),
            ("verified", c.verified.to_string()),
            ("ran", c.ran.to_string()),
            ("compiled", c.compiled.to_string()),
            ("panics", c.panics.to_string()),
            ("aborts", c.aborts.to_string()),
            ("hangs", c.hangs.to_string()),
            ("new findings", self.new_findings.len().to_string()),
        ];
        for (name, value) in rows {
            writeln!(f, "{name:>14}  {value}")?;
        }
        for path in &self.new_findings {
            writeln!(f, "  saved {path}")?;
        }
        Ok(())
    }
}
