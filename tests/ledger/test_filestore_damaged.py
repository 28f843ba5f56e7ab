"""A file store's damaged, cut and torn match files: every reader names the damaged file and
line (and :meth:`~ledger.store.Store.heads` still answers for the other matches: the viewer's
listing and the warehouse's ingest start from it); a file ending inside a batch is a torn
tail (``torn``: inside a line; ``cut``: a batch's last line missing) after the whole batches."""

from __future__ import annotations

import re

import pytest

from ledger.codec import GENESIS, encode_line
from ledger.errors import LedgerError, MalformedEventError
from ledger.events import JudgeNote, MatchEnded, TakenBack
from ledger.filestore import FileStore
from ledger.store import Head, TornTail
from tests.ledger.contract.matches import notes, opened

AT = "2025-03-01T10:00:00.000Z"


def test_heads_reports_a_damaged_match_as_its_error_beside_the_good_ones(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened("good"))
    store.append("good", notes(1), 1)
    (tmp_path / "bad.jsonl").write_bytes(b"this is not a match file\n")
    heads = store.heads()
    assert sorted(heads) == ["bad", "good"]
    assert isinstance(heads["good"], Head) and heads["good"].length == 2
    assert isinstance(heads["bad"], MalformedEventError)
    assert "bad.jsonl" in str(heads["bad"])


def _file(tmp_path, *lines: bytes, end: bytes = b"\n") -> FileStore:
    (tmp_path / "m-1.jsonl").write_bytes(b"\n".join(lines) + end)
    return FileStore(tmp_path)


def _opened_line() -> tuple[bytes, str]:
    return encode_line(opened("m-1", ("Ann Lee", "Bob")), 0, AT, 0, GENESIS)


def test_info_of_a_match_whose_player_names_have_spaces(tmp_path):
    line, _ = _opened_line()
    store = _file(tmp_path, line)
    info = store.info("m-1")
    assert [s.player for s in info.opened.seats] == ["Ann Lee", "Bob"]
    assert store.list(player="Ann Lee") == [info]


def test_info_of_a_file_with_a_damaged_first_line_names_it(tmp_path):
    line, _ = _opened_line()
    store = _file(tmp_path, line[:40] + b"X" + line[41:])
    with pytest.raises(LedgerError, match=r"m-1\.jsonl:1: "):
        store.info("m-1")


def test_info_of_a_file_that_does_not_start_with_match_opened(tmp_path):
    line, _ = encode_line(JudgeNote("j", "alone"), 0, AT, 0, GENESIS)
    store = _file(tmp_path, line)
    with pytest.raises(MalformedEventError) as raised:
        store.info("m-1")
    assert str(raised.value) == f"{tmp_path / 'm-1.jsonl'}:1: seq 0: expected MatchOpened, got JudgeNote"


def _unfinished_batch(tmp_path, *after: bytes, end: bytes = b"\n") -> FileStore:
    """The opening line, then the first of a two-line batch (its second never came), then
    ``after``."""
    line, digest = _opened_line()
    first, _ = encode_line(JudgeNote("j", "one of two"), 1, AT, 2, digest)
    return _file(tmp_path, line, first, *after, end=end)


def test_a_garbage_line_inside_an_unfinished_batch_is_damage_named_by_every_reader(tmp_path):
    store = _unfinished_batch(tmp_path, b"not a ledger line")
    where = re.escape(f"{tmp_path / 'm-1.jsonl'}:3: not a ledger line")
    for read in (store.info, store.torn_tail, store.export_lines):
        with pytest.raises(MalformedEventError, match=where):
            read("m-1")


def test_an_empty_line_after_an_unfinished_batch_is_damage_not_a_tail(tmp_path):
    store = _unfinished_batch(tmp_path, b"")
    with pytest.raises(MalformedEventError, match=re.escape(f"{tmp_path / 'm-1.jsonl'}:3: ")):
        store.info("m-1")


def test_a_file_cut_inside_its_first_line_is_a_torn_tail_at_line_one(tmp_path):
    line, _ = _opened_line()
    store = _file(tmp_path, line[:30], end=b"")
    assert store.torn_tail("m-1") == TornTail("torn", 1, 0, 0, 30)


def test_an_unfinished_batch_is_a_cut_tail_after_the_whole_ones(tmp_path):
    store = _unfinished_batch(tmp_path)
    line, _ = _opened_line()
    data = (tmp_path / "m-1.jsonl").read_bytes()
    tail = TornTail("cut", 2, 1, len(line) + 1, len(data) - len(line) - 1)
    assert store.torn_tail("m-1") == tail
    info = store.info("m-1")
    assert info.length == 1 and info.torn_tail == tail
    assert store.export_lines("m-1") == line + b"\n"


def test_a_match_ended_then_taken_back_is_still_listed_as_ended(tmp_path):
    # As PostgreSQL's listing says (``ended = ended OR ...``): a take-back is a correction
    # the reader applies, and the listing reads only the stored MatchEnded.
    store = FileStore(tmp_path)
    store.create(opened("m-1"))
    store.append("m-1", [MatchEnded("B", "concession", {"A": 0, "B": 0})], 1)
    store.append("m-1", [TakenBack(0, reason="wrong seat conceded")], 2)
    info = store.info("m-1")
    assert info.ended and info.winner == "B" and info.reason == "concession"


