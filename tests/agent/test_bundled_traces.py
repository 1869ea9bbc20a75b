"""The bundled traces: each is the exact file its provenance names, with its licence beside it."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pifold_agent.bundled_traces import (
    DEMO_TRACE_NAME,
    bundled_trace,
    bundled_traces,
    demo_trace,
    traces_folder,
)


def git_blob_id(data: bytes) -> str:
    """The id git gives a file's content, which each PROVENANCE.md records."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def test_seven_sessions_ship_one_per_folder() -> None:
    folders = [path.parent.name for path in bundled_traces()]
    assert len(folders) == 7 and len(set(folders)) == 7


@pytest.mark.parametrize("trace", bundled_traces(), ids=lambda path: path.parent.name)
def test_each_trace_is_the_blob_its_provenance_names_and_has_a_licence(trace: Path) -> None:
    provenance = (trace.parent / "PROVENANCE.md").read_text(encoding="utf-8")
    assert git_blob_id(trace.read_bytes()) in provenance
    licence = (trace.parent / "LICENSE").read_text(encoding="utf-8")
    assert "MIT License" in licence or "Apache License" in licence


def test_the_demo_plays_the_pi_session() -> None:
    assert demo_trace().parent == traces_folder() / DEMO_TRACE_NAME
    assert demo_trace().name == "large-session.jsonl"


def test_an_unknown_name_is_refused_naming_the_bundled_ones() -> None:
    with pytest.raises(KeyError, match="codex-soulpass"):
        bundled_trace("no-such-trace")
