//! The four lookups in the OpenAPI document: their parameters with every range and default
//! the handlers apply, and every status they answer with. The response bodies are derived from
//! the types the handlers serialise (`lookups::wire`).

use serde_json::{Value, json};

use aq_core::epa::AqiCategory;
use aq_core::{CiCategory, Plant, PollenLevel, PollenType};
use i18n_core::Language;

use super::contract::{KEY_SCHEME, error, retry_later};

use crate::lookups::backtest::BACKTEST_DAYS;
use crate::lookups::indexes::IndexCode;
use crate::lookups::query::{PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX};
use crate::lookups::{FORECAST_HOURS, HISTORY_HOURS, POLLEN_DAYS};

/// `indexes`, for the operations that answer hours.
fn indexes_parameter() -> Value {
    let codes: Vec<&str> = IndexCode::ALL.iter().map(|c| c.as_str()).collect();
    json!({"name": "indexes", "in": "query", "required": false,
           "description": format!(
               "The indexes each hour's `indexes` lists, comma-separated codes in the order \
                wanted: {}. Any of them may be asked anywhere. Default: `ci`, `eaqi` and \
                `usa_epa`, then the national index of the place's country (the metadata's \
                `regionCode`) when the API computes one: `gbr_defra` (GB), `ind_cpcb` (IN), \
                `chn_mep` (CN), `can_ec` (CA).", codes.join(", ")),
           "schema": {"type": "string", "pattern": format!("^({0})(,({0}))*$", codes.join("|"))}})
}

/// `from` and `to`, read down to their hour, `to` not included.
fn window_parameters(side: &str) -> [Value; 2] {
    let describe = |what: &str| {
        format!(
            "{what} (RFC 3339), read down to its hour; with the other, instead of `hours`: the \
             hours from `from`'s up to `to`'s, `to`'s own not included, {side}"
        )
    };
    [
        json!({"name": "from", "in": "query", "required": false,
               "description": describe("The first hour"),
               "schema": {"type": "string", "format": "date-time"}}),
        json!({"name": "to", "in": "query", "required": false,
               "description": describe("The end of the window"),
               "schema": {"type": "string", "format": "date-time"}}),
    ]
}

/// The paths of the lookups, for `paths`.
pub(crate) fn operations() -> Vec<(&'static str, Value)> {
    let count = |name: &str, max: u32, default: u32, description: &str| {
        json!({"name": name, "in": "query", "required": false, "description": description,
               "schema": {"type": "integer", "minimum": 1, "maximum": max, "default": default}})
    };
    vec![
        (
            "/insights/v1/conditions",
            operation(
                "getConditions",
                "A place's air now.",
                "The current hour at the place: the cleanliness index (the value route scores \
                 and alerts read), every index asked for in `indexes` with its colour, the \
                 dominant pollutant, the concentrations, the US AQI \
                 (NowCast and 8-hour means where the source has the past hours) and advice \
                 per audience. A place the source does not cover is answered with `hour` null \
                 and a note in `metadata.notes`. With a model corrected by station readings \
                 (`--fuse-stations`), each pollutant has its `uncertainty` (one standard \
                 deviation, µg/m³) and `metadata.fusion` names the stations used and the age \
                 of their newest reading.",
                vec![indexes_parameter()],
                "ConditionsResponse",
            ),
        ),
        (
            "/insights/v1/forecast",
            operation(
                "getForecast",
                "A place's air by the hour from now.",
                &format!(
                    "`hours` hours from the current hour on, 1 to {} (default {}), or the hours \
                     from `from` to `to`. Hours the \
                     source does not forecast are absent from `hours`, never invented; \
                     `metadata.requested` and `metadata.answered` say how many.",
                    FORECAST_HOURS.max, FORECAST_HOURS.default
                ),
                {
                    let mut p = vec![count(
                        "hours",
                        FORECAST_HOURS.max,
                        FORECAST_HOURS.default,
                        "How many hours, the current hour first",
                    )];
                    p.extend(window_parameters(&format!(
                        "within the {} hours from the current hour",
                        FORECAST_HOURS.max
                    )));
                    p.push(indexes_parameter());
                    p
                },
                "HoursResponse",
            ),
        ),
        (
            "/insights/v1/history",
            operation(
                "getHistory",
                "A place's air in the past hours.",
                &format!(
                    "The `hours` hours before the current hour, newest first, 1 to {} \
                     (default {}), or the hours from `from` to `to`, as far back as the source \
                     keeps (`metadata.dataSource.historyHours`), {} hours a page by default \
                     (`pageSize`, up to {}): `data.nextPageToken` fetches the next. Hours the \
                     source does not have are absent, never invented.",
                    HISTORY_HOURS.max, HISTORY_HOURS.default, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX
                ),
                {
                    let mut p = vec![count(
                        "hours",
                        HISTORY_HOURS.max,
                        HISTORY_HOURS.default,
                        "How many past hours, the newest first",
                    )];
                    p.extend(window_parameters(&format!(
                        "within the {} hours before the current hour",
                        HISTORY_HOURS.max
                    )));
                    p.push(json!({"name": "pageSize", "in": "query", "required": false,
                        "description": "The most hours in one answer; the next page's token is \
                                        `data.nextPageToken`",
                        "schema": {"type": "integer", "minimum": 1, "maximum": PAGE_SIZE_MAX,
                                   "default": PAGE_SIZE_DEFAULT}}));
                    p.push(
                        json!({"name": "pageToken", "in": "query", "required": false,
                        "description": "The `nextPageToken` of the previous page, as it was: \
                                        it holds the window, which is the one answered \
                                        whatever `hours`, `from` and `to` say",
                        "schema": {"type": "string"}}),
                    );
                    p.push(indexes_parameter());
                    p
                },
                "HoursResponse",
            ),
        ),
        (
            "/insights/v1/pollen",
            operation(
                "getPollen",
                "A place's pollen by the day.",
                &format!(
                    "`days` civil days from today at the place (its own time zone), 1 to {} \
                     (default {}): per type (tree, grass, weed) the level 0 to 5 with its \
                     name and the daily mean count, and per plant (`plants`, by type then \
                     English name) the same of the plant's own daily mean, for a source that counts \
                     plants one by one. Days, types and plants the source has no values for \
                     are absent. A day's model runs (`metadata.dataSource.modelRuns`) \
                     are those of the hours its mean was taken over.",
                    POLLEN_DAYS.max, POLLEN_DAYS.default
                ),
                vec![count(
                    "days",
                    POLLEN_DAYS.max,
                    POLLEN_DAYS.default,
                    "How many days, today first",
                )],
                "PollenResponse",
            ),
        ),
        (
            "/insights/v1/alert-backtest",
            backtest_operation(count(
                "days",
                BACKTEST_DAYS.max,
                BACKTEST_DAYS.default,
                "How many past days to replay, up to the current hour",
            )),
        ),
    ]
}

