//! A kernel's signature and attribute: parameters, const generics, instances, launch bound.

use crate::items::Items;
use kosmos_ir::ScalarType;
use proc_macro2::{Span, TokenStream};
use std::rc::Rc;
use syn::spanned::Spanned;
use syn::{Error, Ident, Result};

/// The workgroup-size bound of a kernel whose attribute names none.
pub const DEFAULT_MAX_WORKGROUP_SIZE: u32 = 256;

/// The largest `max_subgroups`: a largest workgroup of the smallest subgroups (32 lanes).
pub const MAX_SUBGROUPS: u32 = kosmos_ir::MAX_WORKGROUP_SIZE / 32;

/// A parsed `#[kernel]` function.
#[derive(Clone, Debug)]
pub struct KernelDef {
    pub name: Ident,
    pub vis: syn::Visibility,
    /// Doc comments and other attributes that are not `#[kernel]`, forwarded to the launcher.
    pub docs: Vec<syn::Attribute>,
    pub params: Vec<Param>,
    /// Const generic parameters, all `u32`.
    pub consts: Vec<Ident>,
    pub instances: Vec<Instance>,
    pub max_workgroup_size: u32,
    /// `max_subgroups = N`: a bound in subgroups, tighter than `max_workgroup_size` on
    /// targets with narrow subgroups (`kosmos_ir::Kernel::max_subgroups`).
    pub max_subgroups: Option<u32>,
    /// `min_resident = N`: plan registers for N resident workgroups per processor
    /// (`kosmos_ir::Kernel::min_resident`).
    pub min_resident: Option<u32>,
    /// `scheduler_scratch = name`: the scheduler's broadcast words are the last two words
    /// of the kernel's top-level `let name = shared_array::<T, N>()` instead of an
    /// allocation of their own (a kernel whose ring fills the target's shared memory).
    pub scheduler_scratch: Option<Ident>,
    pub body: syn::Block,
    /// The path of the source file, which bounds errors name ("" when unknown).
    pub file: String,
    /// The device functions and constants of the kernel's file.
    pub items: Rc<Items>,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: Ident,
    pub kind: ParamKind,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// `&[T]` (`mutable: false`) or `&mut [T]`: a global pointer to `T`s.
    Slice {
        elem: ScalarType,
        mutable: bool,
    },
    Scalar(ScalarType),
    /// `team: &Team`, the first parameter of a kernel launched on a `World`: it stands for
    /// the six team parameters of `kosmos_sched::abi::TEAM_PARAMS`.
    Team,
    /// `map: &TensorMap`: a tensor map (`kosmos_runtime::TensorMap`), a global pointer that
    /// only `copy_tensor` takes.
    TensorMap,
    /// `x: &Sym<[T]>`: a symmetric buffer of the world (`kosmos_runtime::SymmetricBuffer`),
    /// passed as its peer-table index (`u32`) and its length in elements (`u64`); only in
    /// kernels with a team. `x.peer(rank)` is rank `rank`'s copy.
    Sym(ScalarType),
}

/// One set of values for the const generics (in declaration order).
#[derive(Clone, Debug)]
pub struct Instance {
    pub values: Vec<u32>,
    pub span: Span,
}

/// The scalar type a DSL type name stands for.
pub(crate) fn scalar_of_name(name: &str) -> Option<ScalarType> {
    Some(match name {
        "bool" => ScalarType::I1,
        "u8" => ScalarType::U8,
        "u16" => ScalarType::U16,
        "u32" => ScalarType::U32,
        "u64" => ScalarType::U64,
        // Indices and lengths are 64-bit on every target, like `usize` on the hosts.
        "usize" => ScalarType::U64,
        "isize" => ScalarType::I64,
        "i8" => ScalarType::I8,
        "i16" => ScalarType::I16,
        "i32" => ScalarType::I32,
        "i64" => ScalarType::I64,
        "f16" => ScalarType::F16,
        "bf16" => ScalarType::BF16,
        "f32" => ScalarType::F32,
        "f64" => ScalarType::F64,
        _ => return None,
    })
}

/// How a scalar type is written in kernels (`bool` for `i1`).
pub(crate) fn rust_name(t: ScalarType) -> &'static str {
    if t == ScalarType::I1 {
        "bool"
    } else {
        t.name()
    }
}

