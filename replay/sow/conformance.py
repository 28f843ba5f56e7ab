"""The State of Wonder conformance runner: small TOML cases that pin the rules down.

A case (``fixtures/sow/conformance/*.toml``, format in ``docs/sow.md``) quotes the sentence of
rules text 004 it checks (``rule``), sets up a position (``[state]``, or ``[decks]`` to play
from the setup), feeds the engine decisions (``[[steps]]``, some expected to be rejected) and
states what must hold afterwards (``[expect]``).  Usage::

    python -m replay.sow.conformance [PATH ...]     # default: the shipped cases

prints ``PASS name`` / ``FAIL name: reason`` per case, then ``N passed, N failed``.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec

from ledger.events import DRAW_KINDS, Conceded, DrawGiven, Event, GameLossGiven, MatchOpened, SeatInfo
from replay.errors import CardDataError, ConformanceCaseError, IllegalDecisionError
from replay.resources import data_root
from replay.sow.cards import Card, CardPool, card_from, load_pool
from replay.sow.decks import shipped_decks
from replay.sow.engine import Engine
from replay.sow.events import CultureOrdered, InitiativeTossed, decision_from
from replay.sow.evolve import encoded
from replay.sow.revisions import RULES_REVISION
from replay.sow.state import SEATS, CardState, PlayerState, SowState

# ``revision``: the rules revision the case runs at (default: the current one), so a case can
# pin the behaviour an older revision keeps for the matches recorded under it.
TOP_KEYS = {"name", "rule", "ruling", "revision", "description", "cards", "state", "decks",
            "steps", "expect"}
STATE_KEYS = {"turn", "phase", "turn_number", "first", "A", "B", "cards"}
SEAT_KEYS = {"gold", "besieging", "state"}
CARD_KEYS = {"id", "card", "owner", "area", "exhausted", "damage", "progress", "counters"}
STEP_KEYS = {"seat", "decision", "chance", "concede", "game_loss", "draw", "expect_prompt",
             "illegal", "error"}
EXPECT_KEYS = {"over", "winner", "reason", "phase", "turn", "turn_number", "prompt",
               "prompt_seat", "prompt_options", "gold", "area", "damage", "exhausted", "progress",
               "counters", "besieging", "events", "absent_events"}
CASE_STATE = Card(name="Case State", type="state", health=10)
Chance = InitiativeTossed | CultureOrdered


class CaseResult(msgspec.Struct, frozen=True):
    name: str
    passed: bool
    reason: str = ""

    def line(self) -> str:
        return f"PASS {self.name}" if self.passed else f"FAIL {self.name}: {self.reason}"


def cases_dir() -> Path:
    return data_root() / "sow" / "conformance"


def _unknown(where: str, table: dict[str, Any], allowed: set[str]) -> None:
    extra = set(table) - allowed
    if extra:
        raise ConformanceCaseError(f"{where}: unknown key(s) {sorted(extra)}")


def load_case(path: Path) -> dict[str, Any]:
    try:
        case = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConformanceCaseError(f"{path.name}: not valid TOML: {exc}") from None
    _unknown(path.name, case, TOP_KEYS)
    for key in ("name", "rule"):
        if not isinstance(case.get(key), str) or not case[key]:
            raise ConformanceCaseError(f"{path.name}: '{key}' is required")
    revision = case.get("revision", RULES_REVISION)
    if not isinstance(revision, int) or isinstance(revision, bool) \
            or not 1 <= revision <= RULES_REVISION:
        raise ConformanceCaseError(f"{path.name}: 'revision' must be 1..{RULES_REVISION}, "
                                   f"got {revision!r}")
    _unknown(f"{path.name} [expect]", case.get("expect", {}), EXPECT_KEYS)
    for i, step in enumerate(case.get("steps", [])):
        _unknown(f"{path.name} step {i + 1}", step, STEP_KEYS)
    return case


def case_pool(case: dict[str, Any], base: CardPool) -> CardPool:
    inline = [card_from({"name": name, **data}, f"case {case['name']}")
              for name, data in case.get("cards", {}).items()]
    return base.with_cards([CASE_STATE, *inline])


# -- the starting position ----------------------------------------------------------------


def case_state(case: dict[str, Any], pool: CardPool) -> SowState:
    spec = case.get("state", {})
    _unknown(f"case {case['name']} [state]", spec, STATE_KEYS)
    turn = spec.get("turn", "A")
    state = SowState(revision=case.get("revision", RULES_REVISION),
                     phase=spec.get("phase", "main"), turn=turn,
                     turn_number=spec.get("turn_number", 1), first=spec.get("first", turn),
                     players={s: PlayerState(s) for s in SEATS})
    for seat in SEATS:
        seat_spec = spec.get(seat, {})
        _unknown(f"case {case['name']} [state.{seat}]", seat_spec, SEAT_KEYS)
        player = state.players[seat]
        player.gold = seat_spec.get("gold", 0)
        player.besieging = seat_spec.get("besieging", False)
        state_card = seat_spec.get("state", "Case State")
        if isinstance(state_card, str):
            state_card = {"card": state_card}
        _add(state, pool, {"id": f"{seat}-S", "owner": seat, "area": "state", **state_card}, case)
    for entry in spec.get("cards", []):
        _add(state, pool, entry, case)
    return state


def _add(state: SowState, pool: CardPool, entry: dict[str, Any], case: dict[str, Any]) -> None:
    _unknown(f"case {case['name']} card {entry.get('id')}", entry, CARD_KEYS)
    name = entry["card"]
    if name not in pool:
        raise ConformanceCaseError(f"case {case['name']}: unknown card {name!r}")
    cid = entry["id"]
    if cid in state.cards:
        raise ConformanceCaseError(f"case {case['name']}: id {cid!r} is used twice")
    state.cards[cid] = CardState(cid, name, entry.get("owner", cid[:1].upper()),
                                 entry.get("area", "culture"), entry.get("exhausted", False),
                                 entry.get("damage", 0), entry.get("progress", 0),
                                 entry.get("counters", 0))


def case_engine(case: dict[str, Any], pool: CardPool) -> Engine:
    if "decks" in case:
        decks = shipped_decks()
        seats = []
        for seat in SEATS:
            deck = case["decks"][seat]
            if deck not in decks:
                raise ConformanceCaseError(f"case {case['name']}: unknown deck {deck!r}")
            seats.append(SeatInfo(seat, seat, deck, decks[deck].entries()))
        opened = MatchOpened(case["name"], "004", seats, game="sow",
                             rules_revision=case.get("revision", RULES_REVISION))
        return Engine.for_match(opened, pool)
    return Engine(pool, case_state(case, pool))


# -- running ------------------------------------------------------------------------------


def _decision(step: dict[str, Any]) -> Event:
    if step.get("concede"):
        return Conceded(step["seat"])
    if step.get("game_loss"):  # a judge's penalty for ``seat`` (docs/rulings-sow.md R21)
        return GameLossGiven(step["seat"])
    if "draw" in step:  # a judge's draw, "agreed" or "time" (docs/rulings-sow.md R26)
        if step["draw"] not in DRAW_KINDS:
            raise ValueError(f"draw is one of {', '.join(DRAW_KINDS)}, not {step['draw']!r}")
        return DrawGiven(step["draw"])
    if "chance" in step:
        return msgspec.convert(step["chance"], Chance)
    return decision_from(step["seat"], step["decision"])


def _run_steps(case: dict[str, Any], engine: Engine, seen: list[Event]) -> str | None:
    for i, step in enumerate(case.get("steps", []), start=1):
        prompt = engine.prompt
        if prompt is None:
            return f"step {i}: no prompt is pending"
        if "expect_prompt" in step and prompt.kind != step["expect_prompt"]:
            return f"step {i}: the pending prompt is {prompt.kind!r}, not {step['expect_prompt']!r}"
        if "seat" in step and "chance" not in step and prompt.seat != step["seat"] \
                and not step.get("illegal") and not step.get("concede") \
                and not step.get("game_loss"):
            return f"step {i}: the pending prompt is for {prompt.seat}, not {step['seat']}"
        try:
            decision = _decision(step)
        except (ValueError, msgspec.ValidationError) as exc:
            return f"step {i}: {exc}"
        if step.get("illegal"):
            before = encoded(engine.state)
            try:
                engine.decide(decision)
            except IllegalDecisionError as exc:
                if step.get("error", "") not in str(exc):
                    return f"step {i}: rejected, but the reason {str(exc)!r} lacks {step['error']!r}"
                if encoded(engine.state) != before or engine.prompt != prompt:
                    return f"step {i}: a rejected decision changed the state"
                continue
            return f"step {i}: {type(decision).__name__} was accepted but must be rejected"
        try:
            seen.extend(engine.decide(decision))
        except IllegalDecisionError as exc:
            return f"step {i}: rejected: {exc}"
    return None


def _check_expect(case: dict[str, Any], engine: Engine, seen: list[Event]) -> str | None:
    want = case.get("expect", {})
    s = engine.state
    plain = {"over": s.over, "winner": s.winner or "none", "reason": s.reason, "phase": s.phase,
             "turn": s.turn, "turn_number": s.turn_number,
             "prompt": engine.prompt.kind if engine.prompt else "none",
             "prompt_seat": engine.prompt.seat if engine.prompt else None,
             "prompt_options": _option_count(engine)}
    for key, value in plain.items():
        if key in want and want[key] != value:
            return f"expected {key} = {want[key]!r}, got {value!r}"
    for key, get in (("gold", lambda k: s.players[k].gold),
                     ("besieging", lambda k: s.players[k].besieging),
                     ("area", lambda k: s.cards[k].area),
                     ("damage", lambda k: s.cards[k].damage),
                     ("exhausted", lambda k: s.cards[k].exhausted),
                     ("progress", lambda k: s.cards[k].progress),
                     ("counters", lambda k: s.cards[k].counters)):
        for k, value in want.get(key, {}).items():
            try:
                got = get(k)
            except KeyError:
                what = "seat" if key in ("gold", "besieging") else "card"
                return f"expected {key} of {k!r}: no such {what}"
            if got != value:
                return f"expected {key} of {k} = {value!r}, got {got!r}"
    types = [type(e).__name__ for e in seen]
    it = iter(types)
    missing = [t for t in want.get("events", []) if t not in it]
    if missing:
        return f"expected events {want['events']} in order; missing {missing[0]} (saw {types})"
    present = [t for t in want.get("absent_events", []) if t in types]
    if present:
        return f"event {present[0]} must not happen"
    return None


def _option_count(engine: Engine) -> int | None:
    p = engine.prompt
    if p is None:
        return None
    return len(p.choose.of) if p.choose is not None else len(p.options)


def run_case(path: Path, base: CardPool | None = None) -> CaseResult:
    name = path.stem
    try:
        case = load_case(path)
        name = case["name"]
        pool = case_pool(case, base or load_pool())
        engine = case_engine(case, pool)
        seen = list(engine.start())
        reason = _run_steps(case, engine, seen) or _check_expect(case, engine, seen)
    except (ConformanceCaseError, CardDataError) as exc:
        return CaseResult(name, False, f"cannot load: {exc}")
    except Exception as exc:  # noqa: BLE001 -- a crash of the engine fails the case, not the runner
        return CaseResult(name, False, f"crashed: {type(exc).__name__}: {exc}")
    return CaseResult(name, reason is None, reason or "")


def case_files(paths: list[Path]) -> list[Path]:
    """Files as given; directories searched recursively for ``*.toml`` (sorted).  A path
    that does not exist, or a directory without a case, is a :class:`ConformanceCaseError`."""
    out: list[Path] = []
    for p in paths:
        if not p.exists():
            raise ConformanceCaseError(f"{p}: no such file or directory")
        cases = sorted(p.rglob("*.toml")) if p.is_dir() else [p]
        if not cases:
            raise ConformanceCaseError(f"{p}: no conformance cases (*.toml) in this directory")
        out.extend(cases)
    return out


def run_paths(paths: Sequence[str | Path]) -> Iterator[CaseResult]:
    """Run the cases of ``paths`` (files or directories; none: the shipped cases)."""
    base = load_pool()
    for path in case_files([Path(p) for p in paths] or [cases_dir()]):
        yield run_case(path, base)


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    try:
        files = case_files([Path(a) for a in args] or [cases_dir()])
    except ConformanceCaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    base = load_pool()
    results = [run_case(f, base) for f in files]
    for r in results:
        print(r.line())
    failed = sum(not r.passed for r in results)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
