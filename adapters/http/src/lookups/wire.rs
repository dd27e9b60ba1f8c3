//! The JSON of the lookups: the envelope, the metadata and one hour or one pollen day, as
//! serialised and as the OpenAPI document describes them (the schemas are derived from these
//! types, so they cannot drift).

use alerts_core::advice::{aq_advice, pollen_advice};
use alerts_core::change::Direction;
use alerts_core::rule::Audience;
use aq_core::{
    AirHour, FusedHour, Plant, PlantDay, PollenDay, PollenLevel, PollenType, Pollutant, Position,
    Provenance, SourceInfo, SourceReach,
};
use chrono::{DateTime, NaiveDate, Utc};
use i18n_core::Language;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::indexes::{self, IndexEntry};

/// The answer of `GET /insights/v1/conditions`.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ConditionsResponse {
    /// Where the data comes from and what was answered.
    pub metadata: LookupMetadata,
    /// The current hour.
    pub data: ConditionsData,
    /// Null on success.
    #[schema(value_type = Option<Object>)]
    pub error: Option<Value>,
}

/// The `data` of a conditions lookup.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ConditionsData {
    /// The current hour; null when the source does not cover the place now (`metadata.notes`
    /// says so).
    pub hour: Option<HourBody>,
}

/// The answer of `GET /insights/v1/forecast` and `GET /insights/v1/history`.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct HoursResponse {
    /// Where the data comes from and what was answered.
    pub metadata: LookupMetadata,
    /// The hours.
    pub data: HoursData,
    /// Null on success.
    #[schema(value_type = Option<Object>)]
    pub error: Option<Value>,
}

/// The `data` of a forecast or history lookup.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct HoursData {
    /// The hours the source has, in the operation's order (forecast: from the current hour on;
    /// history: newest first). An hour the source does not have is left out, never invented.
    pub hours: Vec<HourBody>,
    /// A history's next page: pass it as `pageToken` (with the same `lat` and `lon`) for the
    /// hours before these. Absent on the last page and on a forecast.
    #[serde(rename = "nextPageToken", skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// The answer of `GET /insights/v1/pollen`.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PollenResponse {
    /// Where the data comes from and what was answered.
    pub metadata: LookupMetadata,
    /// The days.
    pub data: PollenData,
    /// Null on success.
    #[schema(value_type = Option<Object>)]
    pub error: Option<Value>,
}

/// The `data` of a pollen lookup.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PollenData {
    /// The civil days at the place from today, today first; empty when the source has no
    /// pollen there.
    pub days: Vec<PollenDayBody>,
}

/// What every lookup says about its answer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LookupMetadata {
    /// The position answered.
    pub position: PositionBody,
    /// The country of the position, its ISO 3166-1 alpha-2 code in lower case (`gb`) as
    /// Google's Air Quality API answers it; null at sea or where the server knows no
    /// country. It picks the national index an hour lists by default. Country boundaries
    /// © OpenStreetMap contributors (ODbL).
    #[schema(pattern = "^[a-z]{2}$")]
    pub region_code: Option<String>,
    /// Where the data comes from.
    pub data_source: DataSourceBody,
    /// How many hours or days were asked for.
    pub requested: u32,
    /// How many of them the source has (the length of `data.hours` or `data.days`, or 0 or 1
    /// for conditions).
    pub answered: u32,
    /// Why some or all of what was asked is absent, for people to read.
    pub notes: Vec<String>,
    /// For a source that corrects a model with station readings (`--fuse-stations`): how
    /// many stations stand behind the answer and how fresh their newest reading is; null for
    /// other sources, and when nothing was answered.
    pub fusion: Option<FusionBody>,
}

/// What stands behind a fused answer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FusionBody {
    /// The most stations that corrected the model at this place in any hour answered; 0 when
    /// every hour is the model's alone (no station within reach, or hours far ahead).
    #[schema(minimum = 0)]
    pub stations_used: u32,
    /// When the newest reading among those stations was taken; null when none was used.
    pub newest_observation: Option<DateTime<Utc>>,
    /// How many whole minutes before the answer that reading was taken; null when none was
    /// used.
    #[schema(minimum = 0)]
    pub newest_observation_age_minutes: Option<u32>,
}

