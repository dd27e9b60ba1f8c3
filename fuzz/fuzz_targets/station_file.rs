//! Station files, CSV and GeoJSON, as an operator's file or a download may hold anything. Any
//! bytes are either refused with an error that names a line of the file and a column of its
//! header (CSV) or a feature of the file and a field of it (GeoJSON), or loaded: readings
//! no more than the rows or features hold, values finite and not negative, and the readings as
//! taken written out again, in either format, load to the very same readings.

#![no_main]

use std::fmt::Write as _;

use aq_core::{Area, ObservationQuery, Pollutant, StationSeries};
use aq_sources::{StationFile, StationFileConfig, StationFileError};
use chrono::{DateTime, Datelike, SecondsFormat, Utc};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

fuzz_target!(|data: &[u8]| {
    check_csv(data);
    check_geojson(data);
});

/// Every reading of every station, from the beginning to the end of time.
fn readings(file: &StationFile) -> Vec<StationSeries> {
    file.observed(&ObservationQuery {
        area: Area::WORLD,
        from: DateTime::<Utc>::MIN_UTC,
        to: DateTime::<Utc>::MAX_UTC,
        max_stations: usize::MAX,
    })
}

fn check_csv(data: &[u8]) {
    // Lines as the csv crate counts them: a line ends at `\n`, at `\r` not followed by `\n`,
    // or at the end of the file.
    let lines = 1 + data
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && data.get(i + 1) != Some(&b'\n')))
        .count() as u64;
    match StationFile::from_csv_reader(data, StationFileConfig::default()) {
        Ok(file) => {
            // The header takes a line.
            assert!((file.reading_count() as u64) < lines, "{lines} lines");
            check_loaded(&file);
        }
        Err(StationFileError::Csv { line, message }) => {
            assert!(line <= lines, "line {line} of {lines}: {message}");
        }
        Err(StationFileError::CsvField {
            line,
            column,
            message,
        }) => {
            assert!(
                (2..=lines).contains(&line),
                "line {line} of {lines}: {message}"
            );
            // A column the header names, as written there (trimmed, as cells are).
            let header = csv::ReaderBuilder::new()
                .trim(csv::Trim::All)
                .comment(Some(b'#'))
                .from_reader(data)
                .headers()
                .map(|h| h.iter().any(|name| name == column))
                .unwrap_or(false);
            assert!(header, "column `{column}` is not in the header: {message}");
            assert!(!message.is_empty());
        }
        Err(StationFileError::MovedStation { lon, lat, .. }) => {
            assert!(lon.is_finite() && lat.is_finite());
        }
        Err(StationFileError::CsvHeader(message)) => assert!(!message.is_empty()),
        Err(StationFileError::Empty) => {}
        Err(e) => panic!("a CSV file refused as {e}"),
    }
}

fn check_geojson(data: &[u8]) {
    match StationFile::from_geojson_reader(data, StationFileConfig::default()) {
        Ok(file) => check_loaded(&file),
        Err(StationFileError::GeoJsonField {
            feature,
            field,
            message,
        }) => {
            // The feature is one of the file's: a collection's, or the one feature it is.
            let doc: Value = serde_json::from_slice(data)
                .unwrap_or_else(|e| panic!("feature {feature} of a file that is not JSON: {e}"));
            let features = doc["features"].as_array().map_or(1, Vec::len);
            assert!(feature < features, "feature {feature} of {features}");
            assert!(
                field.starts_with("geometry") || field.starts_with("properties"),
                "field {field:?} of feature {feature}: {message}"
            );
        }
        Err(StationFileError::GeoJson(message)) => assert!(!message.is_empty()),
        Err(StationFileError::MovedStation { lon, lat, .. }) => {
            assert!(lon.is_finite() && lat.is_finite());
        }
        Err(StationFileError::Empty) => {}
        Err(e) => panic!("a GeoJSON file refused as {e}"),
    }
}

