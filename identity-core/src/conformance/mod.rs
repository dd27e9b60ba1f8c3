//! The suites every implementation of this crate's ports runs: accounts and keys
//! ([`AccountStore`]), authentication ([`KeyAuthenticator`]) and sessions ([`SessionStore`]);
//! and, apart from [`run_all`], shared rate limits ([`limits`], for every
//! [`LimitStore`](crate::ports::LimitStore)) and named leases ([`leases`], for every
//! [`LeaseStore`](crate::ports::LeaseStore)).
//!
//! An adapter's test depends on `identity-core` with the `conformance` feature, opens a store
//! and awaits [`run_all`]. A suite panics with a message naming the promise of the port that
//! was broken. The suites create accounts and keys with fresh ids, so data left by other suites
//! or earlier runs on the same database does not disturb them. [`fixtures`] is public so that
//! the suites of the cores above (alerts) can make accounts and keys the same way.

#![allow(clippy::unwrap_used)]

mod accounts;
mod authentication;
pub mod fixtures;
mod leases;
mod limits;
mod sessions;

pub use accounts::{accounts, api_keys, passwords};
pub use authentication::authentication;
pub use leases::leases;
pub use limits::limits;
pub use sessions::{account_sessions, credential_versions, sessions};

use crate::ports::{AccountStore, KeyAuthenticator, SessionStore};

/// Runs every suite of this crate, one after the other, on `store`.
pub async fn run_all<S>(store: &S)
where
    S: AccountStore + KeyAuthenticator + SessionStore,
{
    accounts(store).await;
    passwords(store).await;
    sessions(store).await;
    account_sessions(store).await;
    credential_versions(store).await;
    api_keys(store).await;
    authentication(store).await;
}