impl FusionBody {
    /// What the fused hours answered say, as of `now`.
    pub(crate) fn new<'a>(
        hours: impl IntoIterator<Item = &'a FusedHour>,
        now: DateTime<Utc>,
    ) -> Self {
        let mut stations_used = 0;
        let mut newest = None;
        for h in hours {
            stations_used = stations_used.max(h.stations_used);
            newest = newest.max(h.newest_observation);
        }
        Self {
            stations_used,
            newest_observation: newest,
            newest_observation_age_minutes: newest
                .map(|t| u32::try_from((now - t).num_minutes().max(0)).unwrap_or(u32::MAX)),
        }
    }
}

/// A position, in degrees (WGS 84).
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PositionBody {
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lon: f64,
}

impl From<Position> for PositionBody {
    fn from(p: Position) -> Self {
        Self {
            lat: p.lat(),
            lon: p.lon(),
        }
    }
}

/// The source a lookup read.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DataSourceBody {
    /// The source's name: `demo`, `open-meteo`, or a station file's name.
    pub name: String,
    /// True for synthetic data (the demo field): not measurements, not a forecast.
    pub synthetic: bool,
    /// The attribution the data's licence asks for, if any.
    pub attribution: Option<String>,
    /// The start of the newest hour the answer holds a value for: the model's newest hour
    /// used, or the newest observation for measured sources; null when nothing was answered.
    pub newest_hour: Option<DateTime<Utc>>,
    /// Hours before now the source keeps, when it keeps a fixed window (null: no fixed
    /// window, the data decides).
    pub history_hours: Option<u32>,
    /// Hours after now the source forecasts, when it forecasts a fixed window.
    pub forecast_hours: Option<u32>,
    /// What the values answered (hours, or pollen days) are: `model` output, `observations`
    /// (measurements) or `synthetic`; null when the source does not say, or nothing was
    /// answered.
    pub basis: Option<BasisBody>,
    /// For model output, the runs the answered hours or days come from (a day from the runs of
    /// the hours its daily mean was taken over), each once, oldest first; empty otherwise, and
    /// when the source does not name its runs (`provenanceNote` then says so).
    pub model_runs: Vec<ModelRunBody>,
    /// For observations, when the newest measurement behind the answered hours or days was
    /// taken; null otherwise.
    pub newest_observation: Option<DateTime<Utc>>,
    /// Why the run or the observation time is not given, for people to read; null when
    /// nothing is left out.
    pub provenance_note: Option<String>,
}

/// What the values of an answer are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) enum BasisBody {
    /// Forecast output of a model.
    Model,
    /// Measurements.
    Observations,
    /// Made up: no model ran and nothing was measured.
    Synthetic,
}

/// One model run behind an answer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ModelRunBody {
    /// The model, such as `cams-europe` or `cams-global`.
    pub model: String,
    /// The run's reference time (UTC): the analysis its forecast steps count from.
    pub reference_time: DateTime<Utc>,
}

impl DataSourceBody {
    pub(crate) fn new(
        info: &SourceInfo,
        reach: SourceReach,
        newest_hour: Option<DateTime<Utc>>,
        provenance: &Provenance,
    ) -> Self {
        let mut body = Self {
            name: info.name.clone(),
            synthetic: info.demo,
            attribution: info.attribution.clone(),
            newest_hour,
            history_hours: reach.past_hours,
            forecast_hours: reach.ahead_hours,
            basis: None,
            model_runs: Vec::new(),
            newest_observation: None,
            provenance_note: None,
        };
        match provenance {
            Provenance::Unstated => {}
            Provenance::Synthetic => body.basis = Some(BasisBody::Synthetic),
            Provenance::Model { runs, note } => {
                body.basis = Some(BasisBody::Model);
                body.model_runs = runs
                    .iter()
                    .map(|r| ModelRunBody {
                        model: r.model.clone(),
                        reference_time: r.reference_time,
                    })
                    .collect();
                body.provenance_note.clone_from(note);
            }
            Provenance::Observed { newest } => {
                body.basis = Some(BasisBody::Observations);
                body.newest_observation = Some(*newest);
            }
        }
        body
    }
}

