"""Deterministic briefs (DESIGN §3).

A brief is what the model reads in place of a folded span, so it has two jobs: say what the
span was, and keep the span's *identifiers* in sight (paths, error strings, keys, hashes,
numbers the agent acted on), because those are what a summary loses and what the agent
searches for later. Every brief is bounded at :data:`MAX_BRIEF_CHARS` code points.

The same span always gets the same brief: nothing here depends on time or randomness.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from pifold_core.entries import Entry

MAX_BRIEF_CHARS = 2_000
"""Upper bound of every brief, in code points."""

IDENTIFIER_ROOM = 700
"""Characters of a brief reserved for identifiers that the descriptive part did not show."""

_MAX_IDENTIFIERS = 40


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

_ERROR_LINE = re.compile(
    r"^.*\b(?:[A-Z]\w*(?:Error|Exception)|error|Error|ERROR|FAILED|FAIL|fatal|panic|"
    r"Traceback|failed|denied|not found)\b.*$",
    re.MULTILINE,
)
_PATH = re.compile(
    r"(?<![\w/.-])(?:~?/|\./|\.\./)?(?:[\w@.+-]+/)+[\w@.+-]+|"
    r"\b[\w-]+\.(?:py|pyi|ts|tsx|js|jsx|mjs|rs|go|c|h|cc|cpp|hpp|java|kt|rb|php|md|json|"
    r"jsonl|toml|yaml|yml|txt|sh|cfg|ini|lock|html|css|sql|rst)\b"
)
_HASH = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b")
_CONSTANT = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
_KEY = re.compile(r"\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z0-9][\w-]{11,63}\b")
_NUMBER = re.compile(r"(?<![\w.])\d{3,}(?:\.\d+)?(?![\w.])")
_SCAN_LIMIT = 200_000


def extract_identifiers(texts: Iterable[str], limit: int = _MAX_IDENTIFIERS) -> list[str]:
    """Identifiers worth keeping visible, most telling first, each once.

    Error lines come first (they are what an agent searches for), then keys and hashes,
    then paths, then numbers; within a class, by first appearance.
    """
    text = "\n".join(texts)[:_SCAN_LIMIT]
    classes: list[list[str]] = [[], [], [], []]
    for match in _ERROR_LINE.finditer(text):
        line = one_line(match.group(0), 160)
        if len(line) >= 8:
            classes[0].append(line)
    for pattern in (_CONSTANT, _KEY, _HASH):
        classes[1].extend(match.group(0) for match in pattern.finditer(text))
    classes[2].extend(match.group(0).rstrip(".") for match in _PATH.finditer(text))
    classes[3].extend(match.group(0) for match in _NUMBER.finditer(text))
    seen: set[str] = set()
    chosen: list[str] = []
    for group in classes:
        # Stable order of first appearance; a value seen often still appears once.
        for value in dict.fromkeys(group):
            if value in seen or len(value) < 3:
                continue
            # A value already shown inside a kept error line would only repeat it.
            if any(value in kept for kept in chosen if len(kept) > 40):
                continue
            seen.add(value)
            chosen.append(value)
            if len(chosen) >= limit:
                return chosen
    return chosen


def with_identifiers(description: str, texts: Sequence[str]) -> str:
    """Append the identifiers the description does not already show, within the bound."""
    description = bounded(description, MAX_BRIEF_CHARS)
    room = MAX_BRIEF_CHARS - len(description) - len(" · ids: ")
    if room < 16:
        return description
    missing = [value for value in extract_identifiers(texts) if value not in description]
    if not missing:
        return description
    kept: list[str] = []
    used = 0
    for value in missing:
        value = bounded(value, 160)
        cost = len(value) + (2 if kept else 0)
        if used + cost > room:
            continue
        kept.append(value)
        used += cost
    if not kept:
        return description
    return description + " · ids: " + "; ".join(kept)


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


def tool_brief(call: Entry | None, results: Sequence[Entry], following: Entry | None) -> str:
    """Brief of a tool fold: the call, how the results open and end, the agent's next note."""
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
    return with_identifiers(description, [result.text for result in results])


def span_brief(entries: Sequence[Entry]) -> str:
    """Brief of a span fold: the user's ask, the tools used (counts), the agent's notes."""
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
    return with_identifiers(
        description, [entry.text for entry in entries if entry.kind != "assistant"]
    )


def consolidated_brief(child_briefs: Sequence[str], gap_entries: Sequence[Entry]) -> str:
    """Brief of a consolidated fold: the children's briefs, the shortest kept whole first."""
    lead = f"{len(child_briefs)} folds"
    if gap_entries:
        lead += f" and {len(gap_entries)} short entries"
    lead += ": "
    room = MAX_BRIEF_CHARS - len(lead) - 3 * len(child_briefs)
    flattened = [" ".join(brief.split()) for brief in child_briefs]
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
    return bounded(text, MAX_BRIEF_CHARS)
