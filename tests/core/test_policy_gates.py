"""Commit policy gates of pi-fold 2.0 that still apply here (docs/gates.md): an oversized unit
folds whole (G83), the consolidation count (G13), the tool's own results fold like any
other (G82, G84), a session of one long turn commits (G106), top-up (G34) and commits
around pins (G53). DESIGN §2, §3, §5, §7.

Every session here is checked for zero unattributed rewrites and for exact recovery: each
fold's peek returns the canonical records of the entries it covers.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from pifold_core.commit import CommitOutcome
from pifold_core.engine import Engine, Request
from pifold_core.entries import Entry
from pifold_core.folds import Fold
from pifold_core.options import EngineOptions
from pifold_core.tool import run_tool
from tests.core.builders import (
    CharCounter,
    SessionBuilder,
    drive,
    expected_source,
    filler,
    small_options,
)
from tests.core.engine_checks import assert_reopens_identically, chapters, shown_raw

TOOL = "pi_fold_context"


def _open(path: Path, options: EngineOptions) -> Engine:
    return Engine.open(path / "state", options, CharCounter())


def _assert_lossless(engine: Engine) -> None:
    """No unattributed rewrite, a valid forest, and every fold's exact source by peek."""
    assert engine.view.audit_counts.unattributed == 0
    engine.view.forest.validate(engine.view.transcript)
    for fold in engine.view.forest.folds.values():
        assert engine.peek(fold.handle).data == expected_source(engine, fold), fold.handle


def _threshold_commits(requests: list[Request]) -> list[CommitOutcome]:
    return [r.commit for r in requests if r.commit is not None and r.commit.cause == "threshold"]


def _target(engine: Engine) -> int:
    """What a threshold commit aims at: ``minTarget`` × budget, in the engine's estimate."""
    return engine._state.meter.estimate_for(engine.options.min_tokens)


def _assert_reached(engine: Engine, commit: CommitOutcome) -> None:
    """The commit aimed at ``minTarget`` × budget and got there."""
    assert commit.target == _target(engine)
    assert not commit.short_of_target, commit.short_reason
    assert commit.tokens_after <= _target(engine) < commit.tokens_before


def _made_by_marks_or_top_up(commit: CommitOutcome) -> list[Fold]:
    """Tool and span folds of a commit: each applied mark makes one, top-up the rest."""
    return [built.fold for built in commit.built if built.fold.kind != "consolidated"]


# -- G83: no permanently unfoldable unit -----------------------------------------------------------


def _giant_units(session: SessionBuilder) -> dict[str, tuple[int, int]]:
    """Two turns holding three single units each over three times the span cut (4,000
    characters at minFoldChars 2,000): a tool batch, an assistant note, a pasted user message.
    Returns each giant unit's entry range."""
    giants: dict[str, tuple[int, int]] = {}
    session.user("Port the parser to the new API (ticket PAR-42)")
    for number in range(3):
        session.batch([700], text=f"Step {number}.", seed=number)
    start = len(session.entries)
    session.batch([13_000], text="Reading the whole grammar.", seed=10)
    giants["batch"] = (start, len(session.entries))
    for number in range(3):
        session.batch([600], text=f"Step {number + 3}.", seed=20 + number)
    start = len(session.entries)
    session.assistant("Analysis of the grammar:\n" + filler(12_500, seed=11, stem="analysis"))
    giants["note"] = (start, start + 1)
    start = len(session.entries)
    session.user("Here is the failing log:\n" + filler(12_500, seed=12, stem="log"))
    giants["user"] = (start, start + 1)
    for number in range(12):
        session.batch([900], text=f"Step {number + 6}.", seed=30 + number)
    session.assistant("Done: the parser is ported.")
    return giants


def _assert_folded_whole(engine: Engine, start: int, end: int) -> None:
    """``[start, end)`` is hidden inside one fold, and no fold cuts through it (a tool fold of
    exactly its results, the call beside it, is the only fold allowed inside)."""
    for fold in engine.view.forest.folds.values():
        disjoint = fold.end <= start or end <= fold.start
        around = fold.start <= start and end <= fold.end
        results_only = fold.kind == "tool" and (fold.start, fold.end) == (start + 1, end)
        assert disjoint or around or results_only, (fold.kind, fold.span, (start, end))
    assert any(
        fold.start <= start and end <= fold.end and fold.kind != "tool"
        for fold in engine.view.forest.folds.values()
    ), f"no fold holds [{start},{end}) whole"
    for index in range(start, end):
        assert not engine.view.forest.shows_raw(index), index


