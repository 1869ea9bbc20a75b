"""Argument examples shared by the schema and parser tests."""

from __future__ import annotations

from typing import Any

FOLD = "fold-0123456789ab"
EVIDENCE = "evidence-" + "ab" * 32

VALID: dict[str, list[dict[str, Any]]] = {
    "status": [
        {"action": "status"},
        {"action": "status", "detail": "summary"},
        {"action": "status", "detail": "tree", "page": 3, "page_size": 200},
    ],
    "peek": [
        {"action": "peek", "id": FOLD},
        {"action": "peek", "id": "e00012", "offset": 0, "bytes": 1},
        {"action": "peek", "id": EVIDENCE, "offset": 4096, "ephemeral": False},
    ],
    "brief": [
        {"action": "brief", "id": "mark-7", "text": "Read src/app.py; KeyError at line 42."},
        {"action": "brief", "id": "mark-1", "text": "word " * 400},
    ],
    "expand": [{"action": "expand", "id": FOLD}],
    "refold": [{"action": "refold", "id": "fold-" + "f" * 16}],
    "pin": [{"action": "pin", "ids": ["e00001"]}, {"action": "pin", "ids": [FOLD, "e00002"]}],
    "unpin": [{"action": "unpin", "ids": [f"e{n:05d}" for n in range(100)]}],
    "reboundary": [{"action": "reboundary", "id": "mark-3", "start": "e00004", "end": "e00009"}],
    "unmark": [{"action": "unmark", "id": "mark-12"}],
    "search": [
        {"action": "search", "query": "KeyError"},
        {"action": "search", "query": '"deploy key" src', "tool": "read", "limit": 50},
        {"action": "search", "query": r"E\d{4}", "regex": True, "path": "src/", "offset": 10},
    ],
}
"""Arguments every layer must accept, per action."""

SCHEMA_INVALID: list[dict[str, Any]] = [
    {},
    {"action": "fold"},
    {"action": "status", "detail": "full"},
    {"action": "status", "page": 0},
    {"action": "status", "page_size": 201},
    {"action": "status", "page": True},
    {"action": "status", "page": 1.5},
    {"action": "peek"},
    {"action": "peek", "id": ""},
    {"action": "peek", "id": FOLD, "offset": -1},
    {"action": "peek", "id": FOLD, "bytes": 0},
    {"action": "peek", "id": FOLD, "ephemeral": "yes"},
    {"action": "peek", "id": FOLD, "extra": 1},
    {"action": "brief", "id": "mark-1"},
    {"action": "brief", "id": "mark-1", "text": ""},
    {"action": "brief", "id": "mark-1", "text": "x" * 2_001},
    {"action": "expand", "id": 7},
    {"action": "pin", "ids": []},
    {"action": "pin", "ids": "e00001"},
    {"action": "pin", "ids": [f"e{n:05d}" for n in range(101)]},
    {"action": "reboundary", "id": "mark-1", "start": "e00001"},
    {"action": "unmark", "id": "mark-1", "ids": ["e00001"]},
    {"action": "search"},
    {"action": "search", "query": ""},
    {"action": "search", "query": "x", "limit": 51},
    {"action": "search", "query": "x", "limit": 0},
    {"action": "search", "query": "x", "offset": -1},
    {"action": "search", "query": "x", "regex": "yes"},
    {"action": "search", "query": "x", "tool": ""},
    {"action": "search", "query": "x", "id": FOLD},
]
"""Arguments that break the per-action schemas themselves (so the parser must refuse too)."""
