//! Identity for the insights engine: developer accounts and their passwords, API keys and the
//! secrets that sign their webhooks, dashboard sessions, the use cases that manage them, and
//! the store ports they need. The crate does no I/O, reads no clock and draws no random
//! numbers: storage comes through [`ports`], time and ids through [`runtime_core`], and
//! secret bytes through [`randomness`].
//!
//! - [`account`]: email normalisation and password hashing (argon2id).
//! - [`keys`]: API keys (shown once, stored as a hash) and webhook signing secrets.
//! - [`ids`]: typed account and key ids, and the [`typed_id!`] macro the cores above use.
//! - [`randomness`]: the port for secret randomness, and a seeded version for tests.
//! - [`manage`]: [`manage::Identity`], signing up and in, and a key's life (create, list,
//!   rename, revoke), shared by the dashboard and the admin command.
//! - [`limiter`]: [`limiter::Limiter`], how rate limits are asked of a
//!   [`ports::LimitStore`] and what happens when it cannot answer;
//!   [`memory_limits::MemoryLimits`] keeps them in this process; [`network::network_of`]
//!   names the client behind an address, for the limits kept per client.
//! - [`ports`]: [`ports::AccountStore`], [`ports::KeyAuthenticator`] and
//!   [`ports::SessionStore`], with [`memory::MemoryIdentity`] in memory; `conformance`
//!   (feature `conformance`) holds the suites every store adapter runs.
//!
//! Alerts build on this crate (`alerts-core`): a key's rules and deliveries hang off its
//! [`ids::KeyId`], and the API authenticates every request through
//! [`ports::KeyAuthenticator`].
//!
//! ```
//! use std::sync::Arc;
//!
//! use runtime_core::{FixedClock, SequentialIds};
//! use identity_core::keys::ApiKey;
//! use identity_core::manage::Identity;
//! use identity_core::memory::MemoryIdentity;
//! use identity_core::ports::KeyAuthenticator;
//! use identity_core::randomness::SeededRandomness;
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let store = Arc::new(MemoryIdentity::new());
//! let clock = Arc::new(FixedClock::new(chrono::Utc::now()));
//! let identity = Identity::new(store.clone(), store.clone(), clock.clone(),
//!     Arc::new(SequentialIds::default()), Arc::new(SeededRandomness::default()));
//!
//! // The dashboard: sign up, then make a key; its text is shown once.
//! let ada = identity.create_account("ada@example.org", "correct horse battery").await.unwrap();
//! let created = identity.create_key(ada.id, "production").await.unwrap();
//!
//! // The API: a request's `?key=` is parsed, hashed and looked up.
//! let sent = ApiKey::parse(created.key.expose()).unwrap();
//! let now = chrono::Utc::now();
//! assert_eq!(store.authenticate(&sent.hash(), now).await.unwrap(), Some(created.info.id));
//!
//! // Revoked, it is refused.
//! identity.revoke_key(ada.id, created.info.id).await.unwrap();
//! assert_eq!(store.authenticate(&sent.hash(), now).await.unwrap(), None);
//! # });
//! ```

pub mod account;
pub mod ids;
pub mod keys;
pub mod limiter;
pub mod manage;
pub mod memory;
pub mod memory_limits;
pub mod network;
pub mod ports;
pub mod randomness;

#[cfg(any(test, feature = "conformance"))]
pub mod conformance;
