//! `insights-server`: the environmental-insights server. With no arguments it serves the API
//! on 127.0.0.1:8080 with SQLite and files under `./insights-data` and the demo air-quality
//! field; `insights-server admin ...` manages accounts, keys and rules from a terminal,
//! `insights-server ingest ...` writes CAMS files as the grids `--aq-source cams:...` serves,
//! and `insights-server validate ...` scores a model's fusion with station readings.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod admin;
mod beside;
mod config;
mod dispatch;
mod fetch;
mod fusion;
mod ingest;
mod limits;
mod parts;
mod private;
mod serve;
mod streets;
mod validate;
mod wiring;

/// The environmental-insights server: cleanest-route scoring and air-quality and pollen alerts.
#[derive(Debug, Parser)]
#[command(name = "insights-server", version, about)]
struct Cli {
    #[command(flatten)]
    global: config::GlobalArgs,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the API and deliver alerts (the default).
    Serve,
    /// Write CAMS GRIB2 files into the grid store `--aq-source cams:DIR` (or
    /// `cams:s3://BUCKET/PREFIX`) servers read, once for every replica.
    Ingest {
        /// GRIB2 files, or directories of them.
        #[arg(required = true, value_name = "FILE_OR_DIR")]
        paths: Vec<std::path::PathBuf>,
    },
    /// Fetch the newest runs of the CAMS global and European forecasts from ECMWF's Atmosphere
    /// Data Store (key in INSIGHTS_ADS_KEY or --ads-key-file) and ingest them into the grid
    /// store of `--aq-source cams:...`; runs held already are not fetched again.
    Fetch,
    /// Score the fusion of `--aq-source` with `--fuse-stations` by leave-one-out
    /// cross-validation over the stations: RMSE, bias and correlation per pollutant, for the
    /// model alone and fused.
    Validate(validate::ValidateArgs),
    /// Manage accounts, keys, webhooks and rules.
    Admin {
        /// Print JSON instead of text.
        #[arg(long, global = true)]
        json: bool,
        // Boxed: `add-rule`'s options make the admin commands much larger than `serve`.
        #[command(subcommand)]
        command: Box<admin::AdminCommand>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let settings = match config::Settings::resolve(&cli.global) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let serving = !matches!(
        cli.command,
        Some(Command::Admin { .. } | Command::Validate(_))
    );
    init_tracing(settings.log_json, serving);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            None | Some(Command::Serve) => serve::run(settings).await,
            Some(Command::Admin { json, command }) => admin::run(&settings, *command, json).await,
            Some(Command::Ingest { paths }) => ingest::run(&settings, &paths).await,
            Some(Command::Fetch) => fetch::run(&settings).await,
            Some(Command::Validate(args)) => validate::run(&settings, &args).await,
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Logs go to stderr, so that admin output on stdout stays machine-readable. `RUST_LOG`
/// overrides the level.
fn init_tracing(json: bool, serving: bool) {
    let default = if serving { "info" } else { "warn" };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if json {
        builder.json().init();
    } else {
        builder.init();
    }
}
