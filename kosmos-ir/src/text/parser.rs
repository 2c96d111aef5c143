//! Recursive-descent parser of the `.kir` format.
//!
//! Only syntax and names are checked here; types are inferred with [`Op::result_types`] and
//! left to the verifier.

use super::ParseError;
use super::Syntax;
use super::lexer::{Tok, Token, lex};
use crate::{
    AddrSpace, Constant, Dim, ForRange, FragRole, IdKind, Inst, Kernel, Loc, MAX_REGION_DEPTH,
    Module, Op, Region, ScalarType, Type, Value,
};
use std::collections::HashMap;

type Result<T> = std::result::Result<T, ParseError>;

pub(crate) struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    /// The kernel being read.
    kernel: Kernel,
    /// Names usable at this point, by the regions that bind them.
    visible: HashMap<String, Value>,
    scopes: Vec<Vec<String>>,
    /// Every name of the kernel and where it was defined: names are unique per kernel.
    defined: HashMap<String, Loc>,
}

impl Parser {
    pub(super) fn new(text: &str) -> Parser {
        Parser {
            tokens: lex(text),
            pos: 0,
            kernel: Kernel::new("", 0),
            visible: HashMap::new(),
            scopes: Vec::new(),
            defined: HashMap::new(),
        }
    }

    pub(super) fn parse_module(mut self) -> Result<Module> {
        let mut module = Module::default();
        loop {
            self.skip_newlines();
            match &self.peek().tok {
                Tok::Eof => return Ok(module),
                Tok::Word(w) if w == "kernel" => module.kernels.push(self.kernel()?),
                Tok::Punct('}') => {
                    return Err(error(self.peek().loc, "unmatched '}'".to_string()));
                }
                _ => return Err(self.expected("'kernel'")),
            }
        }
    }

    // ---- tokens ----

    fn peek(&self) -> &Token {
        &self.tokens[self.pos]
    }

    fn next(&mut self) -> Token {
        let token = self.tokens[self.pos].clone();
        if token.tok != Tok::Eof {
            self.pos += 1;
        }
        token
    }

    fn skip_newlines(&mut self) {
        while self.peek().tok == Tok::Newline {
            self.pos += 1;
        }
    }

    /// "expected `what`, found <the next token>" at the next token; a bad character is
    /// reported as itself.
    fn expected(&self, what: &str) -> ParseError {
        let token = self.peek();
        match &token.tok {
            Tok::Bad(message) => error(token.loc, message.clone()),
            found => error(token.loc, format!("expected {what}, found {found}")),
        }
    }

    pub(crate) fn punct(&mut self, c: char, context: &str) -> Result<Loc> {
        if self.peek().tok == Tok::Punct(c) {
            Ok(self.next().loc)
        } else {
            Err(self.expected(&format!("'{c}' {context}")))
        }
    }

    fn eat_punct(&mut self, c: char) -> bool {
        let found = self.peek().tok == Tok::Punct(c);
        if found {
            self.next();
        }
        found
    }

    pub(crate) fn keyword(&mut self, word: &str, context: &str) -> Result<()> {
        if matches!(&self.peek().tok, Tok::Word(w) if w == word) {
            self.next();
            Ok(())
        } else {
            Err(self.expected(&format!("'{word}' {context}")))
        }
    }

    pub(crate) fn eat_keyword(&mut self, word: &str) -> bool {
        let found = matches!(&self.peek().tok, Tok::Word(w) if w == word);
        if found {
            self.next();
        }
        found
    }

    /// A line end (or the end of the file, which the enclosing region then reports).
    fn end_of_line(&mut self, context: &str) -> Result<()> {
        match self.peek().tok {
            Tok::Newline => {
                self.next();
                Ok(())
            }
            Tok::Eof => Ok(()),
            _ => Err(self.expected(&format!("end of line {context}"))),
        }
    }

    fn word(&mut self, what: &str) -> Result<(String, Loc)> {
        match &self.peek().tok {
            Tok::Word(w) => {
                let w = w.clone();
                Ok((w, self.next().loc))
            }
            _ => Err(self.expected(what)),
        }
    }

