"""Fixtures of the standing attack suite: each attack runs against the app in-process and
against a real ``wonders serve`` on loopback (``tests/security/live.py``)."""

from __future__ import annotations

import pytest

from tests.security import import_files
from tests.security.live import LiveApi, LiveServer
from tests.web.test_api import ORGANIZER


@pytest.fixture(scope="module")
def live_api(tmp_path_factory):
    """One real server per test module (each test makes its own match), spectators 0 late."""
    server = LiveServer(tmp_path_factory.mktemp("live") / "store", spectator_delay=0)
    yield LiveApi(server)
    server.stop()


@pytest.fixture(scope="module")
def limits_server(tmp_path_factory):
    """One real server per test module with the default body limits (64 KiB of JSON, a 16 MiB
    upload), 2 threads: the body-limit tests (test_body_limits*.py) send it raw requests."""
    server = LiveServer(tmp_path_factory.mktemp("bodies") / "store", organizer=ORGANIZER,
                        threads=2)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def import_server(tmp_path_factory):
    """One real server per test module for the import attacks (``test_import_*.py``), with
    their organizer token (:data:`tests.security.import_files.ORGANIZER`)."""
    server = LiveServer(tmp_path_factory.mktemp("imports") / "store",
                        organizer=import_files.ORGANIZER, threads=4)
    yield server
    server.stop()


@pytest.fixture(params=["app", "server"])
def where(request):
    """``None`` for the in-process app, else the :class:`LiveApi` of a real server."""
    return request.getfixturevalue("live_api") if request.param == "server" else None
