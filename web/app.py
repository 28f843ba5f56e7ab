"""The Flask app factory: ``create_app(settings)`` wires the store, the caches and the blueprints.

Blueprints are listed in :data:`BLUEPRINTS` (the recording API) plus the /play page; a later
blueprint (viewer, stats) is added to that list.  Pages share ``web/templates/base.html`` and
the app's static files in ``web/static`` (served at ``/static/…``).  Everything the views share lives in
``app.extensions["wonders"]`` (see :class:`web.api.common.Services`).

At start the store is swept (:func:`sweep`) of what a killed server may have left: creates
and imports that never finished are rolled back, temporary files of dead processes removed,
and live matches without tokens (no one can ever continue them; only a create or import that
died half-way under an older version leaves one) moved to ``<store>/.orphans/``, which frees
their ids.  A line in the log says what was swept.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from flask import Flask

from ledger.filestore import FileStore
from replay.games import game
from web import errors
from web.api import follow, imports, judge, meta, organizer, public, seat
from web.api.common import Services
from web.api.tables import Tables
from web.config import Settings
from web.tokens import TokenBook

log = logging.getLogger("wonders.web")
ORPHANS = ".orphans"

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
    # One card pool per game: Wonders' from --cards / WONDERS_CARDS (checked at start), every
    # other game's its shipped pool, loaded when a match of that game is first used.
    pools = {"wotf": game("wotf").default_cards()}
    tokens = TokenBook(settings.store)
    sweep(store, tokens)
    services = Services(settings, store, Tables(store, lambda name: services.pool(name)), tokens,
                        pools)
    app.extensions["wonders"] = services
    from web import dashboard, play, viewer  # pages import the API's helpers; keep them out of module import
    for bp in [*BLUEPRINTS, play.bp, viewer.bp, dashboard.bp]:
        app.register_blueprint(bp)
    errors.register(app)
    return app


@dataclass
class Swept:
    rolled_back: list[str] = field(default_factory=list)  # creates that never finished
    temporary: list[str] = field(default_factory=list)  # .tmp files of dead processes
    orphans: list[str] = field(default_factory=list)  # live matches without tokens, moved aside

    def __bool__(self) -> bool:
        return bool(self.rolled_back or self.temporary or self.orphans)

    def describe(self, root: Path) -> str:
        return (f"store {root}: swept what a stopped server left: "
                f"{len(self.rolled_back)} unfinished create(s) rolled back"
                f"{_names(self.rolled_back)}, {len(self.temporary)} temporary file(s) removed, "
                f"{len(self.orphans)} live match(es) without tokens moved to {ORPHANS}/"
                f"{_names(self.orphans)}")


def sweep(store: FileStore, tokens: TokenBook) -> Swept:
    """Leftovers of a server that was killed, swept at start (a create or import in progress
    in another live process is left alone): see the module's docstring."""
    swept = Swept(rolled_back=tokens.recover_pending())
    for folder in (store.root, tokens.root, tokens.pending):
        for path in sorted(folder.glob("*.tmp")):
            if path.is_file() and not _writer_alive(path):
                path.unlink(missing_ok=True)
                swept.temporary.append(path.name)
    for path in store.files():
        match_id = path.name[:-len(".jsonl")]
        if tokens.has_tokens(match_id) or tokens.is_pending(match_id):
            continue
        try:
            ended = store.info_of(path).ended
        except Exception:  # noqa: BLE001 - unreadable: listed as such, never moved
            continue
        if not ended:
            orphans = store.root / ORPHANS
            orphans.mkdir(exist_ok=True)
            os.replace(path, orphans / path.name)
            swept.orphans.append(match_id)
    if swept:
        log.warning(swept.describe(store.root))
    else:
        log.info("store %s: nothing to sweep", store.root)
    return swept


_PID = re.compile(r"^\.(?:import-(\d+)-[0-9a-f]+|.+\.(\d+)\.\d+)\.tmp$")


def _writer_alive(path: Path) -> bool:
    """Whether the process named in a temporary file's name (its writer) still runs.  This
    process has no write of its own in progress while it starts."""
    found = _PID.match(path.name)
    if found is None:
        return False
    pid = int(found.group(1) or found.group(2))
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _names(ids: list[str]) -> str:
    if not ids:
        return ""
    shown = ", ".join(ids[:5])
    return f" ({shown}{', …' if len(ids) > 5 else ''})"
