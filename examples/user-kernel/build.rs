fn main() {
    kosmos_build::Build::from_env()
        .rust_sources(["src/main.rs"])
        .compile()
        .unwrap_or_else(|e| panic!("{e}"));
}
