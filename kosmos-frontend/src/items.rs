//! The items of a source file that kernels use besides themselves: `#[device]` functions
//! (inlined at each call) and module-level `const` items of scalar types. Both are collected
//! file-wide (inline modules included) by [`crate::items_in_file`]; a name is looked up
//! after the kernel's own variables, so locals shadow them as in Rust.

use crate::sig::{scalar_of_name, scalar_type, sym_elem};
use kosmos_ir::ScalarType;
use syn::{Error, Ident, Result};

/// The `#[device]` functions and scalar `const`s a kernel may name.
#[derive(Clone, Debug, Default)]
pub struct Items {
    pub devices: Vec<DeviceFn>,
    pub consts: Vec<ModuleConst>,
    /// Whether these are all the items of the kernel's file. The `#[kernel]` macro sees only
    /// its own function when it cannot read the file; then a call of an unknown function or
    /// an unknown name may be an item it does not see, and its check stops there silently
    /// (the build step, which reads the file, reports what is left).
    pub complete: bool,
}

impl Items {
    /// No items, and none unknown (a kernel checked on its own).
    pub fn none() -> Items {
        Items {
            complete: true,
            ..Items::default()
        }
    }

    pub(crate) fn device(&self, name: &str) -> Option<&DeviceFn> {
        self.devices.iter().find(|d| d.name == name)
    }

    pub(crate) fn constant(&self, name: &str) -> Option<(usize, &ModuleConst)> {
        self.consts.iter().enumerate().find(|(_, c)| c.name == name)
    }
}

/// `const NAME: T = expr;` at module level, `T` a scalar type. Its value is `expr`, lowered
/// (or evaluated, for shared array lengths) where the constant is used.
#[derive(Clone, Debug)]
pub struct ModuleConst {
    pub name: Ident,
    pub ty: ScalarType,
    pub expr: syn::Expr,
}

impl ModuleConst {
    /// `item` as a kernel constant; `None` for constants of other types (arrays, strings),
    /// which kernels cannot use.
    pub fn of(item: &syn::ItemConst) -> Option<ModuleConst> {
        let syn::Type::Path(p) = &*item.ty else {
            return None;
        };
        let ty = scalar_of_name(&p.path.get_ident()?.to_string())?;
        Some(ModuleConst {
            name: item.ident.clone(),
            ty,
            expr: (*item.expr).clone(),
        })
    }
}

/// A `#[device]` function: an ordinary Rust function that kernels and other device
/// functions call, inlined at each call with its parameters bound to the arguments.
#[derive(Clone, Debug)]
pub struct DeviceFn {
    pub name: Ident,
    pub params: Vec<DeviceParam>,
    pub ret: DeviceRet,
    pub body: syn::Block,
}

/// What a device function returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceRet {
    Nothing,
    Scalar(ScalarType),
    /// A fragment or vector, by the name of its type, as for [`DeviceParamTy::Tile`]: how a
    /// shared piece of a kernel (a GEMM main loop) hands back its accumulator.
    Tile(Box<syn::Type>),
}

