"""Which body limit each request gets (web/bodylimits.py); the live refusals are in
tests/security/test_body_limits.py."""

from __future__ import annotations

from web.bodylimits import PAGE_BODY_BYTES, body_limit
from web.config import Settings
from web.organize import MAX_POOL_FILE
from web.selfreg import MAX_DECKLIST

SETTINGS = Settings(organizer_token="o" * 32, max_body_bytes=4096, max_import_bytes=1 << 20)


def test_the_upload_gets_the_import_limit_and_every_other_api_path_the_json_limit():
    assert body_limit(SETTINGS, "/api/import") == 1 << 20
    for path in ("/api/matches", "/api/matches/m-1/decisions", "/api/import/", "/api/imports",
                 "/api/tournaments/t/cards"):
        assert body_limit(SETTINGS, path) == 4096, path


def test_a_pages_form_holds_the_consoles_pool_file_or_a_decklist_whatever_the_json_limit():
    """A page's form is no JSON body: WONDERS_MAX_BODY_BYTES set low does not refuse it."""
    for path in ("/organize/t/t-1/cards", "/tournaments/t-1/register", "/play/m-1", "/"):
        assert body_limit(SETTINGS, path) == PAGE_BODY_BYTES, path
    assert PAGE_BODY_BYTES > MAX_POOL_FILE + 3 * 4 * MAX_DECKLIST  # a file, or a form's fields
