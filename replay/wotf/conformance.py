"""The conformance runner: TOML cases that pin rules behaviour (``specs/conformance.md``).

A case sets up a position, feeds the engine decisions and states what must hold.  Loading is
strict (an unknown key is an error); a case that cannot be loaded is a FAIL with its reason,
never a crash of the runner.

Beyond the spec, for catalogue cards entered at the table (docs/rulings.md R34): a case card
may say ``entered_at_table = true`` (its catalogue facts only: type, orbital; no stats), and a
step may answer the pending ``stats`` prompt with ``stats = {cost, power, classes, keywords,
manual}`` (``illegal = true`` works as for any step).  A step may also be a judge's draw,
``judge_draw = "agreed"`` or ``"time"`` (docs/rulings.md R45): recorded at whatever prompt is
pending, whoever's it is, so it names no ``player``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledger.events import DRAW_KINDS, DrawGiven, Event, Seat, as_seat
from replay.errors import CardDataError, ConformanceCaseError, IllegalDecisionError, ReplayError
from replay.wotf.cards import Card, CardDB, default_cards, parse_card
from replay.wotf.engine import Engine
from replay.wotf.events import (
    ActivationDeclared,
    Answered,
    AttackDeclared,
    CardStatsEntered,
    DrawDeclared,
    HarvestDeclared,
    Passed,
    PlayDeclared,
)
from replay.wotf.revisions import RULES_REVISION
from replay.wotf.state import SEATS, CardState, GameState, PlayerState, new_realms, state_hash

# ``revision`` extends format version 1: the rules revision the case runs at (default: current).
TOP_KEYS = {"name", "rules", "revision", "source", "description", "cards", "state", "steps",
            "expect"}
CARD_KEYS = {"type", "power", "cost", "orbital", "core", "tier", "classes", "keywords",
             "entered_at_table"}
STATE_KEYS = {"round", "turn", "first", "last_seizer", "stones", "A", "B", "world"}
PLAYER_KEYS = {"energy", "actions", "faith", "free_attacks", "hand", "deck", "abyss", "banishment"}
WORLD_KEYS = {"id", "card", "controller", "owner", "realm", "tapped", "token", "counters"}
STEP_KEYS = {"player", "action", "card", "realm", "targets", "pick", "expect_prompt", "illegal",
             "stats", "judge_draw"}
EXPECT_KEYS = {"round", "turn", "prompt", "over", "winner", "stones", "A", "B", "cards"}
EXPECT_PLAYER_KEYS = {"energy", "actions", "faith", "free_attacks", "hand_count", "deck_count"}
EXPECT_CARD_KEYS = {"zone", "realm", "controller", "power", "tapped", "counters", "equipped_to"}
COUNTERS = {"+1", "-1", "shield", "protector", "celestial", "null", "growth"}
ACTIONS = {"pass", "draw", "play", "attack", "activate", "harvest"}


@dataclass
class Result:
    name: str
    passed: bool
    reason: str = ""

    def line(self) -> str:
        return f"PASS {self.name}" if self.passed else f"FAIL {self.name}: {self.reason}"


class CaseFailure(Exception):
    """An expectation or a step did not hold."""


def find_cases(paths: Iterable[str | Path]) -> list[Path]:
    """Files as given; directories searched recursively for ``*.toml`` (sorted).  A path
    that does not exist, or a directory without a case, is a :class:`ConformanceCaseError`."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            cases = sorted(path.rglob("*.toml"))
            if not cases:
                raise ConformanceCaseError(f"{path}: no conformance cases (*.toml) in this "
                                           f"directory")
            found += cases
        elif path.exists():
            found.append(path)
        else:
            raise ConformanceCaseError(f"{path}: no such file or directory")
    return found


def run_paths(paths: Iterable[str | Path], db: CardDB | None = None) -> Iterator[Result]:
    for path in find_cases(paths):
        yield run_file(path, db)


def run_file(path: Path, db: CardDB | None = None) -> Result:
    name = path.stem
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        name = str(data.get("name", name))
        return run_case(data, db)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        return Result(name, False, f"{path}: cannot read case ({exc})")
    except (ReplayError, CaseFailure) as exc:
        return Result(name, False, str(exc))
    except Exception as exc:  # noqa: BLE001 -- an engine bug: the case fails, the runner goes on (spec)
        return Result(name, False, f"the engine raised {type(exc).__name__}: {exc}")


