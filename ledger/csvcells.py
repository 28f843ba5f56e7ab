"""CSV that a spreadsheet opens as data: no cell of text is taken for a formula.

A spreadsheet runs a cell that begins with ``=``, ``+``, ``-`` or ``@`` (and, in some, a tab or
a carriage return) as a formula, so a player named ``=cmd|' /C calc'!A0`` or a card name from
imported data would run when the organizer opens the export.  :func:`safe_cell` prefixes such
text with a single quote (OWASP's advice: the cell then shows the text as written); a number
written as text (``-3``, ``+2.5``) is not a formula and is kept as it is.  :func:`csv_text`
writes rows with every cell made safe: every CSV the program writes goes through it.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def safe_cell(value: Any) -> Any:
    """``value`` as a cell no spreadsheet runs: text beginning with a formula character gets a
    leading ``'``; numbers, and text that is a number, are kept."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) \
            and not NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_text(rows: Iterable[Sequence[Any]]) -> str:
    """The rows as CSV text (``\\n`` line ends), every cell through :func:`safe_cell`; ``None``
    is an empty cell."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow(["" if v is None else safe_cell(v) for v in row])
    return out.getvalue()
