"""Result text built from plain status data: deterministic and complete (DESIGN §7)."""

from __future__ import annotations

import dataclasses

from pifold_core.canonical import sha256_hex
from pifold_core.commit import CommitOutcome
from pifold_core.composition import FoldCounts, Reading
from pifold_core.marks import Mark
from pifold_core.peek import slice_source
from pifold_core.pins import PinOutcome
from pifold_core.status import AuditView, CommitView, EngineStatus, FoldRow, MarkView, Occupancy
from pifold_core.tool.render import (
    page_count,
    render_brief,
    render_error,
    render_expand,
    render_peek,
    render_pin,
    render_reboundary,
    render_refold,
    render_status,
    render_tree,
    render_unmark,
    render_unpin,
)


def _status(**changes: object) -> EngineStatus:
    status = EngineStatus(
        budget=100_000,
        max_tokens=80_000,
        min_tokens=20_000,
        occupancy=Occupancy(
            tokens=61_234,
            reading=Reading.MEASURED,
            shown_tokens=61_000,
            estimated_tokens=58_000,
            calibration=1.05,
        ),
        counts=FoldCounts(consolidated=1, span=3, tool=2, marks=2, pins=1),
        total_folds=11,
        marks=(
            MarkView("mark-4", "tool", "e00010", "e00012", 3, 9_500, 2_400, None),
            MarkView("mark-5", "span", "e00013", "e00030", 18, 30_000, 7_600, "Fixed the\nparser"),
        ),
        marked_tokens=10_000,
        pins=("e00002",),
        staged_pins=("e00005",),
        pinned_tokens=1_200,
        pin_cap_tokens=20_000,
        staged_refolds=("fold-aaaaaaaaaaaa",),
        clipped=4,
        audit=AuditView(requests=90, appends=87, attributed=3, unattributed=0),
        commits=2,
        last_commit=CommitView(2, "threshold", 80_500, 19_800, 6, 5, 4, 1, 1, None),
        stalled_reason=None,
        folding_stopped=None,
    )
    return dataclasses.replace(status, **changes)  # type: ignore[arg-type]


def test_status_summary_names_every_figure() -> None:
    text = render_status(_status())
    for fragment in [
        "window: 61,000 of 100,000 tokens (61%), measured by the provider",
        "calibration 1.05",
        "commit at 80% (80,000 tokens), fold down to 20% (20,000); rewrite tax 0.33",
        "next commit: in 18,766 tokens",
        "marks: 2 pending, 10,000 tokens marked",
        "mark-4 tool e00010..e00012 (3 entries, 9,500 chars, 2,400 tokens) runtime brief",
        "mark-5 span e00013..e00030 (18 entries, 30,000 chars, 7,600 tokens) "
        "brief: Fixed the parser",
        "folds: 6 visible (1 consolidated, 3 span, 2 tool), 11 in all",
        "pinned entries: 1 (e00002), 1,200 of 20,000 tokens allowed",
        "staged pins (shown raw at the next commit): e00005",
        "staged refolds (collapse at the next commit): fold-aaaaaaaaaaaa",
        "clipped tool results: 4",
        "audit: 90 requests: 87 appends, 3 attributed rewrites, 0 unattributed",
        "commits: 2; last #2 (threshold): 80,500 -> 19,800 tokens, 6 folds made, 5 marks "
        "applied, 4 results clipped, 1 peek withdrawn, 1 pin landed",
    ]:
        assert fragment in text, fragment
    assert "STOPPED" not in text and "stalled" not in text
    assert text == render_status(_status())


def test_status_readings_and_trouble() -> None:
    unmeasured = _status(
        occupancy=Occupancy(5_000, Reading.NOT_MEASURED, None, 5_000, 1.0),
        marks=(),
        pins=(),
        staged_pins=(),
        staged_refolds=(),
        clipped=0,
        last_commit=None,
        commits=0,
    )
    text = render_status(unmeasured)
    assert "window: not measured yet; engine estimate 5,000 of 100,000 tokens (5%)" in text
    assert "marks: none pending" in text and "pinned entries: 0 (none)" in text
    assert "staged" not in text and "clipped" not in text and text.endswith("commits: 0")
    after_commit = render_status(
        _status(occupancy=Occupancy(21_000, Reading.ESTIMATED_AFTER_COMMIT, 21_000, 20_000, 1.0))
    )
    assert "21,000 of 100,000 tokens (21%), engine estimate after the last commit" in after_commit
    troubled = render_status(
        _status(
            occupancy=Occupancy(85_000, Reading.ESTIMATED, 85_000, 85_000, 1.0),
            stalled_reason="the fresh tail holds 70,000 tokens",
            folding_stopped="store object missing",
            last_commit=CommitView(3, "threshold", 85_000, 84_000, 0, 0, 0, 0, 0, "pins hold 9"),
        )
    )
    assert troubled.startswith("FOLDING STOPPED: store object missing\n")
    assert "engine estimate, no provider count" in troubled
    assert "next commit: stalled, the fresh tail holds 70,000 tokens" in troubled
    assert "stopped above target: pins hold 9" in troubled
    due = render_status(_status(occupancy=Occupancy(80_000, Reading.ESTIMATED, 80_000, 1, 1.0)))
    assert "next commit: due with the next request" in due


