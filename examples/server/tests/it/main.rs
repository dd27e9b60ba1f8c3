//! Black-box tests of `insights-server`: the real binary on port 0 with a store of its own,
//! driven over HTTP and through its admin commands, as users and operators drive it.
#![allow(clippy::unwrap_used)]

mod abuse;
mod admin;
mod alerts;
mod browser;
mod cams;
mod client;
mod crash;
mod dashboard;
mod dashboard_abuse;
mod dashboard_playground;
mod departures;
mod edge;
mod errors;
mod fetch;
mod fusion;
mod fusion_set;
mod harness;
mod health;
mod hostile;
mod limits;
mod load;
mod lookups;
mod migration;
mod operator;
mod outage;
mod queue;
mod repeat;
mod routes;
mod scale_out;
mod schema;
mod security;
mod smoke;
mod streets;
mod test_deliveries;