/// The backtest: a lookup's parameters and answers, with the rule, and its 404.
fn backtest_operation(days: Value) -> Value {
    let rule = json!({"name": "rule", "in": "query", "required": true,
        "description": "The id of one of the key's alert rules, enabled or not (the dashboard's \
                        alert rules page and `admin list-rules` show them)",
        "schema": {"type": "string", "format": "uuid"}});
    let description = format!(
        "Replays one of the key's air-quality rules once an hour over the last `days` days \
             (1 to {}, default {}) at the place, each hour on the hours that followed as the \
             source analysed them (not on the forecasts issued then, which no source keeps): \
             the alerts it would have sent with its own repeat setting to a client posting the \
             place hourly, the counts with `repeat: once` and `repeat: every`, and each episode \
             it would have told. Tune the rule's sensitivity, `min_duration` and `hysteresis` \
             with it before enabling it. A pollen rule is refused with a 400: pollen is daily \
             and no source keeps its history.",
        BACKTEST_DAYS.max, BACKTEST_DAYS.default
    );
    let mut op = operation(
        "getAlertBacktest",
        "What an air-quality rule would have sent at a place over past days.",
        &description,
        vec![rule, days],
        "BacktestResponse",
    );
    let get = &mut op["get"];
    get["tags"] = json!(["insights"]);
    // Its answer has no notes to say a language falls back in: it takes no `languageCode`.
    if let Some(parameters) = get["parameters"].as_array_mut() {
        parameters.retain(|p| p["name"] != "languageCode");
    }
    // Its answer has no `metadata`, which the lookups' common text describes: its own text.
    get["description"] = json!(format!(
        "{description} Counted against the key's rate like every request; the query \
         parameters are refused with a 400 naming the one at fault."
    ));
    get["responses"]["400"] = error(
        "`invalid_request`: `rule`, `lat`, `lon` or `days` is missing, malformed or out of \
         range, or the rule watches pollen (the detail names which)",
    );
    get["responses"]["404"] = error("`not_found`: the key has no alert rule with that id");
    let source_header = get["responses"]["200"]["headers"]["Insights-Data-Source"].clone();
    for code in ["400", "404"] {
        get["responses"][code]["headers"]["Insights-Data-Source"] = source_header.clone();
    }
    op
}

