"""A syrupy fixture that stores SVG screenshots in the top-level ``snapshots/`` folder.

pytest-textual-snapshot's ``snap_compare`` only runs synchronously and stores files beside
the tests; this small extension keeps the project's layout (DESIGN §1) and works with the
harness apps the tests build themselves. Accept changed screenshots with
``pytest --snapshot-update`` and look at the SVGs before committing them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

REPO_ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT_ROOT = REPO_ROOT / "snapshots"


class SVGSnapshotExtension(SingleFileSnapshotExtension):
    """One ``.svg`` text file per snapshot, under ``snapshots/<test module>/``."""

    _file_extension = "svg"
    file_extension = "svg"  # the attribute's name from syrupy 5 on
    _write_mode = WriteMode.TEXT

    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        # Keeping the module name in the path lets syrupy relate files to tests (and report
        # unused ones).
        return str(SNAPSHOT_ROOT / test_location.basename)


@pytest.fixture
def svg_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    """Compare an SVG screenshot with the stored one."""
    return snapshot.use_extension(SVGSnapshotExtension)


@pytest.fixture(autouse=True)
def truecolor_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make apps built in a test see a truecolor terminal, whatever CI's TERM says."""
    monkeypatch.setenv("COLORTERM", "truecolor")
