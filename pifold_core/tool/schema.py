"""The ``pi_fold_context`` tool as a provider sees it: name, description, JSON schemas (DESIGN §7).

One tool carries ten actions. :func:`action_schemas` gives one JSON schema per action (the
contract :mod:`pifold_core.tool.arguments` enforces); :func:`tool_definition` merges them into
the single definition a host hands to a provider. The merged schema is a flat object with an
``action`` enum and the union of every action's properties, because providers do not
reliably accept ``oneOf`` at the top level of a tool's input schema.

Only a conservative subset of JSON Schema (draft 2020-12) is used, the part every major
provider accepts: ``type``, ``description``, ``properties``, ``required``, ``enum``,
``minimum``, ``maximum``, ``minLength``, ``maxLength``, ``items``, ``minItems``, ``maxItems``
and ``additionalProperties: false``. Id formats and defaults are stated in descriptions, since
``pattern`` and ``default`` are not accepted everywhere.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from pifold_core.briefs import MAX_BRIEF_CHARS
from pifold_core.placeholders import TOOL_NAME
from pifold_core.search.query import (
    DEFAULT_LIMIT,
    MAX_FILTER_CHARS,
    MAX_LIMIT,
    MAX_OFFSET,
    MAX_QUERY_CHARS,
)

ACTIONS: Final[tuple[str, ...]] = (
    "status",
    "peek",
    "brief",
    "expand",
    "refold",
    "pin",
    "unpin",
    "reboundary",
    "unmark",
    "search",
)
"""The ten actions, in the order DESIGN §7 lists them."""

STATUS_DETAILS: Final[tuple[str, ...]] = ("summary", "tree")
"""Values of ``status``'s ``detail`` argument; the first is the default."""

DEFAULT_PAGE_SIZE: Final = 50
"""Folds per page of the tree listing when ``page_size`` is not given."""

MAX_PAGE_SIZE: Final = 200
"""Largest ``page_size`` accepted: one page must stay a modest tool result."""

MAX_PIN_IDS: Final = 100
"""Most ids one ``pin`` or ``unpin`` call may name."""

MAX_ID_CHARS: Final = 256
"""Longest id accepted; entry ids come from hosts and importers, fold and mark ids are short."""

FOLD_ID_HEX_DIGITS: Final = 12
"""Hex digits of a fold handle; the builder lengthens a handle only on a collision."""

TOOL_DESCRIPTION: Final = f"""\
Inspect and steer context folding. Stale spans of this conversation are folded: in the \
request you see, a span is replaced by a short brief carrying a handle (fold-<12 hex>), while \
the exact original messages stay in a hash-verified store. Nothing is lost. A brief is a \
pointer, not the record: when a question turns on exact text (a value, an error line, a \
path, code), peek the fold or entry and answer from those bytes, not from the brief or \
from memory.

Actions (pass one as "action"):
- status: occupancy, the band, pending marks, folds, pins and audit counts. \
detail "tree" lists every fold in transcript order with depth and parent, paged \
(page, page_size up to {MAX_PAGE_SIZE}).
- peek: the exact source of a fold (any depth), an entry (for example a clipped tool \
result) or an evidence artifact (evidence-<64 hex>). Free and exact: it rewrites nothing. \
offset and bytes select a byte slice. With ephemeral true (the default) the copy is \
withdrawn to a one-line placeholder at the next commit; false keeps it.
- brief: write the brief of a pending mark (mark-<n>) before it is folded, at most \
{MAX_BRIEF_CHARS:,} characters. Free; rewritable until the commit.
- expand: restore a fold's source in place, one level (child folds stay folded). Costs one \
rewrite of the request, so prefer peek when reading is enough; pending marks land in the \
same rewrite.
- refold: collapse an expanded fold again, at the next commit.
- pin / unpin: hold entries (entry ids or fold ids) raw through every commit, or release \
them. Folded entries come back raw at the next commit. Pins are capped.
- reboundary: re-cut a pending mark to run from entry start to entry end (inclusive).
- unmark: withdraw a pending mark.
- search: find where a folded or clipped part of this session says something. Use it when \
you remember a name, value, path or error that you can no longer see: query takes words \
and "quoted phrases" (every one must occur; a trailing * matches a prefix), or with regex \
true a Python regular expression for an exact pattern (an error code, a hex id). tool and \
path narrow it to one tool's calls and results, or to calls naming a path. Each hit gives \
the innermost fold holding it, the entry id and a short snippet; up to {MAX_LIMIT} per page \
(limit, offset). Free: it rewrites nothing. Then peek the entry or fold, narrowly (offset, \
bytes), and answer from those exact bytes, never from the snippet alone.
Ids are never paths. A refused call changes nothing and says which argument was wrong."""
"""What the model reads about the tool."""


def _identifier(description: str) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": MAX_ID_CHARS, "description": description}


