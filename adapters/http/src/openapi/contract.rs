//! The two API operations in the OpenAPI document, written as JSON Schema from the server's
//! configured limits: the request bodies, the key as a security scheme, and every status and
//! header the handlers answer with.
//!
//! The request schemas are written out rather than derived, because they state what the
//! readers in the cores refuse (unknown members, ranges, lengths, counts) and those readers
//! are not schema types. What JSON Schema cannot state is listed in [`UNSTATED_RULES`], which
//! the operation's description repeats and the schema test leaves out of its generated data.

use aq_core::tile::{GRID_NODES, MAX_ZOOM, TILE_SIZE};
use serde_json::{Value, json};

use crate::state::ApiConfig;
use crate::tiles::Layer;

/// The name of the security scheme of the API key.
pub(crate) const KEY_SCHEME: &str = "ApiKeyAuth";

/// The rules the server applies to a request that the schema cannot state.
pub(crate) const UNSTATED_RULES: [&str; 9] = [
    "route ids are unique within a request (a number and a string with the same text are the same id)",
    "ids are at most the stated number of bytes of UTF-8, not characters",
    "a `routeDuration` is at most 7 days once converted with `durationUnits`",
    "a polyline string is a valid Google encoded polyline (precision 5) whose vertices stay in range, or a JSON array of [lon, lat] pairs",
    "`custom_data` is at most the stated number of bytes of JSON text",
    "`departureTime` falls within the years 0000 to 9999 once converted to UTC",
    "`departureStepMinutes` comes only with `departureWindowMinutes`",
    "routes × later departures (`departureWindowMinutes` / `departureStepMinutes`, rounded down) is at most the number `departureWindowMinutes` states (413 `payload_too_large` beyond)",
    "a planned route's `origin` and `destination` differ, lie within 500 m of a street of the server's network (`--roads`) that `travelMode` can use, and are joined by one; `travelMode` is `walk` or `cycle`",
];

