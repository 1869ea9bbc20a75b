"""The fold store: content-addressed, write-once, read-only, hash-verified (DESIGN §3)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pifold_core.canonical import sha256_hex
from pifold_core.store import FoldStore, StoreObjectCorrupt, StoreObjectMissing


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
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
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
