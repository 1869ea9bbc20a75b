"""The floor after a reopen (issue 12): a threshold commit held back for runway logs its
floor with the request it held back, so a reopened engine's status names the same floor as
the live one before it closed, and a landed threshold commit clears it on both sides.

The session is :mod:`tests.core.test_runway`'s: six pending chapters measured by a provider
that also counted a host prompt of 10,000 tokens, at a 20k budget.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pifold_core import checkpoint
from pifold_core.engine import Engine, EngineError
from pifold_core.journal import Journal
from pifold_core.runway import FLOOR_FIELDS, Floor
from pifold_core.tool.render import render_status
from pifold_tui.fold_bar.suffix import suffix_text
from tests.core.builders import SessionBuilder
from tests.core.engine_checks import assert_reopens_identically, reopen
from tests.core.test_runway import _options, _with_host_prompt


def _blocked(path: Path) -> tuple[Engine, Floor]:
    engine = _with_host_prompt(path, 10_000)
    assert engine.prepare_request().commit is None
    assert engine.view.floor is not None
    return engine, engine.view.floor


def _logged_floors(engine: Engine) -> list[object]:
    engine._state.journal.sync()
    log = Journal(engine._state.journal.path, read_only=True)
    return [r.body["floor"] for r in log.read_all() if r.kind == "request" and "floor" in r.body]


def test_a_reopened_status_names_the_floor_the_live_one_named(tmp_path: Path) -> None:
    engine, floor = _blocked(tmp_path)
    live_status, live_bar = render_status(engine.status()), suffix_text(engine.composition())
    assert _logged_floors(engine) == [floor.to_record()]
    reopened = reopen(engine)
    try:
        assert reopened.status().floor == floor
        assert render_status(reopened.status()) == live_status
        assert suffix_text(reopened.composition()) == live_bar
        assert "blocked by floor (host 10k" in live_bar
    finally:
        reopened.close()


def test_a_floor_stays_through_later_requests_and_is_logged_once(tmp_path: Path) -> None:
    engine, floor = _blocked(tmp_path)
    # Asked again at the same state the rule does not run its dry run again: same floor.
    engine.append(SessionBuilder(prefix="again").user("still there?"))
    assert engine.prepare_request().commit is None and engine.view.floor is floor
    assert len(_logged_floors(engine)) == 1
    assert_reopens_identically(engine)  # durable state includes the floor


def test_a_landed_threshold_commit_clears_the_floor_after_reopen_too(tmp_path: Path) -> None:
    engine, floor = _blocked(tmp_path)
    engine.apply_options(_options(floor.budget_that_works))
    engine.append(SessionBuilder(prefix="wider").user("with more room"))
    assert engine.prepare_request().commit is not None and engine.view.floor is None
    reopened = reopen(engine)
    try:
        assert reopened.status().floor is None
        assert "blocked" not in suffix_text(reopened.composition())
    finally:
        reopened.close()


def test_a_floor_record_round_trips_and_a_malformed_one_is_refused() -> None:
    floor = Floor(10_000, 0, 1_200, 800, 12_000, 10_000, 24_000)
    assert Floor.from_record(json.loads(json.dumps(floor.to_record()))) == floor
    assert list(floor.to_record()) == list(FLOOR_FIELDS)
    record = floor.to_record()
    for bad in (
        {**record, "pin_tokens": -1},
        {**record, "host_tokens": "10k"},
        {**record, "host_tokens": True},
        {key: value for key, value in record.items() if key != "needed_after"},
        {**record, "extra": 1},
        [1, 2, 3],
    ):
        with pytest.raises(EngineError, match="logged floor"):
            Floor.from_record(bad)


def test_a_reopen_from_a_checkpoint_names_the_same_floor(tmp_path: Path) -> None:
    engine, floor = _blocked(tmp_path)
    checkpoint.write(engine._state)  # what a long session's close leaves: reopen starts from it
    reopened = reopen(engine)
    try:
        assert reopened.view.checkpoint_problem is None
        assert (reopened.state_dir / checkpoint.CHECKPOINT_NAME).is_file()
        assert reopened.status().floor == floor
    finally:
        reopened.close()
