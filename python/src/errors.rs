//! How failures cross into Python: bad arguments as `TypeError` / `ValueError`, everything
//! the device or a world reports (a failed launch, a bounded wait that gave up, naming rank,
//! workgroup and task) as `kosmos.KosmosError`, each with the Rust message. A panic is caught
//! at the boundary and becomes a `KosmosError` too, so the interpreter never goes down.

use pyo3::PyErr;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use std::panic::{AssertUnwindSafe, catch_unwind};

pyo3::create_exception!(
    kosmos,
    KosmosError,
    PyRuntimeError,
    "A failure reported by the KOSMOS runtime or a world: a failed launch, a bounded wait \
     that gave up (naming rank, workgroup and task), a receive overflow, a missing device."
);

/// A failure of a call, before it becomes a Python exception.
#[derive(Debug)]
pub enum Failure {
    /// An argument of the wrong element type: `TypeError`.
    Type(String),
    /// An argument of the wrong shape, layout, strides or device: `ValueError`.
    Value(String),
    /// What the runtime or a world reported: `KosmosError`.
    Kosmos(String),
}

pub type Result<T, E = Failure> = std::result::Result<T, E>;

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        match f {
            Failure::Type(m) => PyTypeError::new_err(m),
            Failure::Value(m) => PyValueError::new_err(m),
            Failure::Kosmos(m) => KosmosError::new_err(m),
        }
    }
}

impl From<kernels::Error> for Failure {
    fn from(e: kernels::Error) -> Failure {
        match e {
            // The kernels crate's checks of the arguments, before any launch.
            kernels::Error::Shape { .. } | kernels::Error::WrongDevice { .. } => {
                Failure::Value(e.to_string())
            }
            kernels::Error::Runtime(_) | kernels::Error::World(_) => Failure::Kosmos(e.to_string()),
        }
    }
}

impl From<kosmos_runtime::Error> for Failure {
    fn from(e: kosmos_runtime::Error) -> Failure {
        Failure::Kosmos(e.to_string())
    }
}

impl From<kosmos_runtime::WorldError> for Failure {
    fn from(e: kosmos_runtime::WorldError) -> Failure {
        Failure::Kosmos(e.to_string())
    }
}

/// Runs `f`, turning a panic into [`Failure::Kosmos`] with its message.
pub fn guarded<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        Err(Failure::Kosmos(format!(
            "internal error (a Rust panic, caught): {message}"
        )))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_a_failure_with_its_message() {
        let f = guarded::<()>(|| panic!("index 7 past 3")).unwrap_err();
        assert!(
            matches!(&f, Failure::Kosmos(m) if m.contains("index 7 past 3")),
            "{f:?}"
        );
        let f = guarded::<()>(|| panic!("{}", String::from("owned"))).unwrap_err();
        assert!(
            matches!(&f, Failure::Kosmos(m) if m.contains("owned")),
            "{f:?}"
        );
        assert_eq!(guarded(|| Ok(3)).unwrap(), 3);
    }

    #[test]
    fn argument_checks_are_value_errors_and_device_failures_kosmos_errors() {
        let shape = kernels::Error::Shape {
            op: "gemm",
            message: "a has 3 elements".into(),
        };
        assert!(matches!(Failure::from(shape), Failure::Value(m) if m.contains("a has 3")));
        let runtime = kosmos_runtime::Error::Unavailable {
            device: "cuda:3".into(),
            reason: "absent".into(),
        };
        assert!(matches!(Failure::from(runtime), Failure::Kosmos(m) if m.contains("cuda:3")));
    }
}
