//! Conformance suites for the ports: every implementation (in-memory, SQLite, PostgreSQL, local
//! files, S3) runs the same suite, so that they can replace one another. Enabled by the
//! `conformance` feature; the suites panic with a message naming the broken promise.

pub mod files;
pub mod stores;