/// One hour at the place.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HourBody {
    /// The start of the hour (UTC).
    pub time: DateTime<Utc>,
    /// The cleanliness index: the value route scores and alerts read.
    pub index: IndexBody,
    /// The hour on every index asked for (`indexes=`; by default `ci`, `eaqi`, `usa_epa` and
    /// the national index of the place's country when there is one), each with its value,
    /// category, colour and dominant pollutant.
    pub indexes: Vec<IndexEntry>,
    /// The pollutant with the worst European sub-index (`pm25`, `pm10`, `no2`, `o3`, `so2`);
    /// null when the source gives no concentrations.
    pub dominant_pollutant: Option<String>,
    /// The concentrations the source has this hour, by the names station files use; a
    /// pollutant it does not have is absent.
    pub pollutants: PollutantsBody,
    /// The US EPA AQI (2024 table); null when the concentrations give none.
    pub us_aqi: Option<UsAqiBody>,
    /// What to do, for the general population and five groups: the recommendations of alert
    /// messages for air that reaches this hour's category.
    pub advice: AdviceBody,
}

/// The cleanliness index of an hour.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct IndexBody {
    /// 0 (dirtiest) to 100 (cleanest), rounded half up.
    #[schema(minimum = 0, maximum = 100)]
    pub value: u8,
    /// `Excellent`, `Good`, `Moderate`, `Low`, `Poor` or `Extremely poor`.
    pub category: String,
    /// The same air's European Air Quality Index band, 1 (Good) to 6 (Extremely poor): the
    /// CI's bands are the EAQI's, named one step cleaner by the EEA.
    #[schema(minimum = 1, maximum = 6)]
    #[serde(rename = "eeaLevel")]
    pub eea_level: u8,
    /// The EEA's name for that band: `Good`, `Fair`, `Moderate`, `Poor`, `Very poor` or
    /// `Extremely poor` (so the CI's `Good` is the EEA's `Fair`).
    #[serde(rename = "eeaCategory")]
    pub eea_category: String,
}

/// One pollutant's concentration.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PollutantBody {
    /// The hourly mean, rounded to 0.1.
    pub value: f64,
    /// Always `µg/m³`.
    pub units: String,
    /// The estimated error of `value`: one standard deviation in µg/m³, rounded to 0.1, from
    /// the fusion of the model with station readings; null when the source gives no estimate
    /// (every source but a fused one).
    #[schema(minimum = 0)]
    pub uncertainty: Option<f64>,
}

/// The concentrations of an hour.
#[derive(Debug, Default, Serialize, ToSchema)]
pub(crate) struct PollutantsBody {
    /// PM2.5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pm25: Option<PollutantBody>,
    /// PM10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pm10: Option<PollutantBody>,
    /// Nitrogen dioxide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no2: Option<PollutantBody>,
    /// Ozone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub o3: Option<PollutantBody>,
    /// Sulphur dioxide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub so2: Option<PollutantBody>,
    /// Carbon monoxide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub co: Option<PollutantBody>,
}

/// The US AQI of an hour.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UsAqiBody {
    /// The AQI, 0 and up (above 500 is beyond the index).
    #[schema(minimum = 0)]
    pub value: u16,
    /// EPA's category name, such as `Moderate`.
    pub category: String,
    /// The pollutant that sets it.
    pub dominant_pollutant: String,
    /// `nowcast`: the dominant pollutant was averaged as EPA does for current conditions
    /// (NowCast for particles and, as AirNow does, for O3; 8-hour mean for CO; 1-hour NO2 and
    /// SO2); `hourly`: the source lacked the past hours and the hour's own value stood in.
    #[schema(pattern = "^(nowcast|hourly)$")]
    pub method: String,
    /// `true` when `value` is only a lower bound: an hourly SO2 above 304 ppb puts the AQI
    /// above 200 by an amount only a 24-hour mean could tell (EPA's 1-hour SO2 rows stop at
    /// 200), so the AQI is at least `value`.
    pub at_least: bool,
}

