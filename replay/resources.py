"""Where the program's data is: the one place that knows.

The card pool, the decks, the conformance cases and the golden matches live in the repository's
top-level ``fixtures/`` directory, which is installed as the package ``wonders_fixtures``
(``pyproject.toml``: ``package-dir`` maps it to ``fixtures/``, ``package-data`` lists the files),
so they ship with ``pip install .`` and are read with :mod:`importlib.resources`.

- :func:`data_root` – the ``fixtures`` directory of the code that is running: the source tree's
  own ``fixtures/`` when this module runs from a source checkout (so a checkout never reads an
  older installed copy), else the installed package ``wonders_fixtures``.
- :func:`cards_dir` – the card pool in use: the one chosen by ``--cards DIR`` (:func:`use_cards`),
  else ``$WONDERS_CARDS``, else the shipped pool :func:`shipped_cards_dir`.
- :func:`card_files` – the card files of a pool; a missing pool or one with no card files is a
  :class:`~replay.errors.CardDataError` (one line), never an empty database.
- :func:`decks_dir`, :func:`conformance_dir`, :func:`golden_dir` – the shipped decks,
  conformance cases and golden matches.

Nothing else computes a path to the data: everything asks here.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from replay.errors import CardDataError

PACKAGE = "wonders_fixtures"
CARDS_ENV = "WONDERS_CARDS"
CARD_GLOB = "*.toml"

_SOURCE_DATA = Path(__file__).resolve().parent.parent / "fixtures"
_chosen_cards: Path | None = None


def data_root() -> Path:
    """The directory holding ``cards/``, ``decks/``, ``conformance/`` and ``matches/``."""
    if _is_source_tree(_SOURCE_DATA):
        return _SOURCE_DATA  # a source checkout (plain or editable install): its own data
    try:
        root = resources.files(PACKAGE)
    except ModuleNotFoundError:
        raise CardDataError(f"the program's data (package {PACKAGE!r}) is not installed: "
                            f"reinstall wonders-ledger") from None
    if not isinstance(root, Path):  # e.g. a zipped install: the readers need real files
        raise CardDataError(f"the program's data (package {PACKAGE!r}) is not on the file "
                            f"system ({root}): install wonders-ledger unzipped")
    return root


def _is_source_tree(data: Path) -> bool:
    """``data`` is the ``fixtures/`` of a checkout of this project (not, say, another
    distribution's top-level ``fixtures`` package beside an installed ``replay``)."""
    return ((data / "__init__.py").is_file() and (data / "cards").is_dir()
            and (data.parent / "pyproject.toml").is_file())


def shipped_cards_dir() -> Path:
    """The card pool that ships with the program."""
    return data_root() / "cards"


def use_cards(directory: str | Path | None) -> Path | None:
    """Choose the card pool for this process (``--cards DIR``; ``None``: back to the default).
    Returns the previous choice, so a caller can restore it."""
    global _chosen_cards
    previous = _chosen_cards
    _chosen_cards = Path(directory) if directory is not None else None
    return previous


def cards_dir() -> Path:
    """The card pool in use: ``--cards DIR``, else ``$WONDERS_CARDS``, else the shipped pool."""
    if _chosen_cards is not None:
        return _chosen_cards
    env = os.environ.get(CARDS_ENV, "").strip()
    return Path(env) if env else shipped_cards_dir()


def card_files(directory: str | Path | None = None) -> list[Path]:
    """The card files (``*.toml``) of a pool (default: :func:`cards_dir`), sorted by name."""
    pool = Path(directory) if directory is not None else cards_dir()
    if not pool.is_dir():
        raise CardDataError(f"card pool {pool}: no such directory")
    files = sorted(pool.glob(CARD_GLOB))
    if not files:
        raise CardDataError(f"card pool {pool} is empty: no card files ({CARD_GLOB})")
    return files


def decks_dir() -> Path:
    """The shipped deck files."""
    return data_root() / "decks"


def conformance_dir() -> Path:
    """The shipped conformance cases (``abilities/`` holds the cases of scripted abilities)."""
    return data_root() / "conformance"


def golden_dir() -> Path:
    """The shipped golden matches (``*.jsonl`` and their ``hashes.json``)."""
    return data_root() / "matches"