/// The request-body schemas, for `components.schemas`.
pub(crate) fn request_schemas(config: &ApiConfig) -> Value {
    let routes = &config.route_limits;
    let points = &config.point_limits;
    let id = |max_bytes: usize| {
        json!({
            "description": format!(
                "A string of 1 to {max_bytes} bytes, or a number kept as its exact JSON text \
                 (`1.50` is the id \"1.50\")."
            ),
            "oneOf": [
                {"type": "string", "minLength": 1, "maxLength": max_bytes},
                {"type": "number"}
            ]
        })
    };
    let nullable_enum = |values: &[&str], default: Option<&str>, description: &str| {
        let mut values: Vec<Value> = values.iter().map(|v| json!(v)).collect();
        values.push(Value::Null);
        let mut schema = json!({"description": description, "enum": values});
        if let Some(default) = default {
            schema["default"] = json!(default);
        }
        schema
    };
    json!({
        "CleanestRouteBody": {
            "description": "`points` asks for alerts (operation 1), `routes` for route scores \
                            (operation 2); a body with both or neither is refused. Unknown \
                            members are refused everywhere except inside `custom_data`, and so \
                            is a member given twice.",
            "oneOf": [
                {"$ref": "#/components/schemas/AlertRequest"},
                {"$ref": "#/components/schemas/ScoreRequest"},
                {"$ref": "#/components/schemas/JourneyRequest"}
            ]
        },
        "JourneyRequest": {
            "description": "Plan walks or rides between two places on the server's streets \
                            (OpenStreetMap, `--roads`), from the fastest to the least exposed \
                            (at most 1.5 times the fastest's length), and score them. The answer \
                            has the route-scoring answer's shape; each `racss` entry also has its \
                            `polyline` ([lon, lat] pairs on the streets), `routeDuration` and \
                            `routeLength` in the request's units and its dose \
                            `inhaledPm25Ug`; `recommendations` start with `FastestRoute`, and \
                            the answer says the `departureTime` it was scored at. Route `1` is \
                            the fastest.",
            "type": "object",
            "additionalProperties": false,
            "required": ["origin", "destination", "travelMode", "routesSort"],
            "properties": {
                "origin": {"$ref": "#/components/schemas/Place"},
                "destination": {"$ref": "#/components/schemas/Place"},
                "travelMode": {
                    "description": "`walk` (1.3 m/s) or `cycle` (4.5 m/s).",
                    "enum": ["walk", "cycle"]
                },
                "routesSort": {
                    "description": "The order of `racss`, as for route scores.",
                    "enum": racs_core::RoutesSort::ALL.map(racs_core::RoutesSort::as_str)
                },
                "durationUnits": nullable_enum(
                    &racs_core::DurationUnit::ALL.map(racs_core::DurationUnit::as_str),
                    Some("m"),
                    "The unit of the answer's `routeDuration`s; `null` or absent means `m`."
                ),
                "lengthUnits": nullable_enum(
                    &racs_core::LengthUnit::ALL.map(racs_core::LengthUnit::as_str),
                    Some("m"),
                    "The unit of the answer's `routeLength`s; `null` or absent means `m`."
                ),
                "departureTime": {
                    "type": ["string", "null"],
                    "format": "date-time",
                    "description": "When the journey starts (RFC 3339); `null` or absent means \
                                    now."
                }
            }
        },
        "Place": {
            "description": "A place as [longitude, latitude] in degrees (WGS 84).",
            "type": "array",
            "minItems": 2,
            "maxItems": 2,
            "prefixItems": [
                {"type": "number", "minimum": -180, "maximum": 180},
                {"type": "number", "minimum": -90, "maximum": 90}
            ],
            "items": {"type": "number"}
        },
        "AlertRequest": {
            "description": "Operation 1: request alert notifications for points.",
            "type": "object",
            "additionalProperties": false,
            "required": ["points"],
            "properties": {
                "points": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": points.max_points,
                    "items": {"$ref": "#/components/schemas/AlertPoint"}
                }
            }
        },
        "AlertPoint": {
            "description": "One point to watch.",
            "type": "object",
            "additionalProperties": false,
            "required": ["lon", "lat", "id"],
            "properties": {
                "lon": {"type": "number", "minimum": -180, "maximum": 180,
                        "description": "Longitude in degrees (WGS 84)."},
                "lat": {"type": "number", "minimum": -90, "maximum": 90,
                        "description": "Latitude in degrees (WGS 84)."},
                "id": id(alerts_core::request::MAX_ID_BYTES),
                "custom_data": {
                    "type": ["object", "null"],
                    "description": format!(
                        "Any JSON object, at most {} bytes of JSON text, echoed exactly as sent \
                         (members in their order) in the output file's `custom_data`.",
                        points.max_custom_data_bytes
                    )
                }
            }
        },
        "ScoreRequest": {
            "description": "Operation 2: score routes by the cleanliness of the air along them.",
            "type": "object",
            "additionalProperties": false,
            "required": ["routes", "routesSort"],
            "properties": {
                "routes": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": routes.max_routes,
                    "items": {"$ref": "#/components/schemas/Route"}
                },
                "durationUnits": nullable_enum(
                    &racs_core::DurationUnit::ALL.map(racs_core::DurationUnit::as_str),
                    Some("m"),
                    "The unit of every `routeDuration`; `null` or absent means `m`."
                ),
                "lengthUnits": nullable_enum(
                    &racs_core::LengthUnit::ALL.map(racs_core::LengthUnit::as_str),
                    Some("m"),
                    "The unit of every length in the response; `null` or absent means `m`."
                ),
                "routesSort": {
                    "description": "The order of `racss`: `desc` cleanest first, `asc` least \
                                    clean first (failed routes last in both), `original` as sent.",
                    "enum": racs_core::RoutesSort::ALL.map(racs_core::RoutesSort::as_str)
                },
                "departureTime": {
                    "type": ["string", "null"],
                    "format": "date-time",
                    "description": "When the trip starts (RFC 3339); `null` or absent means now. \
                                    Forecasts are read along the way."
                },
                "travelMode": nullable_enum(
                    &racs_core::TravelMode::ALL.map(racs_core::TravelMode::as_str),
                    None,
                    "How the traveller moves: the default of each route's own `travelMode`, \
                     which sets the breathing rate of its inhaled PM2.5 dose; walking when \
                     neither says."
                ),
                "departureWindowMinutes": {
                    "type": ["integer", "null"],
                    "minimum": racs_core::WINDOW_MINUTES.0,
                    "maximum": racs_core::WINDOW_MINUTES.1,
                    "description": format!(
                        "How long after `departureTime` the traveller could still leave, in \
                         minutes. With it, every scored route is also scored at each later \
                         departure `departureTime + k · departureStepMinutes` that is at most \
                         this long after `departureTime`, with the forecasts along the way, and \
                         the response adds the `BestDepartureTime` recommendation; `racss` stay \
                         the scores at `departureTime`. Routes × later departures is at most {} \
                         (413 beyond).",
                        routes.max_departure_scorings
                    )
                },
                "departureStepMinutes": {
                    "type": ["integer", "null"],
                    "minimum": racs_core::STEP_MINUTES.0,
                    "maximum": racs_core::STEP_MINUTES.1,
                    "default": racs_core::DEFAULT_STEP_MINUTES,
                    "description": "Minutes between the departures of `departureWindowMinutes`, \
                                    which it needs; `null` or absent means 15."
                }
            }
        },
        "Route": {
            "description": "One route to score.",
            "type": "object",
            "additionalProperties": false,
            "required": ["id", "polyline", "routeDuration"],
            "properties": {
                "id": id(routes.max_route_id_bytes),
                "polyline": {"$ref": "#/components/schemas/Polyline"},
                "routeDuration": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "maximum": routes.max_route_duration_s,
                    "description": format!(
                        "The expected travel time in `durationUnits`: above 0 and at most {} s \
                         once converted.",
                        routes.max_route_duration_s
                    )
                },
                "travelMode": nullable_enum(
                    &racs_core::TravelMode::ALL.map(racs_core::TravelMode::as_str),
                    None,
                    "How the traveller moves on this route; the request's `travelMode` when \
                     absent. Sets the breathing rate of the route's inhaled PM2.5 dose."
                )
            }
        },
        "Polyline": {
            "description": format!(
                "The route's vertices in travel order, at most {}: an array of [lon, lat] \
                 pairs, a Google encoded polyline (precision 5), or the array as a JSON string.",
                routes.max_vertices_per_route
            ),
            "oneOf": [
                {
                    "type": "array",
                    "maxItems": routes.max_vertices_per_route,
                    "items": {
                        "type": "array",
                        "minItems": 2,
                        "maxItems": 2,
                        "prefixItems": [
                            {"type": "number", "minimum": -180, "maximum": 180},
                            {"type": "number", "minimum": -90, "maximum": 90}
                        ]
                    }
                },
                {
                    "type": "string",
                    "description": "An encoded polyline: two values a vertex, each of up to six \
                                    characters `_` to `~` and a last one `?` to `^`.",
                    "pattern": "^(?:[_-~]{0,6}[?-^][_-~]{0,6}[?-^])*$"
                },
                {
                    "type": "string",
                    "description": "The array of [lon, lat] pairs as JSON text.",
                    "pattern": "^\\s*\\[[-0-9.eE+,\\[\\]\\s]*\\]\\s*$"
                }
            ]
        }
    })
}

