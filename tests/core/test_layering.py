"""No module of ``pifold_core`` imports, however indirectly, a module that imports it back.

The engine once sat in a ten-file circle: the modules that open, replay, checkpoint, preview
and report a session took the engine itself, which imported them. They take the session
state now (:mod:`pifold_core.session_state`) and the engine sits on top. The graph is
grimp's, imports under ``TYPE_CHECKING`` included: a type-only import back is a circle too.
"""

from __future__ import annotations

import sys
from pathlib import Path

import grimp
import pytest


def module_cycles(package: str) -> list[tuple[str, str]]:
    """Every direct import ``(importer, imported)`` inside ``package`` whose target imports
    the importer back through some chain: an empty list when the graph has no circle."""
    graph = grimp.build_graph(package, cache_dir=None)
    return [
        (importer, imported)
        for importer in sorted(graph.modules)
        for imported in sorted(graph.find_modules_directly_imported_by(importer))
        if graph.chain_exists(importer=imported, imported=importer)
    ]


def test_pifold_core_has_no_import_cycle() -> None:
    assert module_cycles("pifold_core") == []


def test_the_check_sees_a_circle_even_through_a_type_only_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "circle_probe"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "top.py").write_text("from circle_probe import middle\n")
    (package / "middle.py").write_text("from circle_probe import bottom\n")
    (package / "bottom.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from circle_probe import top\n"
    )
    (package / "apart.py").write_text("from circle_probe import top\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "circle_probe", raising=False)
    assert module_cycles("circle_probe") == [
        ("circle_probe.bottom", "circle_probe.top"),
        ("circle_probe.middle", "circle_probe.bottom"),
        ("circle_probe.top", "circle_probe.middle"),
    ]
