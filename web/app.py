"""The Flask app factory: ``create_app(settings)`` wires the store, the caches and the blueprints.

Blueprints are listed in :data:`BLUEPRINTS` (the recording API) plus the /play page; a later
blueprint (viewer, stats) is added to that list.  Pages share ``web/templates/base.html`` and
the app's static files in ``web/static`` (served at ``/static/…``).  Everything the views share lives in
``app.extensions["wonders"]`` (see :class:`web.api.common.Services`).  Answers are gzipped
(:mod:`web.compression`), streams excepted.

The store is opened from ``settings.store`` -- a directory or a ``postgresql://`` URL
(:func:`ledger.stores.open_store`) -- and every view reaches it through the store protocol
(:class:`ledger.store.Store`) only; its tokens are kept by the backend
(:func:`web.tokens.token_book`).

At start the store is swept (:func:`sweep`) of what a killed server may have left: creates
and imports that never finished are rolled back, temporary files of dead processes removed,
and, in a file store, live matches without tokens (no one can ever continue them; only a
create or import that died half-way under an older version leaves one) moved to
``<store>/.orphans/``, which frees their ids.  A line in the log says what was swept.
"""

from __future__ import annotations

import logging

from flask import Flask, Response, request

from ledger.store import Store
from ledger.stores import open_store
from replay.games import game
from web import compression, errors
from web.api import follow, imports, judge, meta, notes, organizer, public, seat, tournaments
from web.api.common import Services
from web.api.tables import Tables
from web.config import Settings
from web.cookiesession import CookieSessions
from web.sessionkey import session_key
from web.tokens import ORPHANS, PgTokenBook, Swept, TokenBook, token_book

log = logging.getLogger("wonders.web")
__all__ = ["BLUEPRINTS", "ORPHANS", "Swept", "create_app", "sweep"]

BLUEPRINTS = [meta.bp, organizer.bp, seat.bp, judge.bp, public.bp, imports.bp, follow.bp,
              tournaments.bp, notes.bp]


def create_app(settings: Settings | None = None) -> Flask:
    """A ready app over ``settings.store`` (default: settings from the environment)."""
    settings = settings or Settings.from_env()
    # web/templates (base.html, page templates) and web/static (shared by every page blueprint)
    app = Flask(__name__, static_folder="static", template_folder="templates")
    store = open_store(settings.store)
    # the session key: WONDERS_SECRET_KEY, else the one kept in the store (web/sessionkey.py)
    settings = settings.model_copy(update={"secret_key": session_key(store, settings.secret_key)})
    app.config.update(
        SECRET_KEY=settings.secret_key,
        MAX_CONTENT_LENGTH=max(settings.max_body_bytes, settings.max_import_bytes),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        JSON_SORT_KEYS=False,
    )
    app.session_interface = CookieSessions()  # no signer built for a request without the cookie
    # One card pool per game: Wonders' from --cards / WONDERS_CARDS (checked at start), every
    # other game's its shipped pool, loaded when a match of that game is first used.
    pools = {"wotf": game("wotf").default_cards()}
    tokens = token_book(store)
    sweep(store, tokens)
    services = Services(settings, store, Tables(store, lambda name: services.pool(name)), tokens,
                        pools)
    app.extensions["wonders"] = services
    # pages import the API's helpers; keep them out of module import
    from web import dashboard, organize, play, sandbox, selfreg, tournament_pages, viewer
    for bp in [*BLUEPRINTS, play.bp, viewer.bp, sandbox.bp, dashboard.bp, organize.bp,
               tournament_pages.bp, selfreg.bp]:
        app.register_blueprint(bp)
    errors.register(app)
    app.after_request(_not_stored)
    compression.register(app)  # gzip for pages and JSON, never for streams
    return app


#: The page blueprints that show what only their holder may see -- a player's decklist and
#: link (``/tournaments/<id>/me``, the registration form), a seat's hand (``/play``), the
#: organizer's console and its links: never kept by a browser or a cache (``no-store``: a
#: shared phone's back button or history, a venue's proxy).
PRIVATE_PAGES = frozenset({"play", "organize", "selfreg"})


def _not_stored(response: Response) -> Response:
    if request.blueprint in PRIVATE_PAGES:
        response.headers["Cache-Control"] = "no-store"
    return response


def sweep(store: Store, tokens: TokenBook | PgTokenBook) -> Swept:
    """Leftovers of a server that was killed, swept at start (a create or import in progress
    in another live process is left alone): see the module's docstring."""
    return tokens.sweep(store)