/// The recommendation per audience.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AdviceBody {
    /// Everyone.
    pub general_population: String,
    /// Children.
    pub children: String,
    /// Older adults.
    pub older_adults: String,
    /// People with heart or lung disease, asthma included.
    pub heart_or_lung_disease: String,
    /// Pregnant people.
    pub pregnancy: String,
    /// People who train or compete outdoors.
    pub athletes: String,
}

/// One civil day's pollen at the place.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PollenDayBody {
    /// The civil date at the place.
    pub date: NaiveDate,
    /// Per type; a type the source has no value for that day is absent.
    pub types: PollenTypesBody,
    /// Per plant, for a source that counts plants one by one: in one fixed order, by type
    /// (tree, grass, weed), then by English name, whatever the language. A plant the source has no value for that day is left out;
    /// a source of types alone (station files) gives none. A type's mean count is the sum of
    /// its plants' (within rounding, when they are counted over the same hours).
    pub plants: Vec<PlantBody>,
}

/// One plant on one day.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PlantBody {
    /// The plant's stable code: `alder`, `birch`, `olive`, `grass`, `mugwort` or `ragweed`.
    pub code: &'static str,
    /// The plant's name in the answer's language (in English: `Alder`, `Birch`, `Olive`,
    /// `Grasses`, `Mugwort` or `Ragweed`).
    pub display_name: &'static str,
    /// The pollen type the plant counts towards: `tree`, `grass` or `weed`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// 0 (None) to 5 (Very high): the plant's daily mean count on its type's thresholds.
    #[schema(minimum = 0, maximum = 5)]
    pub level: u8,
    /// The level's name in the answer's language (in English: `None`, `Very low`, `Low`,
    /// `Moderate`, `High` or `Very high`).
    pub category: &'static str,
    /// The level's colour, a CSS hex string (`#rrggbb`), as for the types.
    #[schema(pattern = "^#[0-9a-f]{6}$")]
    pub color: &'static str,
    /// Whether the plant is flowering here that day: any of its grains are counted (a mean
    /// above zero, even one whose level is None).
    pub in_season: bool,
    /// The day's mean count in grains/m³, rounded to 0.1.
    pub mean_grains_m3: f64,
}

/// The name of `plant` in `language`: the catalogue's `plant-` and its code.
pub(crate) fn plant_name(plant: Plant, language: Language) -> &'static str {
    language
        .get(&format!("plant-{}", plant.code()))
        .unwrap_or(plant.display_name())
}

impl PlantBody {
    fn new(plant: Plant, day: PlantDay, language: Language) -> Self {
        Self {
            code: plant.code(),
            display_name: plant_name(plant, language),
            kind: plant.pollen_type().name(),
            level: day.level.value(),
            category: language.label("pollen-level", day.level.name()),
            color: day.level.colour(),
            in_season: day.in_season(),
            mean_grains_m3: tenth(day.mean_grains_m3),
        }
    }
}

/// The pollen types of a day.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PollenTypesBody {
    /// Tree pollen (alder, birch, olive, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<PollenTypeBody>,
    /// Grass pollen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grass: Option<PollenTypeBody>,
    /// Weed pollen (ragweed, mugwort, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weed: Option<PollenTypeBody>,
}

