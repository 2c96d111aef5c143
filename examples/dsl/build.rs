fn main() {
    kosmos_build::Build::from_env()
        .rust_sources(["src/lib.rs"])
        .compile()
        .unwrap_or_else(|e| panic!("{e}"));
}
