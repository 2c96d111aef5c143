//! The `.kir` text format: printer and parser (syntax in docs/ir.md).
//!
//! The printer writes canonical text: the parser reads it back into a kernel that prints
//! identically, float constants included (bit for bit).

mod lexer;
mod parser;
mod printer;
mod syntax;

pub(crate) use parser::Parser;
pub(crate) use syntax::{Line, Syntax};

use crate::{Kernel, Loc, Module};

/// A syntax or name-resolution error with its line and column. Type errors are not parse
/// errors: the verifier reports them.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{loc}: {message}")]
pub struct ParseError {
    pub loc: Loc,
    pub message: String,
}

/// The module in canonical text: its kernels, separated by blank lines.
pub fn print_module(module: &Module) -> String {
    let mut out = String::new();
    for (i, kernel) in module.kernels.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&print_kernel(kernel));
    }
    out
}

/// One kernel in canonical text, ending with a newline.
pub fn print_kernel(kernel: &Kernel) -> String {
    printer::Printer::new(kernel).print()
}

/// Reads a module; every error names its position and what was expected.
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    parser::Parser::new(text).parse_module()
}

#[cfg(test)]
mod tests;
