//! Which IP addresses webhooks may be sent to.
//!
//! A webhook URL is chosen by a customer, but the request leaves from inside the deployment.
//! Without a check, a URL could point the sender at the deployment's own network: a database on
//! a private address, an admin port on loopback, or the cloud metadata service at
//! `169.254.169.254` that hands out credentials. [`special_range`] recognises every address that
//! is not an ordinary public internet address, and an [`AddressPolicy`] refuses them unless the
//! operator allowed their network.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::IpNet;
use thiserror::Error;

/// A kind of address that is not an ordinary public internet address, with the registry entry
/// that sets it apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SpecialRange {
    /// `0.0.0.0` or `::`: "any address", which many systems treat as the local host.
    Unspecified,
    /// `0.0.0.0/8` (RFC 791): "this host on this network".
    ThisNetwork,
    /// `127.0.0.0/8` and `::1` (RFC 1122, RFC 4291): the machine itself.
    Loopback,
    /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16` (RFC 1918).
    Private,
    /// `100.64.0.0/10` (RFC 6598): carrier-grade NAT, also used for some cloud metadata services.
    Shared,
    /// `169.254.0.0/16` and `fe80::/10` (RFC 3927, RFC 4291), which hold the cloud metadata
    /// service `169.254.169.254`.
    LinkLocal,
    /// `192.0.0.0/24` and `2001::/23` (RFC 6890): IETF protocol assignments, Teredo included.
    IetfProtocol,
    /// `192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24` (RFC 5737) and `2001:db8::/32`
    /// (RFC 3849).
    Documentation,
    /// `198.18.0.0/15` (RFC 2544): network device benchmarking.
    Benchmarking,
    /// `224.0.0.0/4` and `ff00::/8`.
    Multicast,
    /// `255.255.255.255`.
    Broadcast,
    /// `240.0.0.0/4` (RFC 1112), the retired 6to4 relay anycast `192.88.99.0/24` (RFC 7526), the
    /// deprecated IPv6 site-local `fec0::/10` (RFC 3879) and the local-use NAT64 prefix
    /// `64:ff9b:1::/48` (RFC 8215).
    Reserved,
    /// `fc00::/7` (RFC 4193): IPv6 unique local addresses, the IPv6 counterpart of private ones.
    UniqueLocal,
    /// `100::/64` (RFC 6666): the IPv6 discard prefix.
    Discard,
    /// A cloud provider's instance metadata or host service (see [`METADATA_ENDPOINTS`]),
    /// which hands out credentials to whoever asks from inside the machine. Refused under
    /// every policy, even when its network is allowed, and even where it is a public address.
    CloudMetadata,
}

impl SpecialRange {
    /// A short description for messages, such as "a loopback address".
    pub fn describe(self) -> &'static str {
        match self {
            Self::Unspecified => "the unspecified address",
            Self::ThisNetwork => "a \"this network\" address (0.0.0.0/8)",
            Self::Loopback => "a loopback address",
            Self::Private => "a private network address",
            Self::Shared => "a shared (carrier-grade NAT) address",
            Self::LinkLocal => "a link-local address (where cloud metadata services live)",
            Self::IetfProtocol => "an IETF protocol assignment address",
            Self::Documentation => "a documentation example address",
            Self::Benchmarking => "a benchmarking address",
            Self::Multicast => "a multicast address",
            Self::Broadcast => "the broadcast address",
            Self::Reserved => "a reserved address",
            Self::UniqueLocal => "a unique local (private) IPv6 address",
            Self::Discard => "an IPv6 discard address",
            Self::CloudMetadata => "a cloud metadata service address",
        }
    }
}

impl fmt::Display for SpecialRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

const fn v4(a: u8, b: u8, c: u8, d: u8) -> u32 {
    u32::from_be_bytes([a, b, c, d])
}

/// Most specific first: the first match decides the range an address is reported in.
const V4_RANGES: &[(u32, u8, SpecialRange)] = &[
    (v4(0, 0, 0, 0), 32, SpecialRange::Unspecified),
    (v4(255, 255, 255, 255), 32, SpecialRange::Broadcast),
    (v4(0, 0, 0, 0), 8, SpecialRange::ThisNetwork),
    (v4(10, 0, 0, 0), 8, SpecialRange::Private),
    (v4(100, 64, 0, 0), 10, SpecialRange::Shared),
    (v4(127, 0, 0, 0), 8, SpecialRange::Loopback),
    (v4(169, 254, 0, 0), 16, SpecialRange::LinkLocal),
    (v4(172, 16, 0, 0), 12, SpecialRange::Private),
    (v4(192, 0, 0, 0), 24, SpecialRange::IetfProtocol),
    (v4(192, 0, 2, 0), 24, SpecialRange::Documentation),
    (v4(192, 88, 99, 0), 24, SpecialRange::Reserved),
    (v4(192, 168, 0, 0), 16, SpecialRange::Private),
    (v4(198, 18, 0, 0), 15, SpecialRange::Benchmarking),
    (v4(198, 51, 100, 0), 24, SpecialRange::Documentation),
    (v4(203, 0, 113, 0), 24, SpecialRange::Documentation),
    (v4(224, 0, 0, 0), 4, SpecialRange::Multicast),
    (v4(240, 0, 0, 0), 4, SpecialRange::Reserved),
];

/// IPv6 ranges that do not carry an IPv4 address; those are judged by the address they carry.
const V6_RANGES: &[(u128, u8, SpecialRange)] = &[
    (0, 128, SpecialRange::Unspecified),
    (1, 128, SpecialRange::Loopback),
    (0x0064_ff9b_0001 << 80, 48, SpecialRange::Reserved),
    (0x0100 << 112, 64, SpecialRange::Discard),
    (0x2001 << 112, 23, SpecialRange::IetfProtocol),
    (0x2001_0db8 << 96, 32, SpecialRange::Documentation),
    (0xfc00 << 112, 7, SpecialRange::UniqueLocal),
    (0xfe80 << 112, 10, SpecialRange::LinkLocal),
    (0xfec0 << 112, 10, SpecialRange::Reserved),
    (0xff00 << 112, 8, SpecialRange::Multicast),
];

fn in_v4(addr: u32, net: u32, prefix: u8) -> bool {
    let mask = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
    addr & mask == net & mask
}

fn in_v6(addr: u128, net: u128, prefix: u8) -> bool {
    let mask = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
    addr & mask == net & mask
}

/// The IPv4 address an IPv6 address stands for, if it is one of the forms that reach an IPv4
/// host: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`, RFC 2765's
/// stateless translation form), IPv4-compatible (`::a.b.c.d`), NAT64 well-known prefix
/// (`64:ff9b::a.b.c.d`) or 6to4 (`2002:aabb:ccdd::/48`).
///
/// ```
/// use std::net::{Ipv4Addr, Ipv6Addr};
/// use webhook_http::policy::embedded_ipv4;
///
/// let mapped: Ipv6Addr = "::ffff:169.254.169.254".parse().unwrap();
/// assert_eq!(embedded_ipv4(mapped), Some(Ipv4Addr::new(169, 254, 169, 254)));
/// let translated: Ipv6Addr = "::ffff:0:7f00:1".parse().unwrap();
/// assert_eq!(embedded_ipv4(translated), Some(Ipv4Addr::LOCALHOST));
/// assert_eq!(embedded_ipv4(Ipv6Addr::LOCALHOST), None);
/// ```
pub fn embedded_ipv4(addr: Ipv6Addr) -> Option<Ipv4Addr> {
    let bits = u128::from(addr);
    // The low 32 bits; truncation is the point.
    let low = Ipv4Addr::from(bits as u32);
    if in_v6(bits, 0xffff << 32, 96)
        || in_v6(bits, 0xffff << 48, 96)
        || in_v6(bits, 0x0064_ff9b << 96, 96)
    {
        return Some(low);
    }
    // `::` and `::1` are IPv6's own unspecified and loopback addresses, not IPv4-compatible ones.
    if in_v6(bits, 0, 96) && bits > 1 {
        return Some(low);
    }
    if in_v6(bits, 0x2002 << 112, 16) {
        return Some(Ipv4Addr::from((bits >> 80) as u32));
    }
    None
}

