//! `define_ops!`: turns the op table of `ops/mod.rs` into the [`Op`](crate::Op) enum and every
//! fact the layers read from it — mnemonic, operands, regions, result types, text syntax and
//! the operand-type signature the verifier checks.
//!
//! An entry:
//!
//! ```text
//! /// docs
//! Variant { field: Type, ... } = "mnemonic"      // or `= (family field: EnumType)`
//!     family OpFamily                             // which file of each layer handles it
//!     syntax [field, "keyword", field ("what"), ?"keyword" field, ?"keyword" field = (default)]
//!                                                 // or `syntax custom`
//!     operands [field as "the field": Want, ...] kind VerifyErrorKind   // optional; the kind
//!                                                 // defaults to `OperandType`
//!     results |type_of| expr;                     // Vec<Type>, fields bound by reference
//! ```
//!
//! Syntax pieces print separated by spaces, commas attach to the piece before them; a field
//! with `("what")` names itself so in parse errors; `?"keyword" field` is an optional clause
//! (an `Option` field); `?"keyword" field = (default)` a clause printed only when the field
//! is not `default`, which it is when the clause is absent (attributes added to an op
//! without changing the text of existing programs). A family op prints its family field as its mnemonic (`add`, `sub`).
//! `syntax custom` ops (regions, ids) are printed and parsed by hand in `text/`.

