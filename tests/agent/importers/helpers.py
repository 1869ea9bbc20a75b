"""Helpers for writing small inline trace fixtures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pifold_core.entries import Entry


def write_jsonl(path: Path, records: list[dict[str, Any] | str]) -> Path:
    """One record per line; strings are written verbatim (for broken or comment lines)."""
    lines = [record if isinstance(record, str) else json.dumps(record) for record in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_json(path: Path, document: Any) -> Path:
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def kinds(entries: list[Entry]) -> list[str]:
    return [entry.kind for entry in entries]
