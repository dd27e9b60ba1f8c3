//! Integration tests: the conformance suites on the local filesystem and on a real S3 server
//! (`s3s-fs` on loopback), signed URLs, retention and the configuration factory.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

mod factory;
mod local;
mod s3;
mod support;