/// One pollen type on one day.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PollenTypeBody {
    /// 0 (None) to 5 (Very high).
    #[schema(minimum = 0, maximum = 5)]
    pub level: u8,
    /// `None`, `Very low`, `Low`, `Moderate`, `High` or `Very high`.
    pub category: String,
    /// The level's colour, a CSS hex string (`#rrggbb`): grey for None, then green (Very low)
    /// to red (Very high), as the pollen tiles draw it.
    #[schema(pattern = "^#[0-9a-f]{6}$")]
    pub color: String,
    /// Whether the plants of this type are flowering here that day: the source counts any of
    /// their grains in the air (or gives a level above None, for a source of levels only).
    pub in_season: bool,
    /// The day's mean count in grains/m³, rounded to 0.1; null when the source gives levels
    /// only.
    pub mean_grains_m3: Option<f64>,
    /// What to do at this type's level, for the general population and five groups: the
    /// recommendations of pollen alert messages for a day that reaches it.
    pub advice: AdviceBody,
}

/// `x` rounded to one decimal.
fn tenth(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

impl AdviceBody {
    /// Each audience's text, from `advice`.
    fn of(advice: impl Fn(Audience) -> String) -> Self {
        Self {
            general_population: advice(Audience::General),
            children: advice(Audience::Children),
            older_adults: advice(Audience::OlderAdults),
            heart_or_lung_disease: advice(Audience::HeartOrLungDisease),
            pregnancy: advice(Audience::Pregnancy),
            athletes: advice(Audience::Athletes),
        }
    }
}

impl From<&AirHour> for HourBody {
    fn from(hour: &AirHour) -> Self {
        Self::fused(hour, None, Language::English)
    }
}

impl HourBody {
    /// The hour with the error estimates of `fused`, when the source fuses, its names and
    /// advice in `language`.
    pub(crate) fn fused(hour: &AirHour, fused: Option<&FusedHour>, language: Language) -> Self {
        let mut pollutants = PollutantsBody::default();
        if let Some(air) = &hour.concentrations {
            for (p, c) in air.iter() {
                let body = Some(PollutantBody {
                    value: tenth(c.ug_m3()),
                    units: "µg/m³".to_owned(),
                    uncertainty: fused.and_then(|f| f.uncertainty.get(p)).map(tenth),
                });
                match p {
                    Pollutant::Pm25 => pollutants.pm25 = body,
                    Pollutant::Pm10 => pollutants.pm10 = body,
                    Pollutant::No2 => pollutants.no2 = body,
                    Pollutant::O3 => pollutants.o3 = body,
                    Pollutant::So2 => pollutants.so2 = body,
                    Pollutant::Co => pollutants.co = body,
                }
            }
        }
        let category = hour.ci.category();
        // The tables speak of air that reaches a category; for an hour as it is, the row of
        // air that has come to it (getting worse) is the one that says what to do there.
        let advice =
            |audience| aq_advice(language, audience, Direction::Deterioration, category).to_owned();
        Self {
            time: hour.time,
            index: IndexBody {
                value: hour.ci.rounded(),
                category: language.label("ci", category.name()).to_owned(),
                eea_level: category.eea().0,
                eea_category: language.label("eaqi", category.eea().1).to_owned(),
            },
            indexes: indexes::of(hour, language),
            dominant_pollutant: hour.dominant.map(|p| p.code().to_owned()),
            pollutants,
            us_aqi: hour.us_aqi.map(|a| UsAqiBody {
                value: a.value,
                category: language.label("usa-epa", a.category.name()).to_owned(),
                dominant_pollutant: a.dominant.code().to_owned(),
                method: a.method.as_str().to_owned(),
                at_least: a.at_least,
            }),
            advice: AdviceBody::of(advice),
        }
    }
}

impl PollenDayBody {
    /// The day, its names and advice in `language`.
    pub(crate) fn new(day: &PollenDay, language: Language) -> Self {
        let kind = |k: PollenType| {
            day.get(k).map(|v| {
                let advice = |audience| {
                    pollen_advice(language, audience, Direction::Deterioration, v.level).to_owned()
                };
                PollenTypeBody {
                    level: v.level.value(),
                    category: language.label("pollen-level", v.level.name()).to_owned(),
                    color: v.level.colour().to_owned(),
                    in_season: v
                        .mean_grains_m3
                        .map_or(v.level != PollenLevel::NONE, |m| m > 0.0),
                    mean_grains_m3: v.mean_grains_m3.map(tenth),
                    advice: AdviceBody::of(advice),
                }
            })
        };
        Self {
            date: day.date,
            types: PollenTypesBody {
                tree: kind(PollenType::Tree),
                grass: kind(PollenType::Grass),
                weed: kind(PollenType::Weed),
            },
            plants: day
                .plants()
                .map(|(plant, v)| PlantBody::new(plant, v, language))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use aq_core::{CleanlinessIndex, Concentration, Concentrations, Uncertainties};
    use chrono::{Duration, TimeZone};

    use super::*;

    #[test]
    fn every_name_an_answer_shows_is_in_every_language_of_the_catalogue() {
        use aq_core::{AqiCategory, CiCategory};
        use i18n_core::label_id;
        let mut ids: Vec<String> = Vec::new();
        for c in CiCategory::ALL {
            ids.push(label_id("ci", c.name()));
            ids.push(label_id("eaqi", c.eea().1));
        }
        for aqi in [0, 51, 101, 151, 201, 301] {
            ids.push(label_id("usa-epa", AqiCategory::of(aqi).name()));
        }
        for level in 0..=5 {
            ids.push(label_id(
                "pollen-level",
                PollenLevel::new(level).unwrap().name(),
            ));
        }
        for code in super::indexes::IndexCode::ALL {
            ids.push(code.display_id());
            for category in code.categories() {
                ids.push(label_id(&code.scale(), category));
                // The catalogue's English is the name the core gives, so an English answer
                // reads as it did before the catalogue.
                assert_eq!(Language::English.label(&code.scale(), category), category);
            }
        }
        for plant in Plant::ALL {
            ids.push(format!("plant-{}", plant.code()));
            assert_eq!(plant_name(plant, Language::English), plant.display_name());
        }
        for language in Language::ALL {
            for id in &ids {
                assert!(language.has(id), "{language}: {id}");
            }
        }
    }

    #[test]
    fn an_hour_and_a_pollen_day_speak_the_language_asked() {
        let time = Utc.with_ymd_and_hms(2026, 5, 4, 8, 0, 0).unwrap();
        let hour = AirHour {
            time,
            ci: CleanlinessIndex::new(30.0).unwrap(),
            dominant: None,
            concentrations: None,
            us_aqi: None,
        };
        let english = serde_json::to_value(HourBody::from(&hour)).unwrap();
        let german = serde_json::to_value(HourBody::fused(&hour, None, Language::German)).unwrap();
        assert_eq!(english["index"]["category"], "Low");
        assert_eq!(
            german["index"]["category"],
            Language::German.label("ci", "Low")
        );
        assert_ne!(german["index"]["category"], "Low");
        assert_ne!(german["advice"]["children"], english["advice"]["children"]);
        assert_eq!(
            german["indexes"][0]["displayName"],
            Language::German.text("index-ci")
        );

        let mut day = PollenDay::new(time.date_naive());
        day.set(
            PollenType::Grass,
            aq_core::PollenTypeDay {
                level: PollenLevel::new(4).unwrap(),
                mean_grains_m3: None,
            },
        );
        let body = serde_json::to_value(PollenDayBody::new(&day, Language::Polish)).unwrap();
        assert_eq!(
            body["types"]["grass"]["category"],
            Language::Polish.label("pollen-level", "High")
        );
        assert_ne!(body["types"]["grass"]["category"], "High");
    }

    #[test]
    fn a_fused_hour_shows_each_pollutants_uncertainty_and_the_stations_behind_it() {
        let time = Utc.with_ymd_and_hms(2026, 5, 4, 8, 0, 0).unwrap();
        let hour = AirHour {
            time,
            ci: CleanlinessIndex::new(70.0).unwrap(),
            dominant: Some(Pollutant::Pm25),
            concentrations: Some(
                Concentrations::default()
                    .with(Pollutant::Pm25, Concentration::new(12.34).unwrap())
                    .with(Pollutant::No2, Concentration::new(30.0).unwrap()),
            ),
            us_aqi: None,
        };
        let fused = FusedHour {
            uncertainty: Uncertainties::default().with(Pollutant::Pm25, 2.26),
            stations_used: 4,
            newest_observation: Some(time - Duration::minutes(20)),
            ci_uncertainty: None,
        };
        let body =
            serde_json::to_value(HourBody::fused(&hour, Some(&fused), Language::English)).unwrap();
        assert_eq!(body["pollutants"]["pm25"]["value"], 12.3);
        assert_eq!(body["pollutants"]["pm25"]["uncertainty"], 2.3);
        assert_eq!(body["pollutants"]["no2"]["uncertainty"], Value::Null);
        let plain = serde_json::to_value(HourBody::from(&hour)).unwrap();
        assert_eq!(plain["pollutants"]["pm25"]["uncertainty"], Value::Null);

        let later = FusedHour {
            stations_used: 2,
            newest_observation: Some(time),
            ..fused
        };
        let meta = FusionBody::new([&fused, &later], time + Duration::minutes(41));
        assert_eq!(meta.stations_used, 4);
        assert_eq!(meta.newest_observation, Some(time));
        assert_eq!(meta.newest_observation_age_minutes, Some(41));
        let none = FusionBody::new([], time);
        assert_eq!(
            (none.stations_used, none.newest_observation_age_minutes),
            (0, None)
        );
    }

    #[test]
    fn a_days_plants_are_listed_by_type_then_name_with_their_own_levels() {
        use aq_core::GrainThresholds;
        use aq_core::pollen_day::{DailyPollenMean, PollenCounts};

        let mut mean = DailyPollenMean::default();
        for _ in 0..24 {
            // Ragweed 12.34, mugwort none at all, birch 0.4, grasses 25.
            mean.add_hour(PollenCounts::from_plants([
                None,
                Some(0.4),
                None,
                Some(25.0),
                None,
                Some(12.34),
            ]));
        }
        let date = NaiveDate::from_ymd_opt(2026, 8, 20).unwrap();
        let day = mean.day(date, &GrainThresholds::default());
        let body = serde_json::to_value(PollenDayBody::new(&day, Language::English)).unwrap();
        let plants = body["plants"].as_array().unwrap();
        let codes: Vec<&str> = plants.iter().map(|p| p["code"].as_str().unwrap()).collect();
        assert_eq!(codes, ["birch", "grass", "ragweed"]);
        let birch = &plants[0];
        assert_eq!(birch["displayName"], "Birch");
        assert_eq!(birch["type"], "tree");
        // Under a grain a cubic metre is level None, but the birch is flowering.
        assert_eq!(
            (birch["level"].as_u64(), birch["category"].as_str()),
            (Some(0), Some("None"))
        );
        assert_eq!(birch["inSeason"], true);
        assert_eq!(birch["color"], "#b4b4b4");
        let ragweed = &plants[2];
        assert_eq!(ragweed["meanGrainsM3"], 12.3);
        assert_eq!(ragweed["category"], "Moderate");
        assert_eq!(plants[1]["displayName"], "Grasses");
        assert_eq!(plants[1]["category"], "High");
        // A day of a source of types alone has no plants.
        let levels = aq_core::PollenLevels::default().with(PollenType::Tree, PollenLevel::NONE);
        let body = serde_json::to_value(PollenDayBody::new(
            &PollenDay::from_levels(date, &levels),
            Language::English,
        ));
        assert_eq!(body.unwrap()["plants"], serde_json::json!([]));
        // In another language the names change and the codes stay.
        let german = serde_json::to_value(PollenDayBody::new(&day, Language::German)).unwrap();
        assert_eq!(german["plants"][0]["code"], "birch");
        assert_eq!(
            german["plants"][0]["displayName"],
            Language::German.text("plant-birch")
        );
        assert_ne!(german["plants"][0]["displayName"], "Birch");
    }
}
