//! The parts of the `fairdeal` command line that are plain functions of text, in a library so
//! that fuzz targets (`fuzz/fuzz_targets/shuffle_args.rs`) and tests can call them directly.
//! The binary (`src/main.rs`) is the rest.

#![forbid(unsafe_code)]

pub mod args;
