//! Generates the evaluator's tables (`src/eval/generate.rs`) as Rust source in `OUT_DIR`, so that
//! they are constants of the compiled crate: no lazy initialisation and no pointer loads on
//! the evaluation path.

#[path = "src/eval/generate.rs"]
mod generate;
#[path = "src/eval/hash.rs"]
mod hash;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/eval/generate.rs");
    println!("cargo::rerun-if-changed=src/eval/hash.rs");
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    let path = std::path::Path::new(&out).join("eval_tables.rs");
    let source = generate::to_rust(&generate::generate());
    std::fs::write(&path, source).expect("write the generated tables to OUT_DIR");
}
