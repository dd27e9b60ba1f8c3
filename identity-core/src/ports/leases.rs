//! Named leases: work that one process of a deployment does at a time, such as fetching the
//! CAMS runs, whichever replicas share the store. The [`LeaseStore`] port.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;

/// Hands out named leases, each to one holder at a time until it expires. A holder names
/// itself (a process id that no other process uses); a lease that its holder stopped renewing
/// passes to the next taker once it has expired, so a replica that died leaves the work to
/// another.
#[async_trait]
pub trait LeaseStore: Send + Sync {
    /// Takes or renews the lease `name` for `holder` until `until`, if at `now` it is free
    /// (never taken, expired) or held by `holder` already, in one write: `true` when `holder`
    /// holds it now, `false` when another holder does.
    async fn take_lease(
        &self,
        name: &str,
        holder: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Gives the lease `name` up, if `holder` holds it; giving up a lease one does not hold
    /// changes nothing and is no error.
    async fn release_lease(&self, name: &str, holder: &str) -> Result<(), StoreError>;
}