/// The special range an address belongs to, or `None` for an ordinary public address.
/// IPv6 addresses that carry an IPv4 address (see [`embedded_ipv4`]) are judged by it.
///
/// ```
/// use std::net::IpAddr;
/// use webhook_http::policy::{SpecialRange, special_range};
///
/// let metadata: IpAddr = "169.254.169.254".parse().unwrap();
/// assert_eq!(special_range(metadata), Some(SpecialRange::LinkLocal));
/// let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
/// assert_eq!(special_range(mapped), Some(SpecialRange::Private));
/// let public: IpAddr = "93.184.215.14".parse().unwrap();
/// assert_eq!(special_range(public), None);
/// ```
pub fn special_range(addr: IpAddr) -> Option<SpecialRange> {
    match addr {
        IpAddr::V4(addr) => {
            let bits = u32::from(addr);
            V4_RANGES
                .iter()
                .find(|(net, prefix, _)| in_v4(bits, *net, *prefix))
                .map(|(_, _, range)| *range)
        }
        IpAddr::V6(addr) => {
            if let Some(inner) = embedded_ipv4(addr) {
                return special_range(IpAddr::V4(inner));
            }
            let bits = u128::from(addr);
            V6_RANGES
                .iter()
                .find(|(net, prefix, _)| in_v6(bits, *net, *prefix))
                .map(|(_, _, range)| *range)
        }
    }
}