fn check_loaded(file: &StationFile) {
    assert!(file.station_count() >= 1);
    assert!(file.reading_count() >= file.station_count());
    let taken = readings(file);
    for series in &taken {
        for r in &series.readings {
            assert!(r.value.is_finite() && r.value >= 0.0, "{series:?}");
        }
    }
    // RFC 3339 writes years 0 to 9999 only: a reading outside them cannot be written back.
    let writable = taken
        .iter()
        .flat_map(|s| &s.readings)
        .all(|r| (0..=9999).contains(&r.time.year()));
    if !writable {
        return;
    }
    // CSV cells are trimmed, so an id with white space around it has no CSV spelling.
    let csv_ids = taken.iter().all(|s| s.station.0.trim() == s.station.0);
    if csv_ids {
        let again = StationFile::from_csv_str(&as_csv(&taken), StationFileConfig::default());
        match again {
            Ok(again) => assert_eq!(readings(&again), taken, "written as CSV"),
            // Stations with no pollutant at all give no readings as taken.
            Err(StationFileError::Empty) => assert!(taken.is_empty()),
            Err(e) => panic!("the readings written as CSV are refused: {e}"),
        }
    }
    let again = StationFile::from_geojson_str(&as_geojson(&taken), StationFileConfig::default());
    match again {
        Ok(again) => {
            let again = readings(&again);
            assert!(
                again.len() == taken.len() && again.iter().zip(&taken).all(|(a, t)| same(a, t)),
                "written as GeoJSON: {again:?}, taken {taken:?}"
            );
        }
        Err(StationFileError::Empty) => assert!(taken.is_empty()),
        Err(e) => panic!("the readings written as GeoJSON are refused: {e}"),
    }
}

/// Equal series, numbers within a unit in the last place: serde_json's default reading of a
/// number may land next to the one it wrote.
fn same(a: &StationSeries, b: &StationSeries) -> bool {
    let close = |x: f64, y: f64| x == y || (x - y).abs() <= f64::EPSILON * x.abs().max(y.abs());
    a.station == b.station
        && a.pollutant == b.pollutant
        && close(a.position.lon(), b.position.lon())
        && close(a.position.lat(), b.position.lat())
        && a.readings.len() == b.readings.len()
        && a.readings
            .iter()
            .zip(&b.readings)
            .all(|(x, y)| x.time == y.time && close(x.value, y.value))
}

/// The column or member a station file names `pollutant` by.
fn key(pollutant: Pollutant) -> &'static str {
    match pollutant {
        Pollutant::Pm25 => "pm25",
        Pollutant::Pm10 => "pm10",
        Pollutant::No2 => "no2",
        Pollutant::O3 => "o3",
        Pollutant::So2 => "so2",
        Pollutant::Co => "co",
    }
}

fn time_text(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// One row a reading, in the order taken; `{}` writes the shortest text of an `f64` that
/// reads back as the same number.
fn as_csv(taken: &[StationSeries]) -> String {
    let mut out = String::from("station_id,lon,lat,time");
    for p in Pollutant::ALL {
        let _ = write!(out, ",{}", key(p));
    }
    out.push('\n');
    for series in taken {
        for r in &series.readings {
            let cells = Pollutant::ALL.map(|p| {
                if p == series.pollutant {
                    r.value.to_string()
                } else {
                    String::new()
                }
            });
            let _ = writeln!(
                out,
                "\"{}\",{},{},{},{}",
                series.station.0.replace('"', "\"\""),
                series.position.lon(),
                series.position.lat(),
                time_text(r.time),
                cells.join(",")
            );
        }
    }
    out
}

fn as_geojson(taken: &[StationSeries]) -> String {
    let features: Vec<Value> = taken
        .iter()
        .map(|series| {
            let readings: Vec<Value> = series
                .readings
                .iter()
                .map(|r| json!({"time": time_text(r.time), key(series.pollutant): r.value}))
                .collect();
            json!({
                "type": "Feature",
                "geometry": {"type": "Point",
                             "coordinates": [series.position.lon(), series.position.lat()]},
                "properties": {"station_id": series.station.0, "readings": readings},
            })
        })
        .collect();
    json!({"type": "FeatureCollection", "features": features}).to_string()
}
