"""Deterministic briefs (DESIGN §3).

A brief is what the model reads in place of a folded span, so it has two jobs: say what the
span was, and keep the span's *identifiers* in sight, because those are what a summary loses
and what the agent searches for later. First come the identifiers the agent went on to use
(in its text or tool-call arguments after the span, read within the bound
:func:`pifold_core.identifiers.later_uses` states), then fatal and error-code lines, then
keys, versions, definitions, paths and numbers in turn (:mod:`pifold_core.identifiers`).
Every brief is bounded at :data:`MAX_BRIEF_CHARS` code points.

The same span with the same later entries always gets the same brief: nothing here depends
on time, randomness or what was scanned before. A fold's brief is made once, when the fold
is built, and kept in its log record; a reopen reads it from there, never recomputes it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from pifold_core.entries import Entry
from pifold_core.identifiers import (
    MAX_IDENTIFIERS,
    found_in_values,
    later_uses,
    rank,
    scan_entries,
    scan_text,
)

MAX_BRIEF_CHARS = 2_000
"""Upper bound of every brief, in code points."""

IDENTIFIER_ROOM = 700
"""Characters of a brief reserved for identifiers that the descriptive part did not show."""


class BriefError(ValueError):
    """A supplied brief is unusable; the message says why."""


def bounded(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` code points, marking a cut with an ellipsis."""
    if len(text) <= limit:
        return text
    if limit <= 1:
        return text[:limit]
    return text[: limit - 1].rstrip() + "…"


def one_line(text: str, limit: int) -> str:
    """Collapse whitespace runs to single spaces, then bound."""
    return bounded(" ".join(text.split()), limit)


def validate_supplied_brief(text: str) -> str:
    """Check an agent-written brief and return it trimmed (kept verbatim otherwise).

    Raises:
        BriefError: empty, over the bound, or without any word-like content.
    """
    if not isinstance(text, str):
        raise BriefError("brief must be a string")
    trimmed = text.strip()
    if not trimmed:
        raise BriefError("brief is empty")
    if len(trimmed) > MAX_BRIEF_CHARS:
        raise BriefError(f"brief has {len(trimmed)} characters; the limit is {MAX_BRIEF_CHARS}")
    if not re.search(r"[^\W_]{3,}", trimmed):
        raise BriefError("brief has no content: it needs at least one word of three letters")
    return trimmed


# -- identifiers ----------------------------------------------------------------------------

IDS_LABEL = " · ids: "
"""Where a runtime brief's identifiers begin; they are joined by :data:`IDS_SEPARATOR`."""

IDS_SEPARATOR = "; "


def extract_identifiers(
    texts: Iterable[str], limit: int = MAX_IDENTIFIERS, later: Sequence[Entry] = ()
) -> list[str]:
    """Identifiers worth keeping visible in ``texts``, most telling first, each once.

    The ones the agent used in ``later`` come first, then fatal lines, then keys, versions,
    definitions, paths and numbers in turn (:func:`pifold_core.identifiers.rank`).
    """
    return rank([scan_text(text) for text in texts], later_uses(later), limit)


def with_identifiers(description: str, values: Sequence[str]) -> str:
    """Append the ``values`` the description does not already show, within the bound."""
    description = bounded(description, MAX_BRIEF_CHARS)
    room = MAX_BRIEF_CHARS - len(description) - len(IDS_LABEL)
    if room < 16:
        return description
    kept: list[str] = []
    used = 0
    for value in values:
        if value in description:
            continue
        value = bounded(value, 160)
        cost = len(value) + (len(IDS_SEPARATOR) if kept else 0)
        if used + cost > room:
            continue
        kept.append(value)
        used += cost
    if not kept:
        return description
    return description + IDS_LABEL + IDS_SEPARATOR.join(kept)


def _span_identifiers(entries: Sequence[Entry], later: Sequence[Entry]) -> list[str]:
    return rank(scan_entries(entries), later_uses(later))


# -- the three kinds --------------------------------------------------------------------------


def _signature(entry: Entry) -> str:
    parts: list[str] = []
    for call in entry.tool_calls:
        arguments = call.arguments
        if isinstance(arguments, dict):
            shown = ", ".join(
                f"{key}={one_line(str(value), 96)}"
                for key, value in sorted(arguments.items())
                if isinstance(value, str | int | float | bool)
            )
        else:
            shown = one_line(str(arguments), 96)
        parts.append(f"{call.name}({bounded(shown, 240)})")
    return bounded("; ".join(parts), 400)


def _leading_paragraph(text: str, limit: int) -> str:
    paragraph = text.strip().split("\n\n", 1)[0]
    return one_line(paragraph, limit)