/// The instance metadata and host services of the major clouds. Some sit in ranges an
/// operator may open for receivers on an internal network (`fd00:ec2::254` is unique local,
/// `100.100.100.200` is shared address space), and Azure's host service is a public address,
/// so no network allowance may open them.
pub const METADATA_ENDPOINTS: &[IpAddr] = &[
    // AWS, Google Cloud, Azure, Oracle Cloud, DigitalOcean, OpenStack: instance metadata.
    IpAddr::V4(Ipv4Addr::new(169, 254, 169, 254)),
    // AWS ECS task metadata and credentials; EKS Pod Identity credentials.
    IpAddr::V4(Ipv4Addr::new(169, 254, 170, 2)),
    IpAddr::V4(Ipv4Addr::new(169, 254, 170, 23)),
    // AWS instance metadata and EKS Pod Identity over IPv6.
    IpAddr::V6(Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254)),
    IpAddr::V6(Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0023)),
    // Google Cloud instance metadata over IPv6.
    IpAddr::V6(Ipv6Addr::new(0xfd20, 0x00ce, 0, 0, 0, 0, 0, 0x0254)),
    // Alibaba Cloud instance metadata.
    IpAddr::V4(Ipv4Addr::new(100, 100, 100, 200)),
    // Azure's host service (WireServer).
    IpAddr::V4(Ipv4Addr::new(168, 63, 129, 16)),
    // Oracle Cloud Classic instance metadata.
    IpAddr::V4(Ipv4Addr::new(192, 0, 0, 192)),
];

/// Whether `address`, or the IPv4 address it carries, is one of [`METADATA_ENDPOINTS`].
///
/// ```
/// use webhook_http::policy::is_metadata_endpoint;
///
/// assert!(is_metadata_endpoint("fd00:ec2::254".parse().unwrap()));
/// assert!(is_metadata_endpoint("::ffff:169.254.169.254".parse().unwrap()));
/// assert!(!is_metadata_endpoint("10.0.0.1".parse().unwrap()));
/// ```
pub fn is_metadata_endpoint(address: IpAddr) -> bool {
    let inner = match address {
        IpAddr::V6(v6) => embedded_ipv4(v6).map(IpAddr::V4),
        IpAddr::V4(_) => None,
    };
    METADATA_ENDPOINTS
        .iter()
        .any(|endpoint| *endpoint == address || Some(*endpoint) == inner)
}