def test_a_unit_larger_than_the_span_cut_is_marked_and_folded_whole(tmp_path: Path) -> None:
    options = small_options(
        budget=16_000, min_fold_chars=2_000, consolidate_after=10, tool_fold_threshold=0.0
    )
    assert options.span_cut_chars == 4_000
    session = SessionBuilder()
    giants = _giant_units(session)
    for start, end in giants.values():
        assert sum(e.size_chars for e in session.entries[start:end]) > 3 * options.span_cut_chars
    engine = _open(tmp_path, options)
    laid: set[tuple[str, int, int]] = set()

    def record_marks(engine: Engine, request: Request) -> None:
        laid.update((mark.kind, mark.start, mark.end) for mark in engine.view.marks.values())

    requests = drive(engine, session.entries, record_marks)
    commits = _threshold_commits(requests)
    assert commits
    for commit in commits:
        _assert_reached(engine, commit)
    # The tool rung claims the giant batch's results directly, and each giant unit closes a
    # span mark that holds it whole: no mark cuts through one.
    start, end = giants["batch"]
    assert ("tool", start + 1, end) in laid
    for start, end in giants.values():
        assert any(k == "span" and s <= start and end <= e for k, s, e in laid), (start, end)
        assert all(
            e <= start or end <= s or (s <= start and end <= e) or k == "tool" for k, s, e in laid
        )
        _assert_folded_whole(engine, start, end)
    _assert_lossless(engine)
    assert_reopens_identically(engine)


def test_top_up_folds_a_unit_larger_than_the_span_cut_whole(tmp_path: Path) -> None:
    options = small_options(
        budget=16_000, min_fold_chars=2_000, consolidate_after=10, tool_fold_threshold=0.0
    )
    session = SessionBuilder()
    giants = _giant_units(session)
    engine = _open(tmp_path, options)
    requests: list[Request] = []
    for entry in session.entries:
        if entry.kind == "assistant":
            for mark in list(engine.view.marks):
                engine.unmark(mark)  # no marks at all: every fold is the commit's top-up
            requests.append(engine.prepare_request())
        engine.append(entry)
    commits = _threshold_commits(requests)
    assert commits
    for commit in commits:
        assert commit.applied_marks == []
        assert _made_by_marks_or_top_up(commit)
        _assert_reached(engine, commit)
    for start, end in giants.values():
        _assert_folded_whole(engine, start, end)
    _assert_lossless(engine)
    assert_reopens_identically(engine)


# -- G13: consolidation is the root count ----------------------------------------------------------


def _count_options(consolidate_after: int = 4) -> EngineOptions:
    """A budget no commit of its own reaches: folds come from :meth:`Engine.commit_now`."""
    return small_options(
        budget=200_000,
        min_fold_chars=2_000,
        consolidate_after=consolidate_after,
        tool_fold_threshold=0.0,
    )


def _wait(session: SessionBuilder) -> None:
    """A new ask and an answer, so every chapter before them has left the fresh tail."""
    session.user("what next?")
    session.assistant("Waiting.")


def _consolidated(engine: Engine) -> list[Fold]:
    return [fold for fold in engine.view.forest.in_order() if fold.kind == "consolidated"]


def _gap_entries(engine: Engine, fold: Fold) -> list[int]:
    """Entries a fold covers that none of its children does: the raw gaps it took in."""
    children = [engine.view.forest.folds[handle] for handle in fold.children]
    return [
        index
        for index in range(fold.start, fold.end)
        if not any(child.start <= index < child.end for child in children)
    ]


def _level(engine: Engine, fold: Fold) -> int:
    """0 for a tool or span fold; one above its highest child for a consolidated fold."""
    if fold.kind != "consolidated":
        return 0
    return 1 + max(_level(engine, engine.view.forest.folds[child]) for child in fold.children)


