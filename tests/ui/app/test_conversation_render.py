"""Exact strings of the conversation's pure renderables."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pifold_agent.loop.events import CommitDone, RetryWait
from pifold_core.entries import Entry, TextBlock, ToolCallBlock
from pifold_core.status import FoldRow
from pifold_tui.app.conversation.render import (
    RESULT_LINES,
    commit_notice,
    diff_text,
    fold_row_text,
    retry_notice,
    tool_call_row,
    tool_header,
    truncated,
)
from pifold_tui.app.conversation.source import transcript_rows

DIFF = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-helo world\n+hello world\n context"


def test_a_diff_is_coloured_line_by_line() -> None:
    text = diff_text(DIFF)
    assert text.plain == DIFF
    styles = {text.plain[span.start : span.end]: str(span.style) for span in text.spans}
    assert styles == {
        "--- a/notes.txt": "bold",
        "+++ b/notes.txt": "bold",
        "@@ -1 +1 @@": "cyan",
        "-helo world": "red",
        "+hello world": "green",
    }


def test_tool_headers_name_the_tool_and_its_primary_argument() -> None:
    assert tool_header("read", {"path": "src/x.py", "offset": 3}, "done") == "✓ read src/x.py"
    assert tool_header("bash", {"command": "git status\n--short"}, "running") == (
        "⋯ bash git status --short"
    )
    assert tool_header("edit", {"path": "a.py"}, "error") == "✗ edit a.py"
    assert tool_header("pi_fold_context", {"action": "peek", "id": "fold-0123"}, "done") == (
        "✓ pi_fold_context peek fold-0123"
    )
    assert tool_header("custom", {"level": 2, "name": "x"}, "done") == (
        "✓ custom level=2, name='x'"
    )
    assert tool_header("tool", None, "streaming") == "… tool"


def test_a_tool_call_row_is_its_open_or_closed_symbol_then_its_header() -> None:
    closed = tool_call_row(
        tool_header("read", {"path": "src/x.py", "offset": 3}, "done"), is_open=False
    )
    assert closed.plain == "▶ ✓ read src/x.py"
    assert closed.spans == []  # the widget's style colours it (an error's colour included)
    assert tool_call_row(
        tool_header("bash", {"command": "ls\n-la"}, "running"), is_open=True
    ).plain == ("▼ ⋯ bash ls -la")
    assert tool_call_row(tool_header("tool", None, "streaming"), is_open=False).plain == "▶ … tool"
    # A path or a command is drawn as it is, never read as markup.
    marked = tool_call_row(
        tool_header("read", {"path": "[bold]x[/bold].py"}, "error"), is_open=False
    )
    assert marked.plain == "▶ ✗ read [bold]x[/bold].py"


def test_a_long_argument_is_cut_to_one_line() -> None:
    header = tool_header("bash", {"command": "echo " + "x" * 200}, "done")
    assert header == "✓ bash echo " + "x" * 66 + "…"


def test_a_fold_row_says_kind_handle_size_and_brief() -> None:
    row = FoldRow(
        handle="fold-eb2e070c009e",
        kind="tool",
        depth=0,
        parent=None,
        start_id="a",
        end_id="b",
        entries=4,
        source_bytes=12_345,
        state="collapsed",
        staged_refold=False,
        brief_line="Ran read(path=src/x.py)",
    )
    assert fold_row_text(row) == (
        "▸ folded tool results fold-eb2e070c009e · 4 entries, 12,345 bytes · "
        "Ran read(path=src/x.py)"
    )


def test_the_commit_notice() -> None:
    # The bar's word and figure first, what the commit built apart (issue 19).
    event = CommitDone(3, "threshold", 81_204, 19_880, 12, consolidated=10, shown=3)
    assert commit_notice(event) == (
        "commit 3: ~81,204 → ~19,880 tokens · 3 Folds (12 built, 10 consolidated at once)"
    )
    assert commit_notice(CommitDone(1, "command", 900, 400, 1, shown=1)) == (
        "commit 1: ~900 → ~400 tokens · 1 Fold (1 built)"
    )


def test_the_retry_notice() -> None:
    assert retry_notice(RetryWait(2, 4.0, "overloaded")) == "retry 2 in 4.0 s: overloaded"


def test_a_long_result_is_cut_with_a_more_label() -> None:
    text = "\n".join(str(number) for number in range(1, 41))
    cut = truncated(text)
    assert cut.shown == "\n".join(str(number) for number in range(1, RESULT_LINES + 1))
    assert cut.hidden_lines == 40 - RESULT_LINES
    assert cut.more_label == f"… {40 - RESULT_LINES} more lines (enter shows all)"
    assert truncated("one\ntwo").more_label == ""


@given(st.lists(st.text(alphabet="ab \t", max_size=8), max_size=40))
def test_truncation_keeps_a_prefix_and_counts_what_it_hides(lines: list[str]) -> None:
    text = "\n".join(lines)
    cut = truncated(text)
    assert text.startswith(cut.shown)
    every = text.splitlines()
    if cut.hidden_lines:
        # The shown part is exactly the first lines, blank ones included.
        assert cut.shown.split("\n") == every[:RESULT_LINES]
        assert RESULT_LINES + cut.hidden_lines == len(every)
    else:
        assert cut.shown == text


def entry(identifier: str, kind: str, call: str | None = None) -> Entry:
    if kind == "assistant" and call is not None:
        return Entry(identifier, "assistant", 0, (ToolCallBlock(call, "read", {}),))
    if kind == "tool_result":
        return Entry(identifier, "tool_result", 0, (TextBlock("ok"),), call, "read")
    return Entry(identifier, kind, 0, (TextBlock(identifier),))  # type: ignore[arg-type]


def test_tool_results_go_with_the_message_that_made_the_call() -> None:
    entries = [
        entry("u1", "user"),
        entry("a1", "assistant", "c1"),
        entry("r1", "tool_result", "c1"),
        entry("r2", "tool_result", "orphan"),
        entry("a2", "assistant"),
    ]
    rows = transcript_rows(entries)
    assert [row.entry.id for row in rows] == ["u1", "a1", "r2", "a2"]
    assert {call: result.id for call, result in rows[1].results.items()} == {"c1": "r1"}


@st.composite
def transcripts(draw: st.DrawFn) -> list[Entry]:
    """Random sessions: asks, replies with 0-2 calls, results in any order, stray results."""
    entries: list[Entry] = []
    open_calls: list[str] = []
    for number in range(draw(st.integers(0, 30))):
        step = draw(st.sampled_from(["user", "assistant", "result", "stray"]))
        if step == "assistant":
            calls = [f"c{number}-{index}" for index in range(draw(st.integers(0, 2)))]
            blocks = tuple(ToolCallBlock(call, "read", {}) for call in calls)
            entries.append(Entry(f"a{number}", "assistant", 0, blocks or (TextBlock("ok"),)))
            open_calls += calls
        elif step == "result" and open_calls:
            call = open_calls.pop(draw(st.integers(0, len(open_calls) - 1)))
            entries.append(entry(f"r{number}", "tool_result", call))
        elif step == "stray":
            entries.append(entry(f"s{number}", "tool_result", f"none{number}"))
        else:
            entries.append(entry(f"u{number}", "user"))
    return entries


@given(transcripts())
def test_every_entry_is_shown_once_in_order(entries: list[Entry]) -> None:
    rows = transcript_rows(entries)
    shown = [row.entry.id for row in rows] + [
        result.id for row in rows for result in row.results.values()
    ]
    assert sorted(shown) == sorted(entry.id for entry in entries)
    order = [entry.id for entry in entries]
    positions = [order.index(row.entry.id) for row in rows]
    assert positions == sorted(positions)
    for row in rows:
        calls = {call.id for call in row.entry.tool_calls}
        assert set(row.results) <= calls
        assert all(
            order.index(result.id) > order.index(row.entry.id) for result in row.results.values()
        )