/// An address the policy refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error(
    "{address} is {range}, which webhooks may not be sent to; use a public address, or ask the \
     operator to allow this network"
)]
pub struct BlockedAddress {
    /// The refused address.
    pub address: IpAddr,
    /// Why it was refused.
    pub range: SpecialRange,
}

/// An allowed network that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "`{0}` is not a network; write a CIDR block such as 10.0.0.0/8 or fd00::/8, or a single \
     address such as 10.1.2.3"
)]
pub struct NetworkParseError(
    /// The text that was given.
    pub String,
);

/// Which addresses webhooks may go to: every public address, plus the special ranges inside
/// [`allowed_networks`](Self::allowed_networks).
///
/// The default, [`AddressPolicy::strict`], allows no special range at all: right for a
/// deployment that customers reach over the internet.
///
/// ```
/// use webhook_http::AddressPolicy;
///
/// let strict = AddressPolicy::strict();
/// assert!(strict.check("127.0.0.1".parse().unwrap()).is_err());
/// assert!(strict.check("8.8.8.8".parse().unwrap()).is_ok());
///
/// let quick_start = AddressPolicy::loopback();
/// assert!(quick_start.check("127.0.0.1".parse().unwrap()).is_ok());
/// assert!(quick_start.check("::1".parse().unwrap()).is_ok());
/// assert!(quick_start.check("10.0.0.1".parse().unwrap()).is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddressPolicy {
    /// Networks whose addresses are allowed even though they are special (loopback for a local
    /// quick start, a private network for a receiver inside the same company). Public addresses
    /// need no entry. An IPv6 address carrying an IPv4 one is allowed when either form is listed.
    pub allowed_networks: Vec<IpNet>,
}

impl AddressPolicy {
    /// Allows public addresses only (the default).
    pub fn strict() -> Self {
        Self::default()
    }

    /// Public addresses and the machine itself (`127.0.0.0/8`, `::1`): the local quick start,
    /// where the receiver runs beside the server.
    pub fn loopback() -> Self {
        Self::allowing(loopback_networks())
    }

    /// Public addresses, loopback and the private networks (`10.0.0.0/8`, `172.16.0.0/12`,
    /// `192.168.0.0/16`, `100.64.0.0/10`, `fc00::/7`): a deployment whose receivers live on the
    /// same internal network. Link-local addresses stay refused, and so do the cloud metadata
    /// services inside the opened ranges (`fd00:ec2::254`, `100.100.100.200`; see
    /// [`METADATA_ENDPOINTS`]).
    pub fn private_networks() -> Self {
        let mut networks = loopback_networks();
        networks.extend([
            IpNet::from(ipnet::Ipv4Net::new_assert(Ipv4Addr::new(10, 0, 0, 0), 8)),
            ipnet::Ipv4Net::new_assert(Ipv4Addr::new(172, 16, 0, 0), 12).into(),
            ipnet::Ipv4Net::new_assert(Ipv4Addr::new(192, 168, 0, 0), 16).into(),
            ipnet::Ipv4Net::new_assert(Ipv4Addr::new(100, 64, 0, 0), 10).into(),
            ipnet::Ipv6Net::new_assert(Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0), 7).into(),
        ]);
        Self::allowing(networks)
    }

    /// Public addresses and the given networks.
    pub fn allowing(networks: impl IntoIterator<Item = IpNet>) -> Self {
        Self {
            allowed_networks: networks.into_iter().collect(),
        }
    }

    /// Reads allowed networks as an operator writes them in a configuration file or flag:
    /// CIDR blocks (`10.0.0.0/8`, `fd00::/8`) or single addresses (`10.1.2.3`, `::1`).
    ///
    /// ```
    /// use webhook_http::AddressPolicy;
    ///
    /// let policy = AddressPolicy::parse(["10.20.0.0/16", "::1"]).unwrap();
    /// assert!(policy.check("10.20.3.4".parse().unwrap()).is_ok());
    /// assert!(policy.check("::1".parse().unwrap()).is_ok());
    /// assert!(policy.check("127.0.0.1".parse().unwrap()).is_err());
    ///
    /// let error = AddressPolicy::parse(["10.0.0.0/33"]).unwrap_err();
    /// assert!(error.to_string().contains("10.0.0.0/33"));
    /// ```
    pub fn parse<S: AsRef<str>>(
        networks: impl IntoIterator<Item = S>,
    ) -> Result<Self, NetworkParseError> {
        let parse_one = |text: &str| {
            let text = text.trim();
            text.parse::<IpNet>()
                .or_else(|_| text.parse::<IpAddr>().map(IpNet::from))
                .map_err(|_| NetworkParseError(text.to_owned()))
        };
        networks
            .into_iter()
            .map(|text| parse_one(text.as_ref()))
            .collect::<Result<Vec<_>, _>>()
            .map(Self::allowing)
    }

    /// Whether `address` is in one of the allowed networks.
    fn explicitly_allowed(&self, address: IpAddr) -> bool {
        let inner = match address {
            IpAddr::V6(v6) => embedded_ipv4(v6).map(IpAddr::V4),
            IpAddr::V4(_) => None,
        };
        self.allowed_networks
            .iter()
            .any(|net| net.contains(&address) || inner.is_some_and(|inner| net.contains(&inner)))
    }

    /// Accepts a public address or one in an allowed network; refuses the rest, and cloud
    /// metadata services ([`METADATA_ENDPOINTS`]) always.
    pub fn check(&self, address: IpAddr) -> Result<(), BlockedAddress> {
        match special_range(address) {
            Some(range) if !self.explicitly_allowed(address) => {
                Err(BlockedAddress { address, range })
            }
            _ if is_metadata_endpoint(address) => Err(BlockedAddress {
                address,
                range: SpecialRange::CloudMetadata,
            }),
            _ => Ok(()),
        }
    }
}

