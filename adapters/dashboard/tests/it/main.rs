//! Handler tests of the dashboard over in-memory ports, served beside the API as the server
//! serves it.

#![allow(clippy::unwrap_used)]

// The tests serve the dashboard beside the API through the very adapter the server wires,
// rather than a copy of it that could drift.
#[path = "../../../../examples/server/src/beside.rs"]
mod beside;
mod dashboard;
mod dashboard_audience;
mod dashboard_deliveries;
mod dashboard_keys;
mod dashboard_maps;
mod dashboard_newcomer;
mod dashboard_rules;
