"""Calls the operations of a running server through a client generated from its OpenAPI
document alone, as a customer would: `python calls.py BASE_URL KEY` with the generated
`insights_client` package on the path. Prints one line per check and exits non-zero on the
first surprise."""

import sys

from insights_client import Client
from insights_client.api.insights import cleanest_route
from insights_client.api.lookups import get_conditions, get_forecast, get_history, get_pollen
from insights_client.models import (
    AlertAccepted,
    AlertRequest,
    ConditionsResponse,
    ErrorEnvelope,
    HoursResponse,
    PollenResponse,
    ScoreRequest,
    ScoreResponse,
)

base_url, key = sys.argv[1], sys.argv[2]
# The document declares the key as an apiKey credential in the query parameter `key`.
client = Client(base_url=base_url, httpx_args={"params": {"key": key}}, raise_on_unexpected_status=True)

routes = ScoreRequest.from_dict({
    "routesSort": "desc",
    "routes": [
        {"id": "river", "polyline": [[13.3777, 52.5163], [13.3900, 52.5170], [13.4050, 52.5200]],
         "routeDuration": 12},
        {"id": 1.50, "polyline": "_p~iF~ps|U_ulLnnqC_mqNvxq`@", "routeDuration": 300},
    ],
})
scored = cleanest_route.sync(client=client, body=routes)
assert isinstance(scored, ScoreResponse), scored
ids = sorted(entry.route_id for entry in scored.racss)
assert ids == ["1.5", "river"], ids
assert scored.completion_status.value in ("Completed", "CompletedWithErrors"), scored.completion_status
print("routes scored:", [(e.route_id, e.racs) for e in scored.racss])

points = AlertRequest.from_dict({
    "points": [{"lon": 13.405, "lat": 52.52, "id": "berlin", "custom_data": {"user": 17}}],
})
accepted = cleanest_route.sync(client=client, body=points)
assert isinstance(accepted, AlertAccepted), accepted
assert len(accepted.data.token) == 36, accepted.data.token
print("alerts accepted:", accepted.data.token)

refused = cleanest_route.sync_detailed(
    client=client,
    body=ScoreRequest.from_dict({"routesSort": "desc", "routes": [
        {"id": "a", "polyline": [[0, 0], [0, 91]], "routeDuration": 1}]}),
)
assert refused.status_code == 400, refused.status_code
assert isinstance(refused.parsed, ErrorEnvelope), refused.parsed
assert refused.parsed.error.code == "invalid_request", refused.parsed.error
print("refusal parsed:", refused.parsed.error.detail)

now = get_conditions.sync(client=client, lat=52.52, lon=13.405)
assert isinstance(now, ConditionsResponse), now
assert now.data.hour is not None and 0 <= now.data.hour.index.value <= 100, now
print("conditions read:", now.data.hour.index.value, now.data.hour.index.category)

ahead = get_forecast.sync(client=client, lat=52.52, lon=13.405, hours=5)
assert isinstance(ahead, HoursResponse), ahead
assert len(ahead.data.hours) == 5 and ahead.metadata.answered == 5, ahead
print("forecast read:", [h.index.value for h in ahead.data.hours])

back = get_history.sync(client=client, lat=52.52, lon=13.405, hours=3)
assert isinstance(back, HoursResponse), back
assert back.data.hours[0].time > back.data.hours[1].time, "newest first"
print("history read:", [h.time.isoformat() for h in back.data.hours])

days = get_pollen.sync(client=client, lat=52.52, lon=13.405, days=2)
assert isinstance(days, PollenResponse), days
assert len(days.data.days) == 2, days
print("pollen read:", [d.date.isoformat() for d in days.data.days])

too_far = get_forecast.sync_detailed(client=client, lat=52.52, lon=13.405, hours=97)
assert too_far.status_code == 400 and isinstance(too_far.parsed, ErrorEnvelope), too_far
print("lookup refusal parsed:", too_far.parsed.error.detail)
