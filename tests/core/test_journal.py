"""The append-only state log: verified lines, torn tails, loud corruption (DESIGN §8)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pifold_core.journal import Journal, JournalCorrupt, JournalReadOnly


def _write(path: Path, count: int) -> list[dict[str, object]]:
    journal = Journal(path)
    bodies: list[dict[str, object]] = [{"i": i, "text": f"record {i} é"} for i in range(count)]
    for body in bodies:
        journal.append("entry", body)
    journal.close()
    return bodies


def test_records_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    bodies = _write(path, 5)
    journal = Journal(path)
    records = list(journal.read_all())
    assert [record.body for record in records] == bodies
    assert [record.sequence for record in records] == list(range(5))
    assert {record.kind for record in records} == {"entry"}
    assert journal.torn is None
    assert journal.next_sequence == 5


def test_missing_file_reads_as_empty(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "absent.jsonl")
    assert list(journal.read_all()) == []
    assert journal.torn is None


@pytest.mark.parametrize(
    "variant",
    [
        "partial write without newline",
        "bad checksum",
        "whole line without newline",
        "garbage line",
    ],
)
def test_torn_last_line_is_reported_and_truncated(tmp_path: Path, variant: str) -> None:
    path = tmp_path / "log.jsonl"
    bodies = _write(path, 4)
    data = path.read_bytes()
    lines = data.split(b"\n")[:-1]
    kept = b"".join(line + b"\n" for line in lines[:3])
    last = lines[3]
    if variant == "partial write without newline":
        damaged = last[: len(last) // 2]
    elif variant == "bad checksum":
        damaged = last.replace(b"record 3", b"record 9") + b"\n"
    elif variant == "whole line without newline":
        damaged = last
    else:
        damaged = b"{not json\n"
    path.write_bytes(kept + damaged)

    journal = Journal(path)
    records = list(journal.read_all())
    # Even a complete-looking line is torn if its newline never landed.
    assert [record.body for record in records] == bodies[:3]
    assert journal.torn is not None
    assert journal.torn.line_number == 4
    assert journal.torn.byte_count == len(damaged)
    assert path.read_bytes() == kept

    # Appending afterwards continues the sequence on a clean line.
    journal.append("entry", {"i": "after"})
    journal.close()
    reread = Journal(path)
    records = list(reread.read_all())
    assert reread.torn is None
    assert [record.body for record in records] == [*bodies[:3], {"i": "after"}]
    assert [record.sequence for record in records] == [0, 1, 2, 3]


def test_torn_only_line(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"n":0,"k":"op')
    journal = Journal(path)
    assert list(journal.read_all()) == []
    assert journal.torn is not None and journal.torn.line_number == 1
    assert path.read_bytes() == b""


def test_damaged_middle_line_is_corruption(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    _write(path, 5)
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b"record 2", b"record X")
    path.write_bytes(b"\n".join(lines))
    before = path.read_bytes()
    journal = Journal(path)
    with pytest.raises(JournalCorrupt, match="line 3"):
        list(journal.read_all())
    assert path.read_bytes() == before  # nothing is truncated on corruption


def test_out_of_sequence_line_is_corruption(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    _write(path, 4)
    lines = path.read_bytes().split(b"\n")
    lines[1], lines[2] = lines[2], lines[1]
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalCorrupt, match="line 2"):
        list(Journal(path).read_all())


def test_durable_append_and_lines_keep_key_order(tmp_path: Path) -> None:
    # Lines are in wire form (keys in the order given) so a restart gives back tool-call
    # arguments in the provider's order; the check stays canonical.
    path = tmp_path / "log.jsonl"
    journal = Journal(path)
    assert journal.append("commit", {"b": 1, "a": 2}, durable=True) == 0
    journal.close()
    line = path.read_bytes()
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert line.startswith(b'{"n":0,"k":"commit","b":{"b":1,"a":2},"c":"')
    (record,) = Journal(path).read_all()
    assert list(record.body) == ["b", "a"]


def test_the_log_is_private_whatever_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o000)
    try:
        _write(tmp_path / "new" / "log.jsonl", 1)
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new" / "log.jsonl").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o700


def test_an_old_world_readable_log_is_tightened_by_its_writer(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    _write(path, 2)
    os.chmod(path, 0o644)
    journal = Journal(path)
    list(journal.read_all())
    journal.append("entry", {"i": 2})
    journal.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_read_only_leaves_a_half_written_last_line_to_its_writer(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    bodies = _write(path, 3)
    writer = Journal(path)
    list(writer.read_all())
    whole = path.read_bytes()
    half = b'{"n":3,"k":"entry","b":{"i":'
    with open(path, "ab") as handle:
        handle.write(half)  # what a reader sees in the middle of a writer's append
    reader = Journal(path, read_only=True)
    assert [record.body for record in reader.read_all()] == bodies
    assert reader.torn is None  # not yet written, not torn
    assert reader.unfinished is not None and reader.unfinished.line_number == 4
    assert reader.unfinished.byte_count == len(half)
    assert path.read_bytes() == whole + half  # untouched
    with pytest.raises(JournalReadOnly, match="read-only"):
        reader.append("entry", {"i": "never"})
    assert path.read_bytes() == whole + half


def test_read_only_reports_a_damaged_last_line_without_cutting_it(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    bodies = _write(path, 3)
    data = path.read_bytes().replace(b"record 2", b"record 9")
    path.write_bytes(data)
    reader = Journal(path, read_only=True)
    assert [record.body for record in reader.read_all()] == bodies[:2]
    assert reader.torn is not None and reader.torn.line_number == 3
    last_line = data.split(b"\n")[2] + b"\n"
    assert reader.torn.describe() == f"line 3 ({len(last_line)} bytes)"
    assert path.read_bytes() == data


def test_corruption_message_names_the_line_and_why(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    _write(path, 6)
    lines = path.read_bytes().split(b"\n")
    del lines[2]  # a line lost from the middle: the next one is out of sequence
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalCorrupt, match=r"line 3 is damaged .*cannot be trusted"):
        list(Journal(path).read_all())


@settings(max_examples=80, deadline=None)
@given(cut=st.integers(min_value=0, max_value=10_000), flip=st.booleans())
def test_any_cut_reads_as_a_prefix_and_a_reader_changes_nothing(
    tmp_path_factory: pytest.TempPathFactory, cut: int, flip: bool
) -> None:
    folder = tmp_path_factory.mktemp("cut")
    path = folder / "log.jsonl"
    bodies = _write(path, 8)
    whole = path.read_bytes()
    data = whole[: cut % (len(whole) + 1)]
    if flip and data:
        data = data[:-1] + bytes([data[-1] ^ 0x04])
    path.write_bytes(data)
    reader = Journal(path, read_only=True)
    try:
        read_only = [record.body for record in reader.read_all()]
    except JournalCorrupt:
        # A flipped byte turned into a newline splits a line: damage before the last line.
        assert flip
        return
    assert path.read_bytes() == data  # a reader never cuts, whatever it finds
    assert read_only == bodies[: len(read_only)]
    writer = Journal(path)
    written = [record.body for record in writer.read_all()]
    assert written == read_only
    assert path.read_bytes() == whole[: path.stat().st_size]  # cut back to whole lines
    assert path.read_bytes().endswith(b"\n") or not path.read_bytes()