/// `POST /insights/v1/cleanest-route`.
pub(crate) fn cleanest_route_operation(config: &ApiConfig) -> Value {
    let max_body = config.max_body_bytes;
    let unstated: String = UNSTATED_RULES
        .iter()
        .map(|rule| format!("\n- {rule}"))
        .collect();
    json!({
        "tags": ["insights"],
        "summary": "Scores routes or requests alerts; the body decides which.",
        "description": format!(
            "The body's `routes` asks for route scores, its `points` for alert notifications. \
             The body is at most {max_body} bytes (413 beyond). The server also applies these \
             rules, which the schema cannot state; a request that breaks one is refused with a \
             4xx naming the member (400 `invalid_request`, or 413 `payload_too_large` for a \
             `custom_data` over its size or a departure window over its limit):{unstated}"
        ),
        "operationId": "cleanestRoute",
        "security": [{KEY_SCHEME: []}],
        "parameters": [{
            "name": "Idempotency-Key",
            "in": "header",
            "required": false,
            "description": "Operation 1 only: 1 to 255 visible ASCII characters naming this \
                            request (a UUID is usual). A retry with the same key and the same \
                            points gets the first request's token, marked \
                            `Idempotent-Replayed: true`, and nothing is stored or delivered \
                            twice. Keys are kept as long as their request. Ignored by \
                            operation 2.",
            "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+$"}
        }],
        "requestBody": {
            "required": true,
            "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/CleanestRouteBody"}
            }}
        },
        "responses": {
            "200": {
                "description": "Operation 1: the request is stored and will be delivered to \
                                the key's webhook. Operation 2: the routes are scored \
                                (`completionStatus` may still be `Failed`). A planned route: \
                                the routes found, scored, each with its `polyline`, \
                                `routeDuration` and `routeLength`.",
                "headers": {
                    "Idempotent-Replayed": {
                        "description": "`true` when this answers a retry of a stored alert request",
                        "schema": {"type": "string", "enum": ["true"]}
                    }
                },
                "content": {"application/json": {"schema": {"oneOf": [
                    {"$ref": "#/components/schemas/AlertAccepted"},
                    {"$ref": "#/components/schemas/ScoreResponse"}
                ]}}}
            },
            "400": error("`invalid_request` (the detail names the member), \
                          `webhook_not_configured` or `no_alert_rules`"),
            "401": error("`missing_api_key` or `invalid_api_key`"),
            "405": error("`method_not_allowed`: the path takes POST only"),
            "413": error("`payload_too_large`: the body, points, routes, vertices, a \
                          `custom_data` or the scorings of a departure window over the limits \
                          (the detail names the limit)"),
            "415": error("`unsupported_media_type`: the body is not JSON, or is compressed"),
            "422": error("`idempotency_key_reused`: the `Idempotency-Key` was used before with \
                          other points"),
            "429": retry_later("`rate_limited`: over the key's rate, or the body is more than the \
                                key's or the client network's budget of body bytes has left; \
                                `too_many_pending`: the key has `max_pending_per_key` alert \
                                requests unfinished"),
            "500": error("`internal_error`: a bug; the detail holds the request id"),
            "503": retry_later("`unavailable`: a dependency is down, the server is busy, or the \
                                request took longer than the server's request timeout; \
                                `queue_full`: this alert request would wait (or requests \
                                already wait) longer than the service allows, so it was not \
                                accepted (`Retry-After` says when \
                                the queue is expected to have room; the key's requests in the \
                                next second at most are refused the same way without the queue \
                                being read again)"),
        }
    })
}

