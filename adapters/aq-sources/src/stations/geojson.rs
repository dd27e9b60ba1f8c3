//! Reading station files in GeoJSON: `Point` features whose properties hold one reading or a
//! list of them. The `geojson` crate reads the document; this module reads the stations out of
//! its features.

use std::io::Read;

use geojson::{Feature, GeoJson, GeometryValue, JsonObject, JsonValue, feature::Id};

use aq_core::Position;

use super::{
    Builder, StationFile, StationFileConfig, StationFileError, check_value, parse_time, quantity,
    unit_of,
};
use crate::values::Values;

impl StationFile {
    /// Loads a GeoJSON station file (see the [module documentation](super)).
    ///
    /// # Errors
    /// [`StationFileError::GeoJson`] when the document is not GeoJSON (with the line and
    /// column), and [`StationFileError::GeoJsonField`] naming the feature and field of the
    /// first bad value.
    pub fn from_geojson_reader(
        reader: impl Read,
        config: StationFileConfig,
    ) -> Result<Self, StationFileError> {
        let not_stations = |detail: String| {
            StationFileError::GeoJson(format!(
                "expected a FeatureCollection of Point features; {detail}"
            ))
        };
        let features = match GeoJson::from_reader(reader)
            .map_err(|e| not_stations(e.to_string()))?
        {
            GeoJson::FeatureCollection(collection) => collection.features,
            GeoJson::Feature(feature) => vec![feature],
            GeoJson::Geometry(_) => return Err(not_stations("found a bare geometry".to_owned())),
        };
        let mut builder = Builder::default();
        for (index, feature) in features.iter().enumerate() {
            add_feature(&mut builder, index, feature)?;
        }
        builder.finish(config)
    }

    /// [`StationFile::from_geojson_reader`] on a string.
    ///
    /// # Errors
    /// As [`StationFile::from_geojson_reader`].
    pub fn from_geojson_str(
        geojson: &str,
        config: StationFileConfig,
    ) -> Result<Self, StationFileError> {
        Self::from_geojson_reader(geojson.as_bytes(), config)
    }
}

/// Adds the readings of feature `index` to `builder`.
fn add_feature(
    builder: &mut Builder,
    index: usize,
    feature: &Feature,
) -> Result<(), StationFileError> {
    let err = |field: &str, message: &str| StationFileError::GeoJsonField {
        feature: index,
        field: field.to_owned(),
        message: message.to_owned(),
    };
    let coordinates = match feature.geometry.as_ref().map(|g| &g.value) {
        Some(GeometryValue::Point { coordinates }) => coordinates.as_slice(),
        Some(_) => return Err(err("geometry.type", "expected \"Point\"")),
        None => return Err(err("geometry", "missing; expected a Point")),
    };
    // A point has at least two coordinates, or the document would not have parsed.
    let [lon, lat, ..] = *coordinates else {
        return Err(err(
            "geometry.coordinates",
            "expected [lon, lat] in degrees",
        ));
    };
    let position =
        Position::new(lon, lat).map_err(|e| err("geometry.coordinates", &e.to_string()))?;
    let props = feature
        .properties
        .as_ref()
        .ok_or_else(|| err("properties", "expected an object"))?;
    let id = match (props.get("station_id"), &feature.id) {
        (Some(JsonValue::String(s)), _) if !s.is_empty() => s.clone(),
        (Some(JsonValue::Number(n)), _) => n.to_string(),
        (None, Some(Id::String(s))) if !s.is_empty() => s.clone(),
        (None, Some(Id::Number(n))) => n.to_string(),
        _ => {
            return Err(err(
                "properties.station_id",
                "missing; give each feature a station_id property or an id",
            ));
        }
    };
    let mut add = |reading: &JsonObject, prefix: &str| {
        let time = match reading.get("time") {
            Some(JsonValue::String(s)) => {
                parse_time(s).map_err(|m| err(&format!("{prefix}time"), &m))?
            }
            _ => {
                return Err(err(
                    &format!("{prefix}time"),
                    "missing; expected an RFC 3339 string",
                ));
            }
        };
        let values = reading_values(reading, prefix).map_err(|(f, m)| err(&f, &m))?;
        builder.add(&id, position, time, values, || {
            format!("GeoJSON feature {index}")
        })
    };
    match props.get("readings") {
        None => add(props, "properties."),
        Some(JsonValue::Array(list)) => list.iter().enumerate().try_for_each(|(j, r)| {
            let field = format!("properties.readings[{j}]");
            let r = r
                .as_object()
                .ok_or_else(|| err(&field, "expected an object"))?;
            add(r, &format!("{field}."))
        }),
        Some(_) => Err(err("properties.readings", "expected an array of readings")),
    }
}

/// The values of one reading object; members that name no quantity are ignored. `Err` holds
/// the bad member's path (after `prefix`) and what is wrong with it.
fn reading_values(reading: &JsonObject, prefix: &str) -> Result<Values, (String, String)> {
    let mut values = Values::MISSING;
    for (key, v) in reading {
        let Some(i) = quantity(key) else { continue };
        let field = || format!("{prefix}{key}");
        match v {
            JsonValue::Null => {}
            JsonValue::Number(n) => {
                let n = n.as_f64().unwrap_or(f64::NAN);
                values.0[i] = check_value(i, n).map_err(|m| (field(), m))?;
            }
            other => {
                return Err((
                    field(),
                    format!("expected a number in {} or null, found {other}", unit_of(i)),
                ));
            }
        }
    }
    Ok(values)
}
