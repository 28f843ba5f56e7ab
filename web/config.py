"""Settings of the web service, read from ``WONDERS_*`` environment variables and validated.

:meth:`Settings.from_env` is what ``wonders serve`` uses; tests build a :class:`Settings`
directly.  A bad value is a :class:`~web.errors.ConfigError` naming the variable and why.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ledger.stores import is_url
from web.errors import ConfigError

PREFIX = "WONDERS_"


class Settings(BaseModel):
    """Everything the app factory needs; every field has an env variable ``WONDERS_<NAME>``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    store: Path | str = Field(Path("wonders-data"),
                              description="the store: a directory of match files, or a "
                                          "postgresql:// URL (many servers on one database)")
    organizer_token: str = Field(default_factory=lambda: secrets.token_urlsafe(32), min_length=32,
                                 description="bearer token for creating and importing matches "
                                             "(at least 32 characters)")
    secret_key: str = Field("", description="signs the /play session cookie (unset: a key kept "
                                            "in the store, so sessions survive a restart)")
    spectator_delay: int = Field(10, ge=0, le=10_000,
                                 description="a live match is shown to spectators N events late")
    max_body_bytes: int = Field(64 * 1024, ge=1024, description="largest JSON request body")
    max_import_bytes: int = Field(16 * 1024 * 1024, ge=1024, description="largest match file upload")
    follow_timeout: float = Field(15.0, gt=0, le=3600,
                                  description="a live-follow stream closes after this many idle seconds")
    follow_max_streams: int = Field(32, ge=1, le=1024,
                                    description="live-follow streams open at once (more: 503)")
    follow_max_per_client: int = Field(2, ge=1, le=1024,
                                       description="live-follow streams open at once from one address")
    follow_poll: float = Field(0.2, gt=0, le=10, description="seconds between checks for new events")

    @field_validator("store", mode="before")
    @classmethod
    def _store(cls, value: object) -> object:
        """A ``postgresql://`` URL stays a string; anything else names a directory."""
        if isinstance(value, str) and not is_url(value):
            return Path(value)
        return value

    @field_validator("secret_key")
    @classmethod
    def _secret_key(cls, value: str) -> str:
        """Empty (the store's key, :mod:`web.sessionkey`) or at least 16 characters."""
        if value and len(value) < 16:
            raise ValueError("a secret key needs at least 16 characters (or leave it unset)")
        return value

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Read ``WONDERS_*`` variables (``overrides`` win); unknown names are ignored."""
        env = os.environ if env is None else env
        values = {name: env[PREFIX + name.upper()] for name in cls.model_fields
                  if PREFIX + name.upper() in env}
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls(**values)
        except ValidationError as exc:
            first = exc.errors()[0]
            name = str(first["loc"][0]) if first["loc"] else "?"
            raise ConfigError(f"{PREFIX}{name.upper()}: {first['msg']}") from None
