//! The SQLite store's integration tests: the port conformance suite on a file and in memory,
//! start-up and migrations (and the data they move), durability across reopening, concurrent
//! stores on one file, and damaged data.

#![allow(clippy::unwrap_used)]

mod conformance;
mod files;
mod migrations;
mod support;
