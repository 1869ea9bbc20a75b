"""The host API page names exactly what a host can reach on the engine and its view.

``docs/host-api.md`` documents the engine's public surface in two tables; a public member
added to :class:`~pifold_core.engine.Engine` or :class:`~pifold_core.engine_view.EngineView`
without a row (or a row left behind by a member taken away) fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

from pifold_core.engine import Engine
from tests.core.builders import CharCounter

HOST_API = Path(__file__).resolve().parents[2] / "docs" / "host-api.md"


def documented_members(heading: str) -> set[str]:
    """The member names in the first column of the table under the ``###`` heading that
    starts with ``heading`` (``Engine.open(...)`` counts as ``open``)."""
    text = HOST_API.read_text(encoding="utf-8")
    section = text.split(f"### {heading}", 1)[1].split("\n##", 1)[0]
    names: set[str] = set()
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        first_column = line.split(" | ", 1)[0]
        for code in re.findall(r"`([^`]+)`", first_column):
            names.add(re.split(r"[(\s]", code.removeprefix("Engine."), maxsplit=1)[0])
    return names


def public_members(value: object) -> set[str]:
    return {name for name in dir(value) if not name.startswith("_")}


def test_the_page_names_every_public_member_of_the_engine_and_its_view(tmp_path: Path) -> None:
    engine = Engine.open(tmp_path / "state", None, CharCounter())
    try:
        assert public_members(engine) == documented_members("`Engine`")
        assert public_members(engine.view) == documented_members("`engine.view`")
    finally:
        engine.close()


def test_the_engine_keeps_a_small_face() -> None:
    # Issue 20: 39 public methods and 42 public attributes before the state had its own
    # object; what hosts use is about half of that. Issue 23 added one: the bounded peek
    # (`peek_range`) a UI reads a fold's source through, a slice at a time.
    methods = {name for name in public_members(Engine) if callable(getattr(Engine, name))}
    assert len(methods) <= 31
