"""Pool files an organizer imports: the printed stats of many cards at once, as CSV or TOML.

A **TOML** pool file is a card file (``[[card]]`` tables, :class:`~replay.wotf.cards.Card`'s
fields).  A **CSV** pool file has a header row and one card a row: ``name`` (required),
``cost``, ``power`` (a number or ``*``), ``classes`` and ``keywords`` (separated by ``;``),
``tier``, ``type``, ``orbital``, ``text``, ``manual`` (true/false).  A card the catalogue
lists takes its catalogue facts (type, orbital, set, number, DBS, rarity) from it where the
row leaves them out; any other card needs its ``type``.

Every bad row is one line of the :class:`PoolFileError` naming the file, the line and the
field; nothing is imported unless every row is good.
"""

from __future__ import annotations

import csv
import io
import re
import tomllib
from collections.abc import Callable
from typing import Any

from replay.errors import CardDataError
from replay.wotf.cards import CATALOGUE_TYPES, ORBITALS, Card, parse_card

MAX_ROWS = 2000
CSV_FIELDS = ("name", "cost", "power", "classes", "keywords", "tier", "type", "orbital",
              "text", "manual", "set", "number", "dbs", "rarity")
#: The catalogue facts of a card by name: (type, orbital, set, number, dbs, rarity) or None.
Lookup = Callable[[str], "tuple[str, str, str, str, int, str] | None"]


class PoolFileError(CardDataError):
    """A pool file that can't be imported: one line per bad row (file, line, field)."""

    def __init__(self, lines: list[str]):
        super().__init__("\n".join(lines))
        self.lines = lines


def parse_pool_file(text: str, filename: str, lookup: Lookup) -> list[Card]:
    """The cards of a pool file (``.csv`` or ``.toml`` by its name; see the module)."""
    text = text.removeprefix("\ufeff")  # a spreadsheet's byte order mark
    if filename.lower().endswith(".toml"):
        return _checked(_toml_rows(text, filename), filename, lookup)
    if filename.lower().endswith(".csv"):
        return _checked(_csv_rows(text, filename), filename, lookup)
    raise PoolFileError([f"{filename}: a pool file is .csv or .toml"])


def _csv_rows(text: str, filename: str) -> list[tuple[int, dict[str, Any] | str]]:
    reader = csv.DictReader(io.StringIO(text))
    try:
        header = reader.fieldnames or []
    except csv.Error as exc:
        raise PoolFileError([f"{filename}: line 1: not CSV ({exc})"]) from None
    if "name" not in header:
        raise PoolFileError([f"{filename}: line 1: the header needs a 'name' column "
                             f"(columns: {', '.join(CSV_FIELDS)})"])
    unknown = [h for h in header if h not in CSV_FIELDS]
    if unknown:
        raise PoolFileError([f"{filename}: line 1: unknown column {unknown[0]!r} (columns: "
                             f"{', '.join(CSV_FIELDS)})"])
    rows: list[tuple[int, dict[str, Any] | str]] = []
    try:
        for row in reader:
            line = reader.line_num
            if len(rows) >= MAX_ROWS:
                raise PoolFileError([f"{filename}: more than {MAX_ROWS} cards"])
            if None in row:
                rows.append((line, "more values than the header has columns"))
                continue
            rows.append((line, _csv_card({k: (v or "").strip() for k, v in row.items()})))
    except csv.Error as exc:
        raise PoolFileError([f"{filename}: line {reader.line_num}: not CSV ({exc})"]) from None
    return rows


def _csv_card(row: dict[str, str]) -> dict[str, Any] | str:
    """A CSV row as card fields (empty cells left out); a string: why it is not one."""
    data: dict[str, Any] = {}
    for key, value in row.items():
        if value == "":
            continue
        if key in ("cost", "dbs"):
            if not re.fullmatch(r"\d{1,3}", value):
                return f"field '{key}': {value!r} is not a whole number"
            data[key] = int(value)
        elif key == "power":
            if value != "*" and not re.fullmatch(r"\d{1,3}", value):
                return f"field 'power': {value!r} is not a whole number or *"
            data[key] = value if value == "*" else int(value)
        elif key in ("classes", "keywords"):
            data[key] = [part.strip() for part in value.split(";") if part.strip()]
        elif key == "manual":
            if value.lower() not in ("true", "false"):
                return f"field 'manual': {value!r} is not true or false"
            data[key] = value.lower() == "true"
        elif key == "type":
            data[key] = value.lower()
        else:
            data[key] = value
    return data


def _toml_rows(text: str, filename: str) -> list[tuple[int, dict[str, Any] | str]]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PoolFileError([f"{filename}: not TOML ({exc})"]) from None
    unknown = set(data) - {"card"}
    if unknown:
        raise PoolFileError([f"{filename}: line 1: unknown top-level key(s) "
                             f"{sorted(unknown)}; use [[card]] tables"])
    tables = data.get("card", [])
    if not isinstance(tables, list):
        raise PoolFileError([f"{filename}: 'card' must be an array of tables ([[card]])"])
    if len(tables) > MAX_ROWS:
        raise PoolFileError([f"{filename}: more than {MAX_ROWS} cards"])
    starts = [n for n, line in enumerate(text.splitlines(), start=1)
              if line.strip().startswith("[[card]]")]
    return [(starts[i] if i < len(starts) else 0,
             table if isinstance(table, dict) else "not a table")
            for i, table in enumerate(tables)]


def _checked(rows: list[tuple[int, dict[str, Any] | str]], filename: str,
             lookup: Lookup) -> list[Card]:
    cards, errors, seen = [], [], set()
    for line, row in rows:
        where = f"{filename}: line {line}"
        if isinstance(row, str):
            errors.append(f"{where}: {row}")
            continue
        name = str(row.get("name", "")).strip()
        if not name:
            errors.append(f"{where}: field 'name': a card needs its name")
            continue
        if name in seen:
            errors.append(f"{where}: field 'name': {name!r} is in the file twice")
            continue
        seen.add(name)
        try:
            cards.append(parse_card(_with_catalogue(row, name, lookup), f"{where} ({name})"))
        except CardDataError as exc:
            errors.append(str(exc))
    if errors:
        raise PoolFileError(errors)
    if not cards:
        raise PoolFileError([f"{filename}: no cards in the file"])
    return cards


def _with_catalogue(row: dict[str, Any], name: str, lookup: Lookup) -> dict[str, Any]:
    """The row with the catalogue's facts where it leaves them out."""
    facts = lookup(name)
    if facts is None:
        return row
    type_, orbital, set_, number, dbs, rarity = facts
    known: dict[str, Any] = {"type": CATALOGUE_TYPES.get(type_), "set": set_ or None,
                             "number": number or None, "dbs": dbs, "rarity": rarity or None,
                             "orbital": orbital if orbital in ORBITALS else None}
    if type_ == "Token":
        known.update(type="wonder", token=True)
    return {**{k: v for k, v in known.items() if v is not None}, **row}
