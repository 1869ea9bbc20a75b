"""``pifold_core`` imports without textual or rich (DESIGN §1)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pifold_core

SCRIPT = r"""
import importlib
import importlib.abc
import pkgutil
import sys

BLOCKED = ("textual", "rich")


class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{name} is blocked in this test")
        return None


sys.meta_path.insert(0, Block())
for name in BLOCKED:
    try:
        __import__(name)
    except ImportError:
        pass
    else:
        raise SystemExit(f"the blocker let {name} through")

import pifold_core

names = sorted(
    info.name for info in pkgutil.walk_packages(pifold_core.__path__, "pifold_core.")
)
for name in names:
    importlib.import_module(name)
leaked = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
assert not leaked, leaked
print(len(names), " ".join(names))
"""


def test_pifold_core_imports_without_textual_or_rich() -> None:
    root = Path(pifold_core.__file__).resolve().parents[1]
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        cwd=root,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    count, names = result.stdout.strip().split(" ", 1)
    package = Path(pifold_core.__file__).parent
    expected = sorted(
        "pifold_core."
        + ".".join(path.relative_to(package).with_suffix("").parts).removesuffix(".__init__")
        for path in package.rglob("*.py")
        if path.relative_to(package) != Path("__init__.py")
    )
    assert names.split() == expected
    assert int(count) == len(expected) >= 15
