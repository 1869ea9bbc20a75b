"""The fold store: content-addressed, write-once, read-only, hash-verified (DESIGN §3)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pifold_core.canonical import sha256_hex
from pifold_core.store import (
    FoldStore,
    StoreObjectCorrupt,
    StoreObjectMissing,
    find_temporaries,
    loose_modes,
    remove_temporaries,
    tighten_modes,
)


def _writable(path: Path) -> None:
    os.chmod(path, 0o644)


def test_put_get_round_trip_and_layout(tmp_path: Path) -> None:
    store = FoldStore(tmp_path / "store")
    payload = b'[{"id":"e1"}]\n\x00\xff binary too'
    digest = store.put(payload)
    assert digest == sha256_hex(payload)
    path = tmp_path / "store" / "sha256" / digest[:2] / digest
    assert store.path_of(digest) == path
    assert path.is_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o400  # read-only and private
    assert store.get(digest) == payload
    assert store.contains(digest)
    # The header records the format and hash algorithm.
    assert path.read_bytes().startswith(b"pifold-object format=1 hash=sha256 bytes=")


def test_put_is_idempotent_and_leaves_no_temporaries(tmp_path: Path) -> None:
    store = FoldStore(tmp_path)
    first = store.put(b"same")
    second = store.put(b"same")
    assert first == second
    folder = store.path_of(first).parent
    assert [entry.name for entry in folder.iterdir()] == [first]


def test_empty_payload(tmp_path: Path) -> None:
    store = FoldStore(tmp_path)
    digest = store.put(b"")
    assert store.get(digest) == b""


def test_flipped_byte_is_a_corrupt_object_naming_the_digest(tmp_path: Path) -> None:
    store = FoldStore(tmp_path)
    digest = store.put(b"the exact original bytes")
    path = store.path_of(digest)
    _writable(path)
    data = bytearray(path.read_bytes())
    data[-3] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(StoreObjectCorrupt) as caught:
        store.get(digest)
    assert caught.value.digest == digest
    assert digest in str(caught.value)


def test_truncated_payload_is_corrupt(tmp_path: Path) -> None:
    store = FoldStore(tmp_path)
    digest = store.put(b"0123456789")
    path = store.path_of(digest)
    _writable(path)
    path.write_bytes(path.read_bytes()[:-2])
    with pytest.raises(StoreObjectCorrupt, match=digest):
        store.get(digest)


def test_put_over_a_damaged_object_reports_it(tmp_path: Path) -> None:
    store = FoldStore(tmp_path)
    digest = store.put(b"payload")
    path = store.path_of(digest)
    _writable(path)
    path.write_bytes(path.read_bytes().replace(b"payload", b"paylaod"))
    with pytest.raises(StoreObjectCorrupt, match=digest):
        store.put(b"payload")


def test_deleted_object_is_missing_naming_the_digest(tmp_path: Path) -> None:
    store = FoldStore(tmp_path)
    digest = store.put(b"gone soon")
    store.path_of(digest).unlink()
    with pytest.raises(StoreObjectMissing) as caught:
        store.get(digest)
    assert caught.value.digest == digest
    assert digest in str(caught.value)
    assert not store.contains(digest)


@pytest.mark.parametrize(
    "header",
    [
        b"garbage\n",
        b"pifold-object format=2 hash=sha256 bytes=7\n",
        b"pifold-object format=1 hash=md5 bytes=7\n",
        b"pifold-object format=1 hash=sha256 bytes=9\n",
        b"",
    ],
)
def test_damaged_header_is_corrupt(tmp_path: Path, header: bytes) -> None:
    store = FoldStore(tmp_path)
    digest = store.put(b"payload")
    path = store.path_of(digest)
    _writable(path)
    path.write_bytes(header + b"payload")
    with pytest.raises(StoreObjectCorrupt) as caught:
        store.get(digest)
    assert caught.value.digest == digest


def test_path_of_refuses_non_digests(tmp_path: Path) -> None:
    store = FoldStore(tmp_path)
    for bad in ("../etc/passwd", "ABC", "g" * 64, "a" * 63):
        with pytest.raises(ValueError):
            store.path_of(bad)


def test_folders_and_objects_are_private_whatever_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o000)
    try:
        store = FoldStore(tmp_path / "store")
        digest = store.put(b"private")
    finally:
        os.umask(previous)
    path = store.path_of(digest)
    for folder in (tmp_path / "store", tmp_path / "store" / "sha256", path.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert stat.S_IMODE(path.stat().st_mode) == 0o400
    assert loose_modes(tmp_path / "store") == []


def test_wide_modes_are_found_and_tightened(tmp_path: Path) -> None:
    store = FoldStore(tmp_path / "store")
    digest = store.put(b"once 0444")
    path = store.path_of(digest)
    os.chmod(path, 0o444)
    os.chmod(path.parent, 0o755)
    found = {item[0]: item[1:] for item in loose_modes(store.root)}
    assert found == {path: (0o444, 0o400), path.parent: (0o755, 0o700)}
    assert {item[0] for item in tighten_modes(store.root)} == {path, path.parent}
    assert loose_modes(store.root) == []
    assert store.get(digest) == b"once 0444"


def test_a_folder_in_place_of_an_object_is_corrupt_not_an_os_error(tmp_path: Path) -> None:
    store = FoldStore(tmp_path)
    digest = store.put(b"replaced by a folder")
    path = store.path_of(digest)
    path.unlink()
    path.mkdir()
    with pytest.raises(StoreObjectCorrupt, match=digest):
        store.get(digest)
    with pytest.raises(StoreObjectCorrupt, match=digest):
        store.put(b"replaced by a folder")
    assert isinstance(store.verify(digest), StoreObjectCorrupt)


def test_reads_remember_damage_until_it_is_repaired(tmp_path: Path) -> None:
    store = FoldStore(tmp_path / "store")
    digest = store.put(b"will be lost")
    assert store.verify(digest) is None and store.damaged == {}
    store.path_of(digest).unlink()
    assert isinstance(store.verify(digest), StoreObjectMissing)
    assert set(store.damaged) == {digest}
    store.put(b"will be lost")  # the same bytes again: the object is back
    assert store.damaged == {}
    assert store.get(digest) == b"will be lost"


def test_rewrite_verifies_the_bytes_and_quarantines_what_stood_there(tmp_path: Path) -> None:
    store = FoldStore(tmp_path / "store")
    digest = store.put(b"the original")
    path = store.path_of(digest)
    _writable(path)
    path.write_bytes(b"junk")
    quarantine = tmp_path / "damaged"
    with pytest.raises(StoreObjectCorrupt, match="hash to"):
        store.rewrite(b"not the original", digest, quarantine)
    assert path.read_bytes() == b"junk"  # refused: nothing changed
    moved = store.rewrite(b"the original", digest, quarantine)
    assert moved is not None and moved.parent == quarantine and moved.read_bytes() == b"junk"
    assert store.get(digest) == b"the original"
    assert stat.S_IMODE(path.stat().st_mode) == 0o400


def test_temporaries_of_killed_writes_are_found_and_removed(tmp_path: Path) -> None:
    store = FoldStore(tmp_path / "store")
    digest = store.put(b"kept")
    folder = store.path_of(digest).parent
    leftover = folder / f".{digest}.abc123"
    leftover.write_bytes(b"half an object")
    assert find_temporaries(store.root) == [leftover]
    assert remove_temporaries(store.root) == [leftover]
    assert not leftover.exists() and store.get(digest) == b"kept"
    assert find_temporaries(store.root) == []


def test_object_paths_tell_foreign_files_from_objects(tmp_path: Path) -> None:
    store = FoldStore(tmp_path / "store")
    digest = store.put(b"an object")
    foreign = store.root / "sha256" / "notes.txt"
    foreign.write_text("not ours")
    misplaced = store.root / "sha256" / "00" / digest
    misplaced.parent.mkdir()
    misplaced.write_bytes(store.path_of(digest).read_bytes())
    assert dict(store.object_paths()) == {
        store.path_of(digest): digest,
        foreign: None,
        misplaced: None,
    }
