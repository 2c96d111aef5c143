//! `#[kernel]`: checks a kernel function with `kosmos-frontend` (every declared instance is
//! lowered and verified, so errors appear at `cargo check` time, at the user's tokens) and
//! replaces it with a module of the same name holding a typed launcher.
//!
//! The GPU binaries are not produced here: `kosmos_build::Build::rust_sources` lowers the
//! same source again in the crate's build script, where LLVM may run.
//!
//! For `fn vector_add(a: &[f32], out: &mut [f32], n: u32)` the macro generates
//! ```text
//! pub mod vector_add {
//!     pub const NAME: &str = "vector_add";
//!     pub fn launch(module: &Module, stream: &Stream, cfg: LaunchConfig,
//!                   a: &Buffer<f32>, out: &mut Buffer<f32>, n: u32) -> Result<()>;
//! }
//! ```
//! A kernel whose first parameter is `team: &Team` runs on a world instead:
//! `launch(world, modules, per_rank, block, args...)`, each `x: &Sym<[T]>` parameter taking a
//! `&SymmetricBuffer<T>` that must be the world's (checked before the launch).
//! A kernel with const generics gets `launch::<BM, BN>(...)` (an instance that was not
//! declared in `instances(...)` is a launch error naming the available kernels),
//! `name::<BM, BN>()` and `INSTANCES`, the IR names of the declared instances.
//! Generated code names the runtime through the `kosmos` facade crate.
//!
//! `#[device]` checks a device function (`kosmos_frontend::DeviceFn`) and removes it: its
//! body, like a kernel's, is never compiled for the host, only inlined where kernels call it.
//!
//! Kernels use the `#[device]` functions and `const` items of their file, which an attribute
//! macro does not see: both macros read the file (`proc_macro::Span::local_file`) for them,
//! as the build step does. Where it cannot be read (an editor's expansion), a kernel is
//! checked up to its first name that may be such an item, and the build step reports what
//! follows. An error inside a device function's body is reported once, by its `#[device]`.
//! Both macros leave a use of each `const` item their function names, which the
//! function's removal would otherwise leave unused.

use kosmos_frontend::{DeviceFn, Items, KernelDef, ParamKind};
use proc_macro::TokenStream;
use quote::{format_ident, quote};
use std::rc::Rc;
use syn::visit::Visit;

#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let f = syn::parse_macro_input!(item as syn::ItemFn);
    match expand(attr.into(), &f) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    let f = syn::parse_macro_input!(item as syn::ItemFn);
    let check = || -> syn::Result<proc_macro2::TokenStream> {
        if !attr.is_empty() {
            return Err(syn::Error::new(
                proc_macro2::Span::call_site(),
                "`#[device]` takes no arguments",
            ));
        }
        let items = file_items(&f);
        DeviceFn::parse(&f)?.check(items.clone())?;
        Ok(const_uses(&f.block, &items))
    };
    match check() {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// The device functions and constants of the file being compiled; incomplete (none) when
/// it cannot be read or parsed, or does not hold `f` (code included from elsewhere, such as
/// doc tests, is not that file's).
fn file_items(f: &syn::ItemFn) -> Rc<Items> {
    let items = proc_macro::Span::call_site()
        .local_file()
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|source| syn::parse_file(&source).ok())
        .filter(|file| kosmos_frontend::file_holds(file, f))
        .and_then(|file| kosmos_frontend::items_in_file(&file).ok());
    Rc::new(items.unwrap_or_default())
}

