"""The Flask app factory: ``create_app(settings)`` wires the store, the caches and the blueprints.

Blueprints are listed in :data:`BLUEPRINTS` (the recording API) plus the /play page; a later
blueprint (viewer, stats) is added to that list.  Pages share ``web/templates/base.html`` and
the app's static files in ``web/static`` (served at ``/static/…``).  Everything the views share lives in
``app.extensions["wonders"]`` (see :class:`web.api.common.Services`).
"""

from __future__ import annotations

from flask import Flask

from ledger.filestore import FileStore
from replay.cards import default_cards
from web import errors
from web.api import follow, imports, judge, meta, organizer, public, seat
from web.api.common import Services
from web.api.tables import Tables
from web.config import Settings
from web.tokens import TokenBook

BLUEPRINTS = [meta.bp, organizer.bp, seat.bp, judge.bp, public.bp, imports.bp, follow.bp]


def create_app(settings: Settings | None = None) -> Flask:
    """A ready app over ``settings.store`` (default: settings from the environment)."""
    settings = settings or Settings.from_env()
    # web/templates (base.html, page templates) and web/static (shared by every page blueprint)
    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.config.update(
        SECRET_KEY=settings.secret_key,
        MAX_CONTENT_LENGTH=max(settings.max_body_bytes, settings.max_import_bytes),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        JSON_SORT_KEYS=False,
    )
    store = FileStore(settings.store)
    db = default_cards()
    app.extensions["wonders"] = Services(settings, store, Tables(store, db),
                                         TokenBook(settings.store), db)
    from web import dashboard, play, viewer  # pages import the API's helpers; keep them out of module import
    for bp in [*BLUEPRINTS, play.bp, viewer.bp, dashboard.bp]:
        app.register_blueprint(bp)
    errors.register(app)
    return app
