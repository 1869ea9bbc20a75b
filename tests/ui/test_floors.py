"""The floors point one way (DESIGN §1: ``pifold_cli -> pifold_tui, pifold_bench ->
pifold_agent -> pifold_core``): the terminal UI never imports the bench, and the pricing the
demo and the bench share lives below both and imports neither.

Read from the source, every ``import`` statement counted, the ones inside functions too
(:func:`tests.agent.loop.test_no_ui_imports.imported_names`)."""

from __future__ import annotations

from pathlib import Path

import pifold_agent.pricing
import pifold_tui
from tests.agent.loop.test_no_ui_imports import imported_names, sources


def offenders(package: Path, forbidden: tuple[str, ...]) -> list[str]:
    found = []
    for path in sources(package):
        for name in imported_names(path):
            if name.split(".")[0] in forbidden:
                found.append(f"{path.relative_to(package.parent)} imports {name}")
    return found


def test_the_ui_never_imports_the_bench() -> None:
    package = Path(pifold_tui.__file__).parent
    assert len(sources(package)) >= 50
    assert offenders(package, ("pifold_bench",)) == []


def test_pricing_imports_neither_the_bench_nor_the_ui() -> None:
    package = Path(pifold_agent.pricing.__file__).parent
    assert len(sources(package)) >= 5
    assert offenders(package, ("pifold_bench", "pifold_tui", "textual", "rich")) == []
