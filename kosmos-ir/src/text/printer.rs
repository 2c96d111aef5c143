//! Canonical text of a kernel.

use super::Line;
use crate::{Constant, Inst, Kernel, Op, Region, ScalarType, Type, Value};
use std::collections::HashSet;
use std::fmt::Write;

/// Prints one kernel. Every value gets a distinct printed name up front, so that the text
/// always parses back even when stored names clash.
pub(super) struct Printer<'k> {
    kernel: &'k Kernel,
    names: Vec<Option<String>>,
    out: String,
}

impl<'k> Printer<'k> {
    pub(super) fn new(kernel: &'k Kernel) -> Printer<'k> {
        let mut namer = Namer {
            kernel,
            names: vec![None; kernel.values.len()],
            used: HashSet::new(),
        };
        for &p in &kernel.params {
            namer.assign(p);
        }
        namer.region(&kernel.body);
        Printer {
            kernel,
            names: namer.names,
            out: String::new(),
        }
    }

    pub(super) fn print(mut self) -> String {
        let k = self.kernel;
        let params: Vec<String> = k
            .params
            .iter()
            .map(|&p| format!("{}: {}", self.name(p), self.ty(p)))
            .collect();
        let mut subgroups = match k.max_subgroups {
            Some(n) => format!(" max_subgroups {n}"),
            None => String::new(),
        };
        if let Some(n) = k.min_resident {
            subgroups += &format!(" min_resident {n}");
        }
        if let Some(file) = &k.source {
            subgroups += &format!(" source {}", quoted(file));
        }
        let _ = writeln!(
            self.out,
            "kernel @{}({}) max_workgroup_size {}{subgroups} {{",
            sanitize(&k.name),
            params.join(", "),
            k.max_workgroup_size
        );
        self.region(&k.body, 1);
        self.out.push_str("}\n");
        self.out
    }

    /// The printed name of `v`, `%` included. Values the walk never met (operands of a
    /// malformed kernel) fall back to their stored name or index.
    fn name(&self, v: Value) -> String {
        match self.names.get(v.index()).and_then(Option::as_ref) {
            Some(name) => format!("%{name}"),
            None => self.kernel.display_value(v),
        }
    }

    fn ty(&self, v: Value) -> String {
        match self.kernel.values.get(v.index()) {
            Some(data) => data.ty.to_string(),
            None => "<undefined>".to_string(),
        }
    }

    fn list(&self, values: &[Value]) -> String {
        values
            .iter()
            .map(|&v| self.name(v))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn region(&mut self, region: &Region, depth: usize) {
        for inst in &region.insts {
            self.inst(inst, depth);
        }
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    /// An instruction; with `loc L:C` at the end of its last line when its kernel has a
    /// source file (positions of `.kir` text are their own).
    fn inst(&mut self, inst: &Inst, depth: usize) {
        self.inst_text(inst, depth);
        if let (Some(_), Some(loc)) = (&self.kernel.source, inst.loc) {
            self.out.pop();
            let _ = writeln!(self.out, " loc {loc}");
        }
    }

    fn inst_text(&mut self, inst: &Inst, depth: usize) {
        self.indent(depth);
        if !inst.results.is_empty() {
            let results = self.list(&inst.results);
            let _ = write!(self.out, "{results} = ");
        }
        let name = |v: Value| self.name(v);
        let mut line = Line {
            text: String::new(),
            name: &name,
        };
        if inst.op.print_generic(&mut line).is_some() {
            self.out.push_str(&line.text);
            self.out.push('\n');
            return;
        }
        let n = |v: &Value| self.name(*v);
        let text = match &inst.op {
            Op::Id { kind, dim } if kind.has_dim() => format!("{kind} {dim}"),
            Op::Id { kind, .. } => kind.to_string(),
            Op::If {
                cond,
                then_region,
                else_region,
                result_types,
            } => {
                let head = format!("if {}{} {{\n", n(cond), arrow_types(result_types));
                self.out.push_str(&head);
                self.region(then_region, depth + 1);
                self.indent(depth);
                if is_empty_else(else_region) {
                    self.out.push_str("}\n");
                } else {
                    self.out.push_str("} else {\n");
                    self.region(else_region, depth + 1);
                    self.indent(depth);
                    self.out.push_str("}\n");
                }
                return;
            }
            Op::For { range, inits, body } => {
                let iv = body.args.first().map_or_else(|| "%?".to_string(), n);
                let carried = body.args.get(1..).unwrap_or(&[]);
                let head = format!(
                    "for {iv} = {} to {} step {}{} {{\n",
                    n(&range.lb),
                    n(&range.ub),
                    n(&range.step),
                    self.iter_clause(carried, inits)
                );
                self.out.push_str(&head);
                self.close_body(body, depth);
                return;
            }
            Op::Loop {
                inits,
                body,
                result_types,
            } => {
                let head = format!(
                    "loop{}{} {{\n",
                    self.iter_clause(&body.args, inits),
                    arrow_types(result_types)
                );
                self.out.push_str(&head);
                self.close_body(body, depth);
                return;
            }
            other => unreachable!("`{}` has table syntax", other.name()),
        };
        self.out.push_str(&text);
        self.out.push('\n');
    }

    fn close_body(&mut self, body: &Region, depth: usize) {
        self.region(body, depth + 1);
        self.indent(depth);
        self.out.push_str("}\n");
    }

    /// ` iter(%arg = %init, ...)`, or nothing without carried values. A malformed loop whose
    /// argument and init counts differ prints `%?` for the missing side.
    fn iter_clause(&self, args: &[Value], inits: &[Value]) -> String {
        let count = args.len().max(inits.len());
        if count == 0 {
            return String::new();
        }
        let side =
            |vs: &[Value], i: usize| vs.get(i).map_or_else(|| "%?".into(), |&v| self.name(v));
        let pairs: Vec<String> = (0..count)
            .map(|i| format!("{} = {}", side(args, i), side(inits, i)))
            .collect();
        format!(" iter({})", pairs.join(", "))
    }
}

fn arrow_types(types: &[Type]) -> String {
    if types.is_empty() {
        return String::new();
    }
    let list: Vec<String> = types.iter().map(Type::to_string).collect();
    format!(" -> ({})", list.join(", "))
}

/// An `else` region the text may leave out: a lone `yield` of nothing.
fn is_empty_else(region: &Region) -> bool {
    region.args.is_empty()
        && matches!(region.insts.as_slice(), [Inst { op: Op::Yield { values }, .. }] if values.is_empty())
}

/// The literal of a constant; floats print so that they parse back to the same bits.
pub(super) fn format_constant(c: Constant) -> String {
    match c.ty {
        ScalarType::I1 => (c.bits & 1 == 1).to_string(),
        t if t.is_signed_int() => c.as_i64().to_string(),
        t if t.is_unsigned_int() => c.bits.to_string(),
        ScalarType::F32 => {
            let v = f32::from_bits(c.bits as u32);
            float_literal(v.is_nan(), v.is_infinite(), v < 0.0, c, || format!("{v:?}"))
        }
        _ => {
            // f64 prints its shortest repr; f16 and bf16 their exact value as an f64, which
            // rounds back to the same half-width bits.
            let v = c.as_f64();
            float_literal(v.is_nan(), v.is_infinite(), v < 0.0, c, || format!("{v:?}"))
        }
    }
}

fn float_literal(
    nan: bool,
    inf: bool,
    negative: bool,
    c: Constant,
    finite: impl FnOnce() -> String,
) -> String {
    if nan {
        let digits = (c.ty.bits() / 4) as usize;
        format!("nan:0x{:0digits$x}", c.bits)
    } else if inf {
        if negative { "-inf" } else { "inf" }.to_string()
    } else {
        finite()
    }
}

/// Assigns printed names in text order: stored names where they are valid and free, else the
/// value's index, with `.1`, `.2`, ... appended to the later of two clashing names.
struct Namer<'k> {
    kernel: &'k Kernel,
    names: Vec<Option<String>>,
    used: HashSet<String>,
}

impl Namer<'_> {
    fn assign(&mut self, v: Value) {
        let Some(slot) = self.names.get(v.index()) else {
            return;
        };
        if slot.is_some() {
            return;
        }
        let base = match self.kernel.value_name(v) {
            Some(name) if !name.is_empty() => sanitize(name),
            _ => v.0.to_string(),
        };
        let mut name = base.clone();
        let mut suffix = 1;
        while self.used.contains(&name) {
            name = format!("{base}.{suffix}");
            suffix += 1;
        }
        self.used.insert(name.clone());
        self.names[v.index()] = Some(name);
    }

    fn region(&mut self, region: &Region) {
        for inst in &region.insts {
            for &r in &inst.results {
                self.assign(r);
            }
            for r in inst.op.regions() {
                for &a in &r.args {
                    self.assign(a);
                }
                self.region(r);
            }
        }
    }
}

/// `name` with every character the text format does not allow in names replaced by `_`.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| if is_name_char(c) { c } else { '_' })
        .collect()
}

/// Characters of a value or kernel name after its sigil.
pub(super) fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// `text` as a string literal of the format (`"` and `\` escaped).
pub(super) fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}
