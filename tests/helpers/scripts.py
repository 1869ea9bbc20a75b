"""Scripted-provider script files, written one way for every test that needs one."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

SCRIPT_HEADER: dict[str, object] = {"script": "pifold", "version": 1}
"""What every script's first line says; a test adds ``tools``, ``chunk_chars``, ..."""


def write_script(path: Path, lines: Iterable[Mapping[str, object]], **header: object) -> Path:
    """A script file at ``path``: the header (:data:`SCRIPT_HEADER` and ``header``), then
    one JSON object per line. Returns ``path``."""
    body = [json.dumps({**SCRIPT_HEADER, **header}), *(json.dumps(line) for line in lines)]
    path.write_text("\n".join(body) + "\n", encoding="utf-8")
    return path


__all__ = ["SCRIPT_HEADER", "write_script"]