/// `GET /insights/v1/tiles/{z}/{x}/{y}.png`.
pub(crate) fn tile_operation() -> Value {
    let coordinate = |name: &str, description: &str, maximum: Option<u64>| {
        let mut schema = json!({"type": "integer", "minimum": 0});
        if let Some(max) = maximum {
            schema["maximum"] = json!(max);
        }
        json!({"name": name, "in": "path", "required": true, "description": description,
               "schema": schema})
    };
    let cache_headers = json!({
        "Cache-Control": {
            "description": "`private, max-age=N`: N seconds to the end of the current hour, 60 at least",
            "schema": {"type": "string"}
        },
        "ETag": {
            "description": "Names the source and the hour shown; send it back in `If-None-Match`",
            "schema": {"type": "string"}
        }
    });
    json!({"get": {
        "tags": ["insights"],
        "summary": "A heatmap tile of the cleanliness index or of a pollen type.",
        "description": format!(
            "A {TILE_SIZE} x {TILE_SIZE} PNG of the Web Mercator XYZ tiling (as web maps use) \
             showing the cleanliness index from the server's air-quality source at one hour: \
             the category palette (Poor red through Excellent green) as a smooth ramp, opaque \
             where the source has a value and transparent where it has none. With \
             `layer=pollen-tree`, `pollen-grass` or `pollen-weed`, the type's level (Very low \
             green to Very high red, as the pollen lookup's `color`) from the forecast source \
             on the day that holds the hour, transparent where the level is None or the \
             source has no value. Each tile asks \
             the source once, for a grid of {GRID_NODES} x {GRID_NODES} places, and \
             interpolates between them. Counted against the key's rate like every request."
        ),
        "operationId": "getTile",
        "security": [{KEY_SCHEME: []}],
        "parameters": [
            coordinate("z", "Zoom, 0 (the whole world in one tile) to 16", Some(u64::from(MAX_ZOOM))),
            coordinate("x", "Column from the antimeridian eastwards, 0 to 2^z - 1", None),
            coordinate("y", "Row from the north, 0 to 2^z - 1", None),
            {"name": "time", "in": "query", "required": false,
             "description": "The instant shown, RFC 3339; the tile shows its whole hour. \
                             Default: now.",
             "schema": {"type": "string", "format": "date-time"}},
            {"name": "layer", "in": "query", "required": false,
             "description": "What the tile shows: `ci` (the cleanliness index, the default) \
                             or one pollen type's level",
             "schema": {"type": "string", "enum": Layer::ALL.map(Layer::as_str),
                        "default": "ci"}},
            {"name": "If-None-Match", "in": "header", "required": false,
             "description": "The `ETag` of a tile held; answered 304 when it still holds",
             "schema": {"type": "string"}}
        ],
        "responses": {
            "200": {
                "description": "The tile",
                "headers": cache_headers.clone(),
                "content": {"image/png": {"schema": {"type": "string", "format": "binary"}}}
            },
            "304": {"description": "The tile held is still current", "headers": cache_headers},
            "400": error("`invalid_request`: a zoom, column or row outside the tiling, or a \
                          `time` that is not RFC 3339 (the detail names which)"),
            "401": error("`missing_api_key` or `invalid_api_key`"),
            "405": error("`method_not_allowed`: the path takes GET and HEAD only"),
            "429": retry_later("`rate_limited`: over the key's rate"),
            "500": error("`internal_error`: a bug; the detail holds the request id"),
            "503": retry_later("`unavailable`: the air-quality source or the database is down, or \
                                  the shared rate-limit store is (with `--limits-unavailable closed`)"),
        }
    }})
}