def run_case(data: dict[str, Any], db: CardDB | None = None) -> Result:
    _only(data, TOP_KEYS, "case")
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise ConformanceCaseError("the case needs a name")
    rules = data.get("rules", "1.3.2")
    if rules not in ("1.3.2", "1.2"):
        raise ConformanceCaseError(f"rules must be '1.3.2' or '1.2', got {rules!r}")
    cards = _case_cards(data.get("cards", {}), db if db is not None else default_cards())
    state = build_state(data.get("state", {}), rules, cards)
    revision = data.get("revision", RULES_REVISION)
    if not isinstance(revision, int) or not 1 <= revision <= RULES_REVISION:
        raise ConformanceCaseError(f"revision must be 1..{RULES_REVISION}, got {revision!r}")
    state.revision = revision
    engine = Engine(cards, state)
    engine.start()
    for index, step in enumerate(data.get("steps", []), start=1):
        _run_step(engine, step, index)
    check_expect(engine, data.get("expect", {}))
    return Result(name, True)


# -- loading ---------------------------------------------------------------------------------


def _only(table: Any, allowed: set[str], where: str) -> None:
    if not isinstance(table, dict):
        raise ConformanceCaseError(f"{where}: expected a table")
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise ConformanceCaseError(f"{where}: unknown key(s) {', '.join(unknown)}")


def _case_cards(table: dict[str, Any], base: CardDB) -> CardDB:
    extra: list[Card] = []
    for card_name, fields in table.items():
        _only(fields, CARD_KEYS, f"cards.{card_name}")
        if "type" not in fields:
            raise ConformanceCaseError(f"cards.{card_name}: type is required")
        values = dict(fields, name=card_name)
        if values.get("entered_at_table"):  # R34: a catalogue card, its stats entered in play
            values.setdefault("manual", True)
        elif values["type"] == "wonder":
            values.setdefault("power", 0)
        try:
            extra.append(parse_card(values, f"cards.{card_name}"))
        except CardDataError as exc:
            raise ConformanceCaseError(str(exc)) from None
    return base.with_cards(extra)


def build_state(table: dict[str, Any], rules: str, db: CardDB) -> GameState:
    """The position a case starts from, at the pending turn prompt of ``state.turn``."""
    _only(table, STATE_KEYS, "state")
    round_ = table.get("round", 1)
    if not isinstance(round_, int) or not 1 <= round_ <= 7:
        raise ConformanceCaseError(f"state.round must be 1..7, got {round_!r}")
    turn = _seat(table.get("turn", "A"), "state.turn")
    first = _seat(table.get("first", turn), "state.first")
    last = table.get("last_seizer")
    if rules not in ("1.3.2", "1.2"):
        raise ConformanceCaseError(f"rules: {rules!r} is not a Wonders ruleset (1.3.2, 1.2)")
    state = GameState(ruleset="1.2" if rules == "1.2" else "1.3.2", phase="turns", round=round_,
                      turn=turn, first=first, round1_first=first,
                      last_seizer=_seat(last, "state.last_seizer") if last else None,
                      realms=new_realms())
    for key, owner in table.get("stones", {}).items():
        realm = _realm(key, "state.stones")
        if owner not in ("A", "B", "center"):
            raise ConformanceCaseError(f"state.stones.{key}: expected A, B or center, got {owner!r}")
        state.realms[realm - 1].stones = [owner]
    ids: set[str] = set()
    for seat in SEATS:
        fields = table.get(seat, {})
        _only(fields, PLAYER_KEYS, f"state.{seat}")
        player = PlayerState(seat=seat, energy=fields.get("energy", 0),
                             actions=fields.get("actions", 3), faith=fields.get("faith", 0),
                             free_attacks=fields.get("free_attacks", 0))
        state.players[seat] = player
        for zone in ("hand", "deck", "abyss", "banishment"):
            for n, entry in enumerate(fields.get(zone, [])):
                cid, card = _entry(entry, f"{seat}-{zone}-{n + 1}", f"state.{seat}.{zone}")
                _new_id(cid, ids)
                db[card]
                state.cards[cid] = CardState(cid, card, seat, zone)
                getattr(player, zone).append(cid)
        if not player.deck:
            raise ConformanceCaseError(f"state.{seat}.deck: a deck must not be empty at the start")
    for n, fields in enumerate(table.get("world", []), start=1):
        _only(fields, WORLD_KEYS, f"state.world[{n}]")
        cid, card = fields.get("id", f"world-{n}"), fields.get("card")
        if card is None:
            raise ConformanceCaseError(f"state.world[{n}]: card is required")
        _new_id(cid, ids)
        db[card]
        controller = _seat(fields.get("controller"), f"state.world[{n}].controller")
        realm = fields.get("realm")
        if not isinstance(realm, int) or not 1 <= realm <= round_:
            raise ConformanceCaseError(f"state.world[{n}].realm: must be an active realm (1..{round_})")
        counters = fields.get("counters", {})
        for kind in counters:
            if kind not in COUNTERS:
                raise ConformanceCaseError(f"state.world[{n}].counters: unknown counter {kind!r}")
        state.cards[cid] = CardState(
            cid, card, _seat(fields.get("owner", controller), f"state.world[{n}].owner"), "world",
            controller=controller, realm=realm, tapped=bool(fields.get("tapped", False)),
            token=bool(fields.get("token", False)), counters=dict(counters),
            arrived_round=round_)
    return state


