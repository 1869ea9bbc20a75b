"""Deterministic briefs: bounded, identifier-keeping, reproducible (DESIGN §3)."""

from __future__ import annotations

from pathlib import Path

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
from pifold_core.engine import Engine
from pifold_core.entries import Entry
from pifold_core.folds import Forest
from pifold_core.transcript import Transcript
from tests.core.builders import CharCounter, SessionBuilder, drive, filler, small_options
from tests.core.engine_checks import assert_reopens_identically

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


# -- what the agent acted on, fatal lines, versions, definitions (issue 12) -------------------

NOISE_WITH_ERROR_WORDS = "\n".join(
    f"step {number}: retried the error handler, no errors so far, handled error count 0"
    for number in range(60)
)


@pytest.mark.parametrize(
    "line",
    [
        "error[E0425]: cannot find value `total` in this scope",
        "FATAL: the database system is shutting down",
        "npm ERR! code ERESOLVE",
        "the runner saw exit code 2 after the link step",
        "Traceback (most recent call last):",
        "AssertionError: expected 3 rows, got 4",
        "panic: runtime error: index out of range [5] with length 3",
        "HTTP/1.1 503 Service Unavailable",
        "GET /api/users returned 404 Not Found",
        "src/main.rs:12:5: error: mismatched types",
        "upstream answered with status: 502",
        "fatal: not a git repository (or any of the parent directories): .git",
        "bash: line 1: rgx: command not found",
    ],
)
def test_fatal_lines_are_kept_from_the_middle_of_noise(line: str) -> None:
    text = f"{NOISE_WITH_ERROR_WORDS}\n{line}\n{NOISE_WITH_ERROR_WORDS}"
    found = extract_identifiers([text])
    assert found[0] == line
    # Lines that merely mention errors are noise, not fatal lines.
    assert not any("handled error count" in value for value in found)
    entries = _tool_session(text)
    assert line in tool_brief(entries[1], [entries[2]], entries[3])


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ("installed v1.2.3 from the registry", "v1.2.3"),
        ("pinned requests==2.4.1 in the lock", "requests==2.4.1"),
        ("added @types/node@20.11.5 as a dev dependency", "@types/node@20.11.5"),
        ("toolchain go1.22.3 linux/amd64", "go1.22.3"),
    ],
)
def test_version_strings_are_kept_exactly(source: str, value: str) -> None:
    assert value in extract_identifiers([f"{filler(2_000)}\n{source}\n{filler(2_000, 1)}"])


@pytest.mark.parametrize(
    ("source", "name"),
    [
        ("def parse_header(raw, strict=False):", "parse_header"),
        ("class TokenBucket(Limiter):", "TokenBucket"),
        ("function renderPage(props) {", "renderPage"),
        ("pub fn spawn_worker(queue: Queue) -> Handle {", "spawn_worker"),
        ("func NewServer(config Config) *Server {", "NewServer"),
        ("func (s *Server) HandleLogin(w http.ResponseWriter) {", "HandleLogin"),
        ("export const apiBase = process.env.API_BASE", "apiBase"),
    ],
)
def test_defined_names_are_kept(source: str, name: str) -> None:
    found = extract_identifiers([f"{filler(1_500)}\n    {source}\n{filler(1_500, 2)}"])
    assert name in found


def _crowded_result(count: int = 80) -> str:
    """A result with many more identifiers than a brief has room for."""
    lines = [
        f"src/pkg/area_{number}/handler_{number}.py: {100_000 + number}" for number in range(count)
    ]
    return "\n".join(lines)


def test_identifiers_the_agent_used_later_come_first() -> None:
    session = SessionBuilder()
    call = session.assistant("Listing.", [("bash", {"cmd": "grep -rn handler src"})])
    result = session.result(call.tool_calls[0], _crowded_result())
    note = session.assistant("The culprit is in src/pkg/area_71/handler_71.py, line 100071.")
    edit = session.assistant("", [("edit", {"path": "src/pkg/area_64/handler_64.py"})])
    plain = tool_brief(call, [result], None)
    used = tool_brief(call, [result], None, [note, edit])
    assert "src/pkg/area_71/handler_71.py" not in plain  # crowded out without the later use
    ids = used.split(" · ids: ")[1].split("; ")
    # What the agent's next note already shows is not repeated among the identifiers.
    noted = tool_brief(call, [result], note, [note, edit])
    assert noted.split(" · ids: ")[1].startswith("src/pkg/area_64/handler_64.py; ")
    assert ids[:3] == ["src/pkg/area_71/handler_71.py", "100071", "src/pkg/area_64/handler_64.py"]
    assert len(used) <= MAX_BRIEF_CHARS


def test_later_use_is_read_within_its_bound() -> None:
    from pifold_core.identifiers import LATER_CHARS, LATER_ENTRIES

    texts = [_crowded_result()]
    wanted = "src/pkg/area_71/handler_71.py"
    session = SessionBuilder()
    far = [session.assistant(f"Still thinking, step {n}.") for n in range(LATER_ENTRIES)]
    past_entries = [*far, session.assistant(f"Now open {wanted}.")]
    within = [*far[: LATER_ENTRIES - 1], session.assistant(f"Now open {wanted}.")]
    long_text = session.assistant("x" * LATER_CHARS + f" {wanted}")
    assert extract_identifiers(texts, later=within)[0] == wanted
    assert extract_identifiers(texts, later=past_entries)[0] != wanted
    assert extract_identifiers(texts, later=[long_text])[0] != wanted
    # Tool results and user messages after the span are not the agent acting.
    user = session.user(f"What about {wanted}?")
    assert extract_identifiers(texts, later=[user])[0] != wanted


