//! Placeholder; built in its own issue.
fn main() {}
