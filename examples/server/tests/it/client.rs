//! A client generated from the served OpenAPI document alone (openapi-python-client) calls
//! both operations of the shared path and the four lookups, and reads every answer as the document describes it: the proof that a
//! customer who starts from the document meets no surprise.

use std::path::Path;
use std::process::Command;

use test_support::find_tool;

use crate::harness::Deployment;

const INSTALL: &str = "install it with `python3 -m venv $HOME/.cache/insights/tools/openapi-client-venv \
     && $HOME/.cache/insights/tools/openapi-client-venv/bin/pip install openapi-python-client==0.29.1` \
     (as scripts/test does)";

#[test]
fn a_client_generated_from_the_document_calls_every_operation() {
    let Some(generator) = find_tool(
        "OPENAPI_CLIENT_BIN",
        "openapi-client-venv/bin/openapi-python-client",
        "openapi-python-client",
        INSTALL,
    ) else {
        return;
    };
    // The generator's own interpreter has the libraries the generated client imports.
    let python = generator.with_file_name("python");

    let deployment = Deployment::new();
    let key = deployment.new_key();
    deployment.set_webhook(&key, "http://127.0.0.1:9/hook");
    deployment.add_rule(&key, "aq", "24h", "high");
    let server = deployment.serve(&["--workers", "0"]);

    let work = tempfile::tempdir().unwrap();
    let config = work.path().join("generator.yml");
    std::fs::write(
        &config,
        "project_name_override: insights-client\npackage_name_override: insights_client\npost_hooks: []\n",
    )
    .unwrap();
    let generated = Command::new(&generator)
        .current_dir(work.path())
        .args(["generate", "--meta", "none", "--url"])
        .arg(server.url("/insights/v1/openapi.json"))
        .arg("--config")
        .arg(&config)
        .output()
        .unwrap_or_else(|e| panic!("openapi-python-client could not start ({e}); {INSTALL}"));
    assert!(
        generated.status.success() && work.path().join("insights_client").is_dir(),
        "the document did not generate a client:\n{}\n{}",
        String::from_utf8_lossy(&generated.stdout),
        String::from_utf8_lossy(&generated.stderr)
    );

    let calls = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/client/calls.py");
    let ran = Command::new(&python)
        .current_dir(work.path())
        .env("PYTHONPATH", work.path())
        .arg(&calls)
        .arg(&server.base)
        .arg(&key.key)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&ran.stdout);
    assert!(
        ran.status.success(),
        "the generated client met a surprise:\n{stdout}\n{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    for step in [
        "routes scored",
        "alerts accepted",
        "refusal parsed",
        "conditions read",
        "forecast read",
        "history read",
        "pollen read",
        "lookup refusal parsed",
    ] {
        assert!(stdout.contains(step), "{step} missing from:\n{stdout}");
    }
}
