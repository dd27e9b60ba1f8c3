//! Benchmarks across the workspace; see `benches/` in this crate.