def test_the_head_of_a_match_whose_last_line_is_longer_than_a_first_read(tmp_path):
    # head() reads the file's last 16 KiB first; a longer last line needs more.
    store = FileStore(tmp_path)
    store.create(opened("m-1"))
    store.append("m-1", notes(3), 1)
    [last] = store.append("m-1", [JudgeNote("j", "long ruling " + "x" * 40_000)], 4)
    head = FileStore(tmp_path).head("m-1")
    assert head.length == 5 and head.last_hash == last.hash
    assert head.size == store.path("m-1").stat().st_size


def test_the_head_of_a_file_without_a_whole_batch_is_an_error(tmp_path):
    line, _ = encode_line(JudgeNote("j", "one of two"), 0, AT, 1, GENESIS)
    store = _file(tmp_path, line)
    with pytest.raises(MalformedEventError, match=r"m-1\.jsonl: no whole batch in the file"):
        store.head("m-1")


def test_the_head_of_a_file_ending_in_an_empty_line_is_an_error(tmp_path):
    line, _ = _opened_line()
    store = _file(tmp_path, line, b"")
    with pytest.raises(MalformedEventError,
                       match=r"m-1\.jsonl: a line near the end: not a ledger line"):
        store.head("m-1")


def test_a_damaged_match_ended_line_is_named_by_info(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened("m-1"))
    store.append("m-1", [MatchEnded("A", "concession", {"A": 0, "B": 0})], 1)
    path = store.path("m-1")
    path.write_bytes(path.read_bytes().replace(b'"reason":"concession"', b'"reason":"concessioN"'))
    with pytest.raises(LedgerError, match=re.escape(str(path))):
        FileStore(tmp_path).info("m-1")


@pytest.fixture
def alarm():
    """Fail instead of hanging forever (a FIFO opened for reading blocks without a writer)."""
    import signal

    def hung(*_args):
        raise TimeoutError("hung: a reader opened an entry that is no regular file")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def test_entries_that_are_no_regular_files_are_named_never_opened(tmp_path, alarm):
    """A directory, a FIFO, a dangling link or a loop of links named like a match file: every
    reader raises NotAMatchFileError naming the entry and what it is (no hang on the FIFO, no
    OSError), heads answers for the good match beside them, and list raises that error."""
    import os

    from ledger.errors import NotAMatchFileError

    store = FileStore(tmp_path)
    store.create(opened("good"))
    (tmp_path / "a-dir.jsonl").mkdir()
    os.mkfifo(tmp_path / "b-fifo.jsonl")
    (tmp_path / "c-dangling.jsonl").symlink_to(tmp_path / "nowhere")
    (tmp_path / "d-loop.jsonl").symlink_to(tmp_path / "d-loop.jsonl")
    odd = {"a-dir": "a directory", "b-fifo": "a FIFO", "c-dangling": "a dangling symbolic link",
           "d-loop": "a loop of symbolic links"}
    heads = store.heads()
    assert isinstance(heads.pop("good"), Head)
    for match_id, what in odd.items():
        assert isinstance(heads[match_id], NotAMatchFileError)
        assert str(heads[match_id]).startswith(f"{match_id}.jsonl: not a match file: {what}")
        for read in (store.info, store.export_lines, lambda m: list(store.read(m))):
            with pytest.raises(NotAMatchFileError, match=what):
                read(match_id)
        with pytest.raises(NotAMatchFileError, match=what):
            list(FileStore.read_file(tmp_path / f"{match_id}.jsonl"))
    with pytest.raises(NotAMatchFileError, match=r"a-dir\.jsonl: not a match file"):
        store.list()



def _raised(read) -> LedgerError:
    with pytest.raises(LedgerError) as raised:
        read()
    return raised.value


def test_every_reader_says_where_the_damage_is_in_the_errors_fields(tmp_path):
    """Beside its message (the operator's: the path, bytes of the line), an error about stored
    data carries file, line, seq and cause: what a reader answering anyone else may say."""
    path = str(tmp_path / "m-1.jsonl")
    store = FileStore(tmp_path)
    store.create(opened("m-1"))
    store.append("m-1", [MatchEnded("A", "concession", {"A": 0, "B": 0})], 1)
    data = (tmp_path / "m-1.jsonl").read_bytes()
    (tmp_path / "m-1.jsonl").write_bytes(data.replace(b'"concession"', b'"concessioN"'))
    for read in (lambda: list(FileStore(tmp_path).read("m-1")),
                 lambda: FileStore(tmp_path).info("m-1"),
                 lambda: list(FileStore(tmp_path).follow("m-1", timeout=0))):
        error = _raised(read)
        assert (error.file, error.line, error.seq) == (path, 2, 1)
        assert error.cause == "hash mismatch (the line was altered)"
        assert str(error) == f"{path}:2: seq 1: hash mismatch (the line was altered)"
    _unfinished_batch(tmp_path, b"not a ledger line")
    for reader in (store.info, store.torn_tail, store.export_lines, store.head):
        error = _raised(lambda read=reader: read("m-1"))
        assert (error.file, error.line, error.seq) == (path, 3, None), reader
        assert error.cause is not None and "not a ledger line" in error.cause
    line, _ = encode_line(JudgeNote("j", "one of two"), 0, AT, 1, GENESIS)
    _file(tmp_path, line)
    error = _raised(lambda: FileStore(tmp_path).head("m-1"))
    assert (error.file, error.line, error.seq) == (path, 1, None)
