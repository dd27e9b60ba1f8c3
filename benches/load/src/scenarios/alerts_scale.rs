//! Alerts at scale: one alert request of N points with two rules on the real server, from the
//! POST to the receiver's verified webhook, then the file downloaded as a stream; the time of
//! each and the server's peak memory. Run at two sizes, the peaks show whether memory grows
//! with the number of points. With `--requests N` the same request is posted again to the same
//! server once each is delivered: the later ones find in memory what the first read (chunks)
//! or computed (the demo field's blocks), as the hourly requests of a deployment do.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::memory::{MemoryReading, MemoryReport, MemorySampler, mib};
use crate::scenarios::ms;
use crate::server::Installation;
use crate::{client, figure, requests};
use test_support::receiver::Receiver;

/// The two rules: air quality a day ahead and pollen two days ahead, both at high sensitivity
/// so that many points raise alerts.
pub const RULES: [(&str, &str, &str); 2] = [("aq", "24h", "high"), ("pollen", "2d", "high")];

/// The air-quality source the server answers from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScaleSource {
    /// The demo field (`--aq-source demo`), points around large cities of every continent.
    Demo,
    /// CAMS-like grids the load tool writes first (`--aq-source cams:DIR`, see
    /// [`crate::cams`]), points around six European cities and two outside Europe.
    Cams,
    /// The same grids corrected by 320 stations around the same cities, twelve hours of
    /// PM2.5 and NO₂ each (`--fuse-stations stations:FILE`): the fused nowcast.
    CamsFused,
}

impl ScaleSource {
    fn name(self) -> &'static str {
        match self {
            ScaleSource::Demo => "demo",
            ScaleSource::Cams => "cams",
            ScaleSource::CamsFused => "cams-fused",
        }
    }
}

/// How to run it.
#[derive(Debug, Clone)]
pub struct ScaleOptions {
    /// Points in the request.
    pub points: usize,
    /// How long the delivery may take.
    pub patience: Duration,
    /// What the server answers from.
    pub source: ScaleSource,
    /// Requests posted one after the other (at least one).
    pub requests: usize,
}

/// One request after the first: from the POST to its 200, and to its verified webhook.
#[derive(Debug, Clone, Copy)]
pub struct LaterRequest {
    /// From sending the POST to its 200.
    pub accepted_in: Duration,
    /// From sending the POST to the verified webhook.
    pub post_to_webhook: Duration,
}

/// What was measured.
#[derive(Debug, Clone)]
pub struct ScaleResult {
    /// Points posted.
    pub points: usize,
    /// What the server answered from.
    pub source: ScaleSource,
    /// Bytes of grids written before the server started (none for the demo field).
    pub grid_bytes: u64,
    /// How long writing them took.
    pub grid_written_in: Duration,
    /// The request body's size, in bytes.
    pub body_bytes: usize,
    /// From sending the POST to its 200.
    pub accepted_in: Duration,
    /// From sending the POST to the verified webhook.
    pub post_to_webhook: Duration,
    /// The download of the file.
    pub download: client::Download,
    /// Alerts the server recorded for the request.
    pub alerts_recorded: u64,
    /// The server's peak memory before the POST (start-up), in KiB.
    pub peak_before_kib: u64,
    /// The server's memory over the run.
    pub memory: MemoryReport,
    /// The requests posted after the first, in turn.
    pub later: Vec<LaterRequest>,
}

