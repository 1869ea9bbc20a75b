"""The fold screens are one table: ``pifold inspect``'s keys and palette and the terminal
app's fold commands are made from it (issue 20: the app kept a second table of them)."""

from __future__ import annotations

from pifold_tui.app.slash import COMMANDS, FOLD_SCREENS
from pifold_tui.screens.catalogue import SCREEN_ACTIONS


def test_the_app_answers_each_screen_of_the_table_first_and_in_its_order() -> None:
    rows = COMMANDS[: len(SCREEN_ACTIONS)]
    assert [row.slash for row in rows] == [action.command for action in SCREEN_ACTIONS]
    for row, action in zip(rows, SCREEN_ACTIONS, strict=True):
        assert row.description == action.slash_help
        assert row.available_during_run is action.during_run
        assert row.run is FOLD_SCREENS[action.name]
    assert {action.name for action in SCREEN_ACTIONS} == set(FOLD_SCREENS)


def test_the_fold_commands_read_as_before() -> None:
    assert [(row.name, row.available_during_run) for row in COMMANDS[:4]] == [
        ("fold-status", True),
        ("fold", False),
        ("fold-editor", True),
        ("fold-settings", False),
    ]
    assert COMMANDS[0].description == "Every figure behind the bar: budget, band, folds, audit"