def test_a_brief_depends_on_its_span_and_later_entries_only() -> None:
    from pifold_core.identifiers import forget_scans

    session = SessionBuilder()
    call = session.assistant("Listing.", [("bash", {"cmd": "ls"})])
    session.result(call.tool_calls[0], _crowded_result())
    session.assistant("Looking closer.", [("read", {"path": "src/pkg/area_70/handler_70.py"})])
    transcript = Transcript()
    for entry in session.entries:
        transcript.append(entry)
    first = FoldBuilder(transcript, Forest()).build("tool", 1, 2, commit=1).fold
    forget_scans()
    again = FoldBuilder(transcript, Forest()).build("tool", 1, 2, commit=4).fold
    assert first.brief == again.brief and first.placeholder == again.placeholder
    assert first.brief.split(" · ids: ")[1].startswith("src/pkg/area_70/handler_70.py; ")
    # Without the later call, the same span keeps its identifiers in their own order.
    shorter = Transcript()
    for entry in session.entries[:2]:
        shorter.append(entry)
    alone = FoldBuilder(shorter, Forest()).build("tool", 1, 2, commit=1).fold
    assert "src/pkg/area_70/handler_70.py" not in alone.brief


def test_consolidated_brief_ranks_its_childrens_identifiers() -> None:
    children = [
        "Tools: 2×read · ids: src/a.py; src/b.py; 1234; helper_name",
        "Tools: 1×bash · ids: error: E_STUCK_4411 in shard 12; ck_0123456789abcdef0123",
        "An agent's own brief without identifiers",
    ]
    brief = consolidated_brief(children, [])
    assert brief.startswith("3 folds: ")
    ids = brief.split(" · ids: ")[1].split("; ")
    assert ids[0] == "error: E_STUCK_4411 in shard 12"  # fatal lines first
    assert set(ids) == {
        "error: E_STUCK_4411 in shard 12",
        "ck_0123456789abcdef0123",
        "src/a.py",
        "src/b.py",
        "1234",
        "helper_name",
    }
    assert "An agent's own brief without identifiers" in brief


def test_agent_use_after_a_consolidated_fold_comes_first() -> None:
    children = [f"Tools: 1×read · ids: src/mod_{n}.py; {5000 + n}" for n in range(30)]
    session = SessionBuilder()
    later = [session.assistant("Back to src/mod_29.py now.")]
    ids = consolidated_brief(children, [], later).split(" · ids: ")[1].split("; ")
    assert ids[0] == "src/mod_29.py"


@settings(max_examples=40, deadline=None)
@given(st.lists(texts, min_size=1, max_size=4), st.lists(texts, max_size=4))
def test_briefs_with_later_entries_are_bounded_and_deterministic(
    results: list[str], later_texts: list[str]
) -> None:
    session = SessionBuilder()
    call = session.assistant("", [("read", {"path": text[:200]}) for text in results])
    outputs = [
        session.result(tool_call, text)
        for tool_call, text in zip(call.tool_calls, results, strict=True)
    ]
    later = [session.assistant(text, [("edit", {"old": text[:300]})]) for text in later_texts]
    tool = tool_brief(call, outputs, later[0] if later else None, later)
    span = span_brief(session.entries[: -len(later)] if later else session.entries, later)
    consolidated = consolidated_brief([tool, span, *results], outputs, later)
    for brief in (tool, span, consolidated):
        assert len(brief) <= MAX_BRIEF_CHARS
    assert tool == tool_brief(call, outputs, later[0] if later else None, list(later))
    assert consolidated == consolidated_brief([tool, span, *results], outputs, list(later))


def test_a_reopened_session_keeps_the_briefs_its_commits_made(tmp_path: Path) -> None:
    session = SessionBuilder()
    for chapter in range(4):
        session.user(f"Chapter {chapter}: find the slow handler")
        call = session.assistant("Searching.", [("bash", {"cmd": f"grep -rn slow src/{chapter}"})])
        session.result(call.tool_calls[0], _crowded_result(60 + chapter))
        session.assistant(
            "Reading it.",
            [("read", {"path": f"src/pkg/area_{50 + chapter}/handler_{50 + chapter}.py"})],
        )
        session.result(session.entries[-1].tool_calls[0], filler(1_500, chapter))
        session.assistant(f"Handler {50 + chapter} is the slow one.")
    session.user("what next?")
    session.assistant("Waiting.")
    engine = Engine.open(
        tmp_path / "state", small_options(budget=200_000, min_fold_chars=2_000), CharCounter()
    )
    drive(engine, session.entries)
    engine.commit_now()
    engine.prepare_request()
    used_first = [
        fold
        for fold in engine.view.forest.folds.values()
        if fold.kind == "tool" and " · ids: src/pkg/area_5" in fold.brief
    ]
    assert used_first, "a tool fold's brief should lead with the path the agent read next"
    # Entries after the commit would change a recomputed brief: a reopen must not recompute.
    session.user("and handler 10?")
    drive(
        engine, [session.entries[-1], session.assistant("Opening src/pkg/area_10/handler_10.py.")]
    )
    last = used_first[-1]
    recomputed = FoldBuilder(engine.view.transcript, Forest()).build(
        "tool", last.start, last.end, 9
    )
    assert recomputed.fold.brief != last.brief
    reopened = assert_reopens_identically(engine)
    assert {h: f.brief for h, f in reopened.view.forest.folds.items()} == {
        h: f.brief for h, f in engine.view.forest.folds.items()
    }
    engine.close()