def _object(properties: dict[str, dict[str, Any]], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


_FOLD_ID = _identifier(f"A fold id: fold- followed by {FOLD_ID_HEX_DIGITS} hex digits.")
_MARK_ID = _identifier("A pending mark id: mark-<n>.")
_ENTRY_ID = _identifier("An entry id, as shown in status, placeholders and clip markers.")
_IDS = {
    "type": "array",
    "items": _identifier("An entry id or a fold id (a fold stands for all its entries)."),
    "minItems": 1,
    "maxItems": MAX_PIN_IDS,
    "description": f"Entry ids or fold ids, 1 to {MAX_PIN_IDS}.",
}

_ACTION_PROPERTIES: Final[dict[str, tuple[dict[str, dict[str, Any]], list[str]]]] = {
    "status": (
        {
            "detail": {
                "type": "string",
                "enum": list(STATUS_DETAILS),
                "description": "summary (default) or tree (every fold, paged).",
            },
            "page": {
                "type": "integer",
                "minimum": 1,
                "description": "Tree page to show, from 1 (default 1).",
            },
            "page_size": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_PAGE_SIZE,
                "description": f"Folds per tree page (default {DEFAULT_PAGE_SIZE}).",
            },
        },
        [],
    ),
    "peek": (
        {
            "id": _identifier("A fold id, an entry id or an evidence id (evidence-<64 hex>)."),
            "offset": {
                "type": "integer",
                "minimum": 0,
                "description": "First byte of the slice (default 0).",
            },
            "bytes": {
                "type": "integer",
                "minimum": 1,
                "description": "Most bytes to return (default: through the end).",
            },
            "ephemeral": {
                "type": "boolean",
                "description": "Withdraw this copy at the next commit (default true).",
            },
        },
        ["id"],
    ),
    "brief": (
        {
            "id": _MARK_ID,
            "text": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_BRIEF_CHARS,
                "description": "The brief the fold will carry, kept verbatim.",
            },
        },
        ["id", "text"],
    ),
    "expand": ({"id": _FOLD_ID}, ["id"]),
    "refold": ({"id": _FOLD_ID}, ["id"]),
    "pin": ({"ids": _IDS}, ["ids"]),
    "unpin": ({"ids": _IDS}, ["ids"]),
    "reboundary": (
        {
            "id": _MARK_ID,
            "start": _identifier("Id of the first entry of the new span."),
            "end": _identifier("Id of the last entry of the new span (inclusive)."),
        },
        ["id", "start", "end"],
    ),
    "unmark": ({"id": _MARK_ID}, ["id"]),
    "search": (
        {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_QUERY_CHARS,
                "description": 'Words and "quoted phrases" to find (or a regex with regex).',
            },
            "regex": {
                "type": "boolean",
                "description": "Take query as a Python regular expression (default false).",
            },
            "tool": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_FILTER_CHARS,
                "description": "Only this tool's calls and results (its exact name).",
            },
            "path": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_FILTER_CHARS,
                "description": "Only tool calls naming a path that contains this, and results.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "description": f"Hits per page (default {DEFAULT_LIMIT}).",
            },
            "offset": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_OFFSET,
                "description": "Hits to skip before the page (default 0).",
            },
        },
        ["query"],
    ),
}


def action_schemas() -> dict[str, dict[str, Any]]:
    """One JSON schema per action, keyed by action name, ``action`` itself included.

    Each call returns fresh objects, so a caller may adapt them without touching ours.
    """
    schemas: dict[str, dict[str, Any]] = {}
    for action in ACTIONS:
        properties, required = _ACTION_PROPERTIES[action]
        merged = {"action": {"type": "string", "enum": [action]}, **copy.deepcopy(properties)}
        schemas[action] = _object(merged, ["action", *required])
    return schemas


def action_arguments(action: str) -> tuple[str, ...]:
    """The arguments ``action`` accepts besides ``action``, in schema order."""
    return tuple(_ACTION_PROPERTIES[action][0])


def required_arguments(action: str) -> tuple[str, ...]:
    """The arguments ``action`` cannot do without."""
    return tuple(_ACTION_PROPERTIES[action][1])


def _merged_properties() -> dict[str, dict[str, Any]]:
    """The union of every action's properties; ``id`` gets one description covering all uses."""
    merged: dict[str, dict[str, Any]] = {
        "action": {
            "type": "string",
            "enum": list(ACTIONS),
            "description": "What to do; see the tool description.",
        }
    }
    users: dict[str, list[str]] = {}
    for action in ACTIONS:
        for name, schema in _ACTION_PROPERTIES[action][0].items():
            merged.setdefault(name, copy.deepcopy(schema))
            users.setdefault(name, []).append(action)
    # The same name means different ids per action, so the description must say which.
    merged["id"] = _identifier(
        "peek: a fold id, entry id or evidence id; expand and refold: a fold id (fold-<12 hex>); "
        "brief, reboundary and unmark: a pending mark id (mark-<n>)."
    )
    merged["offset"] = {
        "type": "integer",
        "minimum": 0,
        "description": "peek: first byte of the slice; search: hits to skip. Default 0.",
    }
    for name, actions in users.items():
        if name != "id":
            merged[name]["description"] = f"({', '.join(actions)}) " + merged[name]["description"]
    return merged


def tool_definition() -> dict[str, Any]:
    """The provider-ready definition: ``name``, ``description`` and ``input_schema``.

    The schema only requires ``action``; which other arguments an action needs is enforced
    when the call is parsed, with an error result that names the missing argument.
    """
    return {
        "name": TOOL_NAME,
        "description": TOOL_DESCRIPTION,
        "input_schema": _object(_merged_properties(), ["action"]),
    }


__all__ = [
    "ACTIONS",
    "DEFAULT_PAGE_SIZE",
    "FOLD_ID_HEX_DIGITS",
    "MAX_ID_CHARS",
    "MAX_PAGE_SIZE",
    "MAX_PIN_IDS",
    "STATUS_DETAILS",
    "TOOL_DESCRIPTION",
    "TOOL_NAME",
    "action_arguments",
    "action_schemas",
    "required_arguments",
    "tool_definition",
]
