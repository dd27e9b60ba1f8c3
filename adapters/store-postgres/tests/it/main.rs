//! The PostgreSQL store's integration tests, against the server on 127.0.0.1:5432 (or the one
//! `INSIGHTS_TEST_POSTGRES_URL` names). Every test creates a database of its own and drops it
//! afterwards, also when the test fails.

#![allow(clippy::unwrap_used)]

mod conformance;
mod database;
mod sessions;
mod support;
mod workers;
