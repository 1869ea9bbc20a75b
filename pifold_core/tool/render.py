"""The text of every ``pi_fold_context`` result (DESIGN §7).

A tool result becomes part of the transcript, and therefore of the provider's cached prefix,
so its text must be a pure function of what it reports: no clock, no dict order, no
environment. Numbers carry thousands separators; ids are printed exactly as the tool takes
them, so the model can copy them into its next call.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from pifold_core.briefs import one_line
from pifold_core.commit import CommitOutcome
from pifold_core.composition import Reading
from pifold_core.marks import Mark
from pifold_core.peek import PeekResult
from pifold_core.pins import PinOutcome
from pifold_core.status import EngineStatus, FoldRow, MarkView
from pifold_core.tool.schema import DEFAULT_PAGE_SIZE, TOOL_NAME

BRIEF_PREVIEW_CHARS = 100
"""Characters of an agent-written brief shown beside its mark in ``status``."""


def call_text(**arguments: object) -> str:
    """A ready-to-send call of the tool, for hints such as "next page"."""
    return f"{TOOL_NAME} {json.dumps(arguments, separators=(',', ':'), ensure_ascii=False)}"


def _share(tokens: int, budget: int) -> str:
    return f"{tokens / budget:.0%}" if budget > 0 else "?"


def _count(number: int, noun: str) -> str:
    """``1 fold``, ``2 folds``: every noun counted here takes a plain ``s``."""
    return f"{number:,} {noun}" if number == 1 else f"{number:,} {noun}s"


def _ids(ids: Sequence[str]) -> str:
    return ", ".join(ids) if ids else "none"


# -- status ----------------------------------------------------------------------------------


def render_status(status: EngineStatus) -> str:
    """The ``status`` summary: every figure the model needs to decide what to do next."""
    lines: list[str] = []
    if status.folding_stopped is not None:
        lines.append(f"FOLDING STOPPED: {status.folding_stopped}")
    if status.torn_tail is not None:
        lines.append(f"LOG CUT ON OPEN: {status.torn_tail.describe()}, a last write never finished")
    for item in status.damaged:
        lines.append(
            f"DAMAGED: {item.kind} {item.id}, its stored bytes are {item.problem}; peek and "
            "expand of it fail (pifold doctor --repair rebuilds a fold's object)"
        )
    lines.append(_occupancy_line(status))
    lines.extend(_prefix_lines(status))
    tax = status.min_tokens / max(1, status.max_tokens - status.min_tokens)
    lines.append(
        f"band: commit at {_share(status.max_tokens, status.budget)} "
        f"({status.max_tokens:,} tokens), fold down to {_share(status.min_tokens, status.budget)} "
        f"({status.min_tokens:,}); rewrite tax {tax:.2f}"
    )
    lines.append(_trigger_line(status))
    lines.extend(_mark_lines(status))
    counts = status.counts
    kinds = [
        f"{number} {name}"
        for number, name in (
            (counts.consolidated, "consolidated"),
            (counts.span, "span"),
            (counts.tool, "tool"),
        )
        if number
    ]
    lines.append(
        f"folds: {counts.folds} visible ({', '.join(kinds) or 'none'}), "
        f"{status.total_folds} in all; tree: {call_text(action='status', detail='tree')}"
    )
    lines.append(
        f"pinned entries: {len(status.pins)} ({_ids(status.pins)}), {status.pinned_tokens:,} of "
        f"{status.pin_cap_tokens:,} tokens allowed"
    )
    if status.staged_pins:
        lines.append(f"staged pins (shown raw at the next commit): {_ids(status.staged_pins)}")
    if status.staged_refolds:
        lines.append(f"staged refolds (collapse at the next commit): {_ids(status.staged_refolds)}")
    if status.clipped:
        lines.append(
            f"clipped tool results: {status.clipped} (peek the entry id in a clip marker for "
            "the whole result)"
        )
    audit = status.audit
    lines.append(
        f"audit: {audit.requests} requests: {audit.appends} appends, {audit.attributed} "
        f"attributed rewrites, {audit.unattributed} unattributed"
    )
    lines.extend(_commit_lines(status))
    return "\n".join(lines)


def _occupancy_line(status: EngineStatus) -> str:
    occupancy, budget = status.occupancy, status.budget
    shown = occupancy.shown_tokens
    if occupancy.reading is Reading.NOT_MEASURED or shown is None:
        return (
            f"window: not measured yet; engine estimate {occupancy.tokens:,} of {budget:,} "
            f"tokens ({_share(occupancy.tokens, budget)})"
        )
    readings = {
        Reading.MEASURED: "measured by the provider, plus an estimate of what followed",
        Reading.ESTIMATED_AFTER_COMMIT: "engine estimate after the last commit, until the "
        "provider measures the rewritten window",
        Reading.ESTIMATED: "engine estimate, no provider count",
    }
    line = (
        f"window: {shown:,} of {budget:,} tokens ({_share(shown, budget)}), "
        f"{readings[occupancy.reading]}"
    )
    if occupancy.reading is Reading.MEASURED and occupancy.calibration != 1.0:
        line += f"; calibration {occupancy.calibration:.2f} provider tokens per estimated token"
    return line


def _prefix_lines(status: EngineStatus) -> list[str]:
    """The host's fixed prefix, when stated, and the floor it sets (issue 22)."""
    prefix = status.occupancy.prefix_tokens
    if not prefix:
        return []
    lines = [
        f"fixed prefix {prefix:,} estimated tokens (system prompt and tool definitions): in "
        "every request, counted in the window, never folded"
    ]
    if status.prefix_floor is not None:
        lines.append(f"floor: {status.prefix_floor.describe()}")
    return lines


