//! The fused source against a known truth: a synthetic field, a model with a bias and a scale
//! error, and stations at the truth plus noise.
#![allow(missing_docs, clippy::unwrap_used)]

mod forecast;
mod truth;
mod world;
