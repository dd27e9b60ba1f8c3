//! The score-routes response: its types, the sort orders, `completionStatus` and the
//! recommendations, and [`assemble_response`], which builds it from per-route outcomes.

use chrono::{DateTime, Datelike, SecondsFormat, Timelike, Utc};
use runtime_core::IdGenerator;
use serde::{Deserialize, Serialize, Serializer};
use uuid::Uuid;

use crate::config::RacsConfig;
// The wire shape of a route's error, named only in the OpenAPI schema.
#[cfg(feature = "openapi")]
use crate::outcome::ErrorBody;
use crate::outcome::{ErrorCode, RouteOutcome};
use crate::plan::polyline_length_m;
use crate::request::{RouteId, ScoreRequest};
use crate::score::RouteScore;
use crate::units::{LengthUnit, RoutesSort, TravelMode};

/// One entry of `racss`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RacsEntry {
    /// This calculation's id.
    #[serde(rename = "RACSid")]
    pub racs_id: Uuid,
    /// The route's id from the request.
    #[serde(rename = "routeId")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub route_id: RouteId,
    /// The score, 0 to 100, 100 cleanest; `null` when the route failed (`error.code` is not 0).
    #[serde(rename = "RACS")]
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 100))]
    pub racs: Option<u8>,
    /// The outcome.
    #[cfg_attr(feature = "openapi", schema(value_type = ErrorBody))]
    pub error: ErrorCode,
    /// Extension, present only when the server is configured to add each route's details
    /// (its length, data coverage and inhaled dose).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<RouteDetails>,
}

/// Extra figures about a route (extension member `details` of a `racss` entry).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteDetails {
    /// The route's great-circle length, in `lengthUnits`.
    pub length: f64,
    /// The unit of `length` (the request's `lengthUnits`).
    pub length_units: LengthUnit,
    /// The share of the route's time with air-quality data, 0 to 1, when sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<f64>,
    /// The PM2.5 the traveller breathes in over the route, in µg, when scored: the dose behind
    /// `LowestExposure` (see `docs/scoring.md`), an estimate under the three assumptions below.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inhaled_pm25_ug: Option<f64>,
    /// The travel mode the dose assumes (the route's, else the request's, else walking), when
    /// scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub travel_mode: Option<TravelMode>,
    /// The breathing rate the dose assumes for that mode, in m³/min, when scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub breathing_m3_per_min: Option<f64>,
    /// The PM2.5 breathed as a multiple of the outdoor PM2.5 along the route (1 for walking and
    /// cycling; the in-vehicle factor for driving and passengers), when scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pm25_in_vehicle_factor: Option<f64>,
}

/// The closed list of recommendation types.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RecommendationCode {
    /// The route with the highest RACS.
    CleanestRoute,
    /// The route with the least inhaled pollution, counting how long each route takes.
    LowestExposure,
    /// When to leave, and on which route, for the highest RACS within the request's
    /// `departureWindowMinutes`.
    BestDepartureTime,
    /// The quickest of the routes a planned-route request found.
    FastestRoute,
}

/// The type of a recommendation's `additionalData`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AdditionalDataType {
    /// `value` is a route id.
    #[serde(rename = "routeId")]
    RouteId,
    /// `value` is a departure time, RFC 3339 in UTC to the millisecond, and `routeId` the
    /// route to take then.
    #[serde(rename = "departureTime")]
    DepartureTime,
}

/// A recommendation's `additionalData`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdditionalData {
    /// What `value` is.
    #[serde(rename = "type")]
    pub kind: AdditionalDataType,
    /// The value, e.g. a route id.
    pub value: String,
    /// The route to take, when `value` is a departure time.
    #[serde(rename = "routeId", default, skip_serializing_if = "Option::is_none")]
    pub route_id: Option<String>,
}

/// One entry of `recommendations`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recommendation {
    /// This recommendation's id.
    pub recommendation_id: Uuid,
    /// Its type.
    pub code: RecommendationCode,
    /// A short name, e.g. `Cleanest Route`.
    pub name: String,
    /// A sentence for the traveller.
    pub text: String,
    /// The route it names.
    pub additional_data: AdditionalData,
}

/// How many routes were scored.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CompletionStatus {
    /// Every route has a RACS.
    Completed,
    /// Some routes have a RACS, some an error.
    CompletedWithErrors,
    /// No route has a RACS (the response is still a success: the request was valid).
    Failed,
}

