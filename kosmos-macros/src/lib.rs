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
//! A kernel with const generics gets `launch::<BM, BN>(...)` (an instance that was not
//! declared in `instances(...)` is a launch error naming the available kernels),
//! `name::<BM, BN>()` and `INSTANCES`, the IR names of the declared instances.
//! Generated code names the runtime through the `kosmos` facade crate.

use kosmos_frontend::{KernelDef, ParamKind};
use proc_macro::TokenStream;
use quote::{format_ident, quote};

#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let f = syn::parse_macro_input!(item as syn::ItemFn);
    match expand(attr.into(), &f) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
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

fn expand(
    attr: proc_macro2::TokenStream,
    f: &syn::ItemFn,
) -> syn::Result<proc_macro2::TokenStream> {
    let def = KernelDef::parse(attr, f)?;
    def.lower_all()?;
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
    for p in &def.params {
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
            ParamKind::Scalar(t) => {
                let t = rust_type(t);
                params.push(quote!(#ident: #t));
                args.push(quote!(#rt::KernelArg::from(#ident)));
            }
            // `World::launch` passes the team arguments itself.
            ParamKind::Team => {}
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
            },
        )
    };
    let mod_name = format_ident!("{}", name);
    let launch = if def.has_team() {
        let const_params = consts.iter().map(|c| quote!(const #c: u32));
        let generics = quote!(<M: #rt::WorldModules + ?Sized, #(#const_params),*>);
        let launch_doc = format!(
            "Launches `{name}` on every rank of `world` (`per_rank` workgroups of `block` lanes \
             each) from `modules`, and waits for it; see `World::launch`."
        );
        quote! {
            #[doc = #launch_doc]
            #[allow(clippy::too_many_arguments)]
            pub fn launch #generics (
                world: &mut #rt::World,
                modules: &M,
                per_rank: u32,
                block: u32,
                #(#params),*
            ) -> ::std::result::Result<(), #rt::WorldError> {
                world.launch(modules, #name_expr, per_rank, block, &[#(#args),*])
            }
        }
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
    Ok(quote! {
        #(#docs)*
        #vis mod #mod_name {
            #name_item

            #launch
        }
    })
}
