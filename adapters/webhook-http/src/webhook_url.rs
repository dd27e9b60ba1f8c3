//! Checking a webhook URL when it is saved, so that mistakes show up in the dashboard or the
//! admin command instead of in the delivery log hours later.

use std::net::IpAddr;

use thiserror::Error;
use url::{Host, Url};

use crate::policy::{AddressPolicy, BlockedAddress};

/// The longest webhook URL accepted, in bytes. Real receivers' URLs are far shorter; the limit
/// keeps stored keys and log lines small.
pub const MAX_WEBHOOK_URL_LEN: usize = 2048;

/// Why a webhook URL was refused. The messages are meant for the person who typed the URL.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum WebhookUrlError {
    /// Nothing was given.
    #[error(
        "the webhook URL is empty; enter the full address of your receiver, such as https://example.com/webhooks"
    )]
    Empty,
    /// Longer than [`MAX_WEBHOOK_URL_LEN`].
    #[error(
        "the webhook URL is {len} bytes long, more than the limit of {max}; use a shorter address"
    )]
    TooLong {
        /// The URL's length in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Not a URL at all.
    #[error(
        "the webhook URL is not a valid URL ({0}); enter a full address such as https://example.com/webhooks"
    )]
    Invalid(#[from] url::ParseError),
    /// A scheme other than `http` or `https`.
    #[error("webhook URLs must start with https:// or http://, not {scheme}:")]
    Scheme {
        /// The scheme that was given.
        scheme: String,
    },
    /// No host to send to.
    #[error(
        "the webhook URL has no host name; enter a full address such as https://example.com/webhooks"
    )]
    MissingHost,
    /// A user name or password in the URL.
    #[error(
        "the webhook URL contains a user name or password; remove it, because credentials in URLs \
         end up in logs, and check the webhook-signature header in your receiver instead"
    )]
    Credentials,
    /// The host is a literal IP address the deployment does not allow.
    #[error(transparent)]
    Blocked(#[from] BlockedAddress),
}

