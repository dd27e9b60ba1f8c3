//! Environmental alerts: rules, evaluation, messages, NDJSON output, webhook signing and the
//! alert pipeline, over ports that adapters implement. The crate does no I/O, reads no clock
//! and draws no random numbers: everything comes through [`ports`], [`runtime_core`] and
//! [`identity_core::randomness`]. Accounts and API keys are [`identity_core`]'s: a key's rules
//! and deliveries hang off its id.
//!
//! - [`rule`]: the four selectors of an alert rule, validated.
//! - [`request`]: the alert request (operation 1), validated with JSON paths in its errors.
//! - [`evaluate`]: rules at points against the forecast port, as `docs/scoring.md` says.
//! - [`message`]: default and custom descriptions, predefined recommendations, previews.
//! - [`advice`]: the predefined recommendations, one table per audience.
//! - [`repeat`]: when two alerts tell the same change, for rules that tell a change once.
//! - [`ndjson`]: the streaming encoder and the decoder of the output file.
//! - [`webhook`]: the delivery payload and its Standard Webhooks signature.
//! - [`pipeline`]: accept → evaluate → write the file → deliver, with retries.
//! - [`ports`] and their in-memory versions in [`memory`]; `conformance` (feature
//!   `conformance`) holds the suites every adapter runs.
//!
//! # Wiring the pipeline in a service
//!
//! A service builds one [`pipeline::AlertPipeline`] from its adapters. The HTTP handler of
//! operation 1 authenticates the key ([`identity_core::ports::KeyAuthenticator`]), reads the body
//! ([`request::read_points`] or [`request::AlertRequest::from_json_slice`]) and calls
//! [`pipeline::AlertPipeline::accept`], which returns the token once the request is stored. Workers (in every replica) call
//! [`pipeline::AlertPipeline::run_once`] in a loop, sleeping a little when it claims nothing.
//! Here every port is the in-memory one; a server puts SQLite or PostgreSQL, local files or
//! S3, the HTTP sender and a real forecast source in their place.
//!
//! ```
//! use std::sync::Arc;
//!
//! use alerts_core::ids::RuleId;
//! use alerts_core::memory::{MemoryFiles, MemoryStore, RecordingSender};
//! use alerts_core::ndjson::decode_all;
//! use alerts_core::pipeline::{AlertPipeline, PipelineConfig, PipelinePorts};
//! use alerts_core::ports::RuleStore;
//! use identity_core::ids::{AccountId, KeyId};
//! use identity_core::keys::{ApiKey, WebhookSecret};
//! use identity_core::ports::{Account, AccountStore, KeyAuthenticator, NewApiKey};
//! use identity_core::randomness::SeededRandomness;
//! use alerts_core::request::{AlertRequest, RequestLimits};
//! use alerts_core::rule::{AlertRule, DataType, Forecast, MessageSpec, RuleSpec, Sensitivity};
//! use aq_core::memory::MemoryForecast;
//! use runtime_core::{Clock, FixedClock, IdGenerator, SequentialIds};
//! use aq_core::{CleanlinessIndex, Position};
//! use chrono::TimeZone;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let clock = Arc::new(FixedClock::new(chrono::Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()));
//! let ids = Arc::new(SequentialIds::default());
//! let store = Arc::new(MemoryStore::new());
//! let files = Arc::new(MemoryFiles::new());
//! let sender = Arc::new(RecordingSender::new());
//! let forecast = Arc::new(MemoryForecast::default());
//!
//! // What the dashboard does: an account, a key with a webhook URL, one rule.
//! let account = AccountId(ids.new_id());
//! store.create_account(&Account {
//!     id: account, email: "dev@example.com".into(),
//!     password_hash: "$argon2id$...".into(), credential_version: 0, created_at: clock.now(),
//! }).await?;
//! let secrets = SeededRandomness::default();
//! let api_key = ApiKey::generate(&secrets);
//! let key_id = KeyId(ids.new_id());
//! store.create_key(&NewApiKey {
//!     id: key_id, account_id: account, label: "production".into(),
//!     prefix: api_key.prefix().into(), hash: api_key.hash(),
//!     secret: WebhookSecret::generate(&secrets), created_at: clock.now(),
//! }).await?;
//! store.set_webhook_url(key_id, Some("https://hooks.example.com/insights")).await?;
//! store.add_rule(&AlertRule {
//!     id: RuleId(ids.new_id()), key_id, enabled: true, created_at: clock.now(),
//!     spec: RuleSpec::new(DataType::Aq, Forecast::Hours(6), Sensitivity::Medium,
//!         MessageSpec::Default).unwrap(),
//! }).await?;
//!
//! // The forecast at Paris: CI 72 now, 58 in two hours.
//! let paris = Position::new(2.35, 48.85).unwrap();
//! let ci = |v| Some(CleanlinessIndex::new(v).unwrap());
//! forecast.set_hourly(paris, vec![ci(72.0), ci(70.0), ci(58.0), ci(55.0)]);
//!
//! let pipeline = AlertPipeline::new(
//!     PipelinePorts {
//!         rules: store.clone(), jobs: store.clone(), deliveries: store.clone(), sent: store.clone(),
//!         files: files.clone(), signer: files.clone(), sender: sender.clone(),
//!         forecast, clock: clock.clone(), ids,
//!     },
//!     PipelineConfig::default(),
//! );
//!
//! // The HTTP handler of operation 1.
//! let authenticated = store.authenticate(&api_key.hash(), clock.now()).await?.unwrap();
//! let body = br#"{"points": [{"lon": 2.35, "lat": 48.85, "id": "user-17"}]}"#;
//! let request = AlertRequest::from_json_slice(body, &RequestLimits::default()).unwrap();
//! let token = pipeline.accept(authenticated, request).await.unwrap();
//!
//! // A worker: one run writes the file and delivers it; nothing is left to claim.
//! assert_eq!(pipeline.run_once(8).await?.claimed(), 1);
//! assert_eq!(pipeline.run_once(8).await?.claimed(), 0);
//!
//! let sent = sender.requests();
//! assert_eq!(sent.len(), 1);
//! let payload: serde_json::Value = serde_json::from_slice(&sent[0].body).unwrap();
//! assert_eq!(payload["TOKEN"], token.to_string());
//! assert_eq!(payload["KEY"], api_key.prefix());
//! let file = files.fetch(payload["URL"].as_str().unwrap(), clock.now()).unwrap();
//! let alerts = decode_all(&file).unwrap();
//! assert_eq!(alerts[0].id, "user-17");
//! assert_eq!(alerts[0].description, "In 2 hours the air quality is expected to be worse (58 AQI).");
//! # Ok::<(), alerts_core::ports::StoreError>(())
//! # }).unwrap();
//! ```

pub mod advice;
pub mod backtest;
pub mod breaker;
pub mod change;
pub mod episode;
pub mod evaluate;
pub mod idempotency;
pub mod ids;
pub mod manage;
pub mod memory;
pub mod message;
pub mod ndjson;
pub mod pipeline;
pub mod ports;
pub mod repeat;
pub mod request;
pub mod rule;
pub mod webhook;

#[cfg(any(test, feature = "conformance"))]
pub mod conformance;
