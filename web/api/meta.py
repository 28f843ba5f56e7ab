"""Service endpoints: the OpenAPI document and a health check (also the no-op the bench uses
to measure the server's bare request rate)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify

from replay.games import game, names
from web.api.common import services
from web.api.openapi import document, route
from web.models import Health

bp = Blueprint("meta", __name__, url_prefix="/api")


@route(bp, "/openapi.json", "GET", "This document", errors=(),
       content={"response": {"application/json": {"schema": {"type": "object"}}}})
def openapi() -> Response:
    versions = ", ".join(f"{name} {game(name).engine_version}" for name in names())
    return jsonify(document("Wonders Ledger recording API", versions))


@route(bp, "/health", "GET", "Liveness check", response=Health, errors=())
def health() -> dict[str, Any]:
    return Health(ok=True, matches_cached=len(services().tables)).model_dump()
