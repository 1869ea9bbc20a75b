"""The set-up's words: a refusal is one line naming the engine state and what to do.

The refusals of whole runs (a damaged log, a second writer, a file out of place) are driven
end to end in ``test_run_setup.py``; these are the words for each kind of error on their own.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pifold_agent.run_input import CommandError
from pifold_agent.setup_report import flatten, one_line, setup_failure
from pifold_core.journal import JournalCorrupt
from pifold_core.store import StoreError

STATE = Path("/srv/pifold/state/s1")


@given(st.text())
def test_flattened_text_is_one_line_with_single_spaces(text: str) -> None:
    flat = flatten(text)
    assert flat == flat.strip() and "  " not in flat
    assert not any(character.isspace() and character != " " for character in flat)
    assert flat.split() == text.split()


def test_an_os_error_names_its_file_and_an_empty_error_its_kind() -> None:
    missing = FileNotFoundError(2, "No such file or directory", "/w/settings.json")
    assert one_line(missing) == "/w/settings.json: No such file or directory"
    assert one_line(RuntimeError()) == "RuntimeError"
    assert one_line(ValueError("two\nlines")) == "two lines"


def test_a_user_error_is_said_as_it_is() -> None:
    assert setup_failure(CommandError("no session  here"), None, STATE) == "no session here"


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (
            JournalCorrupt("line 3 is damaged"),
            f"the session's fold log is damaged, so it is not opened: line 3 is damaged; "
            f"`pifold doctor {STATE}` says what is damaged",
        ),
        (
            StoreError("object f1 is missing", "ab" * 32),
            f"cannot open the session's engine state {STATE}: object f1 is missing; "
            f"`pifold doctor {STATE}` says what is damaged",
        ),
        (
            PermissionError(13, "Permission denied", str(STATE)),
            f"cannot open the session's engine state {STATE}: {STATE}: Permission denied",
        ),
        (KeyError("x"), "unexpected KeyError: 'x' (a bug in pifold: please report it)"),
    ],
)
def test_each_kind_of_failure_names_the_state_and_what_to_do(error: Exception, words: str) -> None:
    line = setup_failure(error, None, STATE)
    assert words in line and "\n" not in line


def test_without_a_state_folder_the_doctor_is_named_with_a_placeholder() -> None:
    line = setup_failure(StoreError("bad", "ab" * 32), None)
    assert line == "cannot open the engine state: bad; `pifold doctor STATE` says what is damaged"