/// A scalar type written as a path (`f32`, `bf16`); `what` names the place in messages.
pub(crate) fn scalar_type(ty: &syn::Type, what: &str) -> Result<ScalarType> {
    if let syn::Type::Path(p) = ty
        && p.qself.is_none()
        && let Some(ident) = p.path.get_ident()
        && let Some(t) = scalar_of_name(&ident.to_string())
    {
        return Ok(t);
    }
    Err(Error::new_spanned(
        ty,
        format!(
            "unsupported {what} type `{}`: expected a scalar (u8..u64, usize, i8..i64, isize, f16, bf16, f32, f64, bool)",
            quote::quote!(#ty).to_string().replace(' ', "")
        ),
    ))
}

/// The element type of a symmetric buffer parameter `&Sym<[T]>` (`r`, the whole type
/// `ty`); `None` if `r` names no `Sym`. Kernels and device functions take it alike.
pub(crate) fn sym_elem(r: &syn::TypeReference, ty: &syn::Type) -> Option<Result<ScalarType>> {
    let syn::Type::Path(p) = &*r.elem else {
        return None;
    };
    let seg = p.path.segments.last().filter(|s| s.ident == "Sym")?;
    let usage = "write `&Sym<[T]>`: a symmetric buffer of `T` elements";
    let parse = || {
        if r.mutability.is_some() {
            return Err(Error::new_spanned(
                ty,
                "write `&Sym<[T]>`, not `&mut Sym<[T]>`: `.peer(rank)` slices are writable",
            ));
        }
        let syn::PathArguments::AngleBracketed(g) = &seg.arguments else {
            return Err(Error::new_spanned(ty, usage));
        };
        let args: Vec<_> = g.args.iter().collect();
        let [syn::GenericArgument::Type(syn::Type::Slice(s))] = args[..] else {
            return Err(Error::new_spanned(g, usage));
        };
        let elem = scalar_type(&s.elem, "symmetric buffer element")?;
        if elem == ScalarType::I1 {
            return Err(Error::new_spanned(
                &s.elem,
                "symmetric buffers of `bool` are not supported: use `u8`",
            ));
        }
        Ok(elem)
    };
    Some(parse())
}

impl KernelDef {
    /// Parses the attribute arguments (`args`, the tokens inside `#[kernel(...)]`) and the
    /// function's signature. The body is checked by [`KernelDef::lower`].
    pub fn parse(args: TokenStream, f: &syn::ItemFn) -> Result<KernelDef> {
        let sig = &f.sig;
        if let Some(t) = &sig.asyncness {
            return Err(Error::new_spanned(t, "kernels cannot be `async`"));
        }
        if let Some(t) = &sig.unsafety {
            return Err(Error::new_spanned(
                t,
                "kernels cannot be `unsafe`: use `unsafe { ... }` blocks around unchecked accesses",
            ));
        }
        if let Some(t) = &sig.constness {
            return Err(Error::new_spanned(t, "kernels cannot be `const`"));
        }
        if let Some(abi) = &sig.abi {
            return Err(Error::new_spanned(abi, "kernels take no `extern` ABI"));
        }
        if let Some(v) = &sig.variadic {
            return Err(Error::new_spanned(v, "kernels cannot be variadic"));
        }
        if let syn::ReturnType::Type(_, ty) = &sig.output {
            return Err(Error::new_spanned(
                ty,
                "kernels return nothing: write results into a `&mut [T]` parameter",
            ));
        }
        if let Some(w) = &sig.generics.where_clause {
            return Err(Error::new_spanned(w, "kernels take no `where` clause"));
        }
        let mut consts = Vec::new();
        for g in &sig.generics.params {
            match g {
                syn::GenericParam::Const(c) => {
                    let is_u32 = matches!(&c.ty, syn::Type::Path(p) if p.path.is_ident("u32"));
                    if !is_u32 {
                        return Err(Error::new_spanned(
                            &c.ty,
                            "const generic parameters of kernels are `u32`",
                        ));
                    }
                    if let Some(d) = &c.default {
                        return Err(Error::new_spanned(
                            d,
                            "give const generic values in `instances(...)`, not as defaults",
                        ));
                    }
                    consts.push(c.ident.clone());
                }
                syn::GenericParam::Type(t) => {
                    return Err(Error::new_spanned(
                        t,
                        "kernels take no generic type parameters: write one kernel per element type",
                    ));
                }
                syn::GenericParam::Lifetime(l) => {
                    return Err(Error::new_spanned(l, "kernels take no lifetime parameters"));
                }
            }
        }
        let mut params = Vec::new();
        for input in &sig.inputs {
            let syn::FnArg::Typed(pt) = input else {
                return Err(Error::new_spanned(input, "kernels are free functions"));
            };
            let syn::Pat::Ident(pi) = &*pt.pat else {
                return Err(Error::new_spanned(
                    &pt.pat,
                    "kernel parameters are plain names",
                ));
            };
            if let Some(m) = &pi.mutability {
                return Err(Error::new_spanned(
                    m,
                    "kernel parameters cannot be `mut`: copy into a `let mut`",
                ));
            }
            if pi.by_ref.is_some() || pi.subpat.is_some() {
                return Err(Error::new_spanned(pi, "kernel parameters are plain names"));
            }
            let kind = match &*pt.ty {
                syn::Type::Reference(r) => {
                    if let Some(l) = &r.lifetime {
                        return Err(Error::new_spanned(l, "kernel parameters take no lifetimes"));
                    }
                    if let syn::Type::Path(tp) = &*r.elem
                        && tp.path.is_ident("Team")
                    {
                        if r.mutability.is_some() {
                            return Err(Error::new_spanned(
                                &pt.ty,
                                "write `&Team`, not `&mut Team`",
                            ));
                        }
                        if !params.is_empty() {
                            return Err(Error::new_spanned(
                                &pt.ty,
                                "`&Team` is the first parameter of a kernel: the team parameters open its signature",
                            ));
                        }
                        params.push(Param {
                            name: pi.ident.clone(),
                            kind: ParamKind::Team,
                        });
                        continue;
                    }
                    if let Some(elem) = sym_elem(r, &pt.ty) {
                        let elem = elem?;
                        if params
                            .first()
                            .is_none_or(|p: &Param| p.kind != ParamKind::Team)
                        {
                            return Err(Error::new_spanned(
                                &pt.ty,
                                "symmetric buffers need a world: make `team: &Team` the kernel's first parameter",
                            ));
                        }
                        params.push(Param {
                            name: pi.ident.clone(),
                            kind: ParamKind::Sym(elem),
                        });
                        continue;
                    }
                    if let syn::Type::Path(tp) = &*r.elem
                        && tp.path.is_ident("TensorMap")
                    {
                        if r.mutability.is_some() {
                            return Err(Error::new_spanned(
                                &pt.ty,
                                "write `&TensorMap`, not `&mut TensorMap`",
                            ));
                        }
                        params.push(Param {
                            name: pi.ident.clone(),
                            kind: ParamKind::TensorMap,
                        });
                        continue;
                    }
                    let syn::Type::Slice(s) = &*r.elem else {
                        return Err(Error::new_spanned(
                            &pt.ty,
                            "unsupported parameter type: references are slices, `&[T]` or `&mut [T]`, `&TensorMap` or `&Sym<[T]>`",
                        ));
                    };
                    let elem = scalar_type(&s.elem, "slice element")?;
                    if elem == ScalarType::I1 {
                        return Err(Error::new_spanned(
                            &s.elem,
                            "slices of `bool` are not supported: use `u8`",
                        ));
                    }
                    ParamKind::Slice {
                        elem,
                        mutable: r.mutability.is_some(),
                    }
                }
                ty => ParamKind::Scalar(scalar_type(ty, "parameter")?),
            };
            params.push(Param {
                name: pi.ident.clone(),
                kind,
            });
        }
        let mut def = KernelDef {
            name: sig.ident.clone(),
            vis: f.vis.clone(),
            docs: f
                .attrs
                .iter()
                .filter(|a| !crate::is_kernel_attr(a))
                .cloned()
                .collect(),
            params,
            consts,
            instances: Vec::new(),
            max_workgroup_size: DEFAULT_MAX_WORKGROUP_SIZE,
            max_subgroups: None,
            min_resident: None,
            scheduler_scratch: None,
            body: (*f.block).clone(),
            file: String::new(),
            items: Rc::new(Items::none()),
        };
        def.parse_args(args)?;
        if def.instances.is_empty() && !def.consts.is_empty() {
            return Err(Error::new_spanned(
                &sig.generics,
                format!(
                    "a kernel with const generics needs its instances: `#[kernel(instances({}))]`",
                    def.consts
                        .iter()
                        .map(|c| format!("{c} = ..."))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        if def.consts.is_empty() {
            def.instances.push(Instance {
                values: Vec::new(),
                span: def.name.span(),
            });
        }
        Ok(def)
    }

    fn parse_args(&mut self, args: TokenStream) -> Result<()> {
        let parser = syn::meta::parser(|meta| {
            if meta.path.is_ident("max_workgroup_size") {
                let lit: syn::LitInt = meta.value()?.parse()?;
                let v: u32 = lit.base10_parse()?;
                if !(1..=kosmos_ir::MAX_WORKGROUP_SIZE).contains(&v) {
                    return Err(Error::new_spanned(
                        lit,
                        format!(
                            "max_workgroup_size must be in 1..={}",
                            kosmos_ir::MAX_WORKGROUP_SIZE
                        ),
                    ));
                }
                self.max_workgroup_size = v;
                Ok(())
            } else if meta.path.is_ident("max_subgroups") {
                let lit: syn::LitInt = meta.value()?.parse()?;
                let v: u32 = lit.base10_parse()?;
                if !(1..=MAX_SUBGROUPS).contains(&v) {
                    return Err(Error::new_spanned(
                        lit,
                        format!("max_subgroups must be in 1..={MAX_SUBGROUPS}"),
                    ));
                }
                self.max_subgroups = Some(v);
                Ok(())
            } else if meta.path.is_ident("min_resident") {
                let lit: syn::LitInt = meta.value()?.parse()?;
                let v: u32 = lit.base10_parse()?;
                if !(1..=kosmos_ir::MAX_MIN_RESIDENT).contains(&v) {
                    return Err(Error::new_spanned(
                        lit,
                        format!(
                            "min_resident must be in 1..={}",
                            kosmos_ir::MAX_MIN_RESIDENT
                        ),
                    ));
                }
                self.min_resident = Some(v);
                Ok(())
            } else if meta.path.is_ident("scheduler_scratch") {
                self.scheduler_scratch = Some(meta.value()?.parse()?);
                Ok(())
            } else if meta.path.is_ident("instances") {
                let span = meta.path.span();
                let mut values: Vec<Option<u32>> = vec![None; self.consts.len()];
                meta.parse_nested_meta(|inner| {
                    let Some(ident) = inner.path.get_ident() else {
                        return Err(inner.error("expected a const generic name"));
                    };
                    let Some(i) = self.consts.iter().position(|c| c == ident) else {
                        return Err(inner.error(format!(
                            "`{ident}` is not a const generic parameter of this kernel"
                        )));
                    };
                    let lit: syn::LitInt = inner.value()?.parse()?;
                    if values[i].replace(lit.base10_parse()?).is_some() {
                        return Err(inner.error(format!("`{ident}` is given twice")));
                    }
                    Ok(())
                })?;
                let missing: Vec<String> = self
                    .consts
                    .iter()
                    .zip(&values)
                    .filter(|(_, v)| v.is_none())
                    .map(|(c, _)| format!("`{c}`"))
                    .collect();
                if !missing.is_empty() {
                    return Err(Error::new(
                        span,
                        format!("this instance gives no value for {}", missing.join(", ")),
                    ));
                }
                self.instances.push(Instance {
                    values: values.into_iter().flatten().collect(),
                    span,
                });
                Ok(())
            } else {
                Err(meta.error(
                    "expected `max_workgroup_size = N`, `max_subgroups = N`, `min_resident = N`, `scheduler_scratch = ARRAY` or `instances(NAME = value, ...)`",
                ))
            }
        });
        syn::parse::Parser::parse2(parser, args)?;
        let names: Vec<String> = self
            .instances
            .iter()
            .map(|i| self.instance_name(i))
            .collect();
        for (i, name) in names.iter().enumerate() {
            if names[..i].contains(name) {
                return Err(Error::new(
                    self.instances[i].span,
                    "this instance is declared twice",
                ));
            }
        }
        Ok(())
    }

    /// The IR name of an instance: the function's name, then `__` and each const generic as
    /// its lower-case name and value (`gemm__bm64_bn128`).
    pub fn instance_name(&self, inst: &Instance) -> String {
        let mut name = self.name.to_string();
        for (i, (c, v)) in self.consts.iter().zip(&inst.values).enumerate() {
            name.push_str(if i == 0 { "__" } else { "_" });
            name.push_str(&format!("{}{v}", c.to_string().to_lowercase()));
        }
        name
    }

    /// [`KernelDef::instance_name`] as a `format!` string with one `{}` per const generic.
    pub fn instance_name_format(&self) -> String {
        let mut name = self.name.to_string();
        for (i, c) in self.consts.iter().enumerate() {
            name.push_str(if i == 0 { "__" } else { "_" });
            name.push_str(&format!("{}{{}}", c.to_string().to_lowercase()));
        }
        name
    }

    /// Whether the kernel runs on a `World` (its first parameter is `team: &Team`).
    pub fn has_team(&self) -> bool {
        self.params
            .first()
            .is_some_and(|p| p.kind == ParamKind::Team)
    }

    /// Every instance, lowered and verified.
    pub fn lower_all(&self) -> Result<Vec<kosmos_ir::Kernel>> {
        self.instances.iter().map(|i| self.lower(i)).collect()
    }
}
