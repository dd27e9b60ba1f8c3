//! Handler tests of the API over in-memory ports: every response is checked against the
//! served OpenAPI document, so the document cannot promise what the server does not do.

#![allow(clippy::unwrap_used)]

mod backtest;
mod openapi;
mod provenance;
mod regions;
mod serving;
mod support;
mod tiles;
