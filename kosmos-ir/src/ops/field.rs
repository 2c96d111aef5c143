//! What the op table's generated code needs of a field: the values and regions it holds
//! ([`OpField`]) and the operand types a signature accepts ([`Want`]).

use crate::{AddrSpace, Constant, FragRole, Region, ScalarType, Type, Value};
use std::fmt;

/// The operands and regions inside one field of an op. Attribute fields (types, numbers,
/// orderings, ...) hold neither and keep the defaults.
pub(crate) trait OpField {
    fn operands(&self, _out: &mut Vec<Value>) {}
    fn regions<'a>(&'a self, _out: &mut Vec<&'a Region>) {}
    fn regions_mut<'a>(&'a mut self, _out: &mut Vec<&'a mut Region>) {}
}

impl OpField for Value {
    fn operands(&self, out: &mut Vec<Value>) {
        out.push(*self);
    }
}

impl OpField for Vec<Value> {
    fn operands(&self, out: &mut Vec<Value>) {
        out.extend_from_slice(self);
    }
}

impl OpField for super::ForRange {
    fn operands(&self, out: &mut Vec<Value>) {
        out.extend(self.values());
    }
}

impl OpField for Option<(Value, Value)> {
    fn operands(&self, out: &mut Vec<Value>) {
        if let Some((a, b)) = self {
            out.extend([*a, *b]);
        }
    }
}

impl OpField for Region {
    fn regions<'a>(&'a self, out: &mut Vec<&'a Region>) {
        out.push(self);
    }

    fn regions_mut<'a>(&'a mut self, out: &mut Vec<&'a mut Region>) {
        out.push(self);
    }
}

macro_rules! attribute_fields {
    ($($ty:ty),*) => { $(impl OpField for $ty {})* };
}

attribute_fields!(
    super::Origin,
    u32,
    Type,
    Vec<Type>,
    ScalarType,
    Constant,
    FragRole,
    super::BinOp,
    super::UnOp,
    super::CmpPred,
    super::RmwOp,
    super::Ordering,
    super::Scope,
    super::RegsDir,
    super::IdKind,
    super::Dim,
    super::MmaLayout,
    super::TileLayout
);

/// The type an operand of a table signature must have.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Want {
    /// A fragment of this role.
    Frag(FragRole),
    /// An accumulator fragment, `frag<acc>` or `frag<wacc>`.
    Accumulator,
    /// A pointer into this address space.
    Ptr(AddrSpace),
    /// Exactly this type; the note (may be empty) says what the operand means.
    Is(Type, &'static str),
    /// One of these types (listed in the message as `a, b or c`).
    OneOf(&'static [Type]),
}

impl Want {
    /// A fragment's row stride: elements between rows, `u32`.
    pub const ROW_STRIDE: Want = Want::Is(Type::U32, "elements between rows");

    pub fn accepts(self, t: Type) -> bool {
        match self {
            Want::Frag(role) => t == Type::Frag(role),
            Want::Accumulator => matches!(t, Type::Frag(role) if role.is_acc()),
            Want::Ptr(space) => t == Type::Ptr(space),
            Want::Is(want, _) => t == want,
            Want::OneOf(types) => types.contains(&t),
        }
    }
}

impl fmt::Display for Want {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Want::Frag(role) => write!(f, "a frag<{role}>"),
            Want::Accumulator => write!(f, "a frag<acc> or frag<wacc>"),
            Want::Ptr(space) => write!(f, "a ptr<{space}>"),
            Want::Is(t, "") => write!(f, "{t}"),
            Want::Is(t, note) => write!(f, "{t} ({note})"),
            Want::OneOf(types) => {
                for (i, t) in types.iter().enumerate() {
                    let sep = match i {
                        0 => "",
                        i if i + 1 == types.len() => " or ",
                        _ => ", ",
                    };
                    write!(f, "{sep}{t}")?;
                }
                Ok(())
            }
        }
    }
}
