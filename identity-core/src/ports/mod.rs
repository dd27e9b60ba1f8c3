//! The ports of identity: what accounts, keys and sessions need from storage, where rate
//! limits are kept ([`LimitStore`]) and named leases ([`LeaseStore`]), one module per port. The store adapters (SQLite, PostgreSQL) implement them, [`crate::memory`] has an
//! in-memory version, and the `conformance` module (with the `conformance` feature) has the
//! suites every implementation must pass. Every item is re-exported here.
//!
//! [`StoreError`] is the error of every store port, here and in the cores above.

pub mod accounts;
pub mod error;
pub mod keys;
pub mod leases;
pub mod limits;
pub mod sessions;

pub use accounts::{Account, AccountStore, ApiKeyInfo, NewApiKey};
pub use error::StoreError;
pub use keys::{KeyAuthenticator, LAST_USE_RESOLUTION, last_use_is_stale};
pub use leases::LeaseStore;
pub use limits::{Decision, LimitError, LimitStore, Quota, gcra, micros};
pub use sessions::{Session, SessionStore};
