"""Settings from the environment, and the OpenAPI document covering every API route."""

from __future__ import annotations

import re

import pytest

from tests.web.test_api import Api, new_app
from web.config import Settings
from web.errors import ConfigError


def test_settings_come_from_wonders_variables(tmp_path):
    settings = Settings.from_env({"WONDERS_STORE": str(tmp_path), "WONDERS_SPECTATOR_DELAY": "3",
                                  "WONDERS_ORGANIZER_TOKEN": "x" * 32, "OTHER": "ignored"})
    assert settings.store == tmp_path and settings.spectator_delay == 3
    assert settings.organizer_token == "x" * 32
    assert Settings.from_env({}, store=str(tmp_path)).store == tmp_path


@pytest.mark.parametrize("name, value", [("SPECTATOR_DELAY", "-1"), ("SPECTATOR_DELAY", "soon"),
                                         ("ORGANIZER_TOKEN", "short"), ("MAX_BODY_BYTES", "10")])
def test_a_bad_setting_names_its_variable(name, value):
    with pytest.raises(ConfigError, match=f"^WONDERS_{name}: "):
        Settings.from_env({f"WONDERS_{name}": value})


def test_fresh_settings_get_distinct_random_secrets():
    a, b = Settings(), Settings()
    assert a.organizer_token != b.organizer_token and len(a.organizer_token) >= 43
    assert a.secret_key == b.secret_key == ""  # unset: the store's key (web/sessionkey.py)


def test_every_api_route_is_in_the_openapi_document(tmp_path):
    api = Api(new_app(tmp_path))
    status, doc = api.call("GET", "/api/openapi.json")
    assert status == 200 and doc["openapi"].startswith("3.")
    documented = {(path, method) for path, ops in doc["paths"].items() for method in ops}
    routed = set()
    for rule in api.app.url_map.iter_rules():
        if rule.rule.startswith("/api/"):
            path = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule.rule)
            routed |= {(path, m.lower()) for m in rule.methods - {"HEAD", "OPTIONS"}}
    assert routed == documented
    for name in ("CreateMatch", "SubmitDecision", "StateOut", "PromptOut", "ErrorOut", "TakeBack"):
        assert name in doc["components"]["schemas"]
