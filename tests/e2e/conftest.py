"""Browser tests need Debian's Chromium.  CI (``.ci/run``) installs it and sets
``WONDERS_REQUIRE_BROWSER=1``, so there a missing browser fails loudly; elsewhere the browser
tests are skipped with a line saying how to get it."""

import os
from pathlib import Path

import pytest

from tests.e2e.helpers import CHROMIUM


def pytest_runtest_setup(item: pytest.Item) -> None:
    if not Path(CHROMIUM).exists() and os.environ.get("WONDERS_REQUIRE_BROWSER") != "1":
        pytest.skip(f"the browser tests need Debian's Chromium at {CHROMIUM} "
                    "(apt-get install chromium, as .ci/run does)")
