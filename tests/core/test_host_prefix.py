"""The host's fixed prefix counted (issue 22): the system prompt and tool definitions a host
sends before every conversation are part of the engine's estimate and of every figure, are
logged so a reopen counts them the same, and set a floor the engine names when they alone
sit above the commit aim or the budget."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pifold_core import checkpoint
from pifold_core.engine import Engine, EngineError, ReadOnlySession
from pifold_core.entries import Usage
from pifold_core.host_prefix import PrefixFloor, prefix_floor, prefix_tokens
from pifold_core.journal import Journal
from pifold_core.tool.render import render_status
from tests.core.builders import CharCounter, SessionBuilder, small_options
from tests.core.engine_checks import assert_reopens_identically, pending_engine, reopen


def _prefix_records(engine: Engine) -> list[object]:
    engine._state.journal.sync()
    log = Journal(engine._state.journal.path, read_only=True)
    return [record.body for record in log.read_all() if record.kind == "prefix"]


def test_prefix_tokens_counts_the_system_prompt_and_the_tools_as_json() -> None:
    counter = CharCounter()
    tools = [{"name": "read", "description": "Read a file.", "parameters": {"type": "object"}}]
    definitions = '[{"name":"read","description":"Read a file.","parameters":{"type":"object"}}]'
    assert prefix_tokens(counter, "x" * 400, tools) == 100 + len(definitions) // 4
    assert prefix_tokens(counter, "x" * 400, []) == 100


def test_the_estimate_and_every_figure_include_the_prefix(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path, 2)
    projection = engine.view.projection.tokens
    assert engine.expected_tokens() == projection  # a host that states none: as before
    engine.set_host_prefix(2_848)
    assert engine.view.prefix_tokens == 2_848
    assert engine.expected_tokens() == projection + 2_848  # calibration 1.0 before a count
    occupancy = engine.status().occupancy
    assert occupancy.estimated_tokens == projection + 2_848
    assert occupancy.prefix_tokens == 2_848
    assert engine.composition().prefix_tokens == 2_848
    assert engine.preview_commit("command").expected_before == projection + 2_848
    request = engine.prepare_request()
    assert request.expected_tokens == projection + 2_848
    # The provider's count includes the prefix too: measured, the figure moves only by growth.
    engine.report_usage(request.record.number, Usage(input_tokens=projection + 3_000))
    engine.append(SessionBuilder(prefix="more").user("x" * 400))
    grown = engine.view.projection.tokens - projection
    assert engine.expected_tokens() == projection + 3_000 + grown


def test_the_prefix_is_logged_once_and_a_reopen_counts_it_the_same(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path, 2)
    engine.set_host_prefix(1_500)
    engine.set_host_prefix(1_500)  # the same size again writes nothing
    request = engine.prepare_request()
    engine.report_usage(request.record.number, Usage(input_tokens=request.tokens + 1_700))
    engine.set_host_prefix(1_600)  # a host head change: a new size is logged
    assert _prefix_records(engine) == [{"tokens": 1_500}, {"tokens": 1_600}]
    assert_reopens_identically(engine)
    reopened = reopen(engine)
    try:
        assert reopened.view.prefix_tokens == 1_600
        assert render_status(reopened.status())  # renders with the prefix
    finally:
        reopened.close()


def test_a_checkpoint_keeps_the_prefix(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path, 2)
    engine.set_host_prefix(1_234)
    engine.prepare_request()
    checkpoint.write(engine._state, engine._commits.checkpoint_body)
    expected = engine.expected_tokens()
    reopened = reopen(engine)
    try:
        assert reopened.view.checkpoint_records > 0 and reopened.view.checkpoint_problem is None
        assert reopened.view.prefix_tokens == 1_234
        assert reopened.expected_tokens() == expected
    finally:
        reopened.close()


@pytest.mark.parametrize("bad", [-1, 1.5, True, "10"])
def test_a_bad_prefix_is_refused_and_changes_nothing(tmp_path: Path, bad: object) -> None:
    engine, _ = pending_engine(tmp_path, 1)
    with pytest.raises(EngineError):
        engine.set_host_prefix(bad)  # type: ignore[arg-type]
    assert engine.view.prefix_tokens == 0 and _prefix_records(engine) == []
    engine.close()


def test_a_read_only_session_refuses_a_prefix(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path, 1)
    engine.set_host_prefix(900)
    engine._state.journal.sync()
    beside = Engine.open(engine.state_dir, None, CharCounter(), read_only=True)
    try:
        assert beside.view.prefix_tokens == 900
        with pytest.raises(ReadOnlySession):
            beside.set_host_prefix(1_000)
    finally:
        beside.close()
        engine.close()


def test_a_commit_aims_above_the_prefix(tmp_path: Path) -> None:
    """The commit aim is occupancy, so the projection's target is the aim less the prefix:
    a commit no longer folds for an aim the prefix alone already fills."""
    options = small_options(budget=20_000, min_fold_chars=2_000)
    engine, _ = pending_engine(tmp_path, 6, options)
    aim = options.min_tokens  # 4,000 at a 0.2 minTarget
    engine.set_host_prefix(1_000)
    preview = engine.preview_commit("overflow")
    assert preview.target == aim - 1_000
    assert preview.expected_after >= 1_000  # no figure claims less than the prefix


def test_no_floor_below_the_aim_a_floor_above_it_and_over_the_budget() -> None:
    options = small_options(budget=6_000)  # aim 1,200 at the 0.2 minTarget
    assert prefix_floor(options, 1_200) is None
    above = prefix_floor(options, 2_848)
    assert above == PrefixFloor(2_848, 6_000, 1_200, 15_000)
    assert not above.over_budget
    assert above.describe() == (
        "the fixed prefix (system prompt and tool definitions) is 2,848 tokens, above the "
        "commit aim of 1,200 (minTarget of the 6,000 budget): no commit can fold the window "
        "down to its aim; raise the budget (--budget, as far as the model's window allows) "
        "or offer fewer tools (a budget of 15,000 would work)"
    )
    over = prefix_floor(options, 7_000)
    assert over is not None and over.over_budget
    assert "more than the budget of 6,000: no request fits" in over.describe()


def test_status_and_the_tool_name_the_prefix_floor(tmp_path: Path) -> None:
    options = small_options(budget=6_000, min_fold_chars=2_000)
    engine, _ = pending_engine(tmp_path, 1, options)
    assert engine.status().prefix_floor is None
    engine.set_host_prefix(2_848)
    floor = engine.status().prefix_floor
    assert floor is not None and floor.prefix_tokens == 2_848
    text = render_status(engine.status())
    assert "fixed prefix 2,848" in text
    assert floor.describe() in text
    engine.close()


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.integers(min_value=0, max_value=50_000),
    st.integers(min_value=0, max_value=50_000),
    st.booleans(),
)
def test_the_estimate_is_monotone_in_the_prefix(
    tmp_path_factory: pytest.TempPathFactory, first: int, second: int, measured: bool
) -> None:
    low, high = sorted((first, second))
    engine, _ = pending_engine(tmp_path_factory.mktemp("monotone"), 1)
    try:
        if measured:
            request = engine.prepare_request()
            engine.report_usage(request.record.number, Usage(input_tokens=request.tokens + 777))
            engine.append(SessionBuilder(prefix="after").user("and then?"))
        figures = []
        for prefix in (low, high):
            engine.set_host_prefix(prefix)
            status = engine.status()
            figures.append(
                (
                    engine.expected_tokens(),
                    status.occupancy.estimated_tokens,
                    engine.composition().prefix_tokens,
                )
            )
        assert all(a <= b for a, b in zip(figures[0], figures[1], strict=True))
        assert figures[1][1] - figures[0][1] == high - low  # the estimate moves by the prefix
    finally:
        engine.close()
