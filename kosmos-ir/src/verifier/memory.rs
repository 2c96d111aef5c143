//! Checks of pointers, loads, stores, atomics and shared memory.

use super::*;

impl<'k> Verifier<'k> {
    // ---- memory ----

    /// Reports `ptr` if it is not a pointer; returns its address space when it is one.
    pub(super) fn pointer(&mut self, at: Site, ptr: Value) -> Option<AddrSpace> {
        match self.ty(ptr)? {
            Type::Ptr(space) => Some(space),
            _ => {
                self.error(
                    at,
                    VerifyErrorKind::PointerOperand,
                    format!("{} must be a pointer", self.describe(ptr)),
                );
                None
            }
        }
    }

    /// `buffer.len` reads the length passed with a pointer parameter: only those have one.
    pub(super) fn buffer_len(&mut self, at: Site, buffer: Value) {
        let is_param = self.kernel.params.contains(&buffer);
        if !is_param || !matches!(self.ty(buffer), Some(Type::Ptr(_))) {
            self.error(
                at,
                VerifyErrorKind::BufferLenOperand,
                format!(
                    "{} is not a pointer parameter of the kernel: only those come with a length",
                    self.describe(buffer)
                ),
            );
        }
    }

    pub(super) fn alignment(&mut self, at: Site, align: u32) {
        if !valid_align(align) {
            self.error(
                at,
                VerifyErrorKind::Alignment,
                format!("align {align} is not a power of two in 1..=16"),
            );
        }
    }

    /// Reports a `ptr<shared>` value leaving the workgroup through memory; returns whether
    /// it was one.
    pub(super) fn shared_escape(&mut self, at: Site, value: Value) -> bool {
        let escapes = self.ty(value) == Some(Type::SHARED_PTR);
        if escapes {
            self.error(
                at,
                VerifyErrorKind::SharedEscape,
                format!(
                    "{} is a ptr<shared>: written to memory, shared memory would be used \
                     outside its workgroup",
                    self.name(value)
                ),
            );
        }
        escapes
    }

    pub(super) fn ptr_offset(&mut self, at: Site, base: Value, index: Value, elem: Type) {
        self.pointer(at, base);
        if let Some(t) = self.ty(index)
            && !t.scalar().is_some_and(|s| s.is_int() && !s.is_bool())
        {
            self.error(
                at,
                VerifyErrorKind::IndexType,
                format!(
                    "the index {} must be an integer other than i1",
                    self.describe(index)
                ),
            );
        }
        self.well_formed(at, elem, "the element");
    }

    pub(super) fn load(&mut self, at: Site, ptr: Value, ty: Type, align: u32) {
        self.pointer(at, ptr);
        if self.well_formed(at, ty, "the loaded value") && ty == Type::SHARED_PTR {
            self.error(
                at,
                VerifyErrorKind::SharedEscape,
                "a ptr<shared> cannot be loaded from memory: shared pointers never live there"
                    .to_string(),
            );
        }
        self.alignment(at, align);
    }

    pub(super) fn store(&mut self, at: Site, ptr: Value, value: Value, align: u32) {
        if self.pointer(at, ptr) == Some(AddrSpace::Constant) {
            self.error(
                at,
                VerifyErrorKind::ConstantWrite,
                format!("{} points to read-only constant memory", self.name(ptr)),
            );
        }
        self.shared_escape(at, value);
        self.alignment(at, align);
    }

    pub(super) fn atomic_ptr(&mut self, at: Site, ptr: Value) {
        if self.pointer(at, ptr) == Some(AddrSpace::Constant) {
            self.error(
                at,
                VerifyErrorKind::AtomicSpace,
                format!(
                    "atomics need global or shared memory; {} points to constant memory",
                    self.name(ptr)
                ),
            );
        }
    }

    /// Reports a type other than a 32- or 64-bit integer.
    pub(super) fn atomic_int(&mut self, at: Site, what: &str, t: Option<Type>) {
        if let Some(t) = t
            && !is_atomic_int(t)
        {
            self.error(
                at,
                VerifyErrorKind::AtomicType,
                format!("{what} is {t}; atomics take 32- or 64-bit integers"),
            );
        }
    }

    pub(super) fn atomic_rmw(&mut self, at: Site, op: RmwOp, ptr: Value, value: Value) {
        self.atomic_ptr(at, ptr);
        if self.shared_escape(at, value) {
            return;
        }
        let Some(t) = self.ty(value) else { return };
        let float_ok = matches!(op, RmwOp::Add | RmwOp::Xchg);
        if !(is_atomic_int(t) || (float_ok && t == Type::F32)) {
            let accepts = if float_ok {
                "32- or 64-bit integers and f32"
            } else {
                "32- or 64-bit integers"
            };
            self.error(
                at,
                VerifyErrorKind::AtomicType,
                format!("atomic `{}` takes {accepts}, not {t}", op.name()),
            );
        }
    }

    pub(super) fn atomic_cas(&mut self, at: Site, ptr: Value, expected: Value, desired: Value) {
        self.atomic_ptr(at, ptr);
        let escaped = self.shared_escape(at, desired);
        if escaped {
            return;
        }
        if let Some(t) = self.same_type(at, &[expected, desired]) {
            self.atomic_int(at, "the compared value", Some(t));
        }
    }

    pub(super) fn bad_ordering(&mut self, at: Site, ordering: Ordering, why: &str) {
        self.error(
            at,
            VerifyErrorKind::InvalidOrdering,
            format!("ordering {ordering} is invalid here: {why}"),
        );
    }

    pub(super) fn shared_alloc(&mut self, at: Site, elem: Type, count: u32) {
        if self.scopes.len() != 1 {
            self.error(
                at,
                VerifyErrorKind::SharedAllocPlacement,
                "shared memory is allocated only at the top level of the kernel body".to_string(),
            );
        }
        if count == 0 {
            self.error(
                at,
                VerifyErrorKind::SharedAllocCount,
                "allocates zero elements".to_string(),
            );
        }
        if !self.well_formed(at, elem, "the element") {
            return;
        }
        // Laid out in order as every target does (`shared_alloc_align`); saturating: a huge
        // kernel must yield an error, never an overflow.
        let bytes = u64::from(elem.size_bytes()).saturating_mul(u64::from(count));
        let align = crate::shared_alloc_align(bytes);
        let start = self.shared_bytes.saturating_add(align - 1) / align * align;
        self.shared_bytes = start.saturating_add(bytes);
        if self.shared_bytes > MAX_SHARED_BYTES && !self.shared_limit_reported {
            self.shared_limit_reported = true;
            self.error(
                at,
                VerifyErrorKind::SharedMemoryLimit,
                format!(
                    "the kernel's shared memory reaches {} bytes; at most {MAX_SHARED_BYTES}",
                    self.shared_bytes
                ),
            );
        }
    }
}
