//! The one comparison of a device's float output with its f64 host reference, shared by the
//! tests, the demo and the benchmarks.

use std::fmt;

/// Tolerance of bf16 products accumulated in f32 (both sides see the same bf16 inputs),
/// per element against `max(|want|, 1)` ([`Scale::Each`] with floor 1).
pub const BF16_DOT_F32: f64 = 1e-4;

/// What an element's absolute error is divided by.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Scale {
    /// The largest reference magnitude, so that entries near zero don't dominate.
    Largest,
    /// The element's own reference magnitude, but at least `floor`.
    Each { floor: f64 },
    /// A magnitude the caller knows, e.g. the sum of the inputs' magnitudes for a sum.
    Fixed(f64),
}

/// The worst element of a comparison.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Worst {
    pub index: usize,
    pub got: f64,
    pub want: f64,
}

/// How far an output is from its reference, judged against a tolerance.
#[derive(Clone, Debug, PartialEq)]
pub struct RelErr {
    /// Largest relative error; infinite for NaN (a poisoned element left unwritten).
    pub max: f64,
    /// Where [`RelErr::max`] is; `None` for an empty output.
    pub worst: Option<Worst>,
    /// Elements whose relative error exceeds the tolerance.
    pub over: usize,
    pub tolerance: f64,
    /// Lengths of the output and the reference (they must agree).
    pub got_len: usize,
    pub want_len: usize,
}

/// Compares `got` with `want` element by element, each error divided as `scale` says.
pub fn rel_err<T: Copy + Into<f64>>(
    got: &[T],
    want: &[f64],
    scale: Scale,
    tolerance: f64,
) -> RelErr {
    let largest = want.iter().fold(0f64, |m, w| m.max(w.abs()));
    let divisor = |w: f64| match scale {
        Scale::Largest => largest,
        Scale::Each { floor } => w.abs().max(floor),
        Scale::Fixed(s) => s,
    };
    let mut result = RelErr {
        max: 0.0,
        worst: None,
        over: 0,
        tolerance,
        got_len: got.len(),
        want_len: want.len(),
    };
    for (index, (g, &w)) in got.iter().zip(want).enumerate() {
        let g: f64 = (*g).into();
        let e = (g - w).abs() / divisor(w).max(1e-30);
        let e = if e.is_nan() { f64::INFINITY } else { e };
        if e > tolerance {
            result.over += 1;
        }
        if result.worst.is_none() || e > result.max {
            result.max = e;
            result.worst = Some(Worst {
                index,
                got: g,
                want: w,
            });
        }
    }
    result
}

impl RelErr {
    /// Whether every element is within the tolerance and the lengths agree.
    pub fn passed(&self) -> bool {
        self.over == 0 && self.got_len == self.want_len
    }

    /// Panics with [`RelErr`]'s report, prefixed by `what`, unless it passed.
    #[track_caller]
    pub fn assert(&self, what: impl fmt::Display) {
        assert!(self.passed(), "{what}: {self}");
    }
}

impl fmt::Display for RelErr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.got_len != self.want_len {
            return write!(
                f,
                "{} elements, but the reference has {}",
                self.got_len, self.want_len
            );
        }
        write!(
            f,
            "max relative error {:.3e} (tolerance {:.1e}, {} elements over)",
            self.max, self.tolerance, self.over
        )?;
        if let Some(Worst { index, got, want }) = self.worst {
            write!(f, " at element {index}: got {got}, want {want}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_the_worst_element_and_counts_those_over() {
        let r = rel_err(
            &[1.0f32, 2.5, f32::NAN],
            &[1.0, 2.0, 3.0],
            Scale::Largest,
            0.1,
        );
        assert_eq!(r.max, f64::INFINITY);
        assert_eq!(r.worst.unwrap().index, 2);
        assert_eq!(r.over, 2);
        assert!(!r.passed());
        let r = rel_err(&[1.0f32, 2.5], &[1.0, 2.0], Scale::Each { floor: 1.0 }, 0.3);
        assert_eq!(r.max, 0.25);
        assert!(r.passed(), "{r}");
        assert!(
            r.to_string().contains("at element 1: got 2.5, want 2"),
            "{r}"
        );
        assert!(!rel_err(&[1.0f32], &[1.0, 2.0], Scale::Fixed(1.0), 1.0).passed());
    }
}