fn loopback_networks() -> Vec<IpNet> {
    vec![
        ipnet::Ipv4Net::new_assert(Ipv4Addr::LOCALHOST, 8).into(),
        ipnet::Ipv6Net::new_assert(Ipv6Addr::LOCALHOST, 128).into(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    use SpecialRange::*;

    /// Every range, its edges and its neighbours: the address, its range (`None` = public).
    const TABLE: &[(&str, Option<SpecialRange>)] = &[
        // IPv4.
        ("0.0.0.0", Some(Unspecified)),
        ("0.1.2.3", Some(ThisNetwork)),
        ("0.255.255.255", Some(ThisNetwork)),
        ("1.0.0.0", None),
        ("1.1.1.1", None),
        ("8.8.8.8", None),
        ("9.255.255.255", None),
        ("10.0.0.0", Some(Private)),
        ("10.255.255.255", Some(Private)),
        ("11.0.0.0", None),
        ("100.63.255.255", None),
        ("100.64.0.0", Some(Shared)),
        ("100.100.100.200", Some(Shared)),
        ("100.127.255.255", Some(Shared)),
        ("100.128.0.0", None),
        ("126.255.255.255", None),
        ("127.0.0.1", Some(Loopback)),
        ("127.255.255.254", Some(Loopback)),
        ("128.0.0.0", None),
        ("169.253.255.255", None),
        ("169.254.0.1", Some(LinkLocal)),
        ("169.254.169.254", Some(LinkLocal)),
        ("169.255.0.0", None),
        ("172.15.255.255", None),
        ("172.16.0.0", Some(Private)),
        ("172.31.255.255", Some(Private)),
        ("172.32.0.0", None),
        ("192.0.0.0", Some(IetfProtocol)),
        ("192.0.0.255", Some(IetfProtocol)),
        ("192.0.1.1", None),
        ("192.0.2.1", Some(Documentation)),
        ("192.0.3.0", None),
        ("192.88.99.1", Some(Reserved)),
        ("192.167.255.255", None),
        ("192.168.0.1", Some(Private)),
        ("192.168.255.255", Some(Private)),
        ("192.169.0.0", None),
        ("198.17.255.255", None),
        ("198.18.0.0", Some(Benchmarking)),
        ("198.19.255.255", Some(Benchmarking)),
        ("198.20.0.0", None),
        ("198.51.100.7", Some(Documentation)),
        ("203.0.113.9", Some(Documentation)),
        ("203.0.114.0", None),
        ("223.255.255.255", None),
        ("224.0.0.1", Some(Multicast)),
        ("239.255.255.255", Some(Multicast)),
        ("240.0.0.1", Some(Reserved)),
        ("255.255.255.254", Some(Reserved)),
        ("255.255.255.255", Some(Broadcast)),
        // IPv6.
        ("::", Some(Unspecified)),
        ("::1", Some(Loopback)),
        ("::2", Some(ThisNetwork)),
        ("2606:4700:4700::1111", None),
        ("2a00:1450:4001::200e", None),
        ("fc00::1", Some(UniqueLocal)),
        ("fd00:ec2::254", Some(UniqueLocal)),
        ("fdff:ffff::1", Some(UniqueLocal)),
        ("fe00::1", None),
        ("fe80::1", Some(LinkLocal)),
        ("febf::1", Some(LinkLocal)),
        ("fec0::1", Some(Reserved)),
        ("ff02::1", Some(Multicast)),
        ("2001:db8::1", Some(Documentation)),
        ("2001:db9::1", None),
        ("2001::1", Some(IetfProtocol)),
        ("2001:1ff::1", Some(IetfProtocol)),
        ("2001:200::1", None),
        ("100::1", Some(Discard)),
        ("100::ffff:ffff:ffff:ffff", Some(Discard)),
        ("100:0:0:1::", None),
        ("64:ff9b:1::1", Some(Reserved)),
        // IPv6 forms that carry an IPv4 address are judged by it.
        ("::ffff:127.0.0.1", Some(Loopback)),
        ("::ffff:169.254.169.254", Some(LinkLocal)),
        ("::ffff:10.1.2.3", Some(Private)),
        ("::ffff:0.0.0.0", Some(Unspecified)),
        ("::ffff:8.8.8.8", None),
        ("::ffff:0:7f00:1", Some(Loopback)),
        ("::ffff:0:127.0.0.1", Some(Loopback)),
        ("::ffff:0:a9fe:a9fe", Some(LinkLocal)),
        ("::ffff:0:10.1.2.3", Some(Private)),
        ("::ffff:0:8.8.8.8", None),
        ("::127.0.0.1", Some(Loopback)),
        ("::192.168.1.1", Some(Private)),
        ("::8.8.8.8", None),
        ("64:ff9b::127.0.0.1", Some(Loopback)),
        ("64:ff9b::a9fe:a9fe", Some(LinkLocal)),
        ("64:ff9b::8.8.8.8", None),
        ("2002:7f00:1::", Some(Loopback)),
        ("2002:c0a8:101::1", Some(Private)),
        ("2002:808:808::1", None),
    ];

    #[test]
    fn every_address_falls_in_its_range() {
        for (text, expected) in TABLE {
            let address: IpAddr = text.parse().unwrap();
            assert_eq!(special_range(address), *expected, "{text}");
        }
    }

    #[test]
    fn the_strict_policy_blocks_exactly_the_special_ranges() {
        let policy = AddressPolicy::strict();
        for (text, expected) in TABLE {
            let address: IpAddr = text.parse().unwrap();
            let verdict = policy.check(address);
            match expected {
                None => assert_eq!(verdict, Ok(()), "{text}"),
                Some(range) => assert_eq!(
                    verdict,
                    Err(BlockedAddress {
                        address,
                        range: *range
                    }),
                    "{text}"
                ),
            }
        }
    }

    #[test]
    fn the_loopback_policy_opens_loopback_in_every_form_and_nothing_else() {
        let policy = AddressPolicy::loopback();
        for (text, expected) in TABLE {
            let address: IpAddr = text.parse().unwrap();
            let allowed = policy.check(address).is_ok();
            assert_eq!(allowed, matches!(expected, None | Some(Loopback)), "{text}");
        }
    }

    #[test]
    fn the_private_policy_keeps_link_local_and_metadata_closed() {
        let policy = AddressPolicy::private_networks();
        for (text, expected) in TABLE {
            let address: IpAddr = text.parse().unwrap();
            let allowed = policy.check(address).is_ok();
            let opened = matches!(
                expected,
                None | Some(Loopback) | Some(Private) | Some(Shared) | Some(UniqueLocal)
            ) && !is_metadata_endpoint(address);
            assert_eq!(allowed, opened, "{text}");
        }
    }

    #[test]
    fn metadata_services_are_refused_under_every_policy_in_every_form() {
        let everything = AddressPolicy::parse(["0.0.0.0/0", "::/0"]).unwrap();
        let policies = [
            AddressPolicy::strict(),
            AddressPolicy::loopback(),
            AddressPolicy::private_networks(),
            everything,
        ];
        for text in [
            "169.254.169.254",
            "::ffff:169.254.169.254",
            "::ffff:0:a9fe:a9fe",
            "64:ff9b::a9fe:a9fe",
            "2002:a9fe:a9fe::1",
            "169.254.170.2",
            "169.254.170.23",
            "fd00:ec2::254",
            "fd00:ec2::23",
            "fd20:ce::254",
            "100.100.100.200",
            "::ffff:100.100.100.200",
            "168.63.129.16",
            "::ffff:168.63.129.16",
            "192.0.0.192",
        ] {
            let address: IpAddr = text.parse().unwrap();
            for policy in &policies {
                assert!(policy.check(address).is_err(), "{text} under {policy:?}");
            }
        }
        // Where no other range refuses it first, the refusal says what the address is.
        for (policy, text) in [
            (&policies[0], "168.63.129.16"),
            (&policies[2], "fd00:ec2::254"),
            (&policies[2], "100.100.100.200"),
            (&policies[3], "169.254.169.254"),
        ] {
            let refusal = policy.check(text.parse().unwrap()).unwrap_err();
            assert_eq!(refusal.range, CloudMetadata, "{text}");
            assert!(refusal.to_string().contains("cloud metadata"), "{refusal}");
        }
        // Their neighbours are ordinary addresses of their ranges.
        assert!(policies[2].check("fd00:ec2::253".parse().unwrap()).is_ok());
        assert!(
            policies[2]
                .check("100.100.100.201".parse().unwrap())
                .is_ok()
        );
        assert!(policies[0].check("168.63.129.17".parse().unwrap()).is_ok());
    }

    #[test]
    fn a_narrow_allow_list_opens_only_its_own_network() {
        let policy = AddressPolicy::allowing(["10.1.0.0/16".parse().unwrap()]);
        assert!(policy.check("10.1.2.3".parse().unwrap()).is_ok());
        assert!(policy.check("::ffff:10.1.2.3".parse().unwrap()).is_ok());
        assert!(policy.check("10.2.0.1".parse().unwrap()).is_err());
        assert!(policy.check("127.0.0.1".parse().unwrap()).is_err());
    }

    #[test]
    fn networks_parse_as_cidr_blocks_or_single_addresses() {
        let policy =
            AddressPolicy::parse([" 10.1.0.0/16 ", "192.168.1.7", "fd00::/8", "::1"]).unwrap();
        assert_eq!(policy.allowed_networks.len(), 4);
        assert!(policy.check("10.1.255.1".parse().unwrap()).is_ok());
        assert!(policy.check("192.168.1.7".parse().unwrap()).is_ok());
        assert!(policy.check("192.168.1.8".parse().unwrap()).is_err());
        assert!(policy.check("fd12::1".parse().unwrap()).is_ok());
        for bad in ["10.0.0.0/33", "example.com", "", "10.0.0/8"] {
            assert_eq!(
                AddressPolicy::parse([bad]),
                Err(NetworkParseError(bad.to_owned())),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn the_refusal_names_the_address_and_says_what_to_do() {
        let err = AddressPolicy::strict()
            .check("169.254.169.254".parse().unwrap())
            .unwrap_err();
        let message = err.to_string();
        assert!(message.contains("169.254.169.254"), "{message}");
        assert!(message.contains("link-local"), "{message}");
        assert!(message.contains("ask the operator"), "{message}");
    }
}