impl ScaleResult {
    /// Prints the figures.
    pub fn print(&self) {
        let s = format!(
            "alerts-scale[{}, {} points]",
            self.source.name(),
            self.points
        );
        if self.source != ScaleSource::Demo {
            figure(
                &s,
                "grids written before start",
                format!(
                    "{:.0} MiB in {}",
                    self.grid_bytes as f64 / f64::from(1 << 20),
                    ms(self.grid_written_in)
                ),
            );
        }
        figure(&s, "request body", format!("{} bytes", self.body_bytes));
        figure(&s, "POST to 200", ms(self.accepted_in));
        figure(&s, "POST to webhook", ms(self.post_to_webhook));
        figure(
            &s,
            "points per second, POST to webhook",
            format!(
                "{:.0}",
                self.points as f64 / self.post_to_webhook.as_secs_f64().max(1e-9)
            ),
        );
        figure(
            &s,
            "download",
            format!(
                "{} ({} lines, {} bytes, largest chunk {} bytes)",
                ms(self.download.elapsed),
                self.download.lines,
                self.download.bytes,
                self.download.largest_chunk
            ),
        );
        for (k, later) in self.later.iter().enumerate() {
            figure(
                &s,
                &format!("request {}: POST to 200 / to webhook", k + 2),
                format!(
                    "{} / {} ({:.0} points/s)",
                    ms(later.accepted_in),
                    ms(later.post_to_webhook),
                    self.points as f64 / later.post_to_webhook.as_secs_f64().max(1e-9)
                ),
            );
        }
        figure(
            &s,
            "server peak memory (VmHWM) before the POST",
            format!("{:.1} MiB", mib(self.peak_before_kib)),
        );
        figure(
            &s,
            "server peak memory (VmHWM)",
            format!(
                "{:.1} MiB (+{:.1} MiB over start-up)",
                mib(self.memory.peak_kib),
                mib(self.memory.peak_kib.saturating_sub(self.peak_before_kib))
            ),
        );
        figure(
            &s,
            "server resident memory (VmRSS, MiB) over time",
            self.memory.timeline(8),
        );
    }
}

/// A station CSV of 40 stations within about 30 km of each of [`requests::GRID_CITIES`], each
/// with PM2.5 and NO₂ every hour of the twelve up to `now`: steady, a little above or below
/// the grids, never the same value twice in a row (a steady reading is not a stuck one).
fn stations_csv(now: chrono::DateTime<chrono::Utc>) -> String {
    use chrono::{DurationRound, TimeDelta};
    let hour = now.duration_trunc(TimeDelta::hours(1)).unwrap_or(now);
    let mut csv = String::from("station_id,lon,lat,time,pm25,no2\n");
    for (c, (lon, lat)) in requests::GRID_CITIES.iter().enumerate() {
        for i in 0..40u32 {
            let angle = f64::from(i) * 0.61;
            let reach = 0.05 + 0.25 * f64::from(i % 7) / 6.0;
            let (x, y) = (lon + reach * angle.cos(), lat + 0.6 * reach * angle.sin());
            for h in (0..12).rev() {
                let t = hour - TimeDelta::hours(h);
                let wiggle = 0.3 * f64::from(u32::try_from(h % 3).unwrap_or(0));
                let pm25 = 8.0 + f64::from(i % 9) + wiggle;
                let no2 = 18.0 + 2.0 * f64::from(i % 5) + wiggle;
                csv.push_str(&format!(
                    "S{c}{i:02},{x:.4},{y:.4},{},{pm25:.1},{no2:.1}\n",
                    t.format("%Y-%m-%dT%H:%M:%SZ")
                ));
            }
        }
    }
    csv
}