    fn value_name(&mut self, what: &str) -> Result<(String, Loc)> {
        match &self.peek().tok {
            Tok::Value(name) => {
                let name = name.clone();
                Ok((name, self.next().loc))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// A word naming one of `T`'s variants.
    pub(crate) fn named<T: Copy>(
        &mut self,
        what: &str,
        all: &[T],
        name: fn(T) -> &'static str,
        from_name: fn(&str) -> Option<T>,
    ) -> Result<T> {
        let (word, loc) = self.word(what)?;
        from_name(&word).ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|&t| name(t)).collect();
            error(
                loc,
                format!("unknown {what} '{word}' (expected {})", names.join(", ")),
            )
        })
    }

    pub(crate) fn string_literal(&mut self, what: &str) -> Result<String> {
        match &self.peek().tok {
            Tok::Str(text) => {
                let text = text.clone();
                self.next();
                Ok(text)
            }
            _ => Err(self.expected(what)),
        }
    }

    pub(crate) fn u32_literal(&mut self, what: &str) -> Result<u32> {
        let token = self.peek().clone();
        let Tok::Number(text) = &token.tok else {
            return Err(self.expected(what));
        };
        self.next();
        text.parse::<u32>().map_err(|_| {
            error(
                token.loc,
                format!(
                    "bad {what} '{text}': expected an integer from 0 to {}",
                    u32::MAX
                ),
            )
        })
    }

    // ---- names ----

    fn open_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    fn close_scope(&mut self) {
        for name in self.scopes.pop().unwrap_or_default() {
            self.visible.remove(&name);
        }
    }

