"""Settings shared by the whole suite: the hypothesis profiles.

``HYPOTHESIS_PROFILE=ci`` (set by ``.ci/run``) derandomizes every property test: the same
examples on every run, so CI's verdict depends only on the code.  Locally the default profile
draws new random examples each run (and hypothesis keeps failing ones in ``.hypothesis/``), so
running the suite keeps exploring.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# The throwaway PostgreSQL cluster of the PostgreSQL tests (tests/postgres.py).
from tests.postgres import pg_url, postgres_cluster  # noqa: E402, F401
