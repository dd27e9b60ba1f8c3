//! The webhook sender: delivers alert notifications as signed JSON `POST`s to the URL each API
//! key's owner chose.
//!
//! - [`HttpWebhookSender`] implements [`alerts_core::ports::WebhookSender`] with reqwest and
//!   rustls: one time limit per attempt, no redirects, no proxy, a capped read of the answer and
//!   every failure sorted into a [`DeliveryErrorKind`](alerts_core::ports::DeliveryErrorKind).
//! - [`AddressPolicy`] keeps deliveries away from the deployment's own network (loopback,
//!   private ranges, the cloud metadata service and every other special range; see
//!   [`policy::SpecialRange`]) unless the operator allows a network. It is enforced when host
//!   names resolve, on the very addresses the connection uses.
//! - [`validate_webhook_url`] checks a URL when it is saved, with the same policy.
//!
//! The signature headers themselves come from the pipeline in `alerts-core`; this crate sends
//! them as given.

pub mod config;
pub mod policy;
mod resolver;
mod sender;
pub mod webhook_url;

pub use config::WebhookHttpConfig;
pub use policy::AddressPolicy;
pub use sender::{BuildError, HttpWebhookSender};
pub use webhook_url::{WebhookUrlError, validate_webhook_url};
