"""``palettes`` is pure: importing it and building a palette loads neither Textual nor Rich."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import sys
import palettes
palette = palettes.palette_for(palettes.PaletteSetting("viridis"), "#121212")
assert len(palette.shades) == 6
loaded = sorted(name for name in sys.modules if name.split(".")[0] in {"textual", "rich"})
print(",".join(loaded))
"""


def test_palettes_imports_without_textual() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "", f"palettes loaded {result.stdout.strip()}"


def test_the_probe_would_notice_textual() -> None:
    # Guard against a probe that cannot fail: importing textual must show up.
    result = subprocess.run(
        [sys.executable, "-c", "import textual\n" + PROBE],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "textual" in result.stdout
