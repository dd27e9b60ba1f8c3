//! A short run of the mixed load test (`insights-load mixed`): route scoring and alert
//! requests together at 64 connections for a few seconds, with no error allowed (alert
//! requests refused up front for want of capacity are not errors) and every accepted alert
//! request delivered, signature verified. The long run and its figures are
//! `benches/run-all`'s; nothing here is timed.

use std::time::Duration;

use insights_load::scenarios::alerts_scale::RULES;
use insights_load::scenarios::mixed::{self, MixedOptions, OPERATIONS, UNLIMITED_CONFIG};

use crate::harness::Deployment;
use test_support::receiver::Receiver;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mixed_load_at_64_connections_has_no_error_and_delivers_every_accepted_alert_request() {
    let deployment = Deployment::new().config(UNLIMITED_CONFIG);
    let key = deployment.new_key();
    let receiver = Receiver::verifying(&key.secret).await;
    deployment.set_webhook(&key, &receiver.url("/hook"));
    for (data_type, forecast, sensitivity) in RULES {
        deployment.add_rule(&key, data_type, forecast, sensitivity);
    }
    let server = deployment.serve(&[]);
    let options = MixedOptions {
        connections: 64,
        duration: Duration::from_secs(5),
        delivery_patience: Duration::from_secs(120),
        ..MixedOptions::default()
    };

    let report = mixed::drive(&server.base, &key.key, &receiver, &options)
        .await
        .unwrap();

    // Alert requests beyond the workers' pace may be refused up front (503 queue_full with
    // Retry-After); anything else that is not a 2xx is an error.
    assert_eq!(report.errors(), 0, "{}", report.load.summary());
    for name in OPERATIONS {
        let op = report.load.operation(name).unwrap();
        assert!(op.responses() > 0, "no {name} request was answered");
    }
    assert!(!report.tokens.is_empty(), "no alert request was accepted");
    assert_eq!(
        report.undelivered,
        Vec::<String>::new(),
        "of {} accepted",
        report.tokens.len()
    );
    assert_eq!(
        report.deliveries_refused, 0,
        "deliveries that did not verify: {:?}",
        report.first_refusal
    );
    assert!(report.passed(), "{:?}", report.failures());
}