def _trigger_line(status: EngineStatus) -> str:
    if status.floor is not None:
        return f"next commit: {status.floor.describe()}"
    if status.stalled_reason is not None:
        return f"next commit: stalled, {status.stalled_reason}"
    distance = status.max_tokens - status.occupancy.tokens
    if distance <= 0:
        return "next commit: due with the next request"
    return f"next commit: in {distance:,} tokens"


def _mark_lines(status: EngineStatus) -> list[str]:
    if not status.marks:
        return ["marks: none pending"]
    lines = [
        f"marks: {len(status.marks)} pending, {status.marked_tokens:,} tokens marked (the most "
        "the next commit can free from them)"
    ]
    lines.extend(f"  {_mark_view(mark)}" for mark in status.marks)
    return lines


def _mark_view(mark: MarkView) -> str:
    brief = "runtime brief"
    if mark.brief is not None:
        brief = f"brief: {one_line(mark.brief, BRIEF_PREVIEW_CHARS)}"
    return (
        f"{mark.id} {mark.kind} {mark.start_id}..{mark.end_id} ({mark.entries} entries, "
        f"{mark.chars:,} chars, {mark.tokens:,} tokens) {brief}"
    )


def _commit_lines(status: EngineStatus) -> list[str]:
    last = status.last_commit
    if last is None:
        return [f"commits: {status.commits}"]
    line = (
        f"commits: {status.commits}; last #{last.number} ({last.cause}): "
        f"{last.tokens_before:,} -> {last.tokens_after:,} tokens, "
        f"{_count(last.folds_made, 'fold')} made, {_count(last.marks_applied, 'mark')} applied, "
        f"{_count(last.clipped, 'result')} clipped, {_count(last.withdrawn, 'peek')} withdrawn, "
        f"{_count(last.pins_landed, 'pin')} landed"
    )
    lines = [line]
    if last.short_reason is not None:
        lines.append(f"  stopped above target: {last.short_reason}")
    return lines


# -- the tree ------------------------------------------------------------------------------


def page_count(rows: int, page_size: int) -> int:
    """Pages of ``page_size`` rows that ``rows`` fill; an empty tree still has page 1."""
    return max(1, math.ceil(rows / page_size))


def render_tree(rows: Sequence[FoldRow], page: int, page_size: int) -> str:
    """One page of the fold tree, in transcript order, indented by depth.

    The caller checks ``page`` against :func:`page_count` first.
    """
    pages = page_count(len(rows), page_size)
    first = (page - 1) * page_size
    shown = rows[first : first + page_size]
    if not rows:
        return "fold tree: no folds yet (page 1 of 1)"
    lines = [
        f"fold tree: {len(rows)} folds in transcript order, page {page} of {pages} "
        f"(folds {first + 1}-{first + len(shown)})"
    ]
    for row in shown:
        indent = "  " * row.depth
        state = row.state + (", refold staged" if row.staged_refold else "")
        parent = row.parent if row.parent is not None else "none (root)"
        lines.append(
            f"{indent}{row.handle} {row.kind} [{state}] {row.start_id}..{row.end_id} "
            f"({row.entries} entries, {row.source_bytes:,} bytes) depth {row.depth}, "
            f"parent {parent}"
        )
        lines.append(f"{indent}  {one_line(row.brief_line, 200)}")
    if page < pages:
        hint: dict[str, object] = {"action": "status", "detail": "tree", "page": page + 1}
        if page_size != DEFAULT_PAGE_SIZE:
            hint["page_size"] = page_size
        lines.append(f"next page: {call_text(**hint)}")
    return "\n".join(lines)


# -- peek ----------------------------------------------------------------------------------