def _owed_runs(engine: Engine) -> list[list[Fold]]:
    """Runs of ``consolidateAfter`` visible roots a parent is still owed (DESIGN §3, §5).

    Roots count when collapsed, unpinned and out of the fresh tail; a run goes on over raw
    gaps under ``minFoldChars`` that hold no pin, as long as the parent would keep every tool
    call with its results, and only over roots of one level (so trees grow balanced).
    """
    size = engine.options.thresholds.consolidate_after
    limit = engine.options.thresholds.min_fold_chars
    transcript = engine.view.transcript

    def pinned(start: int, end: int) -> bool:
        return any(start <= index < end for index in engine.view.pinned)

    owed: list[list[Fold]] = []
    run: list[Fold] = []
    for root in engine.view.forest.roots():
        if root.end > transcript.fresh_start:
            break
        if root.handle in engine.view.forest.expanded or pinned(root.start, root.end):
            run = []
            continue
        if run:
            start, end = run[-1].end, root.start
            if start < end and (transcript.size_chars(start, end) >= limit or pinned(start, end)):
                run = []
        if run and transcript.split_call(run[0].start, root.end) is not None:
            run = []
        if run and _level(engine, root) != _level(engine, run[0]):
            run = []
        run.append(root)
        if len(run) >= size:
            owed.append(list(run))
    return owed


def test_no_consolidation_below_the_count_and_one_parent_at_exactly_the_count(
    tmp_path: Path,
) -> None:
    engine = _open(tmp_path, _count_options(consolidate_after=4))
    session = SessionBuilder()
    chapters(session, 3)
    _wait(session)
    drive(engine, session.entries)
    engine.commit_now()
    engine.prepare_request()
    roots = engine.view.forest.roots()
    assert [root.kind for root in roots] == ["span", "span", "span"]
    assert _consolidated(engine) == []  # three roots owe no parent at consolidateAfter 4
    assert engine.commit_now().built == []  # and a commit with nothing new changes nothing
    engine.prepare_request()

    more = SessionBuilder(prefix="m")
    chapters(more, 1, first=3)
    _wait(more)
    drive(engine, more.entries)
    commit = engine.commit_now()
    engine.prepare_request()
    (parent,) = _consolidated(engine)
    assert commit.built[-1].fold == parent
    fourth = [b.fold for b in commit.built if b.fold.kind == "span"]
    assert parent.children == (*(root.handle for root in roots), fourth[0].handle)
    assert engine.view.forest.roots() == [parent]
    assert (parent.start, parent.end) == (roots[0].start, fourth[0].end)
    assert _owed_runs(engine) == []
    _assert_lossless(engine)
    assert_reopens_identically(engine)


def test_small_raw_gaps_between_roots_are_taken_into_the_parent(tmp_path: Path) -> None:
    """A span, two tool folds and a span: the raw calls between them go into the parent."""
    session = SessionBuilder()
    session.chapter("Chapter 0: look at src/x0.py", [[1500, 800], [1200]], seed=0)
    middle = len(session.entries)
    session.chapter("Chapter 1: read the two big files", [[2500], [2500]], seed=1)
    middle_end = len(session.entries)
    session.chapter("Chapter 2: look at src/x2.py", [[1500, 800], [1200]], seed=2)
    _wait(session)
    engine = _open(tmp_path, _count_options(consolidate_after=4))
    drive(engine, session.entries)
    # Chapter 1 keeps its two tool marks but not its span mark, so its calls stay raw.
    spans = [m for m in engine.view.marks.values() if m.kind == "span" and m.start >= middle]
    engine.unmark(next(m.id for m in spans if m.end <= middle_end))
    engine.commit_now()
    engine.prepare_request()
    (parent,) = _consolidated(engine)
    children = [engine.view.forest.folds[handle] for handle in parent.children]
    assert [child.kind for child in children] == ["span", "tool", "tool", "span"]
    assert engine.view.forest.roots() == [parent]
    gaps = _gap_entries(engine, parent)
    assert gaps, "the raw entries between the children are inside the parent"
    kinds = {engine.view.transcript.entries[index].kind for index in gaps}
    assert "assistant" in kinds  # the calls of chapter 1's batches, kept with their results
    for index in gaps:
        assert not engine.view.forest.shows_raw(index)
        assert (
            engine.view.transcript.entries[index].size_chars
            < engine.options.thresholds.min_fold_chars
        )
    _assert_lossless(engine)
    assert_reopens_identically(engine)


