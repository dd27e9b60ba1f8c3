//! Schema testing: schemathesis generates requests from the served OpenAPI document, valid and
//! invalid, for every operation, with a valid key, and checks every response against the
//! document both ways: no 5xx, documented statuses, content types, headers and bodies; invalid
//! requests refused; and every request the document allows accepted. The few rules JSON Schema
//! cannot state (listed in the operation's description) are left out of the generated data by
//! the hooks in `tests/schemathesis/hooks.py`.

use std::path::PathBuf;
use std::process::Command;

use test_support::find_tool;

use crate::harness::Deployment;

const INSTALL: &str = "install it with `python3 -m venv $HOME/.cache/insights/tools/schemathesis-venv \
     && $HOME/.cache/insights/tools/schemathesis-venv/bin/pip install schemathesis==4.32.5` \
     (as scripts/test does)";

/// The `st` command: `SCHEMATHESIS_BIN`, the copy `scripts/test` installs, or one on the
/// `PATH`; `None` when absent and the test is to skip.
fn schemathesis() -> Option<PathBuf> {
    find_tool(
        "SCHEMATHESIS_BIN",
        "schemathesis-venv/bin/st",
        "st",
        INSTALL,
    )
}

#[test]
fn every_operation_answers_as_the_openapi_document_says() {
    let Some(st) = schemathesis() else {
        return;
    };
    // A rate far above what the run sends, and a queue bound past the run's length (no worker
    // takes a job here, so the key's queue only grows), so that every answer is the
    // operation's own.
    let deployment = Deployment::new().config(
        "rate_per_second = 100000\nrate_burst = 100000\nmax_queue_delay_seconds = 3600\n\
         target_queue_delay_seconds = 1800\n",
    );
    let key = deployment.new_key();
    // Alert requests are accepted (a webhook and a rule) and never delivered: the port is
    // closed. The run checks the API, not deliveries.
    deployment.set_webhook(&key, "http://127.0.0.1:9/hook");
    deployment.add_rule(&key, "aq", "24h", "high");
    let server = deployment.serve(&["--workers", "0"]);

    let work = tempfile::tempdir().unwrap();
    // The key goes in through the config file, so that it is not on a command line, as the
    // document's security scheme; the `ignored_auth` check still tries without it.
    let config = work.path().join("schemathesis.toml");
    std::fs::write(
        &config,
        format!(
            "[auth.openapi.ApiKeyAuth]\napi_key = \"{}\"\n\n[generation]\nmax-examples = 40\n",
            key.key
        ),
    )
    .unwrap();
    let hooks = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/schemathesis");
    let output = Command::new(st)
        .current_dir(work.path())
        .env("SCHEMATHESIS_TELEMETRY", "false")
        .env("SCHEMATHESIS_HOOKS", "hooks")
        .env("PYTHONPATH", hooks)
        .arg("--no-color")
        .arg("--config-file")
        .arg(&config)
        .arg("run")
        .arg(server.url("/insights/v1/openapi.json"))
        .args(["--url", &server.base])
        .args(["--checks", "all"])
        // The run is short and the machine small: deterministic generation keeps CI
        // reproducible, and a seed makes a failure repeatable.
        .args(["--seed", "20261121"])
        .args(["--request-timeout", "30"])
        .args(["--report", "junit"])
        .args(["--report-dir", &work.path().display().to_string()])
        .output()
        .unwrap_or_else(|e| panic!("schemathesis could not start ({e}); {INSTALL}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "schemathesis found problems ({}):\n{stdout}\n{stderr}",
        output.status
    );
    // A run whose key went unused would only have tested refusals.
    assert!(
        !stdout.contains("Unused OpenAPI auth"),
        "the key was not used as the document's security scheme:\n{stdout}"
    );
    // A run that tested nothing would pass too: every operation must appear in the report.
    let report: String = std::fs::read_dir(work.path())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".xml"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    for operation in [
        "POST /insights/v1/cleanest-route",
        "GET /insights/v1/files/{name}",
        "HEAD /insights/v1/files/{name}",
        "GET /insights/v1/conditions",
        "GET /insights/v1/forecast",
        "GET /insights/v1/history",
        "GET /insights/v1/pollen",
        "HEAD /insights/v1/forecast",
        "HEAD /insights/v1/history",
        "GET /healthz",
        "GET /readyz",
        "GET /metrics",
    ] {
        assert!(
            report.contains(&format!("name=\"{operation}\"")),
            "schemathesis did not test {operation}:\n{stdout}\n{report}"
        );
    }
    // The server stayed up throughout.
    assert!(
        server.log().lines().all(|l| !l.contains("panicked")),
        "{}",
        server.log()
    );
}
