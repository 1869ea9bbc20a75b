"""The colour maps a setting may name are listed once, by the palettes, and the engine reads
that list without importing numpy or the colour libraries (issue 20: two tuples)."""

from __future__ import annotations

import subprocess
import sys

from palettes.sampling import MAP_NAMES
from pifold_core.options import PALETTE_MAPS


def test_the_options_check_against_the_palettes_own_list() -> None:
    assert PALETTE_MAPS is MAP_NAMES


def test_reading_the_list_loads_no_colour_library() -> None:
    probe = (
        "import sys, pifold_core.options, pifold_core.engine; "
        "print([name for name in ('numpy', 'cmap', 'colorspacious') if name in sys.modules])"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
    ).stdout
    assert loaded.strip() == "[]"
