"""Schemathesis hooks for the schema test of `insights-server`.

The OpenAPI document states every rule of the API that JSON Schema can state. The few it cannot
are listed in the `POST /insights/v1/cleanest-route` description; a request that breaks one is
refused with 400 `invalid_request` naming the member. These hooks leave such requests out of the
generated data, so that the run can check that everything else the document allows is accepted
(`positive_data_acceptance`). The limits are the server's defaults, which the test keeps.
"""

import json
import re
import uuid
from datetime import datetime, timedelta, timezone

import schemathesis

MAX_ROUTE_DURATION_S = 604_800
SECONDS_PER_UNIT = {"s": 1, "m": 60, "h": 3600, None: 60}
MAX_ID_BYTES = 256
MAX_CUSTOM_DATA_BYTES = 16 * 1024
MAX_DEPARTURE_SCORINGS = 1000
DEFAULT_STEP_MINUTES = 15
IDEMPOTENCY_KEY = re.compile(r"^[!-~]{1,255}$")


# Case hooks, because the coverage phase applies those and not the body and header hooks.
@schemathesis.hook
def filter_case(context, case):
    """Keeps a request unless it breaks a rule the document cannot state."""
    if not tile_in_range(case.path_parameters):
        return False
    if not window_keeps_the_unstated_rules(case.path, case.query):
        return False
    body = case.body
    if not isinstance(body, dict):
        return True
    # A planned route's places must lie on the server's streets, which the schema test's
    # server does not have: the streets' own tests plan routes.
    if "origin" in body or "destination" in body:
        return False
    try:
        if isinstance(body.get("routes"), list):
            return routes_keep_the_unstated_rules(body)
        if isinstance(body.get("points"), list):
            return points_keep_the_unstated_rules(body["points"])
    except (TypeError, KeyError, AttributeError, ValueError):
        # Data the document does not allow anyway (negative cases): keep it.
        return True
    return True


@schemathesis.hook
def map_case(context, case):
    """Gives each request a fresh `Idempotency-Key`: reusing one with other points is rightly
    refused with 422, and generated keys repeat."""
    headers = case.headers
    if headers and IDEMPOTENCY_KEY.match(str(headers.get("Idempotency-Key", ""))):
        headers["Idempotency-Key"] = str(uuid.uuid4())
    return case


# How far each hourly lookup's window may lie from the current hour, in hours: (first, end).
WINDOWS = {"/insights/v1/forecast": (0, 96), "/insights/v1/history": (-720, 0)}


def window_keeps_the_unstated_rules(path, query):
    """A forecast's or history's `from` and `to` come together, without `hours`, and name at
    least an hour within the operation's reach from the current hour (both read down to the
    hour); a `pageToken` is one the server gave, which generated text never is."""
    if path not in WINDOWS or not isinstance(query, dict):
        return True
    if "pageToken" in query:
        return False
    given = [name for name in ("from", "to") if name in query]
    if not given:
        return True
    if len(given) != 2 or "hours" in query:
        return False
    try:
        start = hour_of(datetime.fromisoformat(str(query["from"]).replace("Z", "+00:00")))
        end = hour_of(datetime.fromisoformat(str(query["to"]).replace("Z", "+00:00")))
    except (TypeError, ValueError, OverflowError):
        # Not instants Python reads (the year 0000 among them): left to the server's own tests.
        return False
    now = hour_of(datetime.now(timezone.utc))
    low, high = WINDOWS[path]
    # A margin of an hour either side: the current hour may turn during the run.
    return (
        end - start >= timedelta(hours=1)
        and now + timedelta(hours=low + 1) <= start
        and end <= now + timedelta(hours=high - 1)
    )


def hour_of(instant):
    if instant.tzinfo is None:
        raise ValueError("an instant without an offset")
    instant = instant.astimezone(timezone.utc)
    return instant.replace(minute=0, second=0, microsecond=0)


def id_text(value):
    """An id as the server keeps it: a string's text, a number's JSON text as sent."""
    return value if isinstance(value, str) else json.dumps(value)