impl DeviceRet {
    /// The scalar type returned, if a scalar is.
    pub fn scalar(&self) -> Option<ScalarType> {
        match self {
            DeviceRet::Scalar(t) => Some(*t),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct DeviceParam {
    pub name: Ident,
    pub ty: DeviceParamTy,
    /// `mut x: u32`: the body may assign its copy.
    pub mutable: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceParamTy {
    /// `&[T]` or `&mut [T]` (`mutable`): a slice parameter of the kernel, a shared array
    /// or a rank's copy of a symmetric buffer, passed as `x`, `&x` or `&mut x`.
    Slice {
        elem: ScalarType,
        mutable: bool,
    },
    Scalar(ScalarType),
    /// A fragment or vector, by the name of its type: `FragA`, `FragB`, `FragAcc`,
    /// `WideAcc`, `Vec8<T>` or `Vec4<T>`.
    Tile(Box<syn::Type>),
    /// `&TensorMap`: a tensor-map parameter of the kernel, passed as `map` or `&map`.
    TensorMap,
    /// `&Sym<[T]>`: a symmetric buffer parameter of the kernel, passed as `x` or `&x`.
    Sym(ScalarType),
}

/// Whether `attr` is a `#[device]` attribute (`#[device]`, `#[kosmos::device]`).
pub fn is_device_attr(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "device")
}

impl DeviceFn {
    /// Checks the function's body on its own, with `items` (the file's) in scope: the
    /// `#[device]` macro's check, at the function's tokens.
    pub fn check(&self, items: std::rc::Rc<Items>) -> Result<()> {
        crate::lower::check_device(self, items)
    }

    /// Parses a `#[device]` function's signature; its body is checked where it is inlined.
    pub fn parse(f: &syn::ItemFn) -> Result<DeviceFn> {
        let sig = &f.sig;
        let refuse = |tokens: &dyn quote::ToTokens, what: &str| {
            Err(Error::new_spanned(
                tokens,
                format!("device functions {what}: they are inlined into kernels"),
            ))
        };
        if let Some(t) = &sig.asyncness {
            return refuse(t, "cannot be `async`");
        }
        if let Some(t) = &sig.constness {
            return refuse(t, "cannot be `const`");
        }
        if let Some(t) = &sig.unsafety {
            return refuse(t, "cannot be `unsafe`");
        }
        if let Some(abi) = &sig.abi {
            return refuse(abi, "take no `extern` ABI");
        }
        if !sig.generics.params.is_empty() {
            return refuse(
                &sig.generics,
                "take no generic parameters (write one per type)",
            );
        }
        let mut params = Vec::new();
        for input in &sig.inputs {
            let syn::FnArg::Typed(pt) = input else {
                return refuse(input, "are free functions");
            };
            let syn::Pat::Ident(pi) = &*pt.pat else {
                return refuse(&pt.pat, "take plain parameter names");
            };
            if pi.by_ref.is_some() || pi.subpat.is_some() {
                return refuse(pi, "take plain parameter names");
            }
            let ty = match &*pt.ty {
                syn::Type::Reference(r)
                    if r.mutability.is_none()
                        && matches!(&*r.elem, syn::Type::Path(p) if p.path.is_ident("TensorMap")) =>
                {
                    DeviceParamTy::TensorMap
                }
                syn::Type::Reference(r) => {
                    if let Some(elem) = sym_elem(r, &pt.ty) {
                        DeviceParamTy::Sym(elem?)
                    } else {
                        let syn::Type::Slice(s) = &*r.elem else {
                            return Err(Error::new_spanned(
                                &pt.ty,
                                "references in device function parameters are slices, `&[T]` or `&mut [T]`, `&TensorMap` or `&Sym<[T]>`",
                            ));
                        };
                        DeviceParamTy::Slice {
                            elem: scalar_type(&s.elem, "slice element")?,
                            mutable: r.mutability.is_some(),
                        }
                    }
                }
                ty if is_tile_type(ty) => DeviceParamTy::Tile(Box::new(ty.clone())),
                ty => DeviceParamTy::Scalar(scalar_type(ty, "parameter")?),
            };
            params.push(DeviceParam {
                name: pi.ident.clone(),
                ty,
                mutable: pi.mutability.is_some(),
            });
        }
        let ret = match &sig.output {
            syn::ReturnType::Default => DeviceRet::Nothing,
            syn::ReturnType::Type(_, ty) if is_tile_type(ty) => DeviceRet::Tile(ty.clone()),
            syn::ReturnType::Type(_, ty) => DeviceRet::Scalar(scalar_type(ty, "return")?),
        };
        Ok(DeviceFn {
            name: sig.ident.clone(),
            params,
            ret,
            body: (*f.block).clone(),
        })
    }
}

/// The type names of fragments and vectors in device function signatures.
pub(crate) const TILE_TYPES: &[&str] = &["FragA", "FragB", "FragAcc", "WideAcc", "Vec8", "Vec4"];

fn is_tile_type(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| TILE_TYPES.contains(&s.ident.to_string().as_str())))
}
