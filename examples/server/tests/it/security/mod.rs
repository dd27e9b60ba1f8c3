//! The security properties of `SECURITY.md`, proven on the real binary: webhook targets
//! inside the deployment's network are refused when saved and when sent, file URLs cannot be
//! altered, moved, forged or used late, one account cannot reach another's keys, rules or
//! deliveries, no secret reaches a log, and the dashboard's CSRF, session, cookie and header
//! protections hold.
//!
//! One module per threat; `fixtures`, `canned` and `browser` hold what they share.

mod browser;
mod canned;
mod csrf;
mod file_urls;
mod fixtures;
mod headers;
mod isolation;
mod logs;
mod rate_limits;
mod sessions;
mod ssrf;

// What other test modules drive the dashboard with.
pub(crate) use browser::{Browser, field, random_hex, text};
pub(crate) use fixtures::{CSRF_REFUSAL, PASSWORD, new_email, serve};
