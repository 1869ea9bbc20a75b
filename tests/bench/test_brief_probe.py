"""The brief probe: planted values a fold holds, and how many of them its brief shows."""

from __future__ import annotations

from pathlib import Path

from pifold_bench.arms import EngineArm
from pifold_bench.brief_probe import BriefProbe, probe_arm, probe_engine, probe_line
from pifold_bench.figures import arm_figures
from pifold_bench.list_arms import LinearArm
from pifold_bench.recall import PlantedValue
from pifold_core.engine import Engine
from tests.bench.shared_runs import benched_runs, every_trace
from tests.core.builders import CharCounter, SessionBuilder, drive, filler, small_options

KEY = "ck_0f1e2d3c4b5a69788796"
NUMBER = "418399561389"

OLD_BRIEFS_IMMEDIATE: dict[str, tuple[int, int]] = {
    "claude-code-session-share": (8, 8),
    "codex-soulpass": (1, 9),
    "gemini-cli": (1, 9),
    "mini-swe-agent-deepseek": (5, 11),
    "pi-mono": (2, 3),
    "pi-v3-paradocs": (2, 10),
    "swe-agent-demo": (4, 4),
}
"""``fold-immediate`` at 100k, seed 7, with the briefs of before issue 12's brief change
(commit 2af3ff8's parent tree for briefs.py and builder.py, everything else as now): planted
values in the shown brief, and in the brief of the fold that first held them."""


def _folded_session(tmp_path: Path) -> tuple[Engine, list[PlantedValue]]:
    """A session whose first chapters fold (a key and a short number planted in them) and
    whose last result, holding a long number, stays raw."""
    session = SessionBuilder()
    values: list[PlantedValue] = []
    for chapter in range(4):
        session.user(f"Chapter {chapter}: check the loader")
        call = session.assistant("Reading.", [("read", {"path": f"src/x{chapter}.py"})])
        text = filler(2_500, chapter)
        if chapter == 0:
            text += f"\nnext_page_token: {KEY}\n" + filler(500, 9)
        if chapter == 1:
            # A short number among many long ones: past the room a brief has.
            text += "\n".join(f"rows {100_000_000 + n * 7_919}" for n in range(200))
            text += "\ncount 417\n"
        session.result(call.tool_calls[0], text)
        session.assistant("Done.")
        if chapter in (0, 1):
            entry = session.entries[-2]
            wanted = KEY if chapter == 0 else "417"
            values.append(PlantedValue(wanted, "continuation key", entry.id, 0))
    session.user("and now?")
    unfolded = session.assistant("", [("read", {"path": "src/late.py"})])
    late = session.result(unfolded.tool_calls[0], f"rows affected: {NUMBER}")
    session.assistant("Waiting.")
    values.append(PlantedValue(NUMBER, "number", late.id, 0))
    engine = Engine.open(
        tmp_path / "state", small_options(budget=200_000, min_fold_chars=2_000), CharCounter()
    )
    drive(engine, session.entries)
    engine.commit_now()
    engine.prepare_request()
    assert engine.view.audit_counts.unattributed == 0
    return engine, values


def test_probe_counts_folded_values_and_those_their_brief_shows(tmp_path: Path) -> None:
    engine, values = _folded_session(tmp_path)
    try:
        probe = probe_engine(engine, values)
    finally:
        engine.close()
    # The short number is at the end of its result, so the tool fold's brief shows it (how
    # the result ends), but the 200 longer numbers before it fill the span around that fold.
    assert probe == BriefProbe(
        planted=3, folded=2, in_shown_brief=1, in_first_brief=2, hidden=["417"]
    )


def test_an_expanded_fold_does_not_count_as_folded(tmp_path: Path) -> None:
    engine, values = _folded_session(tmp_path)
    try:
        index = engine.view.transcript.index_of[values[0].entry_id]
        for fold in engine.view.forest.chain_at(index):
            engine.expand(fold.handle)
        probe = probe_engine(engine, values)
    finally:
        engine.close()
    assert (probe.folded, probe.in_shown_brief) == (1, 0)


def test_arms_without_an_engine_have_no_probe() -> None:
    assert probe_arm(LinearArm(CharCounter()), []) is None
    assert probe_line({"none": None, "native": None}) is None
    line = probe_line({"fold": BriefProbe(12, 7, 4, 7), "none": None})
    assert line is not None and line.endswith(": fold 4/7")


def test_engine_arms_report_the_probe(tmp_path: Path) -> None:
    arm = EngineArm(tmp_path / "arm", 200_000, CharCounter())
    engine, values = _folded_session(tmp_path)
    engine.close()
    probe = probe_arm(arm, values)
    arm.close()
    assert probe == BriefProbe(3, 0, 0, 0)


@every_trace
def test_new_briefs_keep_at_least_as_many_planted_values_as_the_old(trace: Path) -> None:
    prepared, runs, _ = benched_runs(trace)
    for name in ("fold", "fold-no-cold", "fold-unbatched", "fold-immediate"):
        probe = runs[name].brief_probe
        assert probe is not None and probe.planted == len(prepared.values)
        assert probe.in_shown_brief <= probe.in_first_brief <= probe.folded
        figures = arm_figures(runs[name], 100_000, len(prepared.values))
        assert figures.brief_probe == probe  # what the report and the JSON show
    immediate = runs["fold-immediate"].brief_probe
    assert immediate is not None
    shown, first = OLD_BRIEFS_IMMEDIATE[trace.parent.name]
    assert immediate.in_shown_brief >= shown
    assert immediate.in_first_brief >= first
    assert runs["native"].brief_probe is None