    fn define(&mut self, name: String, loc: Loc, ty: Type) -> Result<Value> {
        if let Some(first) = self.defined.get(&name) {
            return Err(error(
                loc,
                format!("redefinition of %{name} (first defined at {first})"),
            ));
        }
        let v = self.kernel.new_value(ty, Some(name.clone()));
        self.defined.insert(name.clone(), loc);
        self.visible.insert(name.clone(), v);
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(name);
        }
        Ok(v)
    }

    pub(crate) fn operand(&mut self) -> Result<Value> {
        let (name, loc) = self.value_name("a value ('%name')")?;
        if let Some(&v) = self.visible.get(&name) {
            return Ok(v);
        }
        Err(error(
            loc,
            match self.defined.get(&name) {
                Some(def) => format!("value %{name} is not in scope here (defined at {def})"),
                None => format!("undefined value %{name}"),
            },
        ))
    }

    /// `%a, %b, ...` up to the end of the line (or a `}` the caller reports).
    pub(crate) fn operand_list(&mut self) -> Result<Vec<Value>> {
        let mut values = Vec::new();
        if matches!(self.peek().tok, Tok::Value(_)) {
            values.push(self.operand()?);
            while self.eat_punct(',') {
                values.push(self.operand()?);
            }
        }
        Ok(values)
    }

    /// The next operand after a comma.
    pub(crate) fn comma_operand(&mut self) -> Result<Value> {
        self.punct(',', "after operand")?;
        self.operand()
    }

    // ---- types and literals ----

    pub(crate) fn ty(&mut self) -> Result<Type> {
        let (word, loc) = self.word("a type")?;
        if let Some(s) = ScalarType::from_name(&word) {
            return Ok(Type::Scalar(s));
        }
        match word.as_str() {
            "ptr" => {
                self.punct('<', "after 'ptr'")?;
                let space = self.named(
                    "address space",
                    &[AddrSpace::Global, AddrSpace::Shared, AddrSpace::Constant],
                    AddrSpace::name,
                    AddrSpace::from_name,
                )?;
                self.punct('>', "after the address space")?;
                Ok(Type::Ptr(space))
            }
            "vec" => {
                self.punct('<', "after 'vec'")?;
                let lanes = self.u32_literal("lane count")?;
                self.keyword("x", "after the lane count")?;
                let elem = self.scalar_type()?;
                self.punct('>', "after the element type")?;
                Ok(Type::Vector { elem, lanes })
            }
            "frag" => {
                self.punct('<', "after 'frag'")?;
                let role = FragRole::parse(self, None)?;
                self.punct('>', "after the fragment role")?;
                Ok(Type::Frag(role))
            }
            _ => Err(error(loc, format!("unknown type '{word}'"))),
        }
    }

    pub(crate) fn scalar_type(&mut self) -> Result<ScalarType> {
        let loc = self.peek().loc;
        match self.ty()? {
            Type::Scalar(s) => Ok(s),
            other => Err(error(
                loc,
                format!("expected a scalar type, found '{other}'"),
            )),
        }
    }

    /// A constant literal of type `ty`.
    pub(crate) fn literal(&mut self, ty: ScalarType) -> Result<Constant> {
        let token = self.peek().clone();
        let loc = token.loc;
        if ty == ScalarType::I1 {
            return match &token.tok {
                Tok::Word(w) if w == "true" || w == "false" => {
                    self.next();
                    Ok(Constant::bool(w == "true"))
                }
                _ => Err(self.expected("'true' or 'false'")),
            };
        }
        let text = match &token.tok {
            Tok::Number(text) => text.clone(),
            Tok::Word(w) if ty.is_float() && (w == "inf" || w.starts_with("nan")) => w.clone(),
            _ => return Err(self.expected(&format!("a literal of type {ty}"))),
        };
        self.next();
        if ty.is_float() {
            float_literal(ty, &text).map_err(|message| error(loc, message))
        } else {
            int_literal(ty, &text).map_err(|message| error(loc, message))
        }
    }

    // ---- kernels, regions, statements ----

    fn kernel(&mut self) -> Result<Kernel> {
        self.next(); // `kernel`
        let name = match &self.peek().tok {
            Tok::Global(name) => name.clone(),
            _ => return Err(self.expected("a kernel name ('@name')")),
        };
        self.next();
        self.kernel = Kernel::new(name, 0);
        self.visible.clear();
        self.defined.clear();
        self.scopes = vec![Vec::new()];

        self.punct('(', "after the kernel name")?;
        if !self.eat_punct(')') {
            loop {
                let (name, loc) = self.value_name("a parameter ('%name')")?;
                self.punct(':', "after the parameter name")?;
                let ty = self.ty()?;
                let p = self.define(name, loc, ty)?;
                self.kernel.params.push(p);
                if self.eat_punct(')') {
                    break;
                }
                self.punct(',', "or ')' after parameter")?;
            }
        }
        self.keyword("max_workgroup_size", "after the parameters")?;
        self.kernel.max_workgroup_size = self.u32_literal("max_workgroup_size")?;
        if self.eat_keyword("max_subgroups") {
            self.kernel.max_subgroups = Some(self.u32_literal("max_subgroups")?);
        }
        if self.eat_keyword("min_resident") {
            self.kernel.min_resident = Some(self.u32_literal("min_resident")?);
        }
        if self.eat_keyword("source") {
            self.kernel.source = Some(self.string_literal("the source file's path")?);
        }
        self.kernel.body = self.block(Vec::new(), false)?;
        self.end_of_line("after the kernel's '}'")?;
        Ok(std::mem::replace(&mut self.kernel, Kernel::new("", 0)))
    }

    /// `{ <newline> statements }` with `args` already bound. Regions of `if`, `for` and `loop`
    /// (`nested`) must end in a terminator; the kernel body may simply end.
    fn block(&mut self, args: Vec<Value>, nested: bool) -> Result<Region> {
        let open = self.punct('{', "to open a region")?;
        self.end_of_line("after '{'")?;
        let mut insts = Vec::new();
        let close = loop {
            self.skip_newlines();
            match self.peek().tok {
                Tok::Punct('}') => break self.next().loc,
                Tok::Eof => {
                    return Err(
                        self.expected(&format!("'}}' to close the region opened at {open}"))
                    );
                }
                _ => insts.push(self.statement()?),
            }
        };
        let terminated = insts.last().is_some_and(|i: &Inst| i.op.is_terminator());
        if nested && !terminated {
            return Err(error(
                close,
                "expected a terminator (yield, break or return) before '}'".to_string(),
            ));
        }
        Ok(Region { args, insts })
    }

    /// A nested region whose arguments are `args` (names with their types), in a scope of
    /// its own.
    fn scoped_block(&mut self, args: Vec<(String, Loc, Type)>) -> Result<Region> {
        // The parser descends one call per region: refuse what the verifier would refuse
        // before the stack runs out.
        if self.scopes.len() >= MAX_REGION_DEPTH {
            return Err(error(
                self.peek().loc,
                format!("regions are nested deeper than {MAX_REGION_DEPTH}"),
            ));
        }
        self.open_scope();
        let result = args
            .into_iter()
            .map(|(name, loc, ty)| self.define(name, loc, ty))
            .collect::<Result<Vec<Value>>>()
            .and_then(|args| self.block(args, true));
        self.close_scope();
        result
    }

    fn statement(&mut self) -> Result<Inst> {
        let loc = self.peek().loc;
        let mut names = Vec::new();
        if matches!(self.peek().tok, Tok::Value(_)) {
            names.push(self.value_name("a result name")?);
            while self.eat_punct(',') {
                names.push(self.value_name("a result name")?);
            }
            self.punct('=', "after the result names")?;
        }
        let (op_name, op_loc) = self.word("an op")?;
        let op = self.op(&op_name, op_loc)?;
        // `loc L:C`: the instruction's position in the kernel's source file.
        let inst_loc = if self.eat_keyword("loc") {
            let line = self.u32_literal("the source line")?;
            self.punct(':', "between the source line and column")?;
            let col = self.u32_literal("the source column")?;
            Loc { line, col }
        } else {
            loc
        };
        self.end_of_line("after the statement")?;

        let types = op.result_types(|v| self.kernel.ty(v));
        if types.len() != names.len() {
            let plural =
                |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
            return Err(error(
                loc,
                format!(
                    "`{op_name}` defines {} but {} given",
                    plural(types.len(), "value"),
                    match names.len() {
                        1 => "1 name is".to_string(),
                        n => format!("{n} names are"),
                    }
                ),
            ));
        }
        let results = names
            .into_iter()
            .zip(types)
            .map(|((name, loc), ty)| self.define(name, loc, ty))
            .collect::<Result<Vec<Value>>>()?;
        Ok(Inst {
            op,
            results,
            loc: Some(inst_loc),
        })
    }

    /// ` -> (t, ...)` if present.
    fn arrow_types(&mut self) -> Result<Vec<Type>> {
        let mut types = Vec::new();
        if self.peek().tok == Tok::Arrow {
            self.next();
            self.punct('(', "after '->'")?;
            if !self.eat_punct(')') {
                loop {
                    types.push(self.ty()?);
                    if self.eat_punct(')') {
                        break;
                    }
                    self.punct(',', "or ')' after result type")?;
                }
            }
        }
        Ok(types)
    }

    /// ` iter(%arg = %init, ...)` if present: the argument names and the init values.
    fn iter_clause(&mut self) -> Result<Vec<(String, Loc, Value)>> {
        let mut pairs = Vec::new();
        if self.eat_keyword("iter") {
            self.punct('(', "after 'iter'")?;
            loop {
                let (name, loc) = self.value_name("a loop argument ('%name')")?;
                self.punct('=', "after the loop argument")?;
                let init = self.operand()?;
                pairs.push((name, loc, init));
                if self.eat_punct(')') {
                    break;
                }
                self.punct(',', "or ')' after loop argument")?;
            }
        }
        Ok(pairs)
    }

    /// The op named `name` and its operands: from the op table, or by hand for the ops whose
    /// syntax is custom (ids, and the ops owning regions).
    fn op(&mut self, name: &str, loc: Loc) -> Result<Op> {
        if let Some(op) = Op::parse_generic(self, name)? {
            return Ok(op);
        }
        if let Some(kind) = IdKind::from_name(name) {
            let dim = if kind.has_dim() {
                Dim::parse(self, None)?
            } else {
                Dim::X
            };
            return Ok(Op::Id { kind, dim });
        }
        Ok(match name {
            "if" => {
                let cond = self.operand()?;
                let result_types = self.arrow_types()?;
                let then_region = self.scoped_block(Vec::new())?;
                let else_region = if self.eat_keyword("else") {
                    self.scoped_block(Vec::new())?
                } else {
                    // An omitted `else` yields nothing.
                    Region {
                        args: Vec::new(),
                        insts: vec![Inst {
                            op: Op::Yield { values: Vec::new() },
                            results: Vec::new(),
                            loc: None,
                        }],
                    }
                };
                Op::If {
                    cond,
                    then_region,
                    else_region,
                    result_types,
                }
            }
            "for" => {
                let (iv, iv_loc) = self.value_name("an induction variable ('%name')")?;
                self.punct('=', "after the induction variable")?;
                let lb = self.operand()?;
                self.keyword("to", "after the lower bound")?;
                let ub = self.operand()?;
                self.keyword("step", "after the upper bound")?;
                let step = self.operand()?;
                let carried = self.iter_clause()?;
                let mut args = vec![(iv, iv_loc, self.kernel.ty(lb))];
                let mut inits = Vec::new();
                for (name, loc, init) in carried {
                    args.push((name, loc, self.kernel.ty(init)));
                    inits.push(init);
                }
                Op::For {
                    range: ForRange { lb, ub, step },
                    inits,
                    body: self.scoped_block(args)?,
                }
            }
            "loop" => {
                let carried = self.iter_clause()?;
                let result_types = self.arrow_types()?;
                let mut args = Vec::new();
                let mut inits = Vec::new();
                for (name, loc, init) in carried {
                    args.push((name, loc, self.kernel.ty(init)));
                    inits.push(init);
                }
                Op::Loop {
                    inits,
                    body: self.scoped_block(args)?,
                    result_types,
                }
            }
            _ => return Err(error(loc, format!("unknown op '{name}'"))),
        })
    }
}

