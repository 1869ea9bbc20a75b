"""Question probes (:mod:`pifold_bench.question_probes`): the data is sound, and a search with
a question's distinctive words finds its folded answer among the top three for most."""

from __future__ import annotations

from collections import Counter

from pifold_agent.bundled_traces import bundled_trace
from pifold_agent.importers.detect import load_trace
from pifold_bench.question_probes import (
    TOP,
    distinctive_words,
    load_probes,
    run_probes,
)
from pifold_core.engine import Engine
from pifold_core.search.text import searchable_text
from tests.core.engine_checks import assert_clean_audit, assert_lossless


def test_every_probe_names_real_entries_holding_its_answer() -> None:
    probes = load_probes()
    assert len(probes) >= 60
    assert len({probe.question for probe in probes}) == len(probes)
    for trace in {probe.trace for probe in probes}:
        entries = load_trace(bundled_trace(trace)).entries
        place = {entry.id: index for index, entry in enumerate(entries)}
        for probe in (probe for probe in probes if probe.trace == trace):
            assert probe.style in {"verbatim", "paraphrase"}
            assert all(answer in place for answer in probe.answers), probe.question
            # Older parts are what a session folds: every answer is in the first 80 %.
            assert all(place[answer] < 0.8 * len(entries) for answer in probe.answers)
            first = entries[place[probe.answers[0]]]
            assert probe.answer_text in searchable_text(first), probe.question


def test_the_query_is_what_the_question_names() -> None:
    assert distinctive_words("What port did the dev server listen on?") == (
        "port dev server listen"
    )
    assert distinctive_words("Which function in src/foo.py raised the KeyError?") == (
        "function src/foo.py raised KeyError"
    )
    assert distinctive_words('What does "--verbose" do at 0.0.0.0:5173, and why?') == (
        "verbose 0.0.0.0:5173"
    )
    assert distinctive_words("Why did it fail, and why did it fail again?") == "fail again"


def test_most_folded_answers_are_found_in_the_top_three() -> None:
    """Measured at 35 of 62 when BM25 was first computed in Python; hits ordered newest
    first, as FTS5's zero scores left them, found 10."""
    replayed: list[str] = []

    def sound(engine: Engine) -> None:
        # Searching rewrites nothing: the wire audit stays clean, every fold round-trips.
        assert_clean_audit(engine)
        assert_lossless(engine)
        replayed.append(str(engine.state_dir))

    outcomes = run_probes(load_probes(), after=sound)
    assert len(replayed) == len({outcome.probe.trace for outcome in outcomes})
    asked = [outcome for outcome in outcomes if outcome.asked]
    found = Counter(outcome.probe.style for outcome in asked if outcome.found)
    assert len(asked) >= 55
    assert sum(found.values()) >= len(asked) // 2, found
    assert found["verbatim"] >= 18 and found["paraphrase"] >= 10, found
    assert all(outcome.rank is None or outcome.rank >= 1 for outcome in outcomes)
    assert all(
        outcome.found == (outcome.rank is not None and outcome.rank <= TOP) for outcome in asked
    )
