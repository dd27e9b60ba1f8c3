//! The DNS resolver that keeps webhooks away from addresses the policy refuses.
//!
//! The check sits in the resolver, not before the request, because the HTTP client connects to
//! exactly the addresses the resolver returns: a host name that resolved to a public address
//! when the URL was saved and to `127.0.0.1` now (DNS rebinding) is caught on this connection,
//! with no window between a check and a second lookup.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use crate::policy::{AddressPolicy, BlockedAddress};

/// Resolves with the system resolver, then drops every address `policy` refuses.
#[derive(Debug, Clone)]
pub(crate) struct GuardedResolver {
    policy: Arc<AddressPolicy>,
}

impl GuardedResolver {
    pub(crate) fn new(policy: Arc<AddressPolicy>) -> Self {
        Self { policy }
    }
}

/// Every address the name resolved to was refused; the sender reports it as forbidden.
#[derive(Debug)]
pub(crate) struct AllAddressesBlocked {
    pub(crate) host: String,
    pub(crate) blocked: Vec<BlockedAddress>,
}

impl fmt::Display for AllAddressesBlocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} resolves only to refused addresses", self.host)?;
        for blocked in &self.blocked {
            write!(f, "; {blocked}")?;
        }
        Ok(())
    }
}

impl std::error::Error for AllAddressesBlocked {}

/// Splits resolved addresses into the allowed ones, in their order, and the refused ones.
pub(crate) fn filter_addresses(
    policy: &AddressPolicy,
    addresses: impl IntoIterator<Item = SocketAddr>,
) -> (Vec<SocketAddr>, Vec<BlockedAddress>) {
    let mut allowed = Vec::new();
    let mut blocked = Vec::new();
    for address in addresses {
        match policy.check(address.ip()) {
            Ok(()) => allowed.push(address),
            Err(refusal) => blocked.push(refusal),
        }
    }
    (allowed, blocked)
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = Arc::clone(&self.policy);
        let host = name.as_str().to_owned();
        Box::pin(async move {
            // Port 0 tells the client to use the URL's port.
            let resolved = tokio::net::lookup_host((host.as_str(), 0)).await?;
            let (allowed, blocked) = filter_addresses(&policy, resolved);
            if allowed.is_empty() && !blocked.is_empty() {
                return Err(Box::new(AllAddressesBlocked { host, blocked }) as _);
            }
            if !blocked.is_empty() {
                tracing::debug!(%host, ?blocked, "dropped refused addresses of a webhook host");
            }
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_addresses_are_dropped_and_allowed_ones_keep_their_order() {
        let addresses: Vec<SocketAddr> = [
            "127.0.0.1:0",
            "8.8.8.8:0",
            "[fd00::1]:0",
            "[2606:4700:4700::1111]:0",
            "169.254.169.254:0",
        ]
        .iter()
        .map(|text| text.parse().unwrap())
        .collect();
        let (allowed, blocked) = filter_addresses(&AddressPolicy::strict(), addresses);
        assert_eq!(
            allowed,
            vec![
                "8.8.8.8:0".parse::<SocketAddr>().unwrap(),
                "[2606:4700:4700::1111]:0".parse().unwrap(),
            ]
        );
        assert_eq!(blocked.len(), 3);
    }

    #[tokio::test]
    async fn localhost_is_refused_by_a_strict_policy() {
        let resolver = GuardedResolver::new(Arc::new(AddressPolicy::strict()));
        let Err(error) = resolver.resolve("localhost".parse().unwrap()).await else {
            panic!("localhost resolved under a strict policy");
        };
        let refusal = error.downcast_ref::<AllAddressesBlocked>().unwrap();
        assert!(refusal.blocked.iter().all(|b| b.address.is_loopback()));
    }

    #[tokio::test]
    async fn localhost_resolves_to_loopback_when_loopback_is_allowed() {
        let resolver = GuardedResolver::new(Arc::new(AddressPolicy::loopback()));
        let Ok(addresses) = resolver.resolve("localhost".parse().unwrap()).await else {
            panic!("localhost did not resolve");
        };
        let addresses: Vec<SocketAddr> = addresses.collect();
        assert!(!addresses.is_empty());
        assert!(addresses.iter().all(|a| a.ip().is_loopback()));
    }
}
