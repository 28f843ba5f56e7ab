"""The OpenAPI document, generated from the pydantic models the views declare.

Views are registered with :func:`route`, which both adds the Flask URL rule and records the
operation (its request model, response model, parameters and who may call it).
:func:`document` turns the records into an OpenAPI 3.1 document; model schemas come from
pydantic's ``models_json_schema``, so the document cannot drift from the validation.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from flask import Blueprint
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from web.models import ErrorOut

V = TypeVar("V", bound=Callable[..., Any])  # a view function
_PARAM = re.compile(r"<(?:[a-z]+:)?([a-z_]+)>")
#: The largest integer a query parameter takes (a seq, a round, a table) unless it says less.
QUERY_INT_MAX = 10**9
ERRORS = {400: "malformed input", 401: "missing or unknown token", 403: "not allowed for this role",
          404: "no such match",
          409: "stale expected_seq, or (`diverged`) today's engine disagrees with the record: "
               "the match can be viewed and downloaded but not continued; nothing written",
          413: "body too large", 422: "illegal decision (the message cites the rule)",
          503: "too many live-follow streams open (on the server or from your address); see Retry-After"}


@dataclass(frozen=True)
class Query:
    name: str
    schema: dict[str, Any]
    description: str = ""


@dataclass
class Operation:
    path: str
    method: str
    summary: str
    tag: str
    body: type[BaseModel] | None = None
    response: type[BaseModel] | None = None
    status: int = 200
    auth: str | None = None  # "organizer", "seat", "judge", "any role", None = public
    query: tuple[Query, ...] = ()
    content: dict[str, Any] = field(default_factory=dict)  # non-JSON request/response bodies
    errors: tuple[int, ...] = (400, 404)
    revalidates: bool = False  # answers with an ETag, and 304 to a matching If-None-Match


OPERATIONS: list[Operation] = []


def route(bp: Blueprint, rule: str, method: str, summary: str, **doc: Any
          ) -> Callable[[V], V]:
    """Register a view on ``bp`` and describe it in the OpenAPI document."""
    def wrap(view: V) -> V:
        bp.add_url_rule(rule, view.__name__, view, methods=[method])
        path = _PARAM.sub(r"{\1}", (bp.url_prefix or "") + rule)
        OPERATIONS.append(Operation(path, method.lower(), summary, bp.name, **doc))
        return view
    return wrap


def document(title: str, version: str) -> dict[str, Any]:
    models: set[type[BaseModel]] = {ErrorOut}
    for op in OPERATIONS:
        models.update(m for m in (op.body, op.response) if m is not None)
    _, defs = models_json_schema([(m, "validation") for m in sorted(models, key=lambda m: m.__name__)],
                                 ref_template="#/components/schemas/{model}")
    paths: dict[str, dict[str, Any]] = {}
    for op in OPERATIONS:
        paths.setdefault(op.path, {})[op.method] = _operation(op)
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": version},
        "paths": paths,
        "components": {
            "schemas": defs.get("$defs", {}),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                           "description": "an organizer, seat or judge token"}},
        },
    }


def _ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{model.__name__}"}


def _operation(op: Operation) -> dict[str, Any]:
    out: dict[str, Any] = {"summary": op.summary, "tags": [op.tag],
                           "operationId": f"{op.tag}_{op.method}_{op.path}".replace("/", "_")
                           .replace("{", "").replace("}", "")}
    params = [{"name": name, "in": "path", "required": True,
               "schema": {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"}}
              for name in re.findall(r"{([a-z_]+)}", op.path)]
    params += [{"name": q.name, "in": "query", "required": False, "schema": q.schema,
                "description": q.description} for q in op.query]
    if params:
        out["parameters"] = params
    if op.auth:
        out["security"] = [{"bearer": []}]
        out["description"] = f"Needs a bearer token: {op.auth}."
    if op.body is not None:
        out["requestBody"] = {"required": True,
                              "content": {"application/json": {"schema": _ref(op.body)}}}
    elif "request" in op.content:
        out["requestBody"] = {"required": True, "content": op.content["request"]}
    responses: dict[str, Any] = {}
    if op.response is not None:
        responses[str(op.status)] = {"description": "success",
                                     "content": {"application/json": {"schema": _ref(op.response)}}}
    else:
        responses[str(op.status)] = {"description": "success",
                                     "content": op.content.get("response", {})}
    if op.revalidates:
        responses[str(op.status)]["headers"] = {"ETag": {
            "description": "names exactly this answer; send it back as If-None-Match",
            "schema": {"type": "string"}}}
        responses["304"] = {"description": "not modified: If-None-Match names the answer "
                                           "there is now (no body)"}
    codes = set(op.errors) | ({401, 403} if op.auth else set()) | ({413} if op.body else set())
    for code in sorted(codes):
        responses[str(code)] = {"description": ERRORS[code],
                                "content": {"application/json": {"schema": _ref(ErrorOut)}}}
    out["responses"] = responses
    return out
