//! Writes the fusion's synthetic test set (described in `tests/it/fusion_set.rs` and the
//! README) into a directory, and prints the command that validates it.
//!
//! ```text
//! cargo run --release -p insights-server --example fusion_set -- /tmp/fusion-set
//! ```
#![allow(clippy::unwrap_used, missing_docs)]

#[path = "../tests/it/fusion_set.rs"]
mod fusion_set;

#[tokio::main]
async fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: fusion_set DIR [SEED]");
        std::process::exit(2);
    };
    let seed = std::env::args()
        .nth(2)
        .map_or(fusion_set::SEED, |s| s.parse().unwrap());
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let set = fusion_set::write(&dir, seed).await;
    println!(
        "insights-server validate --aq-source cams:{} --fuse-stations stations:{} --until {} --hours {}",
        set.cams.display(),
        set.stations.display(),
        fusion_set::last_hour().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        fusion_set::HOURS
    );
}
