//! The webhook URL policy, against every way of writing an address. Whatever a customer types,
//! a URL accepted under a policy never names, as the URL parser reads it (which is what the
//! sender connects to), a loopback, private, link-local or unspecified address the policy does
//! not open, nor a cloud metadata service, in any spelling: decimal, octal or hexadecimal
//! numbers, shortened dotted forms, IPv4-mapped, -translated and -compatible IPv6, NAT64 and
//! 6to4. That is checked with the standard library's own classification of addresses, not the
//! policy's tables. An accepted URL is accepted again as stored; a refusal names the URL's own
//! address; an address gets one verdict however it is spelt.
//!
//! An input is a URL as typed. Its first bytes are also read as an IPv4 and an IPv6 address,
//! which are written out in each spelling.

#![no_main]

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use libfuzzer_sys::fuzz_target;
use url::{Host, Url};
use webhook_http::policy::{AddressPolicy, METADATA_ENDPOINTS, special_range};
use webhook_http::{WebhookUrlError, validate_webhook_url};

/// The policies a deployment chooses from.
#[derive(Debug, Clone, Copy)]
enum Policy {
    Strict,
    Loopback,
    PrivateNetworks,
}

const POLICIES: [Policy; 3] = [Policy::Strict, Policy::Loopback, Policy::PrivateNetworks];

impl Policy {
    fn rules(self) -> AddressPolicy {
        match self {
            Self::Strict => AddressPolicy::strict(),
            Self::Loopback => AddressPolicy::loopback(),
            Self::PrivateNetworks => AddressPolicy::private_networks(),
        }
    }

    /// Whether the policy opens `v4`, as its documentation promises.
    fn opens_v4(self, v4: Ipv4Addr) -> bool {
        let shared = v4.octets()[0] == 100 && (64..128).contains(&v4.octets()[1]);
        match self {
            Self::Strict => false,
            Self::Loopback => v4.is_loopback(),
            Self::PrivateNetworks => v4.is_loopback() || v4.is_private() || shared,
        }
    }

    fn opens_v6(self, v6: Ipv6Addr) -> bool {
        match self {
            Self::Strict => false,
            Self::Loopback => v6.is_loopback(),
            Self::PrivateNetworks => v6.is_loopback() || v6.is_unique_local(),
        }
    }
}

/// What the standard library calls an IPv4 address no webhook may reach from inside the
/// deployment.
fn internal_v4(v4: Ipv4Addr) -> bool {
    v4.is_loopback()
        || v4.is_private()
        || v4.is_link_local()
        || v4.is_unspecified()
        || v4.is_broadcast()
        || v4.is_multicast()
        || v4.is_documentation()
        || v4.octets()[0] == 0
}