def _entry(entry: Any, default_id: str, where: str) -> tuple[str, str]:
    if isinstance(entry, str):
        return default_id, entry
    if isinstance(entry, dict):
        _only(entry, {"id", "card"}, where)
        if "card" not in entry:
            raise ConformanceCaseError(f"{where}: an entry needs a card")
        return entry.get("id", default_id), entry["card"]
    raise ConformanceCaseError(f"{where}: expected a card name or {{id, card}}, got {entry!r}")


def _new_id(cid: str, ids: set[str]) -> None:
    if cid in ids:
        raise ConformanceCaseError(f"card id {cid!r} is used twice")
    ids.add(cid)


def _seat(value: Any, where: str) -> Seat:
    try:
        return as_seat(value)
    except ValueError:
        raise ConformanceCaseError(f"{where}: expected 'A' or 'B', got {value!r}") from None


def _realm(key: Any, where: str) -> int:
    try:
        realm = int(key)
    except (TypeError, ValueError):
        raise ConformanceCaseError(f"{where}: realm {key!r} is not a number") from None
    if not 1 <= realm <= 7:
        raise ConformanceCaseError(f"{where}: realm {realm} is not 1..7")
    return realm


# -- running ---------------------------------------------------------------------------------


def _decision(step: dict[str, Any], seat: Seat, prompt_kind: str, where: str) -> Event:
    if "action" in step:
        action = step["action"]
        if action not in ACTIONS:
            raise ConformanceCaseError(f"{where}: unknown action {action!r}")
        card: Any = step.get("card")  # a case's values are checked by the engine, as a seat's
        realm: Any = step.get("realm")
        made: dict[str, Callable[[], Event]] = {
            "pass": lambda: Passed(seat),
            "draw": lambda: DrawDeclared(seat),
            # Targets are chosen as the card resolves (501.1): declared on the step, they answer
            # the target prompts the play raises (``_declared_targets``), not the declaration.
            "play": lambda: PlayDeclared(seat, card, realm, []),
            "attack": lambda: AttackDeclared(seat, realm),
            "activate": lambda: ActivationDeclared(seat, card, 0, []),
            "harvest": lambda: HarvestDeclared(seat, [card] if isinstance(card, str)
                                               else list(card or [])),
        }
        return made[action]()
    if "pick" in step:
        return Answered(seat, prompt_kind, step["pick"])
    raise ConformanceCaseError(f"{where}: a step needs an action, a pick or stats")


def _stats_entry(engine: Engine, step: dict[str, Any], seat: Seat, where: str) -> Event:
    """R34: ``stats`` answers the pending ``stats`` prompt for the card it names."""
    stats = step["stats"]
    if not isinstance(stats, dict):
        raise ConformanceCaseError(f"{where}.stats: expected a table")
    cid = engine.prompt.card if engine.prompt is not None else None
    c = engine.state.cards.get(cid or "")
    if c is None:
        raise CaseFailure(f"{where}: stats given, but no stats prompt is pending")
    return CardStatsEntered(seat, c.id, c.name, c.zone, dict(stats))


def _run_step(engine: Engine, step: dict[str, Any], index: int) -> None:
    where = f"step {index}"
    _only(step, STEP_KEYS, where)
    if "judge_draw" in step:
        _judge_draw(engine, step["judge_draw"], where)
        return
    seat = _seat(step.get("player"), f"{where}.player")
    prompt = engine.prompt
    if prompt is None:
        raise CaseFailure(f"{where}: the match is over, no prompt for {seat}")
    if prompt.seat != seat:
        raise CaseFailure(f"{where}: the pending prompt is {prompt.seat}'s {prompt.kind}, not {seat}'s")
    if "expect_prompt" in step and step["expect_prompt"] != prompt.kind:
        raise CaseFailure(f"{where}: expected a {step['expect_prompt']} prompt, got {prompt.kind}")
    decision = _stats_entry(engine, step, seat, where) if "stats" in step else \
        _decision(step, seat, prompt.kind, where)
    if step.get("illegal", False):
        before = state_hash(engine.state)
        try:
            engine.decide(decision)
        except IllegalDecisionError:
            if state_hash(engine.state) != before or engine.prompt != prompt:
                raise CaseFailure(f"{where}: the illegal decision changed the state") from None
            return
        raise CaseFailure(f"{where}: expected {type(decision).__name__} to be rejected, "
                          f"the engine accepted it")
    try:
        engine.decide(decision)
    except IllegalDecisionError as exc:
        raise CaseFailure(f"{where}: rejected: {exc}") from None
    if step.get("action") in ("play", "activate") and step.get("targets"):
        _declared_targets(engine, seat, list(step["targets"]), where)