def _six_chapters(middle_sizes: tuple[list[int], ...]) -> tuple[SessionBuilder, range]:
    """Six chapters; returns the session and the entries of the middle one (chapter 2)."""
    session = SessionBuilder()
    chapters(session, 2)
    start = len(session.entries)
    session.chapter("Chapter 2: the middle one", list(middle_sizes), seed=2)
    middle = range(start, len(session.entries))
    chapters(session, 3, first=3)
    _wait(session)
    return session, middle


def test_a_large_raw_gap_splits_the_run(tmp_path: Path) -> None:
    made: dict[str, int] = {}
    for name, sizes in (("small", ([200], [150])), ("large", ([1500, 800], [1200]))):
        engine = _open(tmp_path / name, _count_options(consolidate_after=4))
        session, middle = _six_chapters(sizes)
        drive(engine, session.entries)
        for mark in [m for m in engine.view.marks.values() if m.start in middle]:
            engine.unmark(mark.id)  # chapter 2 stays raw between the others
        engine.commit_now()
        engine.prepare_request()
        gap = engine.view.transcript.size_chars(middle.start, middle.stop)
        if name == "large":
            assert gap >= engine.options.thresholds.min_fold_chars
            assert all(engine.view.forest.shows_raw(index) for index in middle)
        else:
            assert gap < engine.options.thresholds.min_fold_chars
        made[name] = len(_consolidated(engine))
        assert _owed_runs(engine) == []
        _assert_lossless(engine)
    # Five roots in one run owe a parent; two and three on either side of a large gap do not.
    assert made == {"small": 1, "large": 0}


def test_a_pinned_entry_between_roots_splits_the_run(tmp_path: Path) -> None:
    made: dict[bool, int] = {}
    for pin in (False, True):
        engine = _open(tmp_path / str(pin), _count_options(consolidate_after=4))
        session = SessionBuilder()
        chapters(session, 6)
        _wait(session)
        drive(engine, session.entries)
        closing = 20  # chapter 2's closing message, which chapter 3's span would take in
        assert session.entries[closing].kind == "assistant"
        assert session.entries[closing + 1].kind == "user"
        if pin:
            engine.pin([session.entries[closing].id])
        engine.commit_now()
        engine.prepare_request()
        made[pin] = len(_consolidated(engine))
        if pin:
            assert shown_raw(engine, closing)
            assert all(not f.start <= closing < f.end for f in engine.view.forest.folds.values())
            sizes = [len(run) for run in _runs_around(engine, closing)]
            assert sizes == [3, 3]
        assert _owed_runs(engine) == []
        _assert_lossless(engine)
        assert_reopens_identically(engine)
    assert made == {False: 1, True: 0}


def _runs_around(engine: Engine, index: int) -> tuple[list[Fold], list[Fold]]:
    roots = engine.view.forest.roots()
    return [r for r in roots if r.end <= index], [r for r in roots if r.start > index]


def test_a_tool_fold_heading_a_run_does_not_block_the_roots_after_it(tmp_path: Path) -> None:
    """Pinning the task's ask holds chapter 0's span mark, so its big batch folds alone: a tool
    fold whose call stays outside it, right before chapter 1's span. No parent may start at
    it (that would part the call from its results), and the roots after it still get theirs,
    at this commit and at later ones."""
    engine = _open(tmp_path, _count_options(consolidate_after=3))
    session = SessionBuilder()
    chapters(session, 8, sizes=([1_200], [2_500]))
    _wait(session)
    drive(engine, session.entries)
    engine.pin([session.entries[0].id])
    engine.commit_now()
    engine.prepare_request()
    head, *rest = engine.view.forest.roots()
    assert head.kind == "tool" and rest and rest[0].start == head.end  # no gap between them
    assert engine.view.transcript.split_call(head.start, rest[0].end) is not None
    assert _consolidated(engine), "the eight spans after the tool fold owe parents"
    assert _owed_runs(engine) == []
    later = SessionBuilder(prefix="m")
    chapters(later, 4, first=8, sizes=([1_200], [2_500]))
    _wait(later)
    drive(engine, later.entries)
    engine.commit_now()
    engine.prepare_request()
    assert _owed_runs(engine) == []
    assert engine.view.forest.roots()[0] == head
    _assert_lossless(engine)
    assert_reopens_identically(engine)