def tool_brief(
    call: Entry | None,
    results: Sequence[Entry],
    following: Entry | None,
    later: Sequence[Entry] = (),
) -> str:
    """Brief of a tool fold: the call, how the results open and end, the agent's next note,
    then the results' identifiers (``later``: the entries after the fold, see
    :func:`pifold_core.identifiers.later_uses` for how much of them is read)."""
    items: list[str] = []
    if call is not None and call.tool_calls:
        items.append("Ran " + _signature(call))
    elif results:
        items.append("Results of " + ", ".join(sorted({str(r.tool_name) for r in results})))
    first_text = results[0].text if results else ""
    last_text = results[-1].text if results else ""
    if first_text.strip():
        items.append(f'opens "{one_line(first_text, 240)}"')
    if last_text.strip():
        tail = " ".join(last_text.split())
        items.append(f'ends "{tail[-160:]}"')
    errors = sum(1 for result in results if result.is_error)
    if errors:
        items.append(f"{errors} error result{'s' if errors > 1 else ''}")
    if following is not None and following.kind == "assistant" and following.text.strip():
        items.append(f'agent noted "{_leading_paragraph(following.text, 240)}"')
    count = len(results)
    items.append(f"{count} exact results here" if count != 1 else "exact result here")
    description = " · ".join(items)
    return with_identifiers(description, _span_identifiers(results, later))


def span_brief(entries: Sequence[Entry], later: Sequence[Entry] = ()) -> str:
    """Brief of a span fold: the user's ask, the tools used (counts), the agent's notes, then
    the identifiers of everything but the agent's own notes (``later`` as for
    :func:`tool_brief`)."""
    items: list[str] = []
    asks = [entry for entry in entries if entry.kind == "user" and entry.text.strip()]
    if asks:
        items.append(f'User asked "{one_line(asks[0].text, 200)}"')
        if len(asks) > 1:
            items.append(f"{len(asks) - 1} more user message{'s' if len(asks) > 2 else ''}")
    tools = Counter(call.name for entry in entries for call in entry.tool_calls)
    if tools:
        items.append(
            "Tools: " + " ".join(f"{count}×{name}" for name, count in sorted(tools.items()))
        )
    errors = sum(1 for entry in entries if entry.kind == "tool_result" and entry.is_error)
    if errors:
        items.append(f"{errors} tool error{'s' if errors > 1 else ''}")
    notes = [
        _leading_paragraph(entry.text, 160)
        for entry in entries
        if entry.kind == "assistant" and entry.text.strip()
    ]
    description = " · ".join(items)
    if notes:
        budget = MAX_BRIEF_CHARS - IDENTIFIER_ROOM - len(description) - 16
        shown: list[str] = []
        used = 0
        for note in notes:
            if used + len(note) + 3 > budget:
                break
            shown.append(note)
            used += len(note) + 3
        text = " | ".join(shown)
        if len(shown) < len(notes):
            text += f" | {len(notes) - len(shown)} more notes"
        description += (" · " if description else "") + "Notes: " + text
    if not description:
        description = f"{len(entries)} entries without text"
    sources = [entry for entry in entries if entry.kind != "assistant"]
    return with_identifiers(description, _span_identifiers(sources, later))


CONSOLIDATED_IDS_ROOM = 900
"""Characters of a consolidated brief its children's identifiers may take at most."""


def split_identifiers(brief: str) -> tuple[str, list[str]]:
    """A runtime brief's description and the identifiers it lists (none for other briefs)."""
    head, label, tail = brief.rpartition(IDS_LABEL)
    if not label:
        return brief, []
    return head, tail.split(IDS_SEPARATOR)


def consolidated_brief(
    child_briefs: Sequence[str], gap_entries: Sequence[Entry], later: Sequence[Entry] = ()
) -> str:
    """Brief of a consolidated fold: the children's descriptions (the shortest kept whole
    first), then the identifiers their briefs list and those of the short entries between
    them, ranked as a span's are (:func:`pifold_core.identifiers.rank`: what the agent used in
    ``later`` first). Only the children's briefs are read, never their entries again."""
    lead = f"{len(child_briefs)} folds"
    if gap_entries:
        lead += f" and {len(gap_entries)} short entries"
    lead += ": "
    split = [split_identifiers(brief) for brief in child_briefs]
    found = [found_in_values(values) for _, values in split]
    if gap_entries:
        found.extend(scan_entries(gap_entries))
    values = rank(found, later_uses(later))
    wanted = sum(len(value) + len(IDS_SEPARATOR) for value in values[:MAX_IDENTIFIERS])
    ids_room = min(CONSOLIDATED_IDS_ROOM, wanted + len(IDS_LABEL)) if values else 0
    room = MAX_BRIEF_CHARS - ids_room - len(lead) - 3 * len(child_briefs)
    flattened = [" ".join(head.split()) for head, _ in split]
    allowance = [0] * len(flattened)
    # Share the room out shortest first: short briefs survive whole, long ones give way.
    remaining = len(flattened)
    for position in sorted(range(len(flattened)), key=lambda item: len(flattened[item])):
        share = max(0, room // remaining) if remaining else 0
        allowance[position] = min(len(flattened[position]), share)
        room -= allowance[position]
        remaining -= 1
    pieces = [
        bounded(brief, allowance[position])
        for position, brief in enumerate(flattened)
        if allowance[position] >= 8
    ]
    omitted = len(flattened) - len(pieces)
    text = lead + " | ".join(pieces)
    if omitted:
        text += f" | {omitted} more"
    return with_identifiers(text, values)