fn operation(id: &str, summary: &str, description: &str, extra: Vec<Value>, body: &str) -> Value {
    let mut parameters = vec![
        json!({"name": "lat", "in": "query", "required": true,
               "description": "Latitude in decimal degrees (WGS 84)",
               "schema": {"type": "number", "minimum": -90, "maximum": 90}}),
        json!({"name": "lon", "in": "query", "required": true,
               "description": "Longitude in decimal degrees (WGS 84)",
               "schema": {"type": "number", "minimum": -180, "maximum": 180}}),
        json!({"name": "languageCode", "in": "query", "required": false,
               "description": "The language of the names, categories and advice, a BCP 47 \
                               tag read by its language: `en` (the default), `de`, `fr`, \
                               `es`, `it`, `nl`, `pl` or `pt` (`pt-BR` is answered in `pt`). \
                               Another language is answered in English with a note in \
                               `metadata.notes`; notes themselves are in English. \
                               `Content-Language` says which language the answer is in",
               "schema": {"type": "string", "pattern": "^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$"}}),
    ];
    parameters.extend(extra);
    let source_header = json!({
        "description": "The forecast source the answer was read from: its name, then \
                        `; synthetic` for made-up data, as in `demo; synthetic`.",
        "required": true,
        "schema": {"type": "string"}
    });
    let labelled = |mut answer: Value| {
        answer["headers"]["Insights-Data-Source"] = source_header.clone();
        answer
    };
    json!({"get": {
        "tags": ["lookups"],
        "summary": summary,
        "description": format!(
            "{description} `metadata.dataSource` names the source and what its values are \
             (`basis`): for model output the runs the hours or days come from \
             (`modelRuns`), for measurements the time of the newest one used \
             (`newestObservation`), and in \
             `provenanceNote` why either is left out. Counted against the key's rate like \
             every request; the query parameters are refused with a 400 naming the one at \
             fault."
        ),
        "operationId": id,
        "security": [{KEY_SCHEME: []}],
        "parameters": parameters,
        "responses": {
            "200": labelled(json!({
                "description": "The answer, possibly with nothing in it where the source has no data",
                "headers": {"Content-Language": {
                    "description": "The language of the answer's names, categories and \
                                    advice: the one `languageCode` names, or `en`",
                    "required": true,
                    "schema": {"type": "string", "enum": Language::ALL.map(Language::tag)}}},
                "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{body}")}}}
            })),
            "400": labelled(error("`invalid_request`: a parameter is missing, malformed or \
                                   out of range, or the operation does not take it (the \
                                   detail names which, and the one probably meant)")),
            "401": labelled(error("`missing_api_key` or `invalid_api_key`")),
            "405": error("`method_not_allowed`: the path takes GET and HEAD only"),
            "429": labelled(retry_later("`rate_limited`: over the key's rate")),
            "500": labelled(error("`internal_error`: a bug; the detail holds the request id")),
            "503": labelled(retry_later("`unavailable`: the forecast source or the database \
                                         is down, the shared rate-limit store is (with \
                                         `--limits-unavailable closed`), or the request \
                                         took too long")),
        }
    }})
}

/// The category names of every index, as enumerations: an app can list every value it may
/// meet (the cleanliness index's floor, "Extremely poor", among them), in every language
/// answers are written in (English first).
pub(crate) fn name_categories(doc: &mut Value) {
    let names = |scale: &str, english: &[&'static str]| -> Vec<&'static str> {
        let mut names: Vec<&'static str> = Vec::new();
        for language in Language::ALL {
            for name in english {
                let name = language.label(scale, name);
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        names
    };
    let ci_english: Vec<&str> = CiCategory::ALL.iter().rev().map(|c| c.name()).collect();
    let eea_english: Vec<&str> = CiCategory::ALL.iter().rev().map(|c| c.eea().1).collect();
    let epa_english: Vec<&str> = AqiCategory::ALL.iter().map(|c| c.name()).collect();
    let pollen_english: Vec<&str> = PollenLevel::ALL.iter().map(|l| l.name()).collect();
    let ci = names("ci", &ci_english);
    let eea = names("eaqi", &eea_english);
    let epa = names("usa-epa", &epa_english);
    let pollen = names("pollen-level", &pollen_english);
    let schemas = &mut doc["components"]["schemas"];
    schemas["IndexBody"]["properties"]["category"]["enum"] = json!(ci);
    schemas["IndexBody"]["properties"]["eeaCategory"]["enum"] = json!(eea);
    schemas["UsAqiBody"]["properties"]["category"]["enum"] = json!(epa);
    schemas["PollenTypeBody"]["properties"]["category"]["enum"] = json!(pollen);
    let plant = &mut schemas["PlantBody"]["properties"];
    plant["category"]["enum"] = json!(pollen);
    plant["code"]["enum"] = json!(Plant::ALL.map(Plant::code));
    let mut plant_names: Vec<&str> = Vec::new();
    for language in Language::ALL {
        for p in Plant::ALL {
            let name = crate::lookups::wire::plant_name(p, language);
            if !plant_names.contains(&name) {
                plant_names.push(name);
            }
        }
    }
    plant["displayName"]["enum"] = json!(plant_names);
    plant["type"]["enum"] = json!(PollenType::ALL.map(PollenType::name));
    let mut every: Vec<&str> = IndexCode::ALL
        .iter()
        .flat_map(|c| names(&c.scale(), &c.categories()))
        .collect();
    every.sort_unstable();
    every.dedup();
    schemas["IndexEntry"]["properties"]["category"]["enum"] = json!(every);
    schemas["IndexEntry"]["properties"]["code"]["enum"] = json!(
        IndexCode::ALL
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
    );
}
