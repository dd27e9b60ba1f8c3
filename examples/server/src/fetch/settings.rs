//! The settings of `fetch` and `serve --fetch-cams`: flags and `INSIGHTS_ADS_*` variables, else
//! the config file's `fetch_cams` key and `[ads]` table, else the defaults. The key is never a
//! flag (argv is visible to every user of the machine): `INSIGHTS_ADS_KEY`, or a file.

use std::path::{Path, PathBuf};

use clap::Args;
use insights_ads::{Area, EUROPE_MODELS, EUROPE_VARIABLES, GLOBAL_VARIABLES, PUBLIC_ADS_URL};
use serde::Deserialize;

/// The variable the key is read from.
pub(crate) const KEY_VAR: &str = "INSIGHTS_ADS_KEY";

/// The ADS flags, accepted before or after the subcommand.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct AdsArgs {
    /// `serve`: fetch the newest CAMS runs from the ADS on the products' publication schedule
    /// and ingest them into `--aq-source cams:...` (one replica at a time) [default: off].
    #[arg(long, env = "INSIGHTS_FETCH_CAMS", global = true, num_args = 0..=1,
          default_missing_value = "true", value_name = "BOOL")]
    pub(crate) fetch_cams: Option<bool>,

    /// The root of ECMWF's Data Stores API [default: https://ads.atmosphere.copernicus.eu/api].
    #[arg(long, env = "INSIGHTS_ADS_URL", global = true, value_name = "URL")]
    pub(crate) ads_url: Option<String>,

    /// A file holding the ADS API key (the key may instead be in INSIGHTS_ADS_KEY; never a
    /// flag).
    #[arg(
        long,
        env = "INSIGHTS_ADS_KEY_FILE",
        global = true,
        value_name = "PATH"
    )]
    pub(crate) ads_key_file: Option<PathBuf>,

    /// Fetch only this region, `N,W,S,E` in degrees [default: each product's whole domain].
    #[arg(long, env = "INSIGHTS_ADS_AREA", global = true, value_name = "N,W,S,E")]
    pub(crate) ads_area: Option<String>,

    /// The products fetched, comma-separated: `global`, `europe` [default: both].
    #[arg(
        long,
        env = "INSIGHTS_ADS_PRODUCTS",
        global = true,
        value_delimiter = ',',
        value_name = "PRODUCTS"
    )]
    pub(crate) ads_products: Option<Vec<String>>,

    /// The European model: `ensemble` (the median of the others) or one model by its ADS name
    /// [default: ensemble].
    #[arg(
        long,
        env = "INSIGHTS_ADS_EUROPE_MODEL",
        global = true,
        value_name = "MODEL"
    )]
    pub(crate) ads_europe_model: Option<String>,

    /// Hours of the European forecast fetched, 0 to 96 [default: 96].
    #[arg(
        long,
        env = "INSIGHTS_ADS_EUROPE_HOURS",
        global = true,
        value_name = "HOURS"
    )]
    pub(crate) ads_europe_hours: Option<u32>,

    /// Hours of the global forecast fetched, 0 to 120 [default: 120].
    #[arg(
        long,
        env = "INSIGHTS_ADS_GLOBAL_HOURS",
        global = true,
        value_name = "HOURS"
    )]
    pub(crate) ads_global_hours: Option<u32>,

    /// Where downloads are kept until ingested; a download cut short resumes from there
    /// [default: ads-staging in the data directory].
    #[arg(long, env = "INSIGHTS_ADS_STAGING", global = true, value_name = "DIR")]
    pub(crate) ads_staging: Option<PathBuf>,
}

/// The `[ads]` table of the config file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AdsFile {
    url: Option<String>,
    key_file: Option<PathBuf>,
    area: Option<String>,
    products: Option<Vec<String>>,
    europe_model: Option<String>,
    europe_hours: Option<u32>,
    global_hours: Option<u32>,
    /// ADS names of the European variables [default: every pollutant and pollen served].
    europe_variables: Option<Vec<String>>,
    /// ADS names of the global variables [default: every pollutant served].
    global_variables: Option<Vec<String>>,
    staging: Option<PathBuf>,
}

/// The resolved ADS settings (the key is read when a fetch starts, and kept out of these).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AdsSettings {
    /// Whether `serve` fetches on a schedule.
    pub(crate) fetch_cams: bool,
    /// The API root.
    pub(crate) url: String,
    /// The file holding the key, if not in [`KEY_VAR`].
    pub(crate) key_file: Option<PathBuf>,
    /// The region, if not the whole of each product.
    pub(crate) area: Option<Area>,
    /// Fetch the global product.
    pub(crate) global: bool,
    /// Fetch the European product.
    pub(crate) europe: bool,
    /// The European model.
    pub(crate) europe_model: String,
    /// Hours of the European forecast.
    pub(crate) europe_hours: u32,
    /// Hours of the global forecast.
    pub(crate) global_hours: u32,
    /// ADS names of the European variables.
    pub(crate) europe_variables: Vec<String>,
    /// ADS names of the global variables.
    pub(crate) global_variables: Vec<String>,
    /// The staging directory.
    pub(crate) staging: PathBuf,
}

