"""Suggestions at a commit: the folds related to the fresh tail, appended once with surfacing on."""

from __future__ import annotations

from pathlib import Path

from pifold_core.engine import Engine
from pifold_core.entries import Entry
from pifold_core.search.suggestions import MAX_SUGGESTIONS, SUGGESTIONS_TAG, suggestion_text
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import assert_clean_audit, assert_lossless, chapters

DEFINITION = "parse_settings_tree"
PATH = "src/config_loader.py"


def session_naming_a_folded_definition() -> SessionBuilder:
    """A value read early (then folded), and a fresh tail that names it again."""
    session = SessionBuilder()
    session.user("Why does loading the settings fail?")
    call = session.assistant("Reading the loader.", [("read", {"path": PATH})])
    body = "x = 1\n" * 200 + f"def {DEFINITION}(root):\n    return RETRY_BUDGET_MS\n" + "y\n" * 200
    session.result(call.tool_calls[0], body)
    session.assistant("It recurses without a limit.")
    chapters(session, 4, first=1)
    session.user(f"Now change {DEFINITION} in {PATH} to stop at depth 8.")
    session.assistant("On it.")
    return session


def _engine(path: Path, surfacing: bool) -> Engine:
    engine = Engine.open(path / "state", small_options(budget=200_000), CharCounter())
    engine.set_surfacing(surfacing)
    drive(engine, session_naming_a_folded_definition().entries)
    engine.commit_now()
    return engine


def _notes(engine: Engine) -> list[Entry]:
    return [
        entry
        for entry in engine.view.transcript.entries
        if entry.extra.get("pifold") == SUGGESTIONS_TAG
    ]


def test_the_request_after_a_commit_lists_the_related_fold(tmp_path: Path) -> None:
    engine = _engine(tmp_path, surfacing=True)
    folded_at = engine.view.transcript.index_of[session_naming_a_folded_definition().entries[2].id]
    expected = engine.view.forest.chain_at(folded_at)[-1].handle
    request = engine.prepare_request()
    (note,) = _notes(engine)
    assert engine.view.transcript.entries[-1] is note  # appended with the commit's rewrite
    assert request.messages[-1]["content"] == [{"type": "text", "text": note.text}]
    suggested = note.extra["suggested"]
    assert isinstance(suggested, list) and suggested[0] == expected
    assert len(suggested) <= MAX_SUGGESTIONS
    first_line = next(line for line in note.text.splitlines() if line.startswith(f"- {expected}"))
    assert DEFINITION in first_line and PATH in first_line
    engine.append(SessionBuilder(prefix="later-").assistant("Looking."))
    engine.prepare_request()
    assert len(_notes(engine)) == 1  # once: never repeated, updated or withdrawn
    assert_clean_audit(engine)
    assert_lossless(engine)
    engine.close()


def test_surfacing_is_off_unless_turned_on(tmp_path: Path) -> None:
    engine = _engine(tmp_path, surfacing=False)
    engine.prepare_request()
    assert _notes(engine) == []
    engine.close()


def test_the_same_session_gets_the_same_suggestions(tmp_path: Path) -> None:
    texts = []
    for name in ("one", "two"):
        engine = _engine(tmp_path / name, surfacing=True)
        engine.prepare_request()
        texts.append([note.text for note in _notes(engine)])
        engine.close()
    assert texts[0] == texts[1] and texts[0]


def test_a_note_names_at_most_six_terms_per_fold() -> None:
    from pifold_core.search.suggestions import Suggestion

    shared = tuple(f"term_{number}" for number in range(9))
    text = suggestion_text(3, [Suggestion("fold-abc", shared, 1.0)])
    assert "- fold-abc: term_0, term_1, term_2, term_3, term_4, term_5 and 3 more" in text
    assert text.startswith("[pi-fold] Commit 3 folded older context.")
