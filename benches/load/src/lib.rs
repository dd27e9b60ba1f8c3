//! Load generation and load scenarios for the insights server.
//!
//! - [`generator`]: an HTTP/1.1 load generator: `C` keep-alive connections, each sending
//!   requests back to back for a duration, drawn from weighted request templates; latency in
//!   an HDR histogram, responses counted by status, transport errors counted apart.
//! - [`cams`]: a CAMS-like grid store written for a server started with `--aq-source cams:DIR`.
//! - [`client`]: single requests: one post, one file downloaded as a stream.
//! - [`memory`]: samples a process's resident memory (`VmRSS`) and its peak (`VmHWM`) from
//!   `/proc`.
//! - [`server`]: the real `insights-server` binary started on a temporary data directory, with
//!   accounts, keys and rules made by its `admin --json` commands.
//! - [`bench_server`]: the API's real router over in-memory stores, plus an empty handler
//!   behind the same middleware, for the HTTP ratio.
//! - [`scenarios`]: what the `insights-load` subcommands run, each printing `FIGURE:` lines.
//!
//! Every run is bounded in time and talks to loopback only.

pub mod bench_server;
pub mod cams;
pub mod client;
pub mod generator;
pub mod memory;
pub mod requests;
pub mod scenarios;
pub mod server;

/// Prints one measured figure as a `FIGURE:` line, the form `benches/run-all` collects.
pub fn figure(scenario: &str, name: &str, value: impl std::fmt::Display) {
    println!("FIGURE: {scenario} {name}: {value}");
}
