"""The tournament filter's menu of /matches and /stats: one option per tournament, and the one
the page is filtered by selected.

A tournament is offered by its id where its matches record one (``ledger.rows.tournament_id_of``),
else by its name, labelled with its name -- and its id too when another tournament shares the
name (a weekly "Friday Cup": "Friday Cup (fri-1)", "Friday Cup (fri-2)").  A shared name is also
an option of its own ("Friday Cup (all 2)"), before its tournaments: ``?tournament=`` takes an
id or a name (as ``wonders stats --tournament``), and a name selects every tournament of it.
A name that only one tournament has selects that tournament's option.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import NamedTuple


class Option(NamedTuple):
    value: str
    label: str


def options(found: Iterable[tuple[str, str | None]]) -> list[Option]:
    """The menu's options (after "any") for the ``(name, id or None)`` pairs of the
    tournaments the matches record, in order of name."""
    ids: dict[str, set[str | None]] = defaultdict(set)
    for name, tid in found:
        if name:
            ids[name].add(tid or None)
    menu = []
    for name in sorted(ids):
        held = sorted(tid for tid in ids[name] if tid)
        if len(ids[name]) == 1:
            menu.append(Option(held[0] if held else name, name))
            continue
        # an id-less tournament (matches older than ids) is reached by its name only
        menu.append(Option(name, f"{name} (all {len(ids[name])})"))
        menu += [Option(tid, f"{name} ({tid})") for tid in held]
    return menu


def selected(menu: list[Option], chosen: str | None) -> str | None:
    """The value of the option that shows ``chosen`` (an id or a name; ``None``: none does):
    the option of that value, else the one option labelled with that name."""
    if not chosen:
        return None
    if any(o.value == chosen for o in menu):
        return chosen
    named = [o for o in menu if o.label == chosen]
    return named[0].value if len(named) == 1 else None
