//! Environmental alerts: rules, evaluation, messages, NDJSON output, webhook signing and the
//! alert pipeline, over ports that adapters implement.

pub mod account;
pub mod ids;
pub mod keys;
pub mod ports;
pub mod request;
pub mod rule;

#[cfg(any(test, feature = "conformance"))]
pub mod conformance;
