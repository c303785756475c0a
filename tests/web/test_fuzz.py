"""Fuzz the HTTP API from its own OpenAPI document (schemathesis): no request gets a 500.

Requests carry the page's token (so the fuzzer reaches the handlers, not only the guard). The
app under test may run at most two games and no match, so that generated bodies that happen
to be valid cannot fill the machine; the event stream is left out (it never ends) and is
tested in test_api.py.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import HealthCheck, settings

from enoch.web.server import create_app

TOKEN = "fuzz-token"
APP = create_app(token=TOKEN, hosts=(), max_games=2, max_matches=0)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP).exclude(path="/api/events")


@schema.parametrize()
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_request_gets_a_500(case: Any) -> None:
    headers = dict(case.headers or {})
    headers["X-Enoch-Token"] = TOKEN
    case.headers = headers
    response = case.call()
    assert response.status_code < 500, (response.status_code, response.text[:300])
    if response.status_code >= 400:
        assert "error" in response.json()


def teardown_module() -> None:
    hub = APP.hub
    assert hub is not None
    hub.stop(wait=10)