def test_a_long_session_grows_deeper_layers_and_leaves_no_parent_owed(tmp_path: Path) -> None:
    options = small_options(
        budget=12_000, min_fold_chars=1_500, consolidate_after=3, tool_fold_threshold=0.0
    )
    engine = _open(tmp_path, options)
    session = SessionBuilder()
    chapters(session, 45)
    commits: list[CommitOutcome] = []

    def after(engine: Engine, request: Request) -> None:
        if request.commit is not None:
            commits.append(request.commit)
            assert _owed_runs(engine) == [], f"commit {request.commit.number} left a run owed"

    drive(engine, session.entries, after)
    assert len(commits) >= 3
    parents = _consolidated(engine)
    assert parents
    for parent in parents:
        assert len(parent.children) == 3  # a group of exactly consolidateAfter roots
        # Balanced: a parent's children are all of one level, never a chain of parents.
        assert len({_level(engine, engine.view.forest.folds[c]) for c in parent.children}) == 1
    depth = max(
        sum(1 for a in engine.view.forest.ancestors(p.handle) if a.kind == "consolidated") + 1
        for p in parents
    )
    assert depth >= 3, "consolidated folds inside consolidated folds inside consolidated folds"
    _assert_lossless(engine)
    assert_reopens_identically(engine)


# -- G82, G84: the tool's own results fold like any other ------------------------------------------


def _use_the_tool(
    engine: Engine, session: SessionBuilder, arguments: dict[str, object], text: str
) -> tuple[Request, int]:
    """One model request whose answer calls ``pi_fold_context``; the host runs the call and
    appends its result. Returns the request and the result's entry index."""
    request = engine.prepare_request()
    call = engine.append(session.assistant(text, [(TOOL, dict(arguments))]))
    result = run_tool(engine, arguments, call.tool_calls[0].id)
    assert not result.is_error, result.text
    engine.append(session.result(call.tool_calls[0], result.text))
    return request, len(engine.view.transcript) - 1


def _tool_session(path: Path, options: EngineOptions) -> tuple[Engine, SessionBuilder]:
    """Ten chapters folded by a commit, so status and peek have folds to report."""
    engine = _open(path, options)
    session = SessionBuilder()
    chapters(session, 10)
    _wait(session)
    drive(engine, session.entries)
    engine.commit_now()
    assert len(engine.view.forest) >= 10
    return engine, session


def test_the_tools_own_results_are_marked_and_folded_by_threshold_commits(tmp_path: Path) -> None:
    options = small_options(budget=30_000, min_fold_chars=2_000, consolidate_after=10)
    engine, session = _tool_session(tmp_path, options)
    span = next(f.handle for f in engine.view.forest.in_order() if f.kind == "span")
    tool = next(f.handle for f in engine.view.forest.in_order() if f.kind == "tool")
    engine.append(session.user("Check how folding is going while you port the parser."))
    asks: list[dict[str, object]] = [
        {"action": "status"},
        {"action": "status", "detail": "tree", "page_size": 200},
        {"action": "peek", "id": span, "ephemeral": False},
        {"action": "peek", "id": tool},
    ]
    own: dict[int, str] = {}  # result index -> what it answered
    marked: set[int] = set()
    requests: list[Request] = []
    for step in range(36):
        if step % 3 == 2:
            requests.append(engine.prepare_request())
            for entry in session.batch([1_800], text=f"Step {step}.", seed=step):
                engine.append(entry)
        else:
            arguments = asks[step % len(asks)]
            request, index = _use_the_tool(engine, session, arguments, f"Step {step}.")
            requests.append(request)
            own[index] = f"{arguments['action']} {arguments.get('detail', arguments.get('id'))}"
        for mark in engine.view.marks.values():
            marked.update(i for i in range(mark.start, mark.end) if i in own)
    requests.append(engine.prepare_request())
    engine.append(session.assistant("Done."))

    commits = _threshold_commits(requests)
    assert commits
    for commit in commits:
        _assert_reached(engine, commit)
    # The runtime marked the tool's own results, and threshold commits folded them: status
    # summaries, status trees, kept peeks and ephemeral peeks alike.
    assert marked
    folded = {i for i in own if not engine.view.forest.shows_raw(i)}
    assert {own[i] for i in folded} == set(own.values())
    tool_folds = [
        b.fold
        for c in commits
        for b in c.built
        if b.fold.kind == "tool" and all(i in own for i in range(b.fold.start, b.fold.end))
    ]
    assert tool_folds, "a large result of the tool folds on a tool mark of its own"
    # What stays raw is only what no commit needed yet: results newer than every fold.
    newest_folded = max(fold.end for fold in engine.view.forest.folds.values())
    assert all(i >= newest_folded for i in own if i not in folded)
    _assert_lossless(engine)
    assert_reopens_identically(engine)


