"""Seat and judge tokens: issued at random, kept only as SHA-256 hashes, checked in constant time.

When a match is created each role -- seat ``A``, seat ``B`` and the ``judge`` -- gets a token
from ``secrets.token_urlsafe(32)`` (256 bits).  Only the hashes are kept, one small JSON file
per match under ``<store>/.tokens/``, written atomically; a token is shown once, in the
create response.  :meth:`TokenBook.role_of` compares a presented token with every role's hash
using ``hmac.compare_digest``, so its timing says nothing about which role (if any) matched.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import re
import threading
from pathlib import Path

ROLES = ("A", "B", "judge")
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")  # the store's match-id rule


def new_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def is_same_token(token: str, digest: str) -> bool:
    return hmac.compare_digest(hash_token(token), digest)


def is_same_secret(given: str, expected: str) -> bool:
    """Constant-time comparison of two secrets of any length (via their hashes)."""
    return hmac.compare_digest(hash_token(given), hash_token(expected))


class TokenBook:
    """The hashed tokens of every match in one store directory."""

    def __init__(self, store_root: str | os.PathLike):
        self.root = Path(store_root) / ".tokens"
        self.root.mkdir(parents=True, exist_ok=True)
        self._cache: dict[str, dict[str, str]] = {}
        self._lock = threading.Lock()

    def issue(self, match_id: str) -> dict[str, str]:
        """New tokens for every role of a match; only their hashes are written."""
        _check_id(match_id)
        tokens = {role: new_token() for role in ROLES}
        hashes = {role: hash_token(token) for role, token in tokens.items()}
        path = self.root / f"{match_id}.json"
        tmp = path.with_name(f".{match_id}.{os.getpid()}.{threading.get_ident()}.tmp")
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(hashes, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        with self._lock:
            self._cache[match_id] = hashes
        return tokens

    def role_of(self, match_id: str, token: str | None) -> str | None:
        """The role ``token`` holds in ``match_id`` (``None``: no role at all)."""
        if not token or not _SAFE_ID.match(match_id):
            return None
        hashes = self._hashes(match_id)
        found = None
        for role in ROLES:  # every role is compared, whatever matched
            if role in hashes and is_same_token(token, hashes[role]):
                found = role
        return found

    def is_role_hash(self, match_id: str, role: str, digest: str) -> bool:
        """Whether ``digest`` is the stored hash of ``role``'s token (constant time)."""
        if not _SAFE_ID.match(match_id):
            return False
        stored = self._hashes(match_id).get(role, "")
        return bool(stored) and hmac.compare_digest(stored, digest)

    def has_tokens(self, match_id: str) -> bool:
        return bool(self._hashes(match_id))

    def _hashes(self, match_id: str) -> dict[str, str]:
        with self._lock:
            cached = self._cache.get(match_id)
        if cached is not None:
            return cached
        path = self.root / f"{match_id}.json"
        try:
            hashes = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        with self._lock:
            self._cache[match_id] = hashes
        return hashes


def _check_id(match_id: str) -> None:
    if not _SAFE_ID.match(match_id):
        raise ValueError(f"match id {match_id!r} is not valid (letters, digits, '.', '_', '-')")
