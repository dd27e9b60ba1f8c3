//! The answers of OpenAQ and Open-Meteo, as bytes from across the network. Any bytes are either
//! refused as an invalid answer of the service, or read: OpenAQ's page of locations gives, in
//! its order, locations that are in it as sent (placed, not mobile, with sensors of the
//! parameters asked for) and counts them all; its latest values are each sensor's newest
//! value as sent; Open-Meteo's answer gives, for exactly the locations asked for, hours of
//! the times it lists with values finite and not negative, pollen the sum of its species.

#![no_main]

use std::collections::BTreeMap;
use std::sync::LazyLock;

use aq_core::{Pollutant, SourceError};
use aq_sources::OpenAqConfig;
use aq_sources::open_meteo::answer;
use aq_sources::openaq::answers::{Location, LocationsPage, read_latest, read_locations};
use chrono::{DateTime, NaiveDateTime};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// OpenAQ's parameter ids and the pollutants they count as, by default.
static PARAMETERS: LazyLock<BTreeMap<u32, Pollutant>> =
    LazyLock::new(|| OpenAqConfig::default().parameters);

fuzz_target!(|data: &[u8]| {
    let doc = serde_json::from_slice::<Value>(data).ok();
    check_locations(data, doc.as_ref());
    check_latest(data, doc.as_ref());
    check_open_meteo(data, doc.as_ref());
});

fn refused_as_invalid(e: &SourceError, service: &str) {
    match e {
        SourceError::InvalidResponse(message) => {
            assert!(message.starts_with(service), "{message}");
        }
        other => panic!("an answer refused as {other:?}"),
    }
}

fn rfc3339(v: &Value) -> Option<i64> {
    DateTime::parse_from_rfc3339(v.as_str()?)
        .ok()
        .map(|t| t.timestamp())
}

fn check_locations(data: &[u8], doc: Option<&Value>) {
    let page = match read_locations(data, &PARAMETERS) {
        Ok(page) => page,
        Err(e) => return refused_as_invalid(&e, "OpenAQ"),
    };
    let LocationsPage { usable, listed } = page;
    let results = doc
        .and_then(|d| d["results"].as_array())
        .unwrap_or_else(|| panic!("a page without a `results` list was read"));
    assert_eq!(listed, results.len());
    assert!(usable.len() <= listed);
    // Each usable location is one of the page's as sent, in the page's order (ids may
    // repeat).
    let mut rest = results.iter();
    for location in &usable {
        assert!(!location.sensors.is_empty(), "{location:?}");
        assert!(
            rest.any(|sent| sent_as(location, sent)),
            "{location:?} is not in the page as sent, or out of order"
        );
    }
}

/// Whether `sent` is the location read as `location`.
fn sent_as(location: &Location, sent: &Value) -> bool {
    let sensor_sent = |(id, pollutant, unit): &(u64, Pollutant, String)| {
        sent["sensors"].as_array().into_iter().flatten().any(|s| {
            let parameter = &s["parameter"];
            s["id"].as_u64() == Some(*id)
                && parameter["units"].as_str() == Some(unit.as_str())
                && parameter["id"]
                    .as_u64()
                    .and_then(|p| u32::try_from(p).ok())
                    .and_then(|p| PARAMETERS.get(&p))
                    == Some(pollutant)
        })
    };
    sent["id"].as_u64() == Some(location.id)
        && sent["isMobile"].as_bool() != Some(true)
        && sent["coordinates"]["latitude"].as_f64() == Some(location.position.lat())
        && sent["coordinates"]["longitude"].as_f64() == Some(location.position.lon())
        && location.monitor == (sent["isMonitor"].as_bool() == Some(true))
        && location.last == rfc3339(&sent["datetimeLast"]["utc"])
        && location.sensors.iter().all(sensor_sent)
}

fn check_latest(data: &[u8], doc: Option<&Value>) {
    let latest = match read_latest(data) {
        Ok(latest) => latest,
        Err(e) => return refused_as_invalid(&e, "OpenAQ"),
    };
    let results = doc
        .and_then(|d| d["results"].as_array())
        .unwrap_or_else(|| panic!("latest values without a `results` list were read"));
    for (sensor, &(time, value)) in &latest {
        assert!(value.is_finite());
        // Every value of the sensor that has one, with its time.
        let sent: Vec<(i64, f64)> = results
            .iter()
            .filter(|r| r["sensorsId"].as_u64() == Some(*sensor))
            .filter_map(|r| Some((rfc3339(&r["datetime"]["utc"])?, r["value"].as_f64()?)))
            .collect();
        assert!(sent.contains(&(time, value)), "sensor {sensor}: {sent:?}");
        assert!(
            sent.iter().all(|&(t, _)| t <= time),
            "sensor {sensor}: {sent:?}"
        );
    }
    // No sensor with a value is lost.
    for r in results {
        if let (Some(sensor), Some(_)) = (r["sensorsId"].as_u64(), r["value"].as_f64()) {
            assert!(latest.contains_key(&sensor), "{r}");
        }
    }
}

/// The hour since the epoch of a time as Open-Meteo may send it.
fn hour_of(t: &Value) -> Option<i64> {
    match t {
        Value::Number(n) => n.as_i64().map(|s| s.div_euclid(3600)),
        Value::String(s) => NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M")
            .ok()
            .map(|t| t.and_utc().timestamp().div_euclid(3600)),
        _ => None,
    }
}

fn check_open_meteo(data: &[u8], doc: Option<&Value>) {
    // As many locations as the answer holds, and one more: a list answers that many, an
    // object one.
    let held = match doc {
        Some(Value::Array(list)) => list.len(),
        _ => 1,
    };
    match answer::read(data, held + 1) {
        Err(SourceError::InvalidResponse(message) | SourceError::Refused(message)) => {
            assert!(message.starts_with("Open-Meteo"), "{message}");
        }
        Err(other) => panic!("an answer refused as {other:?}"),
        Ok(read) => panic!("{} locations read for {} asked", read.len(), held + 1),
    }
    let read = match answer::read(data, held) {
        Ok(read) => read,
        Err(SourceError::InvalidResponse(message) | SourceError::Refused(message)) => {
            assert!(message.starts_with("Open-Meteo"), "{message}");
            return;
        }
        Err(other) => panic!("an answer refused as {other:?}"),
    };
    assert_eq!(read.len(), held);
    let locations: Vec<&Value> = match doc {
        Some(Value::Array(list)) => list.iter().collect(),
        Some(object) => vec![object],
        None => panic!("an answer that is not JSON was read"),
    };
    for (hours, location) in read.iter().zip(locations) {
        let times: Vec<i64> = location["hourly"]["time"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(hour_of)
            .collect();
        assert_eq!(
            hours.len(),
            times
                .iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        );
        for (hour, values) in hours {
            assert!(times.contains(hour), "hour {hour} is not one of {times:?}");
            for v in values.pollutants.iter().chain(&values.pollen).flatten() {
                assert!(
                    v.is_finite() && *v >= 0.0,
                    "{values:?} at hour {hour} of {location}"
                );
            }
        }
    }
}