def test_large_stale_status_results_are_reclaimed_by_one_threshold_commit(tmp_path: Path) -> None:
    options = small_options(budget=30_000, min_fold_chars=2_000, consolidate_after=10)
    engine, session = _tool_session(tmp_path, options)
    engine.append(session.user("Show me everything that was folded, page by page."))
    pages: list[int] = []
    for number in range(6):
        request, index = _use_the_tool(
            engine,
            session,
            {"action": "status", "detail": "tree", "page_size": 200},
            f"Page {number}.",
        )
        assert request.commit is None
        assert engine.view.transcript.entries[index].size_chars >= options.thresholds.min_fold_chars
        pages.append(index)
    raw_tokens = sum(engine.view.projection.whole_tokens(index) for index in pages)
    assert raw_tokens >= 0.25 * options.max_tokens  # a large share of the window
    commit: CommitOutcome | None = None
    step = 0
    while commit is None:  # ordinary work until the window reaches the trigger
        commit = engine.prepare_request().commit
        for entry in session.batch([1_500], text=f"Work {step}.", seed=step):
            engine.append(entry)
        step += 1
    assert commit.cause == "threshold"
    _assert_reached(engine, commit)
    for index in pages:
        assert not engine.view.forest.shows_raw(index), index
    # What stands for the six pages now costs under a tenth of what they cost raw.
    shown = [
        item
        for item in engine.view.projection.items
        if item.end > pages[0] - 1 and item.start < pages[-1] + 1
    ]
    assert sum(item.tokens for item in shown) <= 0.1 * raw_tokens
    _assert_lossless(engine)
    assert_reopens_identically(engine)


# -- G106: a session that is one long turn ---------------------------------------------------------


def _one_turn(ask: bool) -> SessionBuilder:
    """Seventy tool batches after one ask (or none at all): no turn is ever closed by a user."""
    rng = random.Random(106)
    session = SessionBuilder()
    batches = [[rng.randint(200, 2_500) for _ in range(rng.randint(1, 2))] for _ in range(70)]
    if ask:
        session.long_turn("Port the parser to the new API (ticket PAR-42)", batches, seed=1)
    else:
        for number, sizes in enumerate(batches):
            session.batch(sizes, text=f"Working, step {number}.", seed=number)
    return session


def _assert_fresh_tail_raw(engine: Engine) -> None:
    """The newest batch, the closed unit before it and everything after are shown raw."""
    transcript = engine.view.transcript
    newest = transcript.units[-1]
    assert newest.end - newest.start >= 2  # the newest batch: its call and its results
    assert transcript.fresh_start < newest.start
    for index in range(transcript.fresh_start, len(transcript)):
        assert shown_raw(engine, index), index


@pytest.mark.parametrize("ask", [True, False], ids=["one-ask", "no-ask"])
def test_one_long_turn_commits_reaches_its_target_and_keeps_the_newest_batch_raw(
    tmp_path: Path, ask: bool
) -> None:
    options = small_options(budget=20_000, min_fold_chars=2_000, consolidate_after=4)
    engine = _open(tmp_path, options)
    session = _one_turn(ask)
    commits: list[CommitOutcome] = []

    def after(engine: Engine, request: Request) -> None:
        if request.commit is None:
            return
        commits.append(request.commit)
        _assert_fresh_tail_raw(engine)

    drive(engine, session.entries, after)
    assert len(engine.view.transcript.chapter_starts) == (1 if ask else 0)
    assert len(commits) >= 2
    for commit in commits:
        assert commit.cause == "threshold"
        assert commit.applied_marks, "marks were laid inside the open turn"
        _assert_reached(engine, commit)
    _assert_lossless(engine)
    assert_reopens_identically(engine)


# -- G34: top-up -----------------------------------------------------------------------------------