/// A use of each of `items`' constants that `body` names.
fn const_uses(body: &syn::Block, items: &Items) -> proc_macro2::TokenStream {
    struct Names<'a>(&'a Items, Vec<syn::Ident>);
    impl<'ast> Visit<'ast> for Names<'_> {
        fn visit_path(&mut self, p: &'ast syn::Path) {
            if let Some(ident) = p.get_ident()
                && self.0.consts.iter().any(|c| c.name == *ident)
                && !self.1.contains(ident)
            {
                self.1.push(ident.clone());
            }
            syn::visit::visit_path(self, p);
        }
    }
    let mut names = Names(items, Vec::new());
    names.visit_block(body);
    let names = names.1;
    if names.is_empty() {
        return quote!();
    }
    quote!(const _: () = { #(let _ = #names;)* };)
}

fn rust_type(t: kosmos_ir::ScalarType) -> proc_macro2::TokenStream {
    use kosmos_ir::ScalarType as S;
    match t {
        S::I1 => quote!(bool),
        S::I8 => quote!(i8),
        S::I16 => quote!(i16),
        S::I32 => quote!(i32),
        S::I64 => quote!(i64),
        S::U8 => quote!(u8),
        S::U16 => quote!(u16),
        S::U32 => quote!(u32),
        S::U64 => quote!(u64),
        S::F16 => quote!(::kosmos::f16),
        S::BF16 => quote!(::kosmos::bf16),
        S::F32 => quote!(f32),
        S::F64 => quote!(f64),
    }
}

/// Whether a parameter is declared `usize` or `isize`.
fn is_pointer_sized(input: &syn::FnArg) -> bool {
    matches!(input, syn::FnArg::Typed(pt) if matches!(&*pt.ty,
        syn::Type::Path(p) if p.path.is_ident("usize") || p.path.is_ident("isize")))
}

fn expand(
    attr: proc_macro2::TokenStream,
    f: &syn::ItemFn,
) -> syn::Result<proc_macro2::TokenStream> {
    let mut def = KernelDef::parse(attr, f)?;
    def.items = file_items(f);
    def.check()?;
    let const_uses = const_uses(&f.block, &def.items);
    let KernelDef {
        name,
        vis,
        docs,
        consts,
        ..
    } = &def;
    let rt = quote!(::kosmos::runtime);
    let mut params = Vec::new();
    let mut args = Vec::new();
    let mut sym_checks = Vec::new();
    for (p, input) in def.params.iter().zip(&f.sig.inputs) {
        let ident = &p.name;
        match p.kind {
            ParamKind::Slice { elem, mutable } => {
                let t = rust_type(elem);
                if mutable {
                    params.push(quote!(#ident: &mut #rt::Buffer<#t>));
                    args.push(quote!(#rt::KernelArg::from(&*#ident)));
                } else {
                    params.push(quote!(#ident: &#rt::Buffer<#t>));
                    args.push(quote!(#rt::KernelArg::from(#ident)));
                }
            }
            // `usize` and `isize` are taken as written and passed at their kernel width.
            ParamKind::Scalar(t) if is_pointer_sized(input) => {
                let (host, kernel) = match input {
                    syn::FnArg::Typed(pt) => (&pt.ty, rust_type(t)),
                    syn::FnArg::Receiver(_) => unreachable!("kernels are free functions"),
                };
                params.push(quote!(#ident: #host));
                args.push(quote!(#rt::KernelArg::from(#ident as #kernel)));
            }
            ParamKind::Scalar(t) => {
                let t = rust_type(t);
                params.push(quote!(#ident: #t));
                args.push(quote!(#rt::KernelArg::from(#ident)));
            }
            ParamKind::TensorMap => {
                params.push(quote!(#ident: &#rt::TensorMap<'_>));
                args.push(quote!(#rt::KernelArg::from(#ident)));
            }
            // `World::launch` passes the team arguments itself.
            ParamKind::Team => {}
            // The peer-table index and the length, of a buffer checked to be the world's.
            ParamKind::Sym(elem) => {
                let t = rust_type(elem);
                let arg = ident.to_string();
                params.push(quote!(#ident: &#rt::SymmetricBuffer<#t>));
                args.push(quote!(#rt::KernelArg::from(#ident.index())));
                args.push(quote!(#rt::KernelArg::from(#ident.len() as u64)));
                sym_checks.push(quote!(world.check_symmetric(kernel, #arg, #ident)?;));
            }
        }
    }
    let instances: Vec<String> = def.instances.iter().map(|i| def.instance_name(i)).collect();
    let launch_doc = format!(
        "Launches `{name}` from `module` (a module built from this crate's sources by \
         `kosmos_build::Build::rust_sources`), checking the configuration first."
    );
    let (generics, name_expr, name_item) = if consts.is_empty() {
        let ir_name = &instances[0];
        (
            quote!(),
            quote!(NAME),
            quote! {
                /// The kernel's name in the IR module.
                pub const NAME: &str = #ir_name;
            },
        )
    } else {
        let fmt = def.instance_name_format();
        let const_params = consts.iter().map(|c| quote!(const #c: u32));
        let const_params2 = const_params.clone();
        let const_args = consts.iter();
        let consts3: Vec<_> = consts.iter().collect();
        (
            quote!(<#(#const_params),*>),
            quote!(&name::<#(#const_args),*>()),
            quote! {
                /// The IR names of the instances declared in `#[kernel(instances(...))]`.
                pub const INSTANCES: &[&str] = &[#(#instances),*];
                /// The IR name of the instance with these const generic values.
                pub fn name<#(#const_params2),*>() -> ::std::string::String {
                    format!(#fmt, #(#consts),*)
                }
                /// [`name`] of const values known at run time (the instance is launched by
                /// this name with `launch_instance`).
                #[allow(non_snake_case)]
                pub fn name_of(#(#consts3: u32),*) -> ::std::string::String {
                    format!(#fmt, #(#consts3),*)
                }
            },
        )
    };
    let mod_name = format_ident!("{}", name);
    let launch = if def.has_team() {
        let const_params = consts.iter().map(|c| quote!(const #c: u32));
        let generics = quote!(<M: #rt::WorldModules + ?Sized, #(#const_params),*>);
        // `launch` queues (World::launch), `run` also waits (World::synchronize). Every
        // symmetric buffer argument must be the world's (World::check_symmetric).
        let launcher = |method: &str, doc: String, wait: bool| {
            let method = format_ident!("{}", method);
            let wait = wait.then(|| quote!(?; world.synchronize()));
            quote! {
                #[doc = #doc]
                #[allow(clippy::too_many_arguments)]
                pub fn #method #generics (
                    world: &mut #rt::World,
                    modules: &M,
                    per_rank: u32,
                    block: u32,
                    #(#params),*
                ) -> ::std::result::Result<(), #rt::WorldError> {
                    let kernel: &str = #name_expr;
                    #(#sym_checks)*
                    world.launch(modules, kernel, per_rank, block, &[#(#args),*]) #wait
                }
            }
        };
        let launch = launcher(
            "launch",
            format!(
                "Queues a launch of `{name}` on every rank of `world` (`per_rank` workgroups \
                 of `block` lanes each) from `modules`, without waiting; see `World::launch`."
            ),
            false,
        );
        let run = launcher(
            "run",
            format!(
                "Launches `{name}` like `launch` and waits for it (`World::synchronize`): its \
                 timeouts are this call's error."
            ),
            true,
        );
        quote!(#launch #run)
    } else {
        quote! {
            #[doc = #launch_doc]
            #[allow(clippy::too_many_arguments)]
            pub fn launch #generics (
                module: &#rt::Module,
                stream: &#rt::Stream,
                cfg: #rt::LaunchConfig,
                #(#params),*
            ) -> #rt::Result<()> {
                module.launch(stream, #name_expr, cfg, &[#(#args),*])
            }
        }
    };
    // Instances picked at run time: by the name `name_of` gives.
    let launch_instance = if consts.is_empty() {
        quote!()
    } else if def.has_team() {
        quote! {
            /// Queues the instance `instance` (a name from `name_of`, one of `INSTANCES`)
            /// like `launch`, for const values chosen at run time.
            #[allow(clippy::too_many_arguments)]
            pub fn launch_instance<M: #rt::WorldModules + ?Sized>(
                world: &mut #rt::World,
                modules: &M,
                per_rank: u32,
                block: u32,
                instance: &str,
                #(#params),*
            ) -> ::std::result::Result<(), #rt::WorldError> {
                let kernel: &str = instance;
                #(#sym_checks)*
                world.launch(modules, kernel, per_rank, block, &[#(#args),*])
            }
        }
    } else {
        quote! {
            /// Launches the instance `instance` (a name from `name_of`, one of `INSTANCES`)
            /// like `launch`, for const values chosen at run time.
            #[allow(clippy::too_many_arguments)]
            pub fn launch_instance(
                module: &#rt::Module,
                stream: &#rt::Stream,
                cfg: #rt::LaunchConfig,
                instance: &str,
                #(#params),*
            ) -> #rt::Result<()> {
                module.launch(stream, instance, cfg, &[#(#args),*])
            }
        }
    };
    Ok(quote! {
        #const_uses

        #(#docs)*
        #vis mod #mod_name {
            #name_item

            #launch

            #launch_instance
        }
    })
}
