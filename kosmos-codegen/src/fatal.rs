//! LLVM's fatal errors as [`CodegenError`]s.
//!
//! A backend that cannot handle its input (an instruction selection failure, an unsupported
//! sync scope) calls `report_fatal_error`, which runs the installed handler and then exits
//! the process. [`install_handler`] installs one that never returns: it unwinds, as a Rust
//! panic with a [`LlvmFatal`] payload, through LLVM's frames back to the [`catch`] around
//! the compilation. Debian's LLVM 22 is built without exceptions but with unwind tables, so
//! its frames unwind; their destructors do not run (nothing in them catches).
//!
//! What those frames were doing is left half done: the context, module and target machine
//! in use may be inconsistent. They are held as [`LeakOnUnwind`] and leaked, never disposed
//! nor reused; each compilation makes its own. LLVM's global state is untouched:
//! `report_fatal_error` calls the handler without holding its lock.

use crate::CodegenError;
use std::ffi::{CStr, c_char};
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

/// The payload of the unwind started by LLVM's fatal error handler: LLVM's message.
struct LlvmFatal(String);

unsafe extern "C" {
    // llvm-sys declares the handler `extern "C"`, which cannot unwind: this is the same
    // symbol with a handler type that may.
    fn LLVMInstallFatalErrorHandler(handler: Option<unsafe extern "C-unwind" fn(*const c_char)>);
}

/// Unwinds to the [`catch`] around the compilation (without the panic hook's message: this
/// is an error, not a bug).
unsafe extern "C-unwind" fn unwind_on_fatal_error(reason: *const c_char) {
    let message = if reason.is_null() {
        "no message".to_string()
    } else {
        // SAFETY: LLVM passes a NUL-terminated string that lives while the handler runs.
        unsafe { CStr::from_ptr(reason) }
            .to_string_lossy()
            .into_owned()
    };
    resume_unwind(Box::new(LlvmFatal(message)))
}

/// Installs the handler, once per process, before any LLVM work (`init_llvm`).
pub(crate) fn install_handler() {
    // SAFETY: the handler has the signature LLVM calls it with.
    unsafe { LLVMInstallFatalErrorHandler(Some(unwind_on_fatal_error)) }
}

/// Runs `f`, turning an LLVM fatal error inside it into [`CodegenError::LlvmFatal`]. Other
/// panics (bugs) go on unwinding.
pub(crate) fn catch<T>(f: impl FnOnce() -> Result<T, CodegenError>) -> Result<T, CodegenError> {
    // The LLVM objects `f` used are leaked on the way out (`LeakOnUnwind`), so nothing it
    // could observe half-updated is used again.
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => match payload.downcast::<LlvmFatal>() {
            Ok(fatal) => Err(CodegenError::LlvmFatal { message: fatal.0 }),
            Err(other) => resume_unwind(other),
        },
    }
}

/// An LLVM object that is disposed when dropped normally, but leaked when a panic unwinds
/// past it: after a fatal error LLVM may have left it inconsistent, and disposing it could
/// crash.
pub(crate) struct LeakOnUnwind<T>(ManuallyDrop<T>);

impl<T> LeakOnUnwind<T> {
    pub fn new(value: T) -> LeakOnUnwind<T> {
        LeakOnUnwind(ManuallyDrop::new(value))
    }
}

impl<T> Deref for LeakOnUnwind<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> Drop for LeakOnUnwind<T> {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            // SAFETY: dropped once, here; the field is not used afterwards.
            unsafe { ManuallyDrop::drop(&mut self.0) }
        }
    }
}