def _drive_to_commit(
    engine: Engine, entries: list[Entry], before_commit: Callable[[Engine], None]
) -> tuple[CommitOutcome, list[Entry]]:
    """Append ``entries`` until a request commits; ``before_commit`` runs just before that
    request. Returns the commit and the entries not appended yet."""
    for position, entry in enumerate(entries):
        if entry.kind == "assistant":
            due = engine.expected_tokens() >= engine.options.max_tokens
            if due:
                before_commit(engine)
            commit = engine.prepare_request().commit
            assert (commit is not None) == due
            if commit is not None:
                return commit, entries[position:]
        engine.append(entry)
    raise AssertionError("no commit")


def _assert_top_up_folds(engine: Engine, folds: list[Fold]) -> None:
    """Top-up spans: whole units, no call split from its result, worth making, out of the
    fresh tail and clear of pins."""
    transcript = engine.view.transcript
    for fold in folds:
        assert fold.kind == "span"
        assert transcript.unit_aligned(fold.start, fold.end)
        assert transcript.split_call(fold.start, fold.end) is None
        assert (
            transcript.size_chars(fold.start, fold.end) >= engine.options.thresholds.min_fold_chars
        )
        assert fold.end <= transcript.fresh_start
        assert not any(fold.start <= index < fold.end for index in engine.view.pinned)


def test_top_up_cuts_the_stalest_raw_spans_when_marks_alone_miss_the_target(
    tmp_path: Path,
) -> None:
    options = small_options(
        budget=20_000, min_fold_chars=2_000, consolidate_after=50, tool_fold_threshold=0.0
    )
    session = SessionBuilder()
    chapters(session, 30)
    kept: list[str] = []

    pinned = 3 * 7 + 6  # chapter 3's closing message: the raw material comes in two runs

    def keep_only_the_newest_mark(engine: Engine) -> None:
        newest = max(engine.view.marks.values(), key=lambda m: (m.start, m.id))
        assert newest.kind == "tool"
        kept.append(newest.id)
        for mark in list(engine.view.marks):
            if mark != newest.id:
                engine.unmark(mark)
        assert engine.view.transcript.entries[pinned].text == "Done."
        engine.pin([engine.view.transcript.entries[pinned].id])

    engine = _open(tmp_path / "top-up", options)
    commit, rest = _drive_to_commit(engine, session.entries, keep_only_the_newest_mark)
    mark_fold = next(b.fold for b in commit.built if b.fold.kind == "tool")
    assert commit.applied_marks == kept
    topped = [f for f in _made_by_marks_or_top_up(commit) if f != mark_fold]
    assert len(topped) >= 2
    _assert_top_up_folds(engine, topped)
    # Stalest first: the spans start at the first entry and run on in order, well before
    # the one mark; and they stop at the target, leaving later raw material for next time.
    assert topped[0].start == 0
    assert all(a.end <= b.start for a, b in itertools.pairwise(topped))
    assert topped[0].end <= pinned < topped[-1].start  # on past the pin, still in order
    assert shown_raw(engine, pinned)
    assert topped[-1].end < mark_fold.start
    assert any(engine.view.forest.shows_raw(i) for i in range(topped[-1].end, mark_fold.start))
    _assert_reached(engine, commit)
    drive(engine, rest)
    _assert_lossless(engine)
    assert_reopens_identically(engine)

    # With every mark standing, the marks alone reach the target: no top-up span is cut.
    engine = _open(tmp_path / "marks", options)
    commit, _ = _drive_to_commit(engine, session.entries, lambda engine: None)
    assert len(commit.applied_marks) >= 2
    assert len(_made_by_marks_or_top_up(commit)) == len(commit.applied_marks)
    _assert_reached(engine, commit)
    _assert_lossless(engine)