macro_rules! define_ops {
    ($(
        $(#[$doc:meta])*
        $variant:ident $({ $($field:ident : $fty:ty),* $(,)? })? = $mnemonic:tt
            family $family:ident
            syntax $syntax:tt
            $(operands [$($checked:ident as $what:literal : $want:expr),* $(,)?] $(kind $kind:ident)?)?
            results |$type_of:ident| $results:expr;
    )*) => {
        /// An operation. Operands are SSA [`Value`]s defined earlier in an enclosing region.
        ///
        /// Each variant is one entry of the op table (`ops/mod.rs`); see `docs/adding-an-op.md`.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Op {
            $( $(#[$doc])* $variant $({ $($field : $fty),* })?, )*
        }

        impl Op {
            /// The op's mnemonic in the text format (the family member's name for families).
            pub fn name(&self) -> &'static str {
                match self {
                    $( Op::$variant $({ $($field),* })? => {
                        $($(let _ = $field;)*)?
                        define_ops!(@name $mnemonic)
                    } )*
                }
            }

            /// The family the op belongs to (where each layer handles it).
            pub fn family(&self) -> $crate::OpFamily {
                match self {
                    $( Op::$variant { .. } => $crate::OpFamily::$family, )*
                }
            }

            /// The values this op reads, in order (not those used inside its regions).
            pub fn operands(&self) -> Vec<Value> {
                let mut values = Vec::new();
                match self {
                    $( Op::$variant $({ $($field),* })? => {
                        $($($crate::ops::field::OpField::operands($field, &mut values);)*)?
                    } )*
                }
                values
            }

            /// The regions this op owns.
            pub fn regions(&self) -> Vec<&Region> {
                let mut regions = Vec::new();
                match self {
                    $( Op::$variant $({ $($field),* })? => {
                        $($($crate::ops::field::OpField::regions($field, &mut regions);)*)?
                    } )*
                }
                regions
            }

            pub fn regions_mut(&mut self) -> Vec<&mut Region> {
                let mut regions = Vec::new();
                match self {
                    $( Op::$variant $({ $($field),* })? => {
                        $($($crate::ops::field::OpField::regions_mut($field, &mut regions);)*)?
                    } )*
                }
                regions
            }

            /// The types of the values this op defines, given the types of its operands.
            ///
            /// Total: for ill-typed operands it returns a best guess (the verifier reports the
            /// error).
            pub fn result_types(&self, type_of: impl Fn(Value) -> Type) -> Vec<Type> {
                match self {
                    $( #[allow(unused_variables)] Op::$variant $({ $($field),* })? => {
                        let $type_of = &type_of;
                        $results
                    } )*
                }
            }

            /// Checks the operand types the op table declares; calls `report` with the error
            /// kind and message of each operand of the wrong type. Operands of unknown type
            /// (`type_of` gives `None`) are left to the checks of their definitions.
            pub(crate) fn check_signature(
                &self,
                type_of: impl Fn(Value) -> Option<Type>,
                describe: impl Fn(Value) -> String,
                mut report: impl FnMut($crate::VerifyErrorKind, String),
            ) {
                #[allow(unused_variables)]
                match self {
                    $( Op::$variant $({ $($field),* })? => {
                        $(
                            let kind = define_ops!(@kind $($kind)?);
                            $(
                                let want: $crate::ops::Want = $want;
                                if let Some(t) = type_of(*$checked) && !want.accepts(t) {
                                    report(
                                        kind,
                                        format!("{} {} must be {}", $what, describe(*$checked), want),
                                    );
                                }
                            )*
                        )?
                    } )*
                }
            }

            /// Prints the op after its result names, unless its syntax is custom (`None`).
            pub(crate) fn print_generic(&self, line: &mut $crate::text::Line<'_>) -> Option<()> {
                match self {
                    $( #[allow(unused_variables)] Op::$variant $({ $($field),* })? => {
                        define_ops!(@print line $mnemonic $syntax)
                    } )*
                }
            }

            /// Parses the rest of a statement whose op word is `word`, unless no op of the
            /// table has that mnemonic or the op's syntax is custom (`None`).
            pub(crate) fn parse_generic(
                p: &mut $crate::text::Parser,
                word: &str,
            ) -> Result<Option<Op>, $crate::ParseError> {
                $( define_ops!(@parse p word $mnemonic $syntax $variant $({ $($field),* })?); )*
                Ok(None)
            }
        }
    };

    // ---- the error kind of a signature: its own, or the generic one ----
    (@kind $kind:ident) => { $crate::VerifyErrorKind::$kind };
    (@kind) => { $crate::VerifyErrorKind::OperandType };

    // ---- mnemonics ----
    (@name $mnemonic:literal) => { $mnemonic };
    (@name ($family:ident : $fty:ty)) => { $family.name() };

    // ---- printing ----
    (@print $line:ident $mnemonic:tt custom) => { None };
    (@print $line:ident $mnemonic:literal [$($syntax:tt)*]) => {{
        $line.word($mnemonic);
        define_ops!(@print_pieces $line $($syntax)*);
        Some(())
    }};
    (@print $line:ident ($family:ident : $fty:ty) [$($syntax:tt)*]) => {{
        $line.word($family.name());
        define_ops!(@print_pieces $line $($syntax)*);
        Some(())
    }};
    (@print_pieces $line:ident) => {};
    (@print_pieces $line:ident , $($rest:tt)*) => {
        $line.comma();
        define_ops!(@print_pieces $line $($rest)*);
    };
    (@print_pieces $line:ident ? $keyword:literal $field:ident = ($default:expr) $($rest:tt)*) => {
        if *$field != $default {
            $line.word($keyword);
            $crate::text::Syntax::print($field, $line);
        }
        define_ops!(@print_pieces $line $($rest)*);
    };
    (@print_pieces $line:ident ? $keyword:literal $field:ident $($rest:tt)*) => {
        if let Some(value) = $field {
            $line.word($keyword);
            $crate::text::Syntax::print(value, $line);
        }
        define_ops!(@print_pieces $line $($rest)*);
    };
    (@print_pieces $line:ident $keyword:literal $($rest:tt)*) => {
        $line.word($keyword);
        define_ops!(@print_pieces $line $($rest)*);
    };
    (@print_pieces $line:ident $field:ident ($what:literal) $($rest:tt)*) => {
        $crate::text::Syntax::print($field, $line);
        define_ops!(@print_pieces $line $($rest)*);
    };
    (@print_pieces $line:ident $field:ident $($rest:tt)*) => {
        $crate::text::Syntax::print($field, $line);
        define_ops!(@print_pieces $line $($rest)*);
    };

    // ---- parsing ----
    (@parse $p:ident $word:ident $mnemonic:tt custom $($variant:tt)*) => {};
    (@parse $p:ident $word:ident $mnemonic:literal [$($syntax:tt)*] $variant:ident $({ $($field:ident),* })?) => {
        if $word == $mnemonic {
            define_ops!(@parse_pieces $p "the op" ; $($syntax)*);
            return Ok(Some(Op::$variant $({ $($field),* })?));
        }
    };
    (@parse $p:ident $word:ident ($family:ident : $fty:ty) [$($syntax:tt)*] $variant:ident $({ $($field:ident),* })?) => {
        if let Some($family) = <$fty>::from_name($word) {
            define_ops!(@parse_pieces $p "the op" ; $($syntax)*);
            return Ok(Some(Op::$variant $({ $($field),* })?));
        }
    };
    // `$after` says what the previous piece was, for "expected ',' after ..." messages.
    (@parse_pieces $p:ident $after:expr ;) => {};
    (@parse_pieces $p:ident $after:expr ; , $($rest:tt)*) => {
        $p.punct(',', &format!("after {}", $after))?;
        define_ops!(@parse_pieces $p $after ; $($rest)*);
    };
    (@parse_pieces $p:ident $after:expr ; ? $keyword:literal $field:ident = ($default:expr) $($rest:tt)*) => {
        let $field = if $p.eat_keyword($keyword) {
            $crate::text::Syntax::parse($p, None)?
        } else {
            $default
        };
        define_ops!(@parse_pieces $p "operand" ; $($rest)*);
    };
    (@parse_pieces $p:ident $after:expr ; ? $keyword:literal $field:ident $($rest:tt)*) => {
        let $field = if $p.eat_keyword($keyword) {
            Some($crate::text::Syntax::parse($p, None)?)
        } else {
            None
        };
        define_ops!(@parse_pieces $p "operand" ; $($rest)*);
    };
    (@parse_pieces $p:ident $after:expr ; $keyword:literal $($rest:tt)*) => {
        $p.keyword($keyword, &format!("after {}", $after))?;
        define_ops!(@parse_pieces $p concat!("'", $keyword, "'") ; $($rest)*);
    };
    (@parse_pieces $p:ident $after:expr ; $field:ident ($what:literal) $($rest:tt)*) => {
        let $field = $crate::text::Syntax::parse($p, Some($what))?;
        define_ops!(@parse_pieces $p concat!("the ", $what) ; $($rest)*);
    };
    (@parse_pieces $p:ident $after:expr ; $field:ident $($rest:tt)*) => {
        let $field = $crate::text::Syntax::parse($p, None)?;
        define_ops!(@parse_pieces $p $crate::text::Syntax::after(&$field) ; $($rest)*);
    };
}

pub(crate) use define_ops;
