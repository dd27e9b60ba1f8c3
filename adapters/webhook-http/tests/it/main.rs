//! The webhook sender against real receivers on loopback: what arrives, how every kind of
//! answer is classified, what the address policy refuses, and the sender inside the alert
//! pipeline's retries.

mod delivery;
mod pipeline;
mod ssrf;
mod support;
