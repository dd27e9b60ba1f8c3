//! Which client a network address stands for, for the limits kept per client: one rule for
//! the API's byte budgets and the dashboard's sign-in limits alike.

use std::net::{IpAddr, Ipv6Addr};

/// How many leading bits of an IPv6 address name one client: a /64 is the smallest network
/// a provider hands out, and a client holding one can pick any address in it.
pub const IPV6_CLIENT_PREFIX: u32 = 64;

/// The key of a client's network: an IPv4 address, or the /64 of an IPv6 address. An IPv4
/// address written as IPv6 (`::ffff:a.b.c.d`) is the IPv4 address.
///
/// ```
/// use std::net::IpAddr;
/// use identity_core::network::network_of;
///
/// let ip = |text: &str| text.parse::<IpAddr>().unwrap();
/// assert_eq!(network_of(ip("2001:db8:1:2:aaaa::1")), ip("2001:db8:1:2::"));
/// assert_eq!(network_of(ip("::ffff:192.0.2.7")), ip("192.0.2.7"));
/// ```
#[must_use]
pub fn network_of(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => {
            let mask = u128::MAX << (128 - IPV6_CLIENT_PREFIX);
            IpAddr::V6(Ipv6Addr::from(u128::from(v6) & mask))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn an_ipv6_client_is_its_64_and_an_ipv4_client_its_address() {
        assert_eq!(
            network_of(ip("2001:db8:1:2:aaaa::1")),
            network_of(ip("2001:db8:1:2:ffff:ffff:ffff:ffff"))
        );
        assert_ne!(
            network_of(ip("2001:db8:1:2::1")),
            network_of(ip("2001:db8:1:3::1"))
        );
        assert_eq!(network_of(ip("::ffff:192.0.2.7")), ip("192.0.2.7"));
        assert_ne!(network_of(ip("192.0.2.7")), network_of(ip("192.0.2.8")));
    }
}