impl CompletionStatus {
    /// The status for `scored` routes with a RACS out of `total`.
    ///
    /// ```
    /// use racs_core::CompletionStatus;
    ///
    /// assert_eq!(CompletionStatus::from_counts(3, 3), CompletionStatus::Completed);
    /// assert_eq!(CompletionStatus::from_counts(1, 3), CompletionStatus::CompletedWithErrors);
    /// assert_eq!(CompletionStatus::from_counts(0, 3), CompletionStatus::Failed);
    /// ```
    #[must_use]
    pub fn from_counts(scored: usize, total: usize) -> Self {
        if scored == 0 {
            Self::Failed
        } else if scored >= total {
            Self::Completed
        } else {
            Self::CompletedWithErrors
        }
    }
}

/// The response of operation 2.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreResponse {
    /// This response's id.
    pub response_id: Uuid,
    /// When computing ended: RFC 3339 in UTC, to the millisecond (`2026-11-23T17:49:43.448Z`).
    #[serde(serialize_with = "UtcMillis::serialize_time")]
    pub time: DateTime<Utc>,
    /// One entry per route, in the request's `routesSort` order.
    pub racss: Vec<RacsEntry>,
    /// `CleanestRoute`, and `LowestExposure` when it names another route; none when no route
    /// was scored. With a departure window, `BestDepartureTime` last.
    pub recommendations: Vec<Recommendation>,
    /// How many routes were scored.
    pub completion_status: CompletionStatus,
}

/// A time as the service writes it everywhere (responses, files, admin output): RFC 3339 in
/// UTC with exactly three fractional digits and `Z`, such as `2026-11-23T17:49:43.448Z`.
///
/// Milliseconds, truncated, because finer digits tell a client nothing it can use and common
/// parsers refuse them (Python's `%f` takes at most six); always three, so that every time has
/// the same width and a parser that expects a fraction always finds one.
///
/// ```
/// use chrono::DateTime;
/// use racs_core::UtcMillis;
///
/// let t = DateTime::from_timestamp(1_795_456_183, 448_122_144).unwrap();
/// assert_eq!(UtcMillis(t).to_string(), "2026-11-23T17:49:43.448Z");
/// assert_eq!(serde_json::to_string(&UtcMillis(t)).unwrap(), "\"2026-11-23T17:49:43.448Z\"");
/// let whole = DateTime::from_timestamp(1_795_456_183, 0).unwrap();
/// assert_eq!(UtcMillis(whole).to_string(), "2026-11-23T17:49:43.000Z");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UtcMillis(pub DateTime<Utc>);

impl UtcMillis {
    /// For `#[serde(serialize_with = "racs_core::UtcMillis::serialize_time")]` on a
    /// `DateTime<Utc>` member.
    ///
    /// # Errors
    /// The serializer's own.
    pub fn serialize_time<S: Serializer>(
        time: &DateTime<Utc>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        UtcMillis(*time).serialize(serializer)
    }

    /// The text, built in place for the four-digit years (every response has a time, and this
    /// skips chrono's formatting machinery); `None` for the others.
    fn ascii(&self) -> Option<Ascii> {
        let time = self.0;
        let year = u32::try_from(time.year()).ok().filter(|&y| y <= 9999)?;
        let (mut second, mut nano) = (time.second(), time.nanosecond());
        // A leap second is second 60.
        if nano >= 1_000_000_000 {
            second += 1;
            nano -= 1_000_000_000;
        }
        let mut text = Ascii::default();
        text.digits(year, 4);
        text.push(b'-');
        text.digits(time.month(), 2);
        text.push(b'-');
        text.digits(time.day(), 2);
        text.push(b'T');
        text.digits(time.hour(), 2);
        text.push(b':');
        text.digits(time.minute(), 2);
        text.push(b':');
        text.digits(second, 2);
        text.push(b'.');
        text.digits(nano / 1_000_000, 3);
        text.push(b'Z');
        Some(text)
    }
}

impl std::fmt::Display for UtcMillis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.ascii().as_ref().and_then(Ascii::as_str) {
            Some(text) => f.write_str(text),
            None => f.write_str(&self.0.to_rfc3339_opts(SecondsFormat::Millis, true)),
        }
    }
}

impl Serialize for UtcMillis {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.ascii().as_ref().and_then(Ascii::as_str) {
            Some(text) => serializer.serialize_str(text),
            None => serializer.collect_str(self),
        }
    }
}

