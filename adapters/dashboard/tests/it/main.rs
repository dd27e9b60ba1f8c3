//! Handler tests of the dashboard over in-memory ports, served beside the API as the server
//! serves it.

#![allow(clippy::unwrap_used)]

mod beside;
mod dashboard;
mod dashboard_audience;
mod dashboard_deliveries;
mod dashboard_keys;
mod dashboard_maps;
mod dashboard_rules;
