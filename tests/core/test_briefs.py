"""Deterministic briefs: bounded, identifier-keeping, reproducible (DESIGN §3)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pifold_core.briefs import (
    MAX_BRIEF_CHARS,
    BriefError,
    bounded,
    consolidated_brief,
    extract_identifiers,
    span_brief,
    tool_brief,
    validate_supplied_brief,
)
from pifold_core.builder import FoldBuilder
from pifold_core.entries import Entry
from pifold_core.folds import Forest
from pifold_core.transcript import Transcript
from tests.core.builders import SessionBuilder, filler

PATH = "src/pifold_core/deep/module_loader.py"
ERROR = "KeyError: 'missing_setting' raised in load_config"
HASH = "3f2a9c1b7d4e5f60a1b2c3d4e5f60718293a4b5c"
CONSTANT = "PIFOLD_MAX_RETRIES"
NUMBER = "48213"


def _buried(seed: int = 0) -> str:
    """A long tool result with identifiers buried in its middle (not in its head or tail)."""
    head = filler(3_000, seed)
    tail = filler(3_000, seed + 1)
    middle = (
        f"\nopening {PATH} for reading\n{ERROR}\n"
        f"commit {HASH}\nenv {CONSTANT}=3\nprocessed {NUMBER} rows\n"
    )
    return head + middle + tail


def _tool_session(text: str, note: str = "Next I will fix the loader.") -> list[Entry]:
    session = SessionBuilder()
    session.user("please fix it")
    call = session.assistant("Reading.", [("read", {"path": PATH})])
    session.result(call.tool_calls[0], text)
    session.assistant(note)
    return session.entries


def test_tool_brief_keeps_identifiers_buried_in_the_result() -> None:
    entries = _tool_session(_buried())
    brief = tool_brief(entries[1], [entries[2]], entries[3])
    assert len(brief) <= MAX_BRIEF_CHARS
    assert brief.startswith("Ran read(path=" + PATH)
    for identifier in (PATH, ERROR, HASH, CONSTANT, NUMBER):
        assert identifier in brief, identifier
    assert 'agent noted "Next I will fix the loader."' in brief
    assert "exact result here" in brief


def test_tool_brief_reports_errors_and_shape() -> None:
    session = SessionBuilder()
    call = session.assistant("", [("bash", {"cmd": "pytest -x"}), ("bash", {"cmd": "ls"})])
    first = session.result(call.tool_calls[0], "FAILED tests/test_x.py::test_y", is_error=True)
    second = session.result(call.tool_calls[1], "README.md\nsetup.cfg")
    brief = tool_brief(call, [first, second], None)
    assert "bash(cmd=pytest -x); bash(cmd=ls)" in brief
    assert 'opens "FAILED tests/test_x.py::test_y"' in brief
    assert 'ends "README.md setup.cfg"' in brief
    assert "1 error result" in brief
    assert "2 exact results here" in brief


def test_span_brief_has_ask_tools_notes_and_identifiers() -> None:
    session = SessionBuilder()
    session.user("Why does the loader crash on startup?")
    session.batch([100], text="Looking at the loader first.", tool="read")
    call = session.assistant("Running the tests.", [("bash", {"cmd": "pytest"})])
    session.result(call.tool_calls[0], _buried(3), is_error=True)
    session.assistant("The crash comes from a missing key.")
    brief = span_brief(session.entries)
    assert brief.startswith('User asked "Why does the loader crash on startup?"')
    assert "Tools: 1×bash 1×read" in brief
    assert "1 tool error" in brief
    assert "Looking at the loader first." in brief
    assert "The crash comes from a missing key." in brief
    for identifier in (PATH, ERROR, HASH, CONSTANT, NUMBER):
        assert identifier in brief, identifier
    assert len(brief) <= MAX_BRIEF_CHARS


def test_consolidated_brief_keeps_short_children_whole() -> None:
    short = "short child brief about config.toml"
    long = "x" * 5_000
    brief = consolidated_brief([long, short, "another short one"], [])
    assert brief.startswith("3 folds: ")
    assert short in brief and "another short one" in brief
    assert len(brief) <= MAX_BRIEF_CHARS


def test_consolidated_brief_mentions_gaps_and_omissions() -> None:
    session = SessionBuilder()
    gap = session.note("gap")
    brief = consolidated_brief(["a" * 300] * 400, [gap])
    assert brief.startswith("400 folds and 1 short entries: ")
    assert "more" in brief
    assert len(brief) <= MAX_BRIEF_CHARS


def test_briefs_are_deterministic() -> None:
    entries = _tool_session(_buried(5))
    transcript = Transcript()
    for entry in entries:
        transcript.append(entry)
    one = FoldBuilder(transcript, Forest()).build("tool", 2, 3, commit=1).fold
    two = FoldBuilder(transcript, Forest()).build("tool", 2, 3, commit=9).fold
    assert one.brief == two.brief and one.placeholder == two.placeholder
    assert one.brief_provenance == "runtime"
    assert span_brief(entries) == span_brief(list(entries))


def test_identifiers_ranked_errors_first() -> None:
    found = extract_identifiers([f"see {PATH}\nrows {NUMBER}\n{ERROR}\nkey {CONSTANT}"])
    assert found[0] == ERROR
    assert found.index(CONSTANT) < found.index(PATH) < found.index(NUMBER)


def test_supplied_brief_is_kept_verbatim_with_agent_provenance() -> None:
    entries = _tool_session("result text")
    transcript = Transcript()
    for entry in entries:
        transcript.append(entry)
    text = "  Read the loader; the crash is KeyError in load_config.  "
    fold = FoldBuilder(transcript, Forest()).build("span", 0, 4, commit=1, brief=text).fold
    assert fold.brief == text.strip()
    assert fold.brief_provenance == "agent"
    assert text.strip() in fold.placeholder


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("   \n ", "empty"),
        ("x" * (MAX_BRIEF_CHARS + 1), "limit"),
        ("!! -- ?? 12", "no content"),
        ("a_b c_d", "no content"),
    ],
)
def test_supplied_brief_validation(text: str, reason: str) -> None:
    with pytest.raises(BriefError, match=reason):
        validate_supplied_brief(text)


def test_supplied_brief_must_be_a_string() -> None:
    with pytest.raises(BriefError, match="string"):
        validate_supplied_brief(42)  # type: ignore[arg-type]


def test_bounded() -> None:
    assert bounded("abc", 3) == "abc"
    assert bounded("abcdef", 4) == "abc…"
    assert len(bounded("a" * 10_000, MAX_BRIEF_CHARS)) == MAX_BRIEF_CHARS


texts = st.lists(
    st.text(max_size=40)
    | st.sampled_from(["/", ".py", "_", "Error", "\n", " ", "FAILED", "ABC_DEF", "12345"]),
    max_size=300,
).map("".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(texts, min_size=1, max_size=6), texts)
def test_every_brief_is_bounded(results: list[str], note: str) -> None:
    session = SessionBuilder()
    session.user(note or "ask")
    call = session.assistant(note, [("read", {"path": text[:300]}) for text in results])
    outputs = [
        session.result(tool_call, text, is_error=bool(len(text) % 2))
        for tool_call, text in zip(call.tool_calls, results, strict=True)
    ]
    following = session.assistant(note)
    tool = tool_brief(call, outputs, following)
    span = span_brief(session.entries)
    consolidated = consolidated_brief([tool, span, *results], outputs)
    for brief in (tool, span, consolidated):
        assert len(brief) <= MAX_BRIEF_CHARS
    assert tool == tool_brief(call, outputs, following)


@settings(max_examples=40, deadline=None)
@given(texts, st.sampled_from([PATH, ERROR, HASH, CONSTANT, NUMBER]))
def test_identifier_is_visible_when_present(noise: str, identifier: str) -> None:
    entries = _tool_session(f"{noise[:2000]}\n{identifier}\n{filler(4_000)}")
    brief = tool_brief(entries[1], [entries[2]], entries[3])
    assert len(brief) <= MAX_BRIEF_CHARS
    assert identifier in brief
