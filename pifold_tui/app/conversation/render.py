"""The conversation's pure renderables: plain text and Rich ``Text``, no widget state.

Everything a row of the conversation says is built here from data (a tool call's name and
arguments, a diff, a fold row, a loop event), so the exact wording is tested without an app.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from pifold_agent.loop.events import (
    AgentEvent,
    CommitDone,
    CompactionDone,
    ErrorEvent,
    MemoryEvent,
    OverflowRecovered,
    ReplyWarningEvent,
    RetryWait,
    RunEnd,
    ServerWaiting,
)
from pifold_agent.loop.fold_tool import FoldTool
from pifold_agent.tools.registry import HEADLINES as BUILT_IN_HEADLINES
from pifold_core.canonical import JsonValue
from pifold_core.placeholders import KIND_NAMES
from pifold_core.status import FoldRow
from pifold_core.tool import TOOL_NAME

RESULT_LINES = 12
"""Lines of a tool result shown before the "more" affordance: enough for a short listing,
few enough that one long read does not push the conversation off the screen."""

ARGUMENT_CHARS = 72
"""Characters of a tool call's argument summary in its header (one line at 80 columns)."""

HEADLINES: dict[str, tuple[str, ...]] = {**BUILT_IN_HEADLINES, TOOL_NAME: FoldTool.traits.headline}
"""The arguments that say what a call of each bundled tool does (shown in its header), as
each tool declares them (:class:`~pifold_agent.tools.protocol.ToolTraits`)."""

STATE_GLYPHS = {"streaming": "…", "running": "⋯", "done": "✓", "error": "✗"}
"""How a tool call's header shows where it is."""

DIFF_STYLES = {"+": "green", "-": "red", "@": "cyan"}
"""Unified-diff line styles by first character (headers are bold instead)."""