def render_peek(result: PeekResult, length: int | None, withdrawn_later: bool) -> str:
    """The peeked bytes between a header and a footer that say where they sit in the source.

    Bytes are decoded as UTF-8 with replacement, so a slice that cuts a character shows one
    replacement mark at the cut instead of failing.
    """
    end = result.offset + len(result.data)
    header = (
        f"peek {result.identifier} ({result.kind}): bytes {result.offset:,} to {end:,} of "
        f"{result.total_bytes:,}, sha256 {result.source_digest} (verified)"
    )
    body = result.data.decode("utf-8", errors="replace")
    footer: list[str] = []
    if result.next_offset is not None:
        hint: dict[str, object] = {
            "action": "peek",
            "id": result.identifier,
            "offset": result.next_offset,
        }
        if length is not None:
            hint["bytes"] = length
        footer.append(
            f"incomplete: {result.total_bytes - end:,} bytes follow; next: {call_text(**hint)}"
        )
    if withdrawn_later:
        footer.append("ephemeral: the next commit withdraws this copy to a one-line placeholder")
    else:
        footer.append("kept: this copy stays in the window")
    return "\n".join([header, body, *footer])


# -- verbs ---------------------------------------------------------------------------------


def render_brief(mark: Mark) -> str:
    """Confirmation of ``brief``."""
    chars = len(mark.brief or "")
    return (
        f"brief of {mark.id} set ({chars:,} characters); the fold it becomes carries it "
        "verbatim. Nothing moved; you may rewrite it until the commit."
    )


def render_expand(handle: str, outcome: CommitOutcome, tokens_now: int) -> str:
    """Confirmation of ``expand``: which commit carried it and what else landed with it.

    ``tokens_now`` is the projection after the expansion; the outcome's own figure is taken
    before the fold opens, so it would understate what the expansion costs.
    """
    lines = [
        f"expanded {handle} in place, one level (folds inside it stay folded). This rewrote "
        f"the window once, as commit #{outcome.number} ({outcome.cause}): "
        f"{outcome.tokens_before:,} -> {tokens_now:,} tokens."
    ]
    if outcome.applied_marks:
        lines.append(
            f"pending marks landed in the same rewrite: {_ids(outcome.applied_marks)} "
            f"({len(outcome.built)} folds made)"
        )
    elif outcome.built:
        lines.append(f"folds made in the same rewrite: {len(outcome.built)}")
    riders = [
        (outcome.refolded, "staged refolds landed"),
        (outcome.pin_opened, "folds opened for staged pins"),
        (outcome.held_marks, "marks still pending"),
    ]
    lines.extend(f"{label}: {_ids(ids)}" for ids, label in riders if ids)
    if outcome.clipped or outcome.withdrawn:
        lines.append(
            f"also: {len(outcome.clipped)} old tool results clipped, "
            f"{len(outcome.withdrawn)} ephemeral peeks withdrawn"
        )
    lines.append(f"to collapse it again: {call_text(action='refold', id=handle)}")
    return "\n".join(lines)


def render_refold(handle: str) -> str:
    """Confirmation of ``refold``."""
    return f"{handle} is staged to refold: it collapses at the next commit. Nothing moved now."


def render_pin(outcome: PinOutcome) -> str:
    """Confirmation of ``pin``: which entries are held raw now and which wait for a commit."""
    lines: list[str] = []
    if outcome.pinned:
        lines.append(f"pinned, held raw now (nothing moved): {_ids(outcome.pinned)}")
    if outcome.staged:
        lines.append(
            f"pinned inside folds, staged: restored raw at the next commit: {_ids(outcome.staged)}"
        )
    if outcome.already:
        lines.append(f"already pinned: {_ids(outcome.already)}")
    lines.append(_pin_total(outcome))
    return "\n".join(lines)


def render_unpin(outcome: PinOutcome) -> str:
    """Confirmation of ``unpin``."""
    lines = [f"released (they may fold again; nothing moved): {_ids(outcome.released)}"]
    if outcome.refolds:
        lines.append(
            f"folds opened for these pins, staged to collapse at the next commit: "
            f"{_ids(outcome.refolds)}"
        )
    lines.append(_pin_total(outcome))
    return "\n".join(lines)


def _pin_total(outcome: PinOutcome) -> str:
    return f"pins hold {outcome.pinned_tokens:,} of {outcome.cap_tokens:,} tokens allowed"


def render_reboundary(mark: Mark, start_id: str, end_id: str) -> str:
    """Confirmation of ``reboundary``."""
    return (
        f"{mark.id} now covers {start_id}..{end_id} ({mark.end - mark.start} entries, a "
        f"{mark.kind} mark). Nothing moved; it folds at a commit."
    )


def render_unmark(mark: Mark) -> str:
    """Confirmation of ``unmark``."""
    return (
        f"{mark.id} withdrawn ({mark.kind} mark over {mark.end - mark.start} entries). "
        "Nothing moved."
    )


def render_error(message: str) -> str:
    """An error result: says what was wrong and that nothing changed."""
    return f"error: {message.rstrip().rstrip('.')}. Nothing was changed."


__all__ = [
    "call_text",
    "page_count",
    "render_brief",
    "render_error",
    "render_expand",
    "render_peek",
    "render_pin",
    "render_reboundary",
    "render_refold",
    "render_status",
    "render_tree",
    "render_unmark",
    "render_unpin",
]
