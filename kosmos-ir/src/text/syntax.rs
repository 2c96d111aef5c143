//! How each kind of op field reads and writes in the text format; the op table's syntax
//! lists (`ops/mod.rs`) are sequences of these.

use super::ParseError;
use super::parser::Parser;
use crate::ops::{
    ATile, BTile, BinOp, CmpPred, Dim, IdKind, MmaLayout, Ordering, Origin, RegsDir, RmwOp, Scope,
    TileLayout, UnOp,
};
use crate::{Constant, FragRole, ScalarType, Type, Value};

/// One printed statement: words separated by spaces, commas attached to the word before.
pub(crate) struct Line<'a> {
    pub(super) text: String,
    pub(super) name: &'a dyn Fn(Value) -> String,
}

impl Line<'_> {
    pub(crate) fn word(&mut self, word: &str) {
        if !self.text.is_empty() && !self.text.ends_with(' ') {
            self.text.push(' ');
        }
        self.text.push_str(word);
    }

    pub(crate) fn comma(&mut self) {
        self.text.push(',');
    }

    fn value(&mut self, v: Value) {
        let name = (self.name)(v);
        self.word(&name);
    }
}

/// A field of an op in the text format.
pub(crate) trait Syntax: Sized {
    fn print(&self, line: &mut Line<'_>);
    /// Reads the field; `what` names it in errors where its type alone does not say enough
    /// (numbers).
    fn parse(p: &mut Parser, what: Option<&str>) -> Result<Self, ParseError>;
    /// What the field is called in "expected ',' after ..." messages.
    fn after(&self) -> &'static str;
}

impl Syntax for Value {
    fn print(&self, line: &mut Line<'_>) {
        line.value(*self);
    }

    fn parse(p: &mut Parser, _: Option<&str>) -> Result<Value, ParseError> {
        p.operand()
    }

    fn after(&self) -> &'static str {
        "operand"
    }
}

/// A possibly empty comma-separated list up to the end of the line.
impl Syntax for Vec<Value> {
    fn print(&self, line: &mut Line<'_>) {
        for (i, v) in self.iter().enumerate() {
            if i > 0 {
                line.comma();
            }
            line.value(*v);
        }
    }

    fn parse(p: &mut Parser, _: Option<&str>) -> Result<Vec<Value>, ParseError> {
        p.operand_list()
    }

    fn after(&self) -> &'static str {
        "operand"
    }
}

/// Two operands, `%a, %b`.
impl Syntax for (Value, Value) {
    fn print(&self, line: &mut Line<'_>) {
        line.value(self.0);
        line.comma();
        line.value(self.1);
    }

    fn parse(p: &mut Parser, _: Option<&str>) -> Result<(Value, Value), ParseError> {
        Ok((p.operand()?, p.comma_operand()?))
    }

    fn after(&self) -> &'static str {
        "operand"
    }
}

impl Syntax for Type {
    fn print(&self, line: &mut Line<'_>) {
        line.word(&self.to_string());
    }

    fn parse(p: &mut Parser, _: Option<&str>) -> Result<Type, ParseError> {
        p.ty()
    }

    fn after(&self) -> &'static str {
        "the type"
    }
}

impl Syntax for ScalarType {
    fn print(&self, line: &mut Line<'_>) {
        line.word(self.name());
    }

    fn parse(p: &mut Parser, _: Option<&str>) -> Result<ScalarType, ParseError> {
        p.scalar_type()
    }

    fn after(&self) -> &'static str {
        "the type"
    }
}

impl Syntax for u32 {
    fn print(&self, line: &mut Line<'_>) {
        line.word(&self.to_string());
    }

    fn parse(p: &mut Parser, what: Option<&str>) -> Result<u32, ParseError> {
        p.u32_literal(what.unwrap_or("number"))
    }

    fn after(&self) -> &'static str {
        "the number"
    }
}

/// A string literal: `"src/ops.rs:14:9: out[i]"`.
impl Syntax for Origin {
    fn print(&self, line: &mut Line<'_>) {
        line.word(&super::printer::quoted(&self.0));
    }

    fn parse(p: &mut Parser, _: Option<&str>) -> Result<Origin, ParseError> {
        p.string_literal("a string (the access's origin)")
            .map(Origin)
    }

    fn after(&self) -> &'static str {
        "the origin"
    }
}

/// `<scalar type> <literal>`.
impl Syntax for Constant {
    fn print(&self, line: &mut Line<'_>) {
        line.word(self.ty.name());
        line.word(&super::printer::format_constant(*self));
    }

    fn parse(p: &mut Parser, _: Option<&str>) -> Result<Constant, ParseError> {
        let ty = p.scalar_type()?;
        p.literal(ty)
    }

    fn after(&self) -> &'static str {
        "the literal"
    }
}

/// Fields that are one of a fixed set of words: `noun` names the set in errors.
macro_rules! word_fields {
    ($($ty:ty => $noun:literal),* $(,)?) => {$(
        impl Syntax for $ty {
            fn print(&self, line: &mut Line<'_>) {
                line.word(self.name());
            }

            fn parse(p: &mut Parser, _: Option<&str>) -> Result<$ty, ParseError> {
                p.named($noun, &<$ty>::ALL[..], <$ty>::name, <$ty>::from_name)
            }

            fn after(&self) -> &'static str {
                concat!("the ", $noun)
            }
        }
    )*};
}

word_fields!(
    Ordering => "ordering",
    Scope => "scope",
    CmpPred => "comparison",
    RmwOp => "atomic op",
    FragRole => "fragment role",
    Dim => "dimension",
    BinOp => "operation",
    UnOp => "operation",
    IdKind => "id",
    RegsDir => "direction",
    ATile => "a tile layout",
    BTile => "b tile layout",
    TileLayout => "tile layout",
);

/// The tiles' layouts of `mma.group`: `mk, nk`.
impl Syntax for MmaLayout {
    fn print(&self, line: &mut Line<'_>) {
        self.a.print(line);
        line.comma();
        self.b.print(line);
    }

    fn parse(p: &mut Parser, _: Option<&str>) -> Result<MmaLayout, ParseError> {
        let a = ATile::parse(p, None)?;
        p.punct(',', "after the a tile layout")?;
        let b = BTile::parse(p, None)?;
        Ok(MmaLayout { a, b })
    }

    fn after(&self) -> &'static str {
        "the b tile layout"
    }
}