def id_fits(value):
    return not isinstance(value, str) or len(value.encode("utf-8")) <= MAX_ID_BYTES


def routes_keep_the_unstated_rules(body):
    routes = [r for r in body["routes"] if isinstance(r, dict)]
    ids = [id_text(r["id"]) for r in routes if "id" in r]
    if len(ids) != len(set(ids)):
        return False
    unit = SECONDS_PER_UNIT.get(body.get("durationUnits"), 60)
    for route in routes:
        if not id_fits(route.get("id")):
            return False
        duration = route.get("routeDuration")
        if isinstance(duration, (int, float)) and duration * unit > MAX_ROUTE_DURATION_S:
            return False
        polyline = route.get("polyline")
        if isinstance(polyline, str) and not polyline_string_is_valid(polyline):
            return False
    if not departure_window_fits(body, len(body["routes"])):
        return False
    return departure_in_range(body.get("departureTime"))


def departure_window_fits(body, routes):
    """A step comes only with a window, and routes × later departures stays within the
    server's `max_departure_scorings`."""
    window = body.get("departureWindowMinutes")
    step = body.get("departureStepMinutes")
    if window is None:
        return step is None
    if step is None:
        step = DEFAULT_STEP_MINUTES
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (window, step)):
        return True
    if step <= 0:
        return True
    return routes * int(window // step) <= MAX_DEPARTURE_SCORINGS


def points_keep_the_unstated_rules(points):
    for point in points:
        if not isinstance(point, dict):
            continue
        if not id_fits(point.get("id")):
            return False
        custom = point.get("custom_data")
        if custom is not None and len(json.dumps(custom)) > MAX_CUSTOM_DATA_BYTES:
            return False
    return True


def polyline_string_is_valid(text):
    if text.lstrip().startswith("["):
        try:
            pairs = json.loads(text)
        except ValueError:
            return encoded_polyline_is_valid(text)
        return isinstance(pairs, list) and all(pair_is_valid(p) for p in pairs)
    return encoded_polyline_is_valid(text)


def pair_is_valid(pair):
    return (
        isinstance(pair, list)
        and len(pair) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in pair)
        and -180 <= pair[0] <= 180
        and -90 <= pair[1] <= 90
    )


def encoded_polyline_is_valid(text):
    """Google's encoded polyline format, precision 5: every vertex in range."""
    values, value, shift, chunks = [], 0, 0, 0
    for character in text:
        code = ord(character) - 63
        if not 0 <= code <= 63:
            return False
        value |= (code & 0x1F) << shift
        shift += 5
        chunks += 1
        if chunks > 7:
            return False
        if code < 0x20:
            values.append(~(value >> 1) if value & 1 else value >> 1)
            value, shift, chunks = 0, 0, 0
    if chunks or len(values) % 2:
        return False
    lat = lon = 0
    for i in range(0, len(values), 2):
        lat += values[i]
        lon += values[i + 1]
        if not (-90 <= lat / 1e5 <= 90 and -180 <= lon / 1e5 <= 180):
            return False
    return True


def departure_in_range(text):
    """RFC 3339 keeps four-digit years; an offset can carry a time outside them in UTC."""
    if not isinstance(text, str):
        return True
    year = text[:4]
    offset = re.search(r"([+-])(\d\d):(\d\d)$", text)
    if offset is None or offset.group(2, 3) == ("00", "00"):
        return True
    # Only the first and the last day of the four-digit years can cross them.
    if year == "9999" and offset.group(1) == "-" and text[5:10] == "12-31":
        return False
    if year == "0000" and offset.group(1) == "+" and text[5:10] == "01-01":
        return False
    return True


def tile_in_range(parameters):
    """A tile's column and row are below 2^zoom, which a schema cannot say of two parameters.
    Path parameters may come as numbers or as their text."""
    if not parameters:
        return True
    values = []
    for name in ("z", "x", "y"):
        value = parameters.get(name)
        if isinstance(value, str) and re.fullmatch(r"[0-9]+", value):
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            return True
        values.append(value)
    z, x, y = values
    if not 0 <= z <= 16:
        return True
    return x < 2**z and y < 2**z