def test_top_up_after_marks_were_re_cut_small(tmp_path: Path) -> None:
    """A span mark re-cut to one unit covers little; the same commit cuts the rest."""
    options = small_options(
        budget=20_000, min_fold_chars=2_000, consolidate_after=50, tool_fold_threshold=0.0
    )
    session = SessionBuilder()
    chapters(session, 30, sizes=([2_500], [1_200]))
    recut: list[str] = []

    def recut_the_stalest_span(engine: Engine) -> None:
        spans = sorted(
            (m for m in engine.view.marks.values() if m.kind == "span"), key=lambda m: m.start
        )
        first = spans[0]
        unit = engine.view.transcript.units[engine.view.transcript.unit_of[first.start + 1]]
        entries = engine.view.transcript.entries
        engine.reboundary(first.id, entries[unit.start].id, entries[unit.end - 1].id)
        recut.append(first.id)
        for mark in list(engine.view.marks):
            if mark != first.id:
                engine.unmark(mark)

    engine = _open(tmp_path, options)
    commit, _ = _drive_to_commit(engine, session.entries, recut_the_stalest_span)
    assert commit.applied_marks == recut
    made = _made_by_marks_or_top_up(commit)
    assert len(made) >= 3
    _assert_top_up_folds(engine, made[1:])
    _assert_reached(engine, commit)
    _assert_lossless(engine)
    assert_reopens_identically(engine)


# -- G53: commits around pins ----------------------------------------------------------------------


def test_a_threshold_commit_reaches_its_target_around_pins_under_the_cap(tmp_path: Path) -> None:
    options = small_options(budget=20_000, min_fold_chars=2_000, consolidate_after=4)
    engine = _open(tmp_path, options)
    session = SessionBuilder()
    session.chapter("Keep these results at hand", [[2_500, 2_500], [2_000]], seed=99)
    drive(engine, session.entries)
    keep = [entry.id for entry in session.entries if entry.kind == "tool_result"]
    engine.pin(keep)
    more = SessionBuilder(prefix="m")
    chapters(more, 30)
    commits: list[CommitOutcome] = []
    for entry in more.entries:
        if entry.kind == "assistant":
            request = engine.prepare_request()
            if request.commit is not None:
                commits.append(request.commit)
        engine.append(entry)
        if entry.kind == "user" and len(engine.view.transcript.chapter_starts) % 10 == 5:
            engine.pin([entry.id])  # a few chapters' asks: their span marks are held
    pinned = engine.status().pinned_tokens
    assert 0.4 * options.min_tokens <= pinned <= options.min_tokens
    assert commits
    for commit in commits:
        assert commit.held_marks, "span marks over pinned asks are held, not applied"
        _assert_reached(engine, commit)
    for index in engine.view.pinned:
        assert shown_raw(engine, index), index
        assert all(not f.start <= index < f.end for f in engine.view.forest.folds.values())
    _assert_lossless(engine)
    assert_reopens_identically(engine)


def test_a_commit_held_over_target_by_pins_and_the_fresh_tail_names_the_pins_share(
    tmp_path: Path,
) -> None:
    options = small_options(budget=20_000, min_fold_chars=2_000, consolidate_after=4)
    engine = _open(tmp_path, options)
    session = SessionBuilder()
    session.chapter("Keep these results at hand", [[3_400, 3_400], [3_400, 3_400]], seed=99)
    drive(engine, session.entries)
    engine.pin([entry.id for entry in session.entries if entry.kind == "tool_result"])
    pinned = engine.status().pinned_tokens
    assert 0.8 * options.min_tokens <= pinned <= options.min_tokens  # under the cap
    more = SessionBuilder(prefix="m")
    chapters(more, 20)
    more.user("Now read the big one")
    more.batch([9_000], text="Reading it.", seed=7)
    drive(engine, more.entries)
    request = engine.prepare_request()
    commit = request.commit
    assert commit is not None and commit.cause == "threshold"
    assert commit.built  # everything else that could fold did
    fresh = sum(
        item.tokens
        for item in engine.view.projection.items
        if item.start >= engine.view.transcript.fresh_start
    )
    assert pinned < _target(engine) < pinned + fresh  # no commit could reach the target
    assert commit.target == _target(engine)
    assert commit.short_of_target and commit.tokens_after > _target(engine)
    reason = commit.short_reason
    assert reason is not None
    assert f"pins hold {pinned:,}" in reason
    assert f"the fresh tail holds {fresh:,}" in reason
    assert f"target of {_target(engine):,}" in reason
    status = engine.status()
    assert status.stalled_reason == reason
    assert status.last_commit is not None and status.last_commit.short_reason == reason
    for index in engine.view.pinned:
        assert shown_raw(engine, index), index
    _assert_lossless(engine)
    reopened = assert_reopens_identically(engine)
    assert reopened._state.stalled_reason == reason
