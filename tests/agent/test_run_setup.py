"""``pifold -p`` refuses what it cannot open in one line, exit 2, and changes nothing
(Reliability II, defects 5, 12, 13).

Each case damages a session a real headless run left (its fold log, its state folder, its
file), holds it with another writer, or puts a FIFO where the settings file should be; the
refusal must be one ``error:`` line saying what is wrong and what to do, never a traceback,
and once the damage is dealt with as the line says, the session opens again with nothing
lost.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pifold_agent.run_input import CommandError
from pifold_agent.sessions import SessionFile, state_directory
from pifold_tui.app.session_setup import open_live
from tests.agent.headless_cases import (
    FOLDING_BUDGET,
    answer_script,
    continue_problems,
    folding_script,
    headless,
    newest,
    options_in,
    refusal_problems,
)
from tests.core.fifo_feeder import fed_fifo


def folded_session(root: Path) -> Path:
    """A session whose state holds folds; returns its state folder."""
    outcome = headless(options_in(root, script=folding_script(root), budget=FOLDING_BUDGET))
    assert outcome.code == 0, outcome.err
    state = state_directory(newest(root).path)
    assert any((state / "store").rglob("*")), "the session folded nothing"
    return state


def continued(root: Path, **fields: object) -> tuple[int, str, str]:
    outcome = headless(
        options_in(root, continue_session=True, script=answer_script(root), **fields)
    )
    return outcome.code, outcome.out, outcome.err


def test_a_damaged_fold_log_is_one_line_naming_the_doctor(tmp_path: Path) -> None:
    state = folded_session(tmp_path)
    log = state / "fold-log.jsonl"
    data = bytearray(log.read_bytes())
    data[len(data) // 3] ^= 0x20  # one flipped bit in the middle of the log
    log.write_bytes(bytes(data))
    before = newest(tmp_path).path.read_bytes()
    outcome = headless(options_in(tmp_path, continue_session=True, script=answer_script(tmp_path)))
    assert refusal_problems(outcome, 2, "fold log is damaged", f"pifold doctor {state}") == []
    assert newest(tmp_path).path.read_bytes() == before  # nothing was recorded
    # What the line says works: with the state moved aside, the session opens from its file.
    state.rename(state.with_name(state.name + ".damaged"))
    assert continue_problems(tmp_path) == []


def test_a_deleted_fold_log_over_folds_is_refused_and_the_advice_works(tmp_path: Path) -> None:
    state = folded_session(tmp_path)
    (state / "fold-log.jsonl").unlink()
    outcome = headless(options_in(tmp_path, continue_session=True, script=answer_script(tmp_path)))
    assert refusal_problems(outcome, 2, "is missing", "pifold doctor") == []
    shutil.move(state, state.with_name("aside"))
    assert continue_problems(tmp_path) == []


@pytest.mark.parametrize("where", ["state folder", "fold log"])
def test_a_file_or_folder_out_of_place_is_one_line(tmp_path: Path, where: str) -> None:
    state = folded_session(tmp_path)
    moved = tmp_path / "moved"
    if where == "state folder":
        shutil.move(state, moved)
        state.write_text("a file where the state folder should be")
        phrase = "is not a folder"
    else:
        shutil.move(state / "fold-log.jsonl", moved)
        (state / "fold-log.jsonl").mkdir()
        phrase = "Is a directory"
    outcome = headless(options_in(tmp_path, continue_session=True, script=answer_script(tmp_path)))
    assert refusal_problems(outcome, 2, phrase) == []
    if where == "state folder":
        state.unlink()
        shutil.move(moved, state)
    else:
        (state / "fold-log.jsonl").rmdir()
        shutil.move(moved, state / "fold-log.jsonl")
    assert continue_problems(tmp_path, budget=FOLDING_BUDGET) == []


@pytest.mark.parametrize("no_fold", [False, True])
def test_a_second_writer_is_refused_in_every_mode(tmp_path: Path, no_fold: bool) -> None:
    assert headless(options_in(tmp_path, script=answer_script(tmp_path))).code == 0
    path = newest(tmp_path).path
    holder = SessionFile.open(path)
    holder.claim()  # another run (the app, a headless run) is writing it
    try:
        before = path.read_bytes()
        outcome = headless(
            options_in(
                tmp_path, continue_session=True, script=answer_script(tmp_path), no_fold=no_fold
            )
        )
        problems = refusal_problems(outcome, 2, newest(tmp_path).id, f"pid {os.getpid()}")
        assert problems == []
        assert path.read_bytes() == before
    finally:
        holder.close()
    assert continue_problems(tmp_path, no_fold=no_fold) == []


def test_a_fifo_as_the_settings_file_is_refused_unopened(
    tmp_path: Path, isolated_settings: Path
) -> None:
    folder = isolated_settings / "pi-fold"
    folder.mkdir()
    with fed_fifo(folder / "settings.json", b"{}") as fed:
        outcome = headless(options_in(tmp_path, script=answer_script(tmp_path)))
        assert refusal_problems(outcome, 2, "FIFO") == []
        assert fed == []
    (folder / "settings.json").unlink()
    assert headless(options_in(tmp_path, script=answer_script(tmp_path))).code == 0


def test_a_settings_file_others_may_write_is_said(tmp_path: Path, isolated_settings: Path) -> None:
    folder = isolated_settings / "pi-fold"
    folder.mkdir()
    (folder / "settings.json").write_text("{}")
    os.chmod(folder / "settings.json", 0o666)
    outcome = headless(options_in(tmp_path, script=answer_script(tmp_path)))
    assert outcome.code == 0
    assert outcome.err.startswith("warning: settings file") and "every user" in outcome.err


def test_the_app_start_up_refuses_with_the_same_line(tmp_path: Path) -> None:
    state = folded_session(tmp_path)
    log = state / "fold-log.jsonl"
    log.write_bytes(log.read_bytes()[:40] + b"XX" + log.read_bytes()[42:])
    options = options_in(
        tmp_path, prompt=None, continue_session=True, script=answer_script(tmp_path)
    )
    with pytest.raises(CommandError, match="fold log is damaged") as refused:
        open_live(options, None)
    assert "\n" not in str(refused.value)
    holder = SessionFile.open(newest(tmp_path).path)
    holder.claim()  # the refused open left no lock behind
    holder.close()


def test_a_refused_run_logs_nothing_not_even_its_budget(tmp_path: Path) -> None:
    assert headless(options_in(tmp_path, script=answer_script(tmp_path))).code == 0
    state = state_directory(newest(tmp_path).path)
    log = (state / "fold-log.jsonl").read_bytes()
    outcome = headless(
        # Above what the system prompt and tools take (about 1,430 tokens), below the paste.
        options_in(tmp_path, continue_session=True, script=answer_script(tmp_path), budget=1_700),
        b"a line of a pasted log\n" * 400,
    )
    assert refusal_problems(outcome, 2, "message refused", "budget is 1,700") == []
    assert (state / "fold-log.jsonl").read_bytes() == log  # the budget was not logged
    assert continue_problems(tmp_path) == []  # and the session runs on at its own


def test_a_budget_below_the_floor_is_refused_before_anything_opens(tmp_path: Path) -> None:
    outcome = headless(options_in(tmp_path, script=answer_script(tmp_path), budget=999))
    assert (
        refusal_problems(outcome, 2, "--budget must be from 1,000 to 10,000,000 tokens, got 999")
        == []
    )
    assert not (tmp_path / "sessions").exists()


def test_a_new_session_refused_leaves_no_state_behind(tmp_path: Path) -> None:
    outcome = headless(
        options_in(tmp_path, script=answer_script(tmp_path), budget=1_200),
        b"a line of a pasted log\n" * 400,
    )
    assert refusal_problems(outcome, 2, "message refused") == []
    leftovers = [path for path in (tmp_path / "sessions").rglob("*") if path.is_file()]
    assert leftovers == []


def test_damage_the_open_works_around_is_said(tmp_path: Path) -> None:
    state = folded_session(tmp_path)
    log = state / "fold-log.jsonl"
    log.write_bytes(log.read_bytes()[:-5])  # the last line torn, as a kill mid-write leaves it
    (state / "checkpoint.json").write_bytes(b"{not a checkpoint")
    outcome = headless(
        options_in(
            tmp_path, continue_session=True, script=answer_script(tmp_path), budget=FOLDING_BUDGET
        )
    )
    assert (outcome.code, outcome.out) == (0, "ok\n")
    warnings = [line for line in outcome.err.splitlines() if line.startswith("warning: ")]
    assert any("was torn" in line and "cut off" in line for line in warnings), outcome.err
    assert any("checkpoint was not used" in line for line in warnings), outcome.err
    assert continue_problems(tmp_path, budget=FOLDING_BUDGET) == []
