//! Filled in with its crate.

fn main() {}