/// Checks a webhook URL before it is saved, and returns it parsed and normalised.
///
/// Accepts `http` and `https` URLs with a host, no user name or password, at most
/// [`MAX_WEBHOOK_URL_LEN`] bytes long. A host written as an IP address must pass `policy`; a
/// host name is checked against the policy each time a webhook is sent, because what it
/// resolves to can change (DNS rebinding).
///
/// ```
/// use webhook_http::{AddressPolicy, WebhookUrlError, validate_webhook_url};
///
/// let strict = AddressPolicy::strict();
/// let url = validate_webhook_url("https://hooks.example.com/insights", &strict).unwrap();
/// assert_eq!(url.host_str(), Some("hooks.example.com"));
///
/// assert!(matches!(
///     validate_webhook_url("ftp://example.com/", &strict),
///     Err(WebhookUrlError::Scheme { .. })
/// ));
/// assert!(matches!(
///     validate_webhook_url("http://169.254.169.254/latest/meta-data/", &strict),
///     Err(WebhookUrlError::Blocked(_))
/// ));
/// assert!(validate_webhook_url("http://127.0.0.1:9000/hook", &AddressPolicy::loopback()).is_ok());
/// ```
pub fn validate_webhook_url(input: &str, policy: &AddressPolicy) -> Result<Url, WebhookUrlError> {
    let input = input.trim();
    if input.is_empty() {
        return Err(WebhookUrlError::Empty);
    }
    if input.len() > MAX_WEBHOOK_URL_LEN {
        return Err(WebhookUrlError::TooLong {
            len: input.len(),
            max: MAX_WEBHOOK_URL_LEN,
        });
    }
    let url = Url::parse(input)?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(WebhookUrlError::Scheme {
            scheme: url.scheme().to_owned(),
        });
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(WebhookUrlError::Credentials);
    }
    // The URL parser has already turned every way of writing an address (`0x7f.1`,
    // `2130706433`, `[::ffff:7f00:1]`) into its canonical form here.
    match url.host() {
        None => return Err(WebhookUrlError::MissingHost),
        Some(Host::Domain("")) => return Err(WebhookUrlError::MissingHost),
        Some(Host::Domain(_)) => {}
        Some(Host::Ipv4(v4)) => policy.check(IpAddr::V4(v4))?,
        Some(Host::Ipv6(v6)) => policy.check(IpAddr::V6(v6))?,
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::policy::SpecialRange;

    fn strict(input: &str) -> Result<Url, WebhookUrlError> {
        validate_webhook_url(input, &AddressPolicy::strict())
    }

    #[test]
    fn ordinary_http_and_https_urls_are_accepted() {
        for input in [
            "https://hooks.example.com/insights",
            "http://example.com:8080/a/b?c=d",
            "  https://example.com/trimmed  ",
            "https://8.8.8.8/hook",
            "https://[2606:4700:4700::1111]/hook",
        ] {
            assert!(strict(input).is_ok(), "{input}");
        }
    }

    #[test]
    fn other_schemes_are_refused() {
        for input in [
            "ftp://example.com/",
            "file:///etc/passwd",
            "gopher://example.com/",
            "javascript:alert(1)",
        ] {
            assert!(
                matches!(strict(input), Err(WebhookUrlError::Scheme { .. })),
                "{input}"
            );
        }
    }

    #[test]
    fn credentials_are_refused() {
        for input in [
            "https://user@example.com/",
            "https://user:secret@example.com/",
            "https://:secret@example.com/",
        ] {
            assert_eq!(strict(input), Err(WebhookUrlError::Credentials), "{input}");
        }
    }

    #[test]
    fn empty_hostless_and_garbage_urls_are_refused() {
        assert_eq!(strict("   "), Err(WebhookUrlError::Empty));
        assert!(matches!(
            strict("http://"),
            Err(WebhookUrlError::Invalid(_))
        ));
        assert!(matches!(
            strict("example.com/hook"),
            Err(WebhookUrlError::Invalid(_))
        ));
        assert!(matches!(
            strict("https://exa mple.com/"),
            Err(WebhookUrlError::Invalid(_))
        ));
    }

    #[test]
    fn overlong_urls_are_refused() {
        let long = format!("https://example.com/{}", "a".repeat(MAX_WEBHOOK_URL_LEN));
        assert!(matches!(
            strict(&long),
            Err(WebhookUrlError::TooLong { .. })
        ));
    }

    #[test]
    fn every_spelling_of_a_blocked_literal_address_is_refused() {
        for (input, range) in [
            ("http://127.0.0.1/", SpecialRange::Loopback),
            ("http://2130706433/", SpecialRange::Loopback),
            ("http://0x7f.1/", SpecialRange::Loopback),
            ("http://0/", SpecialRange::Unspecified),
            ("http://[::1]/", SpecialRange::Loopback),
            ("http://[::ffff:127.0.0.1]/", SpecialRange::Loopback),
            ("http://[::ffff:a9fe:a9fe]/", SpecialRange::LinkLocal),
            (
                "http://169.254.169.254/latest/meta-data/",
                SpecialRange::LinkLocal,
            ),
            ("https://10.0.0.5:8443/", SpecialRange::Private),
            ("https://[fd00:ec2::254]/", SpecialRange::UniqueLocal),
        ] {
            match strict(input) {
                Err(WebhookUrlError::Blocked(blocked)) => {
                    assert_eq!(blocked.range, range, "{input}")
                }
                other => panic!("{input}: {other:?}"),
            }
        }
    }

    #[test]
    fn an_allow_list_admits_its_literal_addresses() {
        let policy = AddressPolicy::loopback();
        assert!(validate_webhook_url("http://127.0.0.1:9000/hook", &policy).is_ok());
        assert!(validate_webhook_url("http://[::1]:9000/hook", &policy).is_ok());
        assert!(validate_webhook_url("http://10.0.0.1/hook", &policy).is_err());
    }

    #[test]
    fn host_names_are_left_to_send_time() {
        assert!(strict("http://localhost:9000/hook").is_ok());
    }

    #[test]
    fn messages_say_what_to_do() {
        let message = strict("ftp://example.com/").unwrap_err().to_string();
        assert!(message.contains("https://"), "{message}");
        let message = strict("https://u:p@example.com/").unwrap_err().to_string();
        assert!(message.contains("remove it"), "{message}");
    }
}