/// `GET` and `HEAD /insights/v1/files/{name}`.
pub(crate) fn download_operations() -> Value {
    let operation = |method: &str, ok: Value| {
        json!({
            "tags": ["insights"],
            "summary": format!("{method} an output file through the signed URL of a webhook delivery."),
            "operationId": format!("{}File", method.to_ascii_lowercase()),
            "parameters": [
                {"name": "name", "in": "path", "required": true,
                 "description": "`<token>.ndjson`", "schema": {"type": "string"}},
                {"name": "expires", "in": "query", "required": true,
                 "description": "Unix time after which the URL is refused",
                 "schema": {"type": "integer", "minimum": 0}},
                {"name": "kid", "in": "query", "required": false,
                 "description": "The signing key's id", "schema": {"type": "string"}},
                {"name": "signature", "in": "query", "required": true,
                 "description": "HMAC-SHA256 of the path, expiry and key id, hex",
                 "schema": {"type": "string"}}
            ],
            "responses": {
                "200": ok,
                "403": error("`forbidden` (a wrong or missing signature) or `expired_url`"),
                "404": error("`not_found`: the file is gone"),
                "405": error("`method_not_allowed`: the path takes GET and HEAD only"),
                "503": retry_later("`unavailable`: the file store is down"),
            }
        })
    };
    // A file carries customers' `custom_data`: it is a download, never a page.
    let headers = json!({
        "Content-Disposition": {
            "description": "`attachment; filename=\"<token>.ndjson\"`: a download, never rendered",
            "schema": {"type": "string"}
        },
        "X-Content-Type-Options": {"description": "`nosniff`", "schema": {"type": "string"}},
        "Content-Security-Policy": {"description": "`sandbox`", "schema": {"type": "string"}}
    });
    json!({
        "get": operation("GET", json!({
            "description": "The NDJSON file, one alert per line",
            "headers": headers,
            "content": {"application/x-ndjson": {
                "schema": {"$ref": "#/components/schemas/AlertLine"}
            }}
        })),
        "head": operation("HEAD", json!({
            "description": "The file's headers, without its body",
            "headers": headers
        })),
    })
}

/// The key as an `apiKey` security scheme in the query parameter `key`.
pub(crate) fn security_schemes() -> Value {
    json!({
        KEY_SCHEME: {
            "type": "apiKey",
            "in": "query",
            "name": "key",
            "description": "Your API key (`ik_...`), created in the dashboard or with the admin \
                            command. Required on every API request."
        }
    })
}

/// An error answer with the error envelope.
pub(crate) fn error(description: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}}
    })
}

/// An error answer that says when to try again.
pub(crate) fn retry_later(description: &str) -> Value {
    let mut answer = error(description);
    answer["headers"] = json!({
        "Retry-After": {
            "description": "Whole seconds to wait before retrying",
            "required": true,
            "schema": {"type": "integer", "minimum": 1}
        }
    });
    answer
}