def one_line(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def argument_summary(name: str, arguments: JsonValue) -> str:
    """What a call is about, in one line: its primary argument, or its arguments as JSON."""
    if not isinstance(arguments, dict):
        return one_line("" if arguments is None else str(arguments), ARGUMENT_CHARS)
    headline = HEADLINES.get(name, ())
    primary = arguments.get(headline[0]) if headline else None
    if isinstance(primary, str):
        later = (arguments.get(key) for key in headline[1:])
        words = [primary, *(value for value in later if isinstance(value, str))]
        return one_line(" ".join(words), ARGUMENT_CHARS)
    pairs = ", ".join(f"{item}={value!r}" for item, value in arguments.items())
    return one_line(pairs, ARGUMENT_CHARS)


def tool_header(name: str, arguments: JsonValue, state: str) -> str:
    """A tool call's one-line header: its state glyph, the tool and what it is about."""
    glyph = STATE_GLYPHS.get(state, "?")
    summary = argument_summary(name, arguments)
    return f"{glyph} {name} {summary}".rstrip()


OPEN_SYMBOL = "▼"
CLOSED_SYMBOL = "▶"
"""Before a tool call's header: whether its arguments and result are shown under it."""


def tool_call_row(header: str, is_open: bool) -> Text:
    """A tool call's row as one widget draws it: the open or closed symbol, then its header
    (:func:`tool_header`; plain text: a path or a command in it is never read as markup)."""
    symbol = OPEN_SYMBOL if is_open else CLOSED_SYMBOL
    return Text(f"{symbol} {header}", end="")


@dataclass(frozen=True, slots=True)
class Truncated:
    """The shown part of a long text and what was left out."""

    shown: str
    """The first lines, as they were."""
    hidden_lines: int
    """Lines not shown (0 when the text fits)."""

    @property
    def more_label(self) -> str:
        """The "more" affordance's label ('' when nothing is hidden)."""
        if not self.hidden_lines:
            return ""
        unit = "line" if self.hidden_lines == 1 else "lines"
        return f"… {self.hidden_lines:,} more {unit} (enter shows all)"


def truncated(text: str, max_lines: int = RESULT_LINES) -> Truncated:
    """The first ``max_lines`` lines of ``text`` and how many were left out."""
    lines = text.splitlines()
    if len(lines) <= max_lines:
        return Truncated(text, 0)
    return Truncated("\n".join(lines[:max_lines]), len(lines) - max_lines)


def diff_text(diff: str) -> Text:
    """A unified diff coloured line by line: additions, removals, hunk headers, file names."""
    text = Text(no_wrap=False, end="")
    lines = diff.splitlines()
    for number, line in enumerate(lines):
        header = line.startswith(("+++", "---"))
        style = "bold" if header else DIFF_STYLES.get(line[:1], "")
        text.append(line, style=style)
        if number < len(lines) - 1:
            text.append("\n")
    return text


def fold_row_text(row: FoldRow) -> str:
    """A fold placeholder as one compact row of the conversation."""
    holds = f"{row.entries} entries, {row.source_bytes:,} bytes"
    kind = KIND_NAMES.get(row.kind, row.kind)
    brief = f" · {row.brief_line}" if row.brief_line else ""
    return f"▸ folded {kind} {row.handle} · {holds}{brief}"


def memory_notice(event: MemoryEvent) -> str:
    """One line for a memory event."""
    if event.action == "resurfaced":
        return f"memory: {event.path} came back (about {', '.join(event.about)})"
    return f"memory: {event.path} written"


def commit_notice(event: CommitDone) -> str:
    """A commit in one line: its number, the window before and after (the engine's
    estimate, so ``~``), then ``N Folds`` as the bar counts them after it (folds shown) and,
    apart, what it built: one word, one figure (issue 19: a notice said ``5 folds`` where
    the bar counted 3)."""
    unit = "Fold" if event.shown == 1 else "Folds"
    built = f"{event.folds} built"
    if event.consolidated:
        built += f", {event.consolidated} consolidated at once"
    # The figures are the whole request's; the fixed prefix in them is named apart.
    prefix = f" (fixed prefix ~{event.prefix:,})" if event.prefix else ""
    return (
        f"commit {event.number}: ~{event.tokens_before:,} → ~{event.tokens_after:,} tokens"
        f"{prefix} · {event.shown} {unit} ({built})"
    )


def compaction_notice(event: CompactionDone) -> str:
    """Native compaction in one line."""
    return f"compacted ({event.reason}): {event.tokens_before:,} → {event.tokens_after:,} tokens"


def waiting_notice(event: ServerWaiting) -> str:
    """The line shown while a request has had nothing back (a local server's prefill)."""
    return (
        f"waiting for the server: {event.seconds} s without a first token (a local server "
        "reads the whole prompt first)"
    )


def retry_notice(event: RetryWait) -> str:
    """A retry wait in one line: which retry, how long, and the provider's words."""
    return f"retry {event.attempt} in {event.delay_s:.1f} s: {one_line(event.error, 120)}"


def overflow_notice(event: OverflowRecovered) -> str:
    """An overflow recovery in one line."""
    outcome = "it fits now" if event.fits else "it still does not fit"
    return (
        f"the provider refused the request as too long; folded at once (attempt "
        f"{event.attempt}): {event.expected_tokens:,} tokens expected, {outcome}"
    )


def event_notice(event: AgentEvent) -> tuple[str, str] | None:
    """The notice row a loop event adds to the conversation, as its text and its kind
    (``commit``, ``retry`` or ``error``), or ``None`` for an event shown otherwise."""
    if isinstance(event, CommitDone):
        return commit_notice(event), "commit"
    if isinstance(event, CompactionDone):
        return compaction_notice(event), "commit"
    if isinstance(event, MemoryEvent):
        return memory_notice(event), "commit"
    if isinstance(event, RetryWait):
        return retry_notice(event), "retry"
    if isinstance(event, OverflowRecovered):
        return overflow_notice(event), "retry"
    if isinstance(event, ReplyWarningEvent):
        return f"warning: {event.message}", "retry"
    if isinstance(event, ErrorEvent):
        return f"error: {event.message}", "error"
    if isinstance(event, RunEnd) and event.outcome == "aborted":
        return "aborted by the user", "retry"
    return None


__all__ = [
    "CLOSED_SYMBOL",
    "OPEN_SYMBOL",
    "RESULT_LINES",
    "Truncated",
    "argument_summary",
    "commit_notice",
    "compaction_notice",
    "diff_text",
    "event_notice",
    "fold_row_text",
    "memory_notice",
    "one_line",
    "overflow_notice",
    "retry_notice",
    "tool_call_row",
    "tool_header",
    "truncated",
    "waiting_notice",
]
