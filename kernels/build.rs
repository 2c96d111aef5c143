fn main() {
    kosmos_build::Build::from_env()
        .rust_sources(["src/ops.rs"])
        .compile()
        .unwrap_or_else(|e| panic!("{e}"));
}