/// Runs it against a fresh installation of the server at `server_bin`.
///
/// # Errors
/// When anything fails: the server, the POST, the delivery, its signature, or the file's line
/// count disagreeing with the alerts the server recorded.
pub async fn run(server_bin: &Path, options: &ScaleOptions) -> Result<ScaleResult> {
    let mut config = format!("max_points = {}\n", options.points.max(10_000));
    // Kept until the server is gone.
    let grids = tempfile::Builder::new()
        .prefix("insights-load-cams-")
        .tempdir()
        .context("cannot make a directory for the grids")?;
    let (mut grid_bytes, mut grid_written_in) = (0, Duration::ZERO);
    if options.source != ScaleSource::Demo {
        let started = Instant::now();
        grid_bytes = crate::cams::write(grids.path(), chrono::Utc::now()).await?;
        grid_written_in = started.elapsed();
        config.push_str(&format!(
            "aq_source = {:?}\n",
            format!("cams:{}", grids.path().display())
        ));
    }
    if options.source == ScaleSource::CamsFused {
        let file = grids.path().join("stations.csv");
        std::fs::write(&file, stations_csv(chrono::Utc::now()))
            .context("cannot write the stations")?;
        config.push_str(&format!(
            "fuse_stations = {:?}\n",
            format!("stations:{}", file.display())
        ));
    }
    let installation = Installation::new(server_bin, &config)?;
    let key = installation.new_key()?;
    let receiver = Receiver::verifying(&key.secret).await;
    installation.set_webhook(&key, &receiver.url("/hook"))?;
    for (data_type, forecast, sensitivity) in RULES {
        installation.add_rule(&key, data_type, forecast, sensitivity)?;
    }
    let server = installation.serve()?;
    let sampler = MemorySampler::start(server.pid, Duration::from_millis(10));
    // Let start-up settle, so that "before" means the server at rest.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let peak_before_kib = MemoryReading::of(server.pid)?.hwm_kib;

    let body = match options.source {
        ScaleSource::Demo => requests::points(options.points),
        ScaleSource::Cams | ScaleSource::CamsFused => {
            requests::points_around(options.points, &requests::GRID_CITIES)
        }
    };
    let body_bytes = body.len();
    let url = format!("{}{}", server.base, requests::api_path(&key.key));
    let post = async || {
        let posted = Instant::now();
        let reply = client::post_json(&url, body.clone()).await?;
        let accepted_in = posted.elapsed();
        if reply.status != 200 {
            bail!(
                "the alert request was answered {}: {}",
                reply.status,
                String::from_utf8_lossy(&reply.body)
            );
        }
        let answer: serde_json::Value = serde_json::from_slice(&reply.body)?;
        let token = answer["data"]["token"]
            .as_str()
            .context("the 200 carries no token")?
            .to_owned();
        let Some(delivered) = receiver.wait_for(&token, options.patience).await else {
            let (refused, why) = receiver.refused();
            bail!(
                "no delivery of {token} within {:?} ({refused} refused{})\nserver log:\n{}",
                options.patience,
                why.map(|w| format!(": {w}")).unwrap_or_default(),
                server.log_tail(30)
            );
        };
        Ok((posted, accepted_in, token, delivered))
    };
    let (posted, accepted_in, token, delivered) = post().await?;
    let arrived = delivered.arrived;
    let file_url = delivered.json["URL"]
        .as_str()
        .context("the delivery carries no URL")?
        .to_owned();
    let post_to_webhook = arrived.duration_since(posted);

    let download = client::download(&file_url).await?;
    if download.status != 200 {
        bail!("the file download was answered {}", download.status);
    }
    // Give the sampler a last look after the download.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let memory = sampler.stop();

    let alerts_recorded = recorded_alerts(&installation, &key.id, &token)?;
    if alerts_recorded != download.lines {
        bail!(
            "the file has {} lines but the server recorded {alerts_recorded} alerts",
            download.lines
        );
    }
    let mut later = Vec::new();
    for _ in 1..options.requests {
        let (posted, accepted_in, _, delivered) = post().await?;
        later.push(LaterRequest {
            accepted_in,
            post_to_webhook: delivered.arrived.duration_since(posted),
        });
    }
    drop(server);
    drop(grids);
    Ok(ScaleResult {
        points: options.points,
        source: options.source,
        grid_bytes,
        grid_written_in,
        body_bytes,
        accepted_in,
        post_to_webhook,
        download,
        alerts_recorded,
        peak_before_kib,
        memory,
        later,
    })
}

fn recorded_alerts(installation: &Installation, key_id: &str, token: &str) -> Result<u64> {
    let list = installation.admin(&["list-deliveries", "--key", key_id, "--limit", "10"])?;
    list.as_array()
        .and_then(|records| records.iter().find(|r| r["token"] == token))
        .and_then(|r| r["alerts"].as_u64())
        .with_context(|| format!("list-deliveries shows no alert count for {token}: {list}"))
}
