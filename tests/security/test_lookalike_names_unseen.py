"""Attack: look-alike names the first look-alike check did not see, and a real name it refused.

The check of ``tests/security/test_lookalike_names.py`` compared names character by character
through the confusables data, NFC only.  Against a real ``wonders serve`` and ``wonders
tournament register`` with Ann, Kim, Lan and كريم (Karim, Arabic kaf) registered, each of these
was registered and shown on the standings as a second player of the same name:

* an invisible character that is no format character: ``"An\\u034fn"`` (a combining grapheme
  joiner), ``"Ann\\ufe0f"`` (a variation selector), ``"Ann\\u3164"`` (a Hangul filler);
* a compatibility form: ``"\\uff21\\uff4e\\uff4e"`` (fullwidth letters, NFKC "Ann");
* a letter drawn as two: ``"Kirn"`` beside ``"Kim"`` (UTS #39: m and rn);
* every right-to-left confusable: the data wraps each Arabic and Hebrew character in
  left-to-right marks, and the check skipped what was not one character -- ``"کريم"`` (a
  Persian keheh, drawn as the kaf at the start of a word) beside ``"كريم"``;
* in capitals: ``"KI\\u041c"`` (a Cyrillic Em) reads "KIM", which is Kim's name in capitals.

And names of nothing visible were taken as names: ``"\\u3164"``, ``"\\u2800"`` (a braille
blank), ``"\\u034f"``: a blank line on the pairings.  The other way, ``"Ian"`` was refused
beside ``"Lan"`` ("reads the same"): case was folded after the look-alike classes were applied,
so the L of Lan became an l, drawn as Ian's I.

Now a name is compared by what is drawn (:func:`ledger.lookalike.reads_alike`: NFKC, the
default-ignorable characters left out, UTS #39's skeleton with its sequences, as written, in
small letters and in capitals): each of these is refused with one line naming the character
and nothing is written; a name with nothing visible is refused; Ian is taken beside Lan, a
Cyrillic Toma beside a Latin one (only their capitals are drawn alike), and real names of many
scripts side by side are all taken.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from ledger.lookalike import reads_alike
from tests.security.live import ROOT
from tests.security.test_direction_controls_in_names import _players
from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import DECKS, call, decklist

REGISTERED = ["Ann", "Kim", "Lan", "كريم"]
TWINS = ["An\u034fn", "Ann\ufe0f", "Ann\u3164", "\uff21\uff4e\uff4e", "Kirn", "کريم",
         "KI\u041c", "\U0001d400nn"]
BLANKS = ["\u3164", "\u2800", "\u034f", "\u115f\u1160", "\ufe0f \u2800"]
#: Real names of many scripts, each another person's: none may be refused beside another.
REAL = ["Ann", "Anna", "Ian", "Lan", "Lana", "Ilan", "Iris", "Liam", "Kim", "Tim", "Tom",
        "Mia", "Nia", "Ivo", "Lvo", "Ida", "Lia", "Isla", "Ella", "Elia", "Olli", "Otto",
        "Oleg", "Igor", "Ilya", "Iga", "Eli", "Li", "Lu", "Lo", "Io", "Noa", "Nina", "Mila",
        "Milla", "Camila", "Carmen", "Cameron", "Clara", "Dara", "Dam", "Vivian",
        "Willem", "Wim", "Vim", "Uwe", "Ute", "Zoë", "Zoe", "Chloé", "Chloe", "Jörg", "Jorg",
        "\u0422\u043e\u043c\u0430", "Toma",  # a Cyrillic Toma, a Latin one
        "Анна", "Иван", "Ольга", "Сергей", "Наталья", "Мария", "Борис", "Вероника", "Павел",
        "Ηλίας", "Νίκος", "Μαρία", "Ελένη", "Γιώργος", "Σοφία",
        "علي", "محمد", "فاطمة", "كريم", "أحمد", "يوسف", "ليلى", "عمر",
        "דוד", "שרה", "יוסף", "רחל", "משה", "לאה", "נועה", "איתי",
        "李娜", "王伟", "张伟", "刘洋", "山口", "田中", "佐藤", "加藤", "カトウ", "サトウ",
        "김민준", "이서연", "박지훈", "최유나", "राहुल", "प्रिया", "अनिल", "สมชาย", "สมศรี"]


def _register(api, tid, name, deck):
    return call(api, "POST", f"/api/tournaments/{tid}/players",
                {"player": name, "decklist": decklist(deck)})


def _tournament(api, name):
    status, t = call(api, "POST", "/api/tournaments", {"name": name})
    assert status == 201, t
    tid = t["tournament_id"]
    for player, deck in zip(REGISTERED, DECKS, strict=False):
        status, data = _register(api, tid, player, deck)
        assert status == 201, data
    return tid


@pytest.mark.parametrize(("title", "names", "words"), [
    ("Unseen Cup", TWINS, "reads the same as"),  # a look-alike of a registered name
    ("Blank Cup", BLANKS, "no visible character"),  # a name of nothing visible
])
def test_unseen_look_alikes_and_blank_names_are_refused(tmp_path, where, title, names, words):
    api = where if where is not None else Api(new_app(tmp_path))
    tid = _tournament(api, title)
    for name in names:
        status, data = _register(api, tid, name, DECKS[5])
        assert status == 422, (name, data)
        assert words in data["message"] and "\n" not in data["message"], data
    assert _players(api, tid) == sorted(REGISTERED)  # nothing written


def test_the_desk_cli_refuses_them_too(tmp_path):
    store, deck = tmp_path / "store", tmp_path / "deck.txt"
    deck.write_text(decklist(DECKS[0]), encoding="utf-8")

    def run(*args):
        return subprocess.run([sys.executable, "-m", "web.cli", "tournament", *args,
                               "--store", str(store)], cwd=ROOT, capture_output=True,
                              text=True, timeout=120)
    assert run("create", "Desk Twins").returncode == 0
    for name in REGISTERED:
        assert run("register", "desk-twins", name, str(deck)).returncode == 0
    for name in ["\uff21\uff4e\uff4e", "Kirn", "\u3164"]:
        done = run("register", "desk-twins", name, str(deck))
        assert done.returncode == 1, (name, done.stdout)
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    standings = run("standings", "desk-twins").stdout
    assert "\uff21\uff4e\uff4e" not in standings and "Kirn" not in standings


def test_real_names_are_not_refused_beside_each_other(tmp_path):
    api = Api(new_app(tmp_path))
    status, t = call(api, "POST", "/api/tournaments", {"name": "World Cup"})
    tid = t["tournament_id"]
    assert _register(api, tid, "Lan", DECKS[0])[0] == 201
    status, data = _register(api, tid, "Ian", DECKS[1])
    assert status == 201, data
    clashes = [(a, b) for i, a in enumerate(REAL) for b in REAL[i + 1:] if reads_alike(a, b)]
    assert clashes == [], clashes


@pytest.mark.parametrize(("a", "b"), [("Paul", "PauI"), ("Ann", "\u0410nn"), ("Kim", "Kirn"),
                                      ("Ann", "\uff21\uff4e\uff4e"), ("Kim", "KI\u041c"), ("Ann", "\u0430nn"),
                                      ("كريم", "کريم"), ("Ann", "An\u034fn")])
def test_what_reads_alike(a, b):
    assert reads_alike(a, b) and reads_alike(b, a)
