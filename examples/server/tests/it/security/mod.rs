//! The security properties of `SECURITY.md`, proven on the real binary: webhook targets
//! inside the deployment's network are refused when saved and when sent, file URLs cannot be
//! altered, moved, forged or used late, one account cannot reach another's keys, rules or
//! deliveries, no secret reaches a log, the dashboard's CSRF, session, cookie and header
//! protections hold, customers can take their accounts back, revoked keys act no more and
//! output files are private.
//!
//! One module per threat; `fixtures`, `canned` and `browser` hold what they share.

mod accounts;
mod browser;
mod canned;
mod csrf;
mod file_urls;
mod files;
mod fixtures;
mod headers;
mod isolation;
mod logs;
mod rate_limits;
mod revoked;
mod sessions;
mod ssrf;

// What other test modules drive the dashboard with.
pub(crate) use browser::{Browser, field, random_hex, text, text_of};
pub(crate) use fixtures::{CSRF_REFUSAL, PASSWORD, new_email, serve};