impl AdsSettings {
    /// `args` over `file` over the defaults.
    pub(crate) fn resolve(
        args: &AdsArgs,
        file_fetch: Option<bool>,
        file: Option<AdsFile>,
        data_dir: &Path,
    ) -> Result<Self, String> {
        let file = file.unwrap_or_default();
        let area = args
            .ads_area
            .clone()
            .or(file.area)
            .filter(|a| !a.is_empty())
            .map(|a| Area::parse(&a))
            .transpose()?;
        let products = args
            .ads_products
            .clone()
            .or(file.products)
            .unwrap_or_else(|| vec!["global".to_owned(), "europe".to_owned()]);
        for p in &products {
            if p != "global" && p != "europe" {
                return Err(format!("ADS products are `global` and `europe`, got `{p}`"));
            }
        }
        let europe_model = args
            .ads_europe_model
            .clone()
            .or(file.europe_model)
            .unwrap_or_else(|| "ensemble".to_owned());
        if !EUROPE_MODELS.contains(&europe_model.as_str()) {
            return Err(format!(
                "the European model is one of {}, got `{europe_model}`",
                EUROPE_MODELS.join(", ")
            ));
        }
        let europe_hours = args.ads_europe_hours.or(file.europe_hours).unwrap_or(96);
        let global_hours = args.ads_global_hours.or(file.global_hours).unwrap_or(120);
        if europe_hours > 96 || global_hours > 120 {
            return Err(format!(
                "the ADS has 96 hours of the European forecast and 120 of the global one, \
                 got {europe_hours} and {global_hours}"
            ));
        }
        let url = args
            .ads_url
            .clone()
            .or(file.url)
            .unwrap_or_else(|| PUBLIC_ADS_URL.to_owned());
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            return Err(format!("--ads-url must be an http(s) URL, got `{url}`"));
        }
        Ok(AdsSettings {
            fetch_cams: args.fetch_cams.or(file_fetch).unwrap_or(false),
            url,
            key_file: args.ads_key_file.clone().or(file.key_file),
            area,
            global: products.iter().any(|p| p == "global"),
            europe: products.iter().any(|p| p == "europe"),
            europe_model,
            europe_hours,
            global_hours,
            europe_variables: file
                .europe_variables
                .unwrap_or_else(|| EUROPE_VARIABLES.iter().map(|v| (*v).to_owned()).collect()),
            global_variables: file
                .global_variables
                .unwrap_or_else(|| GLOBAL_VARIABLES.iter().map(|v| (*v).to_owned()).collect()),
            staging: args
                .ads_staging
                .clone()
                .or(file.staging)
                .unwrap_or_else(|| data_dir.join("ads-staging")),
        })
    }

    /// The API key: [`KEY_VAR`], else the key file's first line.
    pub(crate) fn key(&self) -> Result<String, String> {
        if let Some(key) = std::env::var(KEY_VAR).ok().filter(|k| !k.trim().is_empty()) {
            return Ok(key.trim().to_owned());
        }
        let Some(path) = &self.key_file else {
            return Err(format!(
                "the ADS API key is needed: set {KEY_VAR}, or --ads-key-file PATH (the key \
                 is on your ADS profile page)"
            ));
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the ADS key file {}: {e}", path.display()))?;
        let key = text.lines().next().unwrap_or_default().trim();
        if key.is_empty() {
            return Err(format!("the ADS key file {} is empty", path.display()));
        }
        Ok(key.to_owned())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn defaults_fetch_both_products_whole_and_flags_win_over_the_file() {
        let dir = Path::new("/data");
        let ads = AdsSettings::resolve(&AdsArgs::default(), None, None, dir).unwrap();
        assert!(!ads.fetch_cams && ads.global && ads.europe);
        assert_eq!(ads.url, PUBLIC_ADS_URL);
        assert_eq!((ads.europe_hours, ads.global_hours), (96, 120));
        assert_eq!(ads.europe_model, "ensemble");
        assert_eq!(ads.europe_variables.len(), 12);
        assert_eq!(ads.staging, dir.join("ads-staging"));

        let file: AdsFile =
            toml::from_str("products = [\"europe\"]\neurope_hours = 48\narea = \"60,-10,35,30\"")
                .unwrap();
        let args = AdsArgs {
            ads_europe_hours: Some(24),
            ..AdsArgs::default()
        };
        let ads = AdsSettings::resolve(&args, Some(true), Some(file), dir).unwrap();
        assert!(ads.fetch_cams && ads.europe && !ads.global);
        assert_eq!(ads.europe_hours, 24);
        assert_eq!(ads.area.unwrap().north, 60.0);
    }

    #[test]
    fn out_of_range_settings_are_refused() {
        let dir = Path::new("/data");
        let bad = [
            AdsArgs {
                ads_global_hours: Some(121),
                ..AdsArgs::default()
            },
            AdsArgs {
                ads_europe_model: Some("mystery".to_owned()),
                ..AdsArgs::default()
            },
            AdsArgs {
                ads_products: Some(vec!["mars".to_owned()]),
                ..AdsArgs::default()
            },
            AdsArgs {
                ads_area: Some("1,2,3".to_owned()),
                ..AdsArgs::default()
            },
            AdsArgs {
                ads_url: Some("ftp://x".to_owned()),
                ..AdsArgs::default()
            },
        ];
        for args in bad {
            assert!(
                AdsSettings::resolve(&args, None, None, dir).is_err(),
                "{args:?}"
            );
        }
    }
}