fn error(loc: Loc, message: String) -> ParseError {
    ParseError { loc, message }
}

/// A decimal integer within the range of `ty`.
fn int_literal(ty: ScalarType, text: &str) -> std::result::Result<Constant, String> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("bad integer literal '{text}' for {ty}"));
    }
    let bits = ty.bits();
    let (min, max): (i128, i128) = if ty.is_signed_int() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    match text.parse::<i128>() {
        Ok(v) if (min..=max).contains(&v) => Ok(Constant::int(ty, v as i64)),
        _ => Err(format!(
            "integer literal {text} is out of range for {ty} ({min} to {max})"
        )),
    }
}

/// A finite decimal float, `inf`, `-inf` or `nan:0x<bits>`, rounded to nearest into `ty`.
/// `f32` literals are read directly as `f32` (no double rounding); the others as `f64`.
fn float_literal(ty: ScalarType, text: &str) -> std::result::Result<Constant, String> {
    let inf = match text {
        "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        _ => None,
    };
    if let Some(v) = inf {
        return Ok(Constant::float(ty, v));
    }
    if let Some(hex) = text.strip_prefix("nan:") {
        return nan_literal(ty, hex);
    }
    let digits = text.strip_prefix('-').unwrap_or(text);
    let decimal = digits.starts_with(|c: char| c.is_ascii_digit())
        && digits
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    let value = if !decimal {
        None
    } else if ty == ScalarType::F32 {
        text.parse::<f32>().ok().map(f64::from)
    } else {
        text.parse::<f64>().ok()
    };
    let Some(value) = value else {
        return Err(format!("bad float literal '{text}' for {ty}"));
    };
    let c = Constant::float(ty, value);
    if c.as_f64().is_infinite() {
        return Err(format!("float literal {text} is out of range for {ty}"));
    }
    Ok(c)
}

fn nan_literal(ty: ScalarType, hex: &str) -> std::result::Result<Constant, String> {
    let bits = ty.bits();
    let bad =
        || format!("bad NaN literal 'nan:{hex}' for {ty}: expected nan:0x<{bits}-bit NaN pattern>");
    let digits = hex.strip_prefix("0x").ok_or_else(bad)?;
    let value = u64::from_str_radix(digits, 16).map_err(|_| bad())?;
    if bits < 64 && value >> bits != 0 {
        return Err(bad());
    }
    let c = Constant { ty, bits: value };
    if !c.as_f64().is_nan() {
        return Err(bad());
    }
    Ok(c)
}
