//! The sender's configuration and its defaults.

use std::time::Duration;

use crate::policy::AddressPolicy;

/// How long one attempt may take, from the start of the DNS lookup to the response status:
/// 10 seconds, the "any 2xx within 10 s" of the API's delivery contract.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How much of a receiver's response body is read before it is dropped: 4 KiB. Nothing in the
/// body is used; reading a little lets well-behaved receivers finish their answer, and the cap
/// keeps a hostile one from streaming forever.
pub const DEFAULT_MAX_RESPONSE_BODY: usize = 4 * 1024;

/// The `User-Agent` of every delivery, so receivers can tell our requests apart in their logs.
pub const DEFAULT_USER_AGENT: &str = concat!(
    "insights-webhooks/",
    env!("CARGO_PKG_VERSION"),
    " (environmental insights engine)"
);

/// The webhook sender's configuration.
///
/// ```
/// use std::time::Duration;
/// use webhook_http::{AddressPolicy, WebhookHttpConfig};
///
/// let config = WebhookHttpConfig::default();
/// assert_eq!(config.timeout, Duration::from_secs(10));
/// assert_eq!(config.max_response_body, 4096);
/// assert_eq!(config.policy, AddressPolicy::strict());
///
/// // The local quick start, where the receiver runs on the same machine.
/// let quick_start = WebhookHttpConfig { policy: AddressPolicy::loopback(), ..config };
/// assert_eq!(quick_start.policy.allowed_networks.len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookHttpConfig {
    /// The time limit of one attempt, DNS lookup and connection included; [`DEFAULT_TIMEOUT`].
    /// A receiver that has not answered by then counts as a timeout.
    pub timeout: Duration,
    /// How many bytes of a response body are read at most; [`DEFAULT_MAX_RESPONSE_BODY`].
    pub max_response_body: usize,
    /// The `User-Agent` header; [`DEFAULT_USER_AGENT`].
    pub user_agent: String,
    /// Which addresses deliveries may go to; [`AddressPolicy::strict`], public addresses only.
    pub policy: AddressPolicy,
}

impl Default for WebhookHttpConfig {
    fn default() -> Self {
        Self {
            timeout: DEFAULT_TIMEOUT,
            max_response_body: DEFAULT_MAX_RESPONSE_BODY,
            user_agent: DEFAULT_USER_AGENT.to_owned(),
            policy: AddressPolicy::strict(),
        }
    }
}