/// A short ASCII text built in place: "YYYY-MM-DDTHH:MM:SS.mmmZ" is 24 bytes.
#[derive(Default)]
struct Ascii {
    bytes: [u8; 24],
    len: usize,
}

impl Ascii {
    fn push(&mut self, byte: u8) {
        self.bytes[self.len] = byte;
        self.len += 1;
    }

    /// `value`'s last `width` decimal digits, zero-padded.
    fn digits(&mut self, value: u32, width: u32) {
        for k in (0..width).rev() {
            // A single decimal digit, so the cast cannot truncate.
            self.push(b'0' + (value / 10u32.pow(k) % 10) as u8);
        }
    }

    /// ASCII digits and separators only, so always text; `None` should that ever not hold.
    fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.bytes[..self.len]).ok()
    }
}

/// The `LowestExposure` text: the route, its dose and what the dose assumes, since a dose rests
/// on a typical adult's breathing and on the air inside a vehicle, neither of them measured.
fn lowest_exposure_text(id: &RouteId, score: &RouteScore) -> String {
    let pollutant = if score.dose_is_equivalent {
        "PM2.5-equivalent (derived from the index where the source gives no PM2.5)"
    } else {
        "PM2.5"
    };
    let a = &score.assumptions;
    let air = if a.pm25_factor == 1.0 {
        match a.travel_mode {
            TravelMode::Walk | TravelMode::Cycle => "in the outdoor air along the route".to_owned(),
            TravelMode::Drive | TravelMode::Passenger => {
                "with the air inside the vehicle taken as the outdoor air along the route"
                    .to_owned()
            }
        }
    } else {
        format!(
            "with the air inside the vehicle taken as {} times the outdoor air",
            significant(a.pm25_factor)
        )
    };
    format!(
        "Route {id} means the least pollution breathed in over the whole trip, counting how long \
         each route takes: about {} of {pollutant}. This is an estimate for an adult {} \
         (breathing {} m³ of air a minute) {air}.",
        dose_text(score.dose),
        a.activity(),
        significant(a.breathing_m3_per_min),
    )
}

/// A positive `x` to two significant figures, at least one decimal under 10: the dose and its
/// factors rest on typical values, not the traveller's own.
fn significant(x: f64) -> String {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let decimals = (1 - x.log10().floor() as i32).max(0) as usize;
    format!("{x:.decimals$}")
}

/// A dose in µg for people: two significant figures, at least one decimal under 10 µg.
///
/// ```
/// # use racs_core::dose_text;
/// assert_eq!(dose_text(1.125), "1.1 µg");
/// assert_eq!(dose_text(23.46), "23 µg");
/// assert_eq!(dose_text(0.0432), "0.043 µg");
/// ```
#[must_use]
pub fn dose_text(ug: f64) -> String {
    if !ug.is_finite() || ug <= 0.0 {
        return "0 µg".to_owned();
    }
    format!("{} µg", significant(ug))
}

