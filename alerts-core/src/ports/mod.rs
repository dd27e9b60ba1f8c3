//! The ports of the alert pipeline: what it needs from storage, files, URL signing and webhook
//! sending, one module per port. Adapter crates implement them (SQLite, PostgreSQL, local files,
//! S3, HTTP); the [`crate::memory`] module has in-memory versions for tests, and the
//! `conformance` module (with the `conformance` feature) has the suites every implementation
//! must pass. Every item is re-exported here, so `alerts_core::ports::JobQueue` names the same
//! trait as `alerts_core::ports::jobs::JobQueue`.
//!
//! Time and ids come from [`runtime_core`]; air-quality forecasts from
//! [`aq_core::ForecastSource`]; accounts, keys and sessions are [`identity_core::ports`].

#[macro_use]
mod names;

pub mod arrivals;
pub mod deliveries;
pub mod files;
pub mod jobs;
pub mod rules;
pub mod sent;
pub mod stored;
pub mod urls;
pub mod webhooks;

pub use arrivals::{ArrivalHub, Arrivals};
pub use deliveries::{
    Activity, ActivityWindow, AttemptTally, DeliveryAttempt, DeliveryLog, RequestSummary,
    RequestTally, TEST_DELIVERIES_KEPT, TestDelivery,
};
pub use files::{FileError, FileKey, FileStore, FileStream, FileWriter};
/// The stores' error, shared with the identity ports that the same stores implement.
pub use identity_core::ports::StoreError;
pub use jobs::{
    AlertJob, Backlog, ClaimLimits, JobCounts, JobOutcome, JobQueue, JobStage, JobUpdate, Lease,
    NewAlertJob, NewAlertRequest, POINT_PAGE, PointPages, Settlement, SlicePages, UNFINISHED_JOB,
    check_page_total, decode_stored_points, encode_stored_points, is_claimable, points_of_pages,
};
pub use names::UnknownName;
pub use rules::{KeyConfig, RuleStore, SigningSecret};
pub use sent::{SentChange, SentChanges};
pub use urls::UrlSigner;
pub use webhooks::{DeliveryErrorKind, WebhookRequest, WebhookResponse, WebhookSender};
