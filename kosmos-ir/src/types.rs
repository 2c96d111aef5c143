//! Value types of the IR.

use std::fmt;

/// A scalar type. Integer types carry their signedness: it decides division, remainder,
/// right shift, comparison and widening casts, so no op needs a signedness flag of its own.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    I1,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F16,
    BF16,
    F32,
    F64,
}

impl ScalarType {
    pub const ALL: [ScalarType; 13] = [
        ScalarType::I1,
        ScalarType::I8,
        ScalarType::I16,
        ScalarType::I32,
        ScalarType::I64,
        ScalarType::U8,
        ScalarType::U16,
        ScalarType::U32,
        ScalarType::U64,
        ScalarType::F16,
        ScalarType::BF16,
        ScalarType::F32,
        ScalarType::F64,
    ];

    /// Width in bits (`i1` counts as 1).
    pub fn bits(self) -> u32 {
        use ScalarType::*;
        match self {
            I1 => 1,
            I8 | U8 => 8,
            I16 | U16 | F16 | BF16 => 16,
            I32 | U32 | F32 => 32,
            I64 | U64 | F64 => 64,
        }
    }

    /// Size in memory, in bytes (`i1` is stored as one byte).
    pub fn size_bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            ScalarType::F16 | ScalarType::BF16 | ScalarType::F32 | ScalarType::F64
        )
    }

    /// Integer types, including `i1`.
    pub fn is_int(self) -> bool {
        !self.is_float()
    }

    pub fn is_signed_int(self) -> bool {
        use ScalarType::*;
        matches!(self, I8 | I16 | I32 | I64)
    }

    pub fn is_unsigned_int(self) -> bool {
        use ScalarType::*;
        matches!(self, U8 | U16 | U32 | U64)
    }

    pub fn is_bool(self) -> bool {
        self == ScalarType::I1
    }

    pub fn name(self) -> &'static str {
        use ScalarType::*;
        match self {
            I1 => "i1",
            I8 => "i8",
            I16 => "i16",
            I32 => "i32",
            I64 => "i64",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            F16 => "f16",
            BF16 => "bf16",
            F32 => "f32",
            F64 => "f64",
        }
    }

    pub fn from_name(name: &str) -> Option<ScalarType> {
        ScalarType::ALL.into_iter().find(|t| t.name() == name)
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a pointer points.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AddrSpace {
    /// Device memory visible to every workgroup (and, through peer views, to other ranks).
    Global,
    /// Per-workgroup scratchpad (LDS on AMD, shared memory on NVIDIA).
    Shared,
    /// Read-only device memory.
    Constant,
}

impl AddrSpace {
    pub fn name(self) -> &'static str {
        match self {
            AddrSpace::Global => "global",
            AddrSpace::Shared => "shared",
            AddrSpace::Constant => "constant",
        }
    }

    pub fn from_name(name: &str) -> Option<AddrSpace> {
        [AddrSpace::Global, AddrSpace::Shared, AddrSpace::Constant]
            .into_iter()
            .find(|s| s.name() == name)
    }
}

impl fmt::Display for AddrSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Largest number of lanes of a vector type.
pub const MAX_VECTOR_LANES: u32 = 16;
/// Largest size of a vector type in bytes (one 128-bit memory access).
pub const MAX_VECTOR_BYTES: u32 = 16;

/// Rows, columns and depth of the matrix tile a fragment holds: an `mma` computes a
/// 16x16 accumulator from a 16x16 (M x K) `A` tile and a 16x16 (K x N) `B` tile.
pub const FRAG_M: u32 = 16;
pub const FRAG_N: u32 = 16;
pub const FRAG_K: u32 = 16;

/// A group of this many consecutive subgroups (ids `4g .. 4g + 4`) runs a `mma.group`
/// together; subgroup `4g + q` holds rows `16q .. 16q + 16` of the group's tile.
pub const GROUP_SUBGROUPS: u32 = 4;
/// Columns of a `frag<wacc>` and of the `B` tile of a `mma.group`.
pub const GROUP_N: u32 = 128;
/// Depth of one `mma.group`.
pub const GROUP_K: u32 = 64;
/// The most `mma.group.async` groups an `mma.wait` may leave in flight.
pub const MAX_PENDING_MMA_GROUPS: u32 = 7;

/// Whether `regs.set` takes `count`: a multiple of 8 in 24..=256 (what `setmaxnreg` takes).
pub fn valid_register_count(count: u32) -> bool {
    (24..=256).contains(&count) && count.is_multiple_of(8)
}

/// What a register fragment holds (see docs/ir.md, "Tiles"): a tile owned by a whole
/// subgroup, spread over its lanes in a way only the target knows.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FragRole {
    /// The left operand of `mma`: 16x16 (M x K) `bf16`.
    A,
    /// The right operand of `mma`: 16x16 (K x N) `bf16`.
    B,
    /// The accumulator: 16x16 (M x N) `f32`.
    Acc,
    /// The wide accumulator of `mma.group`: a 16x128 (M x N) `f32` row slab per subgroup;
    /// the four subgroups of a group together hold a 64x128 tile.
    WideAcc,
}