/// The order of routes in `racss`: indices into `racs` (one per route, `None` for a route that
/// failed), sorted per `sort`. The sort is stable, so ties keep request order; in `desc` and
/// `asc` failed routes come last, in request order.
///
/// ```
/// use racs_core::{sort_order, RoutesSort};
///
/// let racs = [Some(40), None, Some(80), Some(40)];
/// assert_eq!(sort_order(&racs, RoutesSort::Desc), [2, 0, 3, 1]);
/// assert_eq!(sort_order(&racs, RoutesSort::Asc), [0, 3, 2, 1]);
/// assert_eq!(sort_order(&racs, RoutesSort::Original), [0, 1, 2, 3]);
/// ```
#[must_use]
pub fn sort_order(racs: &[Option<u8>], sort: RoutesSort) -> Vec<usize> {
    let mut order: Vec<usize> = (0..racs.len()).collect();
    match sort {
        RoutesSort::Original => {}
        RoutesSort::Desc => order.sort_by_key(|&i| (racs[i].is_none(), std::cmp::Reverse(racs[i]))),
        RoutesSort::Asc => order.sort_by_key(|&i| (racs[i].is_none(), racs[i])),
    }
    order
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The route with the highest RACS (first in request order on a tie), and the route with the
/// lowest dose (likewise) when it is a different one. Indices into `scores`, one per route.
fn recommended(scores: &[Option<(u8, f64)>]) -> (Option<usize>, Option<usize>) {
    let mut cleanest: Option<usize> = None;
    let mut lowest: Option<usize> = None;
    for (i, s) in scores.iter().enumerate() {
        let Some((racs, dose)) = *s else { continue };
        if cleanest.is_none_or(|c| scores[c].is_some_and(|(best, _)| racs > best)) {
            cleanest = Some(i);
        }
        if lowest.is_none_or(|l| scores[l].is_some_and(|(_, least)| dose < least)) {
            lowest = Some(i);
        }
    }
    (cleanest, lowest.filter(|&l| Some(l) != cleanest))
}

/// Builds the response from per-route outcomes (in request order, one per route): ids from
/// `ids` (the response's first, then one per route in request order, then the
/// recommendations'), `time` as given, the `routesSort` order, `completionStatus` and the
/// recommendations.
///
/// This is the last pure step; a service that schedules planning, the source calls and scoring
/// itself ends with it. A route without an outcome (`outcomes` too short) is reported as timed
/// out: its calculation did not finish.
#[must_use]
pub fn assemble_response(
    request: &ScoreRequest,
    outcomes: &[RouteOutcome],
    ids: &dyn IdGenerator,
    time: DateTime<Utc>,
    config: &RacsConfig,
) -> ScoreResponse {
    let response_id = ids.new_id();
    let mut entries: Vec<RacsEntry> = request
        .routes
        .iter()
        .enumerate()
        .map(|(i, route)| {
            let outcome = outcomes.get(i);
            let score = outcome.and_then(|o| o.score());
            RacsEntry {
                racs_id: ids.new_id(),
                route_id: route.id.clone(),
                racs: score.map(|s| s.racs),
                error: outcome.map_or(ErrorCode::TimedOut, RouteOutcome::code),
                details: config.include_details.then(|| RouteDetails {
                    length: request
                        .length_units
                        .from_metres(polyline_length_m(&route.polyline)),
                    length_units: request.length_units,
                    coverage: outcome.and_then(RouteOutcome::coverage),
                    inhaled_pm25_ug: score.map(|s| s.dose),
                    travel_mode: score.map(|s| s.assumptions.travel_mode),
                    breathing_m3_per_min: score.map(|s| s.assumptions.breathing_m3_per_min),
                    pm25_in_vehicle_factor: score.map(|s| s.assumptions.pm25_factor),
                }),
            }
        })
        .collect();

    let scores: Vec<Option<(u8, f64)>> = outcomes
        .iter()
        .map(|o| o.score().map(|s| (s.racs, s.dose)))
        .take(entries.len())
        .collect();
    let (cleanest, lowest) = recommended(&scores);
    let mut recommendations = Vec::new();
    if let Some(i) = cleanest {
        let id = &request.routes[i].id;
        let racs = entries[i].racs.unwrap_or_default();
        let tied: Vec<String> = entries
            .iter()
            .filter(|e| e.racs == Some(racs))
            .map(|e| e.route_id.to_string())
            .collect();
        let text = if tied.len() > 1 {
            format!(
                "Routes {} tie for the cleanest air along the way (RACS {racs}); route {id} is \
                 named as the first in the request.",
                and_list(&tied)
            )
        } else {
            format!("Route {id} has the cleanest air along the way (RACS {racs}).")
        };
        recommendations.push(Recommendation {
            recommendation_id: ids.new_id(),
            code: RecommendationCode::CleanestRoute,
            name: "Cleanest Route".to_owned(),
            text,
            additional_data: AdditionalData {
                kind: AdditionalDataType::RouteId,
                value: id.to_string(),
                route_id: None,
            },
        });
    }
    // The least dose is chosen among scored routes, so its outcome has a score.
    if let Some((i, score)) = lowest.and_then(|i| {
        outcomes
            .get(i)
            .and_then(RouteOutcome::score)
            .map(|s| (i, s))
    }) {
        let id = &request.routes[i].id;
        recommendations.push(Recommendation {
            recommendation_id: ids.new_id(),
            code: RecommendationCode::LowestExposure,
            name: "Lowest Exposure".to_owned(),
            text: lowest_exposure_text(id, score),
            additional_data: AdditionalData {
                kind: AdditionalDataType::RouteId,
                value: id.to_string(),
                route_id: None,
            },
        });
    }

    let racs: Vec<Option<u8>> = entries.iter().map(|e| e.racs).collect();
    let scored = racs.iter().filter(|r| r.is_some()).count();
    let order = sort_order(&racs, request.routes_sort);
    let mut slots: Vec<Option<RacsEntry>> = entries.drain(..).map(Some).collect();
    let racss = order.into_iter().filter_map(|i| slots[i].take()).collect();

    ScoreResponse {
        response_id,
        time,
        racss,
        recommendations,
        completion_status: CompletionStatus::from_counts(scored, request.routes.len()),
    }
}

#[cfg(test)]
mod tests {
    use proptest::strategy::Strategy as _;
    use serde_json::json;

    use super::*;

    #[test]
    fn error_codes_have_the_spec_texts_and_wire_shape() {
        assert_eq!(
            serde_json::to_value(ErrorCode::Empty).unwrap(),
            json!({"code": 0, "text": "EMPTY"})
        );
        assert_eq!(
            serde_json::to_value(ErrorCode::InsufficientData).unwrap(),
            json!({"code": 100, "text": "Insufficient data to calculate RACS for the provided route information"})
        );
        assert_eq!(
            serde_json::to_value(ErrorCode::TimedOut).unwrap(),
            json!({"code": 101, "text": "RACS calculation timed out"})
        );
        assert_eq!(
            serde_json::to_value(ErrorCode::NotGranular).unwrap(),
            json!({"code": 102, "text": "Provided route information is not sufficient for accurate RACS calculation"})
        );
        let back: ErrorCode = serde_json::from_value(json!({"code": 101, "text": "x"})).unwrap();
        assert_eq!(back, ErrorCode::TimedOut);
        assert!(serde_json::from_value::<ErrorCode>(json!({"code": 7, "text": "x"})).is_err());
    }

    proptest::proptest! {
        /// Pins the service's times to chrono's RFC 3339 in milliseconds, for any instant of
        /// the four-digit years and beyond, whole seconds, fractions of every length and leap
        /// seconds.
        #[test]
        fn times_are_written_to_the_millisecond_as_chrono_writes_them(
            secs in -62_167_219_300i64..253_402_300_900,
            nanos in proptest::prop_oneof![
                proptest::strategy::Just(0u32),
                (1u32..1000).prop_map(|ms| ms * 1_000_000),
                (1u32..1_000_000).prop_map(|us| us * 1_000),
                0u32..1_000_000_000,
            ],
            leap in proptest::bool::weighted(0.1),
        ) {
            let mut time = DateTime::from_timestamp(secs, nanos).unwrap();
            if leap {
                time = time
                    .date_naive()
                    .and_hms_nano_opt(23, 59, 59, 1_000_000_000 + nanos)
                    .unwrap()
                    .and_utc();
            }
            let chrono = time.to_rfc3339_opts(SecondsFormat::Millis, true);
            proptest::prop_assert_eq!(UtcMillis(time).to_string(), chrono.clone());
            let mut ours = Vec::new();
            UtcMillis::serialize_time(&time, &mut serde_json::Serializer::new(&mut ours)).unwrap();
            proptest::prop_assert_eq!(String::from_utf8(ours).unwrap(), format!("\"{chrono}\""));
        }
    }

    #[test]
    fn desc_and_asc_put_failures_last_and_keep_ties_in_request_order() {
        let racs = [None, Some(50), Some(70), Some(50), None, Some(90)];
        assert_eq!(sort_order(&racs, RoutesSort::Desc), [5, 2, 1, 3, 0, 4]);
        assert_eq!(sort_order(&racs, RoutesSort::Asc), [1, 3, 2, 5, 0, 4]);
        assert_eq!(sort_order(&racs, RoutesSort::Original), [0, 1, 2, 3, 4, 5]);
        assert!(sort_order(&[], RoutesSort::Desc).is_empty());
    }

    #[test]
    fn recommendations_pick_first_on_ties_and_skip_a_duplicate() {
        // Cleanest: 1 (80, first of the tie). Lowest dose: 2.
        let s = [Some((60, 10.0)), Some((80, 9.0)), Some((80, 5.0)), None];
        assert_eq!(recommended(&s), (Some(1), Some(2)));
        // The same route wins both: no LowestExposure.
        let s = [Some((60, 10.0)), Some((80, 5.0)), Some((80, 5.0))];
        assert_eq!(recommended(&s), (Some(1), None));
        assert_eq!(recommended(&[None, None]), (None, None));
    }
}