def _rows(count: int) -> list[FoldRow]:
    rows: list[FoldRow] = []
    for number in range(count):
        depth = number % 3
        parent = None if depth == 0 else rows[-1].handle
        rows.append(
            FoldRow(
                handle=f"fold-{number:012x}",
                kind=("consolidated", "span", "tool")[depth],
                depth=depth,
                parent=parent,
                start_id=f"e{number:05d}",
                end_id=f"e{number + 1:05d}",
                entries=2,
                source_bytes=1_000 * (number + 1),
                state="collapsed" if depth == 0 else "hidden",
                staged_refold=False,
                brief_line=f"brief {number}",
            )
        )
    return rows


def test_tree_pages_cover_every_fold_once_in_order() -> None:
    rows = _rows(7)
    assert page_count(7, 3) == 3 and page_count(0, 3) == 1 and page_count(6, 3) == 2
    seen: list[str] = []
    for page in (1, 2, 3):
        text = render_tree(rows, page, 3)
        assert f"fold tree: 7 folds in transcript order, page {page} of 3" in text
        seen.extend(
            line.split()[0] for line in text.splitlines() if line.lstrip().startswith("fold-")
        )
        if page < 3:
            assert (
                f'next page: pi_fold_context {{"action":"status","detail":"tree",'
                f'"page":{page + 1},"page_size":3}}' in text
            )
        else:
            assert "next page" not in text
    assert seen == [row.handle for row in rows]
    first = render_tree(rows, 1, 3).splitlines()
    assert first[1] == (
        "fold-000000000000 consolidated [collapsed] e00000..e00001 (2 entries, 1,000 bytes) "
        "depth 0, parent none (root)"
    )
    assert first[2] == "  brief 0"
    assert first[3].startswith("  fold-000000000001 span [hidden]")
    assert first[3].endswith("depth 1, parent fold-000000000000")
    assert first[5].startswith("    fold-000000000002 tool [hidden]")
    assert render_tree([], 1, 50) == "fold tree: no folds yet (page 1 of 1)"


def test_tree_marks_staged_refolds_and_default_page_size_hint() -> None:
    rows = [dataclasses.replace(row, state="expanded", staged_refold=True) for row in _rows(51)]
    text = render_tree(rows, 1, 50)
    assert "[expanded, refold staged]" in text
    assert text.endswith('next page: pi_fold_context {"action":"status","detail":"tree","page":2}')


def test_peek_header_body_and_footer() -> None:
    source = "héllo wörld, exact bytes".encode()
    whole = render_peek(slice_source("e00004", "entry", source, 0, None), None, True)
    lines = whole.splitlines()
    assert lines[0] == (
        f"peek e00004 (entry): bytes 0 to {len(source)} of {len(source)}, "
        f"sha256 {sha256_hex(source)} (verified)"
    )
    assert lines[1] == "héllo wörld, exact bytes"
    assert lines[2] == "ephemeral: the next commit withdraws this copy to a one-line placeholder"
    assert len(lines) == 3
    # A slice that cuts "é" in half shows a replacement mark, never an exception.
    part = render_peek(slice_source("fold-0123456789ab", "fold", source, 0, 2), 2, False)
    assert part.splitlines()[1] == "h\ufffd"
    assert (
        'next: pi_fold_context {"action":"peek","id":"fold-0123456789ab","offset":2,"bytes":2}'
        in part
    )
    assert f"{len(source) - 2} bytes follow" in part
    assert part.endswith("kept: this copy stays in the window")


def test_verb_confirmations_say_what_moved() -> None:
    mark = Mark("mark-3", "span", 4, 10, brief="Ran the tests")
    assert "brief of mark-3 set (13 characters)" in render_brief(mark)
    assert "Nothing moved" in render_brief(mark)
    outcome = CommitOutcome(7, "expand fold-0123456789ab", None, 20_000, tokens_after=18_000)
    outcome.applied_marks.extend(["mark-9", "mark-10"])
    outcome.held_marks.append("mark-12")
    expanded = render_expand("fold-0123456789ab", outcome, 25_000)
    assert "as commit #7 (expand fold-0123456789ab): 20,000 -> 25,000 tokens" in expanded
    assert "pending marks landed in the same rewrite: mark-9, mark-10" in expanded
    assert "marks still pending: mark-12" in expanded
    assert "staged to refold" in render_refold("fold-0123456789ab")
    pinned = render_pin(PinOutcome(("e1",), ("e7", "e8"), (), ("e2",), 1_500, 20_000))
    assert "pinned, held raw now (nothing moved): e1" in pinned
    assert "staged: restored raw at the next commit: e7, e8" in pinned
    assert "already pinned: e2" in pinned
    assert "pins hold 1,500 of 20,000 tokens allowed" in pinned
    assert "released (they may fold again; nothing moved): e1" in render_unpin(
        PinOutcome(released=("e1",), pinned_tokens=0, cap_tokens=20_000)
    )
    assert "staged to collapse at the next commit: fold-aaaaaaaaaaaa" in render_unpin(
        PinOutcome(released=("e1",), refolds=("fold-aaaaaaaaaaaa",), cap_tokens=20_000)
    )
    assert "mark-3 now covers e00005..e00010 (6 entries" in render_reboundary(
        mark, "e00005", "e00010"
    )
    assert "mark-3 withdrawn (span mark over 6 entries)" in render_unmark(mark)
    assert render_error("there is no fold fold-0123456789ab.") == (
        "error: there is no fold fold-0123456789ab. Nothing was changed."
    )