def _judge_draw(engine: Engine, kind: Any, where: str) -> None:
    """R45: the judge records a draw (``agreed`` or at ``time``) at the pending prompt."""
    if kind not in DRAW_KINDS:
        raise ConformanceCaseError(f"{where}.judge_draw: one of {', '.join(DRAW_KINDS)}, "
                                   f"not {kind!r}")
    if engine.prompt is None:
        raise CaseFailure(f"{where}: the match is over, no prompt to record a draw at")
    try:
        engine.decide(DrawGiven(kind))
    except IllegalDecisionError as exc:
        raise CaseFailure(f"{where}: rejected: {exc}") from None


def _declared_targets(engine: Engine, seat: Seat, targets: list[Any], where: str) -> None:
    """``targets`` declared on a play step (spec: "targets declared on play, if the card needs
    them"): the engine chooses targets as the card resolves (rule 501.1), so the declared ids
    answer, in order, the ``target`` prompts of the playing seat that follow the play."""
    while targets:
        prompt = engine.prompt
        if prompt is None or prompt.seat != seat or prompt.kind != "target":
            raise CaseFailure(f"{where}: targets {targets} were declared but the play asks for no "
                              f"more targets (pending: {prompt.kind if prompt else 'nothing'})")
        if prompt.choose is not None:
            fits = [t for t in targets if t in prompt.choose.of][:prompt.choose.max]
            pick: Any = fits
            targets = [t for t in targets if t not in fits]
        else:
            pick = targets.pop(0)
        try:
            engine.decide(Answered(seat, "target", pick))
        except IllegalDecisionError as exc:
            raise CaseFailure(f"{where}: declared target {pick!r} rejected: {exc}") from None


def check_expect(engine: Engine, expect: dict[str, Any]) -> None:
    _only(expect, EXPECT_KEYS, "expect")
    s, v = engine.state, engine.view
    prompt = engine.prompt
    checks: list[tuple[str, Any, Any]] = []
    if "round" in expect:
        checks.append(("round", expect["round"], s.round))
    if "turn" in expect:
        checks.append(("turn", expect["turn"], s.turn if not s.over else None))
    if "prompt" in expect:
        checks.append(("prompt", expect["prompt"], prompt.kind if prompt else None))
    if "over" in expect:
        checks.append(("over", expect["over"], s.over))
    if "winner" in expect:
        checks.append(("over", True, s.over))
        checks.append(("winner", expect["winner"], (s.winner or "draw") if s.over else None))
    for key, owner in expect.get("stones", {}).items():
        stones = s.realms[_realm(key, "expect.stones") - 1].stones
        checks.append((f'stones["{key}"]', owner, stones[0] if len(stones) == 1 else stones))
    for seat in SEATS:
        fields = expect.get(seat, {})
        _only(fields, EXPECT_PLAYER_KEYS, f"expect.{seat}")
        p = s.players[seat]
        actual: dict[str, Any] = {"energy": p.energy, "actions": p.actions, "faith": p.faith,
                  "free_attacks": p.free_attacks, "hand_count": len(p.hand),
                  "deck_count": len(p.deck)}
        for key, value in fields.items():
            checks.append((f"{seat}.{key}", value, actual[key]))
    for cid, fields in expect.get("cards", {}).items():
        _only(fields, EXPECT_CARD_KEYS, f"expect.cards.{cid}")
        if cid not in s.cards:
            raise ConformanceCaseError(f"expect.cards.{cid}: no card with that id")
        c = s.cards[cid]
        actual = {"zone": c.zone, "realm": c.realm, "controller": c.controller,
                  "power": v.power(cid) if c.zone == "world" else v.base_power(cid),
                  "tapped": c.tapped, "counters": dict(c.counters), "equipped_to": c.equipped_to}
        for key, value in fields.items():
            checks.append((f"cards.{cid}.{key}", value, actual[key]))
    for what, wanted, got in checks:
        if not _same(wanted, got):
            raise CaseFailure(f"{what}: expected {_show(wanted)}, got {_show(got)}")


def _same(wanted: Any, got: Any) -> bool:
    if isinstance(wanted, (int, float)) and not isinstance(wanted, bool) and \
            isinstance(got, (int, float)) and not isinstance(got, bool):
        return float(wanted) == float(got)
    if isinstance(wanted, dict) and isinstance(got, dict):
        wanted = {k: n for k, n in wanted.items() if n}
        return wanted.keys() == got.keys() and all(_same(wanted[k], got[k]) for k in wanted)
    return wanted == got


def _show(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value) if value is not None else "none"
