"""Canonical bytes: a line that is not byte-identical to the canonical encoding of what it decodes
to is rejected -- by ``decode_line``, ``FileStore.read``/``read_file``, the import API and ingest --
with file, line and seq; a file from a newer program is reported as such, not as corruption."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.codec import GENESIS, decode_line, encode_line
from ledger.errors import IntegrityError, NewerFormatError, NonCanonicalLineError
from ledger.filestore import FileStore
from ledger.integrity import NEWER, check_file
from ledger.warehouse import ingest
from tests.ledger.forgeries import FORGERIES, _rehash, rechain, sample_match
from tests.ledger.test_codec import EVENTS

NAMES = sorted(FORGERIES)


@pytest.fixture
def good(tmp_path):
    return sample_match(tmp_path / "made")


def _named(message: str, where: str, seq: int, words: str) -> None:
    assert f"{where}: seq {seq}:" in message, message
    assert words in message, message


@pytest.mark.parametrize("name", NAMES)
def test_decode_line_rejects_the_forged_line(good, name):
    forged = FORGERIES[name](good)
    line = forged.data.split(b"\n")[forged.line - 1]
    with pytest.raises(NonCanonicalLineError) as info:
        decode_line(line, f"m-1.jsonl:{forged.line}")
    _named(str(info.value), f"m-1.jsonl:{forged.line}", forged.seq, forged.words)
    assert isinstance(info.value, IntegrityError)


@pytest.mark.parametrize("name", NAMES)
def test_the_store_and_read_file_reject_it(tmp_path, good, name):
    forged = FORGERIES[name](good)
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    path = store_dir / "m-1.jsonl"
    path.write_bytes(forged.data)
    for read in (lambda: list(FileStore(store_dir).read("m-1")),
                 lambda: list(FileStore.read_file(path))):
        with pytest.raises(NonCanonicalLineError) as info:
            read()
        _named(str(info.value), f"{path}:{forged.line}", forged.seq, forged.words)
    assert path.read_bytes() == forged.data  # and nothing was "repaired"


def test_a_store_that_verified_a_file_checks_a_forged_replacement_again(tmp_path):
    good = sample_match(tmp_path)
    store = FileStore(tmp_path)
    assert len(list(store.read("m-1"))) == 6
    forged = FORGERIES["duplicate at after the hash"](good)
    replacement = tmp_path / "m-1.new"
    replacement.write_bytes(forged.data)
    replacement.replace(tmp_path / "m-1.jsonl")
    with pytest.raises(NonCanonicalLineError, match=r"m-1.jsonl:6: seq 5: .*duplicate key 'at'"):
        list(store.read("m-1"))


@pytest.mark.parametrize("name", NAMES)
def test_import_refuses_it_naming_line_and_seq(tmp_path, good, name):
    from tests.web.test_api import ORGANIZER, Api, new_app
    forged = FORGERIES[name](good)
    api = Api(new_app(tmp_path))
    status, out = api.call("POST", "/api/import", ORGANIZER, raw=forged.data,
                           headers={"Content-Type": "application/x-ndjson"})
    assert status == 422 and out["error"] == "illegal", out
    _named(out["message"], f"upload:{forged.line}", forged.seq, forged.words)
    assert list((tmp_path / "store").glob("*.jsonl")) == []


@pytest.mark.parametrize("name", NAMES)
def test_ingest_reports_it_naming_file_line_and_seq(tmp_path, good, name):
    forged = FORGERIES[name](good)
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    (store_dir / "m-1.jsonl").write_bytes(forged.data)
    report = ingest(store_dir, tmp_path / "w.duckdb", {})
    (problem,) = report.problems
    assert (problem.file, problem.kind) == ("m-1.jsonl", "corrupt")
    _named(problem.message, f"m-1.jsonl:{forged.line}", forged.seq, forged.words)
    assert report.new == 0


def test_incremental_ingest_refuses_a_forgery_appended_to_an_ingested_file(tmp_path):
    store_dir = tmp_path / "store"
    good = sample_match(store_dir)
    first = ingest(store_dir, tmp_path / "w.duckdb", {})
    assert (first.new, first.problems) == (1, [])
    (store_dir / "m-1.jsonl").write_bytes(FORGERIES["duplicate at after the hash"](good).data)
    second = ingest(store_dir, tmp_path / "w.duckdb", {})
    (problem,) = second.problems
    assert problem.kind == "corrupt" and "m-1.jsonl:6: seq 5" in problem.message
    assert "duplicate key 'at'" in problem.message


def test_an_integer_recorded_in_a_number_field_is_still_canonical():
    """Files recorded so far hold ``"energy":3`` where the decoded event re-encodes ``3.0``."""
    from replay.wotf.events import ResourcesChanged
    line, _ = encode_line(ResourcesChanged("A", "play", energy=3, actions=1), 4,
                           "2026-01-01T00:00:00.000Z", 4, GENESIS)
    assert b'"energy":3,' in line
    stored = decode_line(line, "f:5")
    assert stored.event.energy == 3
    forged = _rehash(line.replace(b'"energy":3,', b'"energy":3 ,'))
    with pytest.raises(NonCanonicalLineError, match=r"f:5: seq 4: .*whitespace"):
        decode_line(forged, "f:5")


def test_a_line_missing_a_field_or_with_an_unknown_one_is_not_canonical():
    from replay.wotf.events import Passed
    line, _ = encode_line(Passed("A"), 2, "2026-01-01T00:00:00.000Z", 2, GENESIS)
    missing = _rehash(line.replace(b',"auto":false', b""))
    with pytest.raises(NonCanonicalLineError, match=r"f:3: seq 2: .*missing key 'auto'"):
        decode_line(missing, "f:3")
    unknown = _rehash(line.replace(b'"auto":false', b'"auto":false,"extra":1'))
    with pytest.raises(NonCanonicalLineError, match=r"f:3: seq 2: .*unknown key 'extra'"):
        decode_line(unknown, "f:3")
    escaped = _rehash(line.replace(b'"seat":"A"', b'"seat":"\\u0041"'))
    with pytest.raises(NonCanonicalLineError, match=r"f:3: seq 2: .*differs from the canonical"):
        decode_line(escaped, "f:3")


def test_an_altered_value_is_still_a_hash_mismatch(good):
    line = good.split(b"\n")[2].replace(b"second", b"SECOND")
    with pytest.raises(IntegrityError, match="m:3: seq 2: hash mismatch") as info:
        decode_line(line, "m:3")
    assert not isinstance(info.value, NonCanonicalLineError)


# -- a file from a newer program ---------------------------------------------------------------


@pytest.mark.parametrize("change, words", [
    ((b'"type":"JudgeNote"', b'"type":"JudgeRuledOnTheMoon"'), "event type 'JudgeRuledOnTheMoon'"),
    ((b'"v":1,', b'"v":7,'), "JudgeNote schema v7"),
])
def test_a_line_from_a_newer_program_is_a_newer_format_error(tmp_path, good, change, words):
    lines = good[:-1].split(b"\n")
    lines[3] = lines[3].replace(*change)
    data = b"\n".join(rechain(lines, 3)) + b"\n"
    path = tmp_path / "m-1.jsonl"
    path.write_bytes(data)
    with pytest.raises(NewerFormatError) as info:
        decode_line(data.split(b"\n")[3], f"{path}:4")
    assert not isinstance(info.value, IntegrityError)
    for message in (str(info.value), _error_of(lambda: list(FileStore.read_file(path)))):
        assert f"{path}:4: seq 3: written by a newer program" in message and words in message
    check = check_file(path)
    assert (check.status, check.line, check.seq, len(check.events)) == (NEWER, 4, 3, 3)


def _error_of(call) -> str:
    with pytest.raises(NewerFormatError) as info:
        call()
    return str(info.value)


# -- the property: what encode_line writes, decode_line accepts and re-encodes identically -----


@settings(max_examples=300, deadline=None)
@given(event=EVENTS, seq=st.integers(0, 10**6), batch_extra=st.integers(0, 5),
       at=st.sampled_from(["2026-11-22T10:00:00.000Z", "2026-11-22T10:00:00.123456Z"]))
def test_what_encode_line_writes_is_accepted_and_re_encodes_identically(event, seq, batch_extra, at):
    line, digest = encode_line(event, seq, at, seq + batch_extra, GENESIS)
    stored = decode_line(line, "p:1")
    assert stored.hash == digest
    assert encode_line(stored.event, stored.seq, stored.at, stored.batch, stored.prev)[0] == line
    # and the same line with one space added outside strings (rehashed) is refused
    spaced = _rehash(re.sub(rb'^\{"seq":', b'{ "seq":', line))
    with pytest.raises(NonCanonicalLineError, match=f"p:1: seq {seq}: .*whitespace"):
        decode_line(spaced, "p:1")