impl FragRole {
    pub const ALL: [FragRole; 4] = [FragRole::A, FragRole::B, FragRole::Acc, FragRole::WideAcc];

    pub fn name(self) -> &'static str {
        match self {
            FragRole::A => "a",
            FragRole::B => "b",
            FragRole::Acc => "acc",
            FragRole::WideAcc => "wacc",
        }
    }

    pub fn from_name(name: &str) -> Option<FragRole> {
        FragRole::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The element type of the tile.
    pub fn elem(self) -> ScalarType {
        match self {
            FragRole::A | FragRole::B => ScalarType::BF16,
            FragRole::Acc | FragRole::WideAcc => ScalarType::F32,
        }
    }

    /// (rows, columns) of the tile.
    pub fn shape(self) -> (u32, u32) {
        match self {
            FragRole::A => (FRAG_M, FRAG_K),
            FragRole::B => (FRAG_K, FRAG_N),
            FragRole::Acc => (FRAG_M, FRAG_N),
            FragRole::WideAcc => (FRAG_M, GROUP_N),
        }
    }

    /// Whether this role is an accumulator (the result of `frag.zero`, stored by
    /// `frag.store`).
    pub fn is_acc(self) -> bool {
        matches!(self, FragRole::Acc | FragRole::WideAcc)
    }
}

impl fmt::Display for FragRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The type of an SSA value. Pointers are untyped (like LLVM's opaque pointers): loads and
/// stores name the type they access, offsets name the element type they step over.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Scalar(ScalarType),
    Ptr(AddrSpace),
    /// `lanes` elements of `elem`; 2 to [`MAX_VECTOR_LANES`] lanes, at most
    /// [`MAX_VECTOR_BYTES`] bytes, element never `i1`.
    Vector {
        elem: ScalarType,
        lanes: u32,
    },
    /// A register fragment (`frag<a>`, `frag<b>`, `frag<acc>`, `frag<wacc>`): one value per subgroup,
    /// never in memory, observable only through the fragment ops.
    Frag(FragRole),
}

impl Type {
    pub const I1: Type = Type::Scalar(ScalarType::I1);
    pub const I32: Type = Type::Scalar(ScalarType::I32);
    pub const I64: Type = Type::Scalar(ScalarType::I64);
    pub const U32: Type = Type::Scalar(ScalarType::U32);
    pub const U64: Type = Type::Scalar(ScalarType::U64);
    pub const F32: Type = Type::Scalar(ScalarType::F32);
    pub const BF16: Type = Type::Scalar(ScalarType::BF16);
    pub const GLOBAL_PTR: Type = Type::Ptr(AddrSpace::Global);
    pub const SHARED_PTR: Type = Type::Ptr(AddrSpace::Shared);

    pub fn scalar(self) -> Option<ScalarType> {
        match self {
            Type::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The element type of a scalar or vector.
    pub fn elem(self) -> Option<ScalarType> {
        match self {
            Type::Scalar(s) | Type::Vector { elem: s, .. } => Some(s),
            Type::Ptr(_) | Type::Frag(_) => None,
        }
    }

    pub fn is_ptr(self) -> bool {
        matches!(self, Type::Ptr(_))
    }

    pub fn is_frag(self) -> bool {
        matches!(self, Type::Frag(_))
    }

    /// Size in memory in bytes; pointers are 64-bit. A fragment counts as its whole tile
    /// (it is never in memory: this is what `frag.store` writes for an accumulator).
    pub fn size_bytes(self) -> u32 {
        match self {
            Type::Scalar(s) => s.size_bytes(),
            Type::Ptr(_) => 8,
            Type::Vector { elem, lanes } => elem.size_bytes() * lanes,
            Type::Frag(role) => {
                let (rows, cols) = role.shape();
                rows * cols * role.elem().size_bytes()
            }
        }
    }

    /// Whether this type may be loaded from or stored to memory (fragments may not).
    pub fn is_memory_type(self) -> bool {
        self.is_well_formed() && !self.is_frag()
    }

    /// Vectors within their limits; everything else is always well formed.
    pub fn is_well_formed(self) -> bool {
        match self {
            Type::Vector { elem, lanes } => {
                (2..=MAX_VECTOR_LANES).contains(&lanes)
                    && elem != ScalarType::I1
                    && elem.size_bytes() * lanes <= MAX_VECTOR_BYTES
            }
            _ => true,
        }
    }
}

impl From<ScalarType> for Type {
    fn from(s: ScalarType) -> Type {
        Type::Scalar(s)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Scalar(s) => write!(f, "{s}"),
            Type::Ptr(space) => write!(f, "ptr<{space}>"),
            Type::Vector { elem, lanes } => write!(f, "vec<{lanes} x {elem}>"),
            Type::Frag(role) => write!(f, "frag<{role}>"),
        }
    }
}