/// The IPv4 addresses an IPv6 address reaches: mapped (`::ffff:a.b.c.d`), translated
/// (`::ffff:0:a.b.c.d`), compatible (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`) and 6to4
/// (`2002:aabb:ccdd::`).
fn carried_v4(v6: Ipv6Addr) -> Vec<Ipv4Addr> {
    let s = v6.segments();
    let low = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    let mut out: Vec<Ipv4Addr> = v6.to_ipv4().into_iter().collect();
    if s[..4] == [0; 4] && s[4] == 0xffff && s[5] == 0 {
        out.push(low);
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        out.push(low);
    }
    if s[0] == 0x2002 {
        out.push(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    // `::` and `::1` are IPv6's own addresses, judged as such.
    if v6.is_unspecified() || v6.is_loopback() {
        out.retain(|v4| !v4.is_unspecified() && *v4 != Ipv4Addr::new(0, 0, 0, 1));
    }
    out
}

/// Whether the policy must refuse `address`.
fn forbidden(policy: Policy, address: IpAddr) -> bool {
    if METADATA_ENDPOINTS.contains(&address) {
        return true;
    }
    match address {
        IpAddr::V4(v4) => internal_v4(v4) && !policy.opens_v4(v4),
        IpAddr::V6(v6) => {
            let own = v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_unique_local()
                || v6.is_unicast_link_local()
                || v6.is_multicast();
            let carried = carried_v4(v6);
            (own && !policy.opens_v6(v6))
                || carried
                    .iter()
                    .any(|&v4| METADATA_ENDPOINTS.contains(&IpAddr::V4(v4)))
                || carried
                    .iter()
                    .any(|&v4| internal_v4(v4) && !policy.opens_v4(v4) && !policy.opens_v6(v6))
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        for policy in POLICIES {
            check_url(policy, text);
        }
    }
    if let Some(bytes) = data.first_chunk::<4>() {
        check_spellings(Ipv4Addr::from(*bytes));
    }
    if let Some(bytes) = data.first_chunk::<16>() {
        check_address(IpAddr::V6(Ipv6Addr::from(*bytes)));
    }
});

/// The address a URL names, as the URL parser reads it.
fn literal(url: &Url) -> Option<IpAddr> {
    match url.host()? {
        Host::Ipv4(v4) => Some(IpAddr::V4(v4)),
        Host::Ipv6(v6) => Some(IpAddr::V6(v6)),
        Host::Domain(_) => None,
    }
}

fn check_url(policy: Policy, text: &str) {
    let rules = policy.rules();
    match validate_webhook_url(text, &rules) {
        Ok(url) => {
            assert!(matches!(url.scheme(), "http" | "https"), "{url}");
            assert!(
                url.username().is_empty() && url.password().is_none(),
                "{url}"
            );
            match url.host() {
                Some(Host::Domain(name)) => {
                    // A name the standard library reads as an address would pass unchecked.
                    let bare = name.trim_end_matches('.');
                    assert!(bare.parse::<IpAddr>().is_err(), "{text:?} names {name:?}");
                }
                Some(_) => {
                    let address = literal(&url).unwrap_or_else(|| panic!("{url}"));
                    assert!(
                        !forbidden(policy, address),
                        "{text:?} accepted under {policy:?}: it names {address}"
                    );
                }
                None => panic!("{text:?} accepted without a host"),
            }
            // As stored and read back, the same URL.
            assert_eq!(validate_webhook_url(url.as_str(), &rules), Ok(url));
        }
        Err(WebhookUrlError::Blocked(blocked)) => {
            let url = Url::parse(text.trim()).unwrap_or_else(|e| panic!("{text:?}: {e}"));
            assert_eq!(literal(&url), Some(blocked.address), "{text:?}");
            assert!(rules.check(blocked.address).is_err());
        }
        Err(WebhookUrlError::Invalid(e)) => {
            assert_eq!(Url::parse(text.trim()).err(), Some(e), "{text:?}");
        }
        Err(_) => {}
    }
}

/// `address` as the policy and as a URL: the same verdict.
fn check_address(address: IpAddr) {
    let range = special_range(address);
    for policy in POLICIES {
        let verdict = policy.rules().check(address);
        if forbidden(policy, address) {
            assert!(verdict.is_err(), "{address} ({range:?}) passes {policy:?}");
        }
        let url = match address {
            IpAddr::V4(v4) => format!("http://{v4}/"),
            IpAddr::V6(v6) => format!("http://[{v6}]/"),
        };
        let through_url = validate_webhook_url(&url, &policy.rules());
        assert_eq!(
            through_url.is_ok(),
            verdict.is_ok(),
            "{url} under {policy:?}: {through_url:?}"
        );
    }
}

/// Every spelling of `v4` gets the verdict of its dotted form.
fn check_spellings(v4: Ipv4Addr) {
    check_address(IpAddr::V4(v4));
    let n = u32::from(v4);
    let [a, b, c, d] = v4.octets();
    let (hi, lo) = ((n >> 16) as u16, n as u16);
    let spellings = [
        format!("{n}"),
        format!("0x{n:x}"),
        format!("0X{n:X}"),
        format!("0{n:o}"),
        format!("0{a:o}.0{b:o}.0{c:o}.0{d:o}"),
        format!("0x{a:x}.0x{b:x}.0x{c:x}.0x{d:x}"),
        format!("{a}.{b}.{}", u32::from(lo)),
        format!("{a}.{}", n & 0x00ff_ffff),
        format!("0x{a:x}.{}", n & 0x00ff_ffff),
        format!("{a}.{b}.{c}.{d}."),
        format!("{a}%2e{b}%2e{c}%2e{d}"),
        format!("[::ffff:{v4}]"),
        format!("[::ffff:{hi:x}:{lo:x}]"),
        format!("[::ffff:0:{v4}]"),
        format!("[64:ff9b::{v4}]"),
        format!("[2002:{hi:x}:{lo:x}::1]"),
    ]
    .into_iter()
    // `::0.0.0.1` is IPv6's own loopback `::1`, which a policy may open apart from `0.0.0.1`.
    .chain((n > 1).then(|| format!("[::{v4}]")))
    .collect::<Vec<_>>();
    for policy in POLICIES {
        let rules = policy.rules();
        let dotted = validate_webhook_url(&format!("http://{v4}/"), &rules).is_ok();
        for spelling in &spellings {
            let text = format!("http://{spelling}/hook");
            let verdict = validate_webhook_url(&text, &rules);
            if let Ok(url) = &verdict {
                if let Some(address) = literal(url) {
                    assert!(
                        !forbidden(policy, address),
                        "{text} accepted under {policy:?}: it names {address}"
                    );
                }
            }
            // Forms the parser does not read as an address are left to send time, where the
            // resolver checks what they resolve to.
            let read_as_address = Url::parse(&text).ok().as_ref().and_then(literal).is_some();
            if read_as_address {
                assert_eq!(
                    verdict.is_ok(),
                    dotted,
                    "{text} under {policy:?}: {verdict:?}"
                );
            }
        }
    }
}
