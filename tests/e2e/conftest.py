"""Browser tests need Debian's Chromium.  CI (``.ci/run``) installs it and sets
``WONDERS_REQUIRE_BROWSER=1``, so there a missing browser fails loudly; elsewhere the browser
tests are skipped with a line saying how to get it.  The fixtures every browser test shares:
``browser``, ``shots`` and ``server``."""

import os
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from tests.e2e.helpers import CHROMIUM, FLAGS, start_server, stop_server


def pytest_runtest_setup(item: pytest.Item) -> None:
    if not Path(CHROMIUM).exists() and os.environ.get("WONDERS_REQUIRE_BROWSER") != "1":
        pytest.skip(f"the browser tests need Debian's Chromium at {CHROMIUM} "
                    "(apt-get install chromium, as .ci/run does)")


@pytest.fixture
def browser():
    """A headless Debian Chromium (never a downloaded browser), closed after the test."""
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def shots(tmp_path) -> Path:
    """Where a test's screenshots go: ``$WONDERS_SCREENSHOTS`` (docs/screenshots/ is made with
    it set to that folder), else the test's own temporary folder."""
    wanted = os.environ.get("WONDERS_SCREENSHOTS")
    path = Path(wanted) if wanted else tmp_path / "shots"
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def server(tmp_path):
    """A real ``wonders serve`` subprocess over a fresh store; yields its base URL."""
    proc, base = start_server(tmp_path / "s")
    try:
        yield base
    finally:
        stop_server(proc)
