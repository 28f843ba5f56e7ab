"""The key that signs the /play and /organize session cookies, kept in the store.

A session cookie is signed with the app's secret key.  A key made afresh by each process would
sign every seat and judge out at each restart (and a seat whose token is no longer at hand is
then locked out), so unless ``WONDERS_SECRET_KEY`` names one, the key lives with the store:

* a file store: ``<store>/.session-key``, created once with mode 0600 (linked into place
  whole: of two processes starting together, one writes it and both read the same key);
* a PostgreSQL store: the ``session_key`` row of its ``wonders_secrets`` table, so every server
  on the database signs with the same key.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from ledger.store import Store
from web.errors import ConfigError

KEY_FILE = ".session-key"
KEY_NAME = "session_key"
MIN_KEY = 32  # hex characters of a key read back (a truncated file is refused)


def session_key(store: Store, configured: str = "") -> str:
    """``configured`` if set, else the key kept with ``store`` (made on first use)."""
    if configured:
        return configured
    fresh = secrets.token_hex(32)
    keep = getattr(store, "secret", None)
    if keep is not None:  # PostgreSQL: one row every server shares
        return keep(KEY_NAME, fresh)
    root = getattr(store, "root", None)
    if root is None:
        raise ConfigError(f"the store {type(store).__name__} keeps no session key; set "
                          f"WONDERS_SECRET_KEY")
    return _file_key(Path(root) / KEY_FILE, fresh)


def _file_key(path: Path, fresh: str) -> str:
    """Written whole to a temporary file, then linked into place (``link`` fails if the key
    exists): a reader never sees a half-written key."""
    if path.exists():
        return _read_key(path)
    tmp = path.with_name(f"{KEY_FILE}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, fresh.encode())
        os.fsync(fd)
        os.close(fd)
        os.link(tmp, path)
    except FileExistsError:
        return _read_key(path)
    finally:
        tmp.unlink(missing_ok=True)
    return fresh


def _read_key(path: Path) -> str:
    key = path.read_text(encoding="ascii", errors="replace").strip()
    if len(key) < MIN_KEY:  # another process is writing it this instant, or it was cut short
        raise ConfigError(f"{path}: the session key file holds {len(key)} characters, fewer "
                          f"than {MIN_KEY}; remove it (every session signs out) or set "
                          f"WONDERS_SECRET_KEY")
    return key
