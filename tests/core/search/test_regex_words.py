"""The words a regex match must contain: never more than the index holds of a matching text."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pifold_core.search import parse_query, searcher
from pifold_core.search.regex_words import RequiredWords, required_words
from pifold_core.search.schema import WORD_TABLE
from pifold_core.tool.render_search import render_search
from tests.core.engine_checks import assert_clean_audit, assert_lossless
from tests.core.search.planted import SECRET, planted_engine


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"return 99999\d", RequiredWords((), ("99999",))),
        (r"[a-z]+ reached max_retries=\d", RequiredWords(("reached", "max", "retries"), ())),
        (r"x.handler_4242\(", RequiredWords(("4242",), ())),  # "." is any character
        (r" Timeout ", RequiredWords(("timeout",), ())),  # the index folds case
        (r"a caf\u00e9 b", RequiredWords((), ("caf",))),  # é may go on the word
        (r"foo|bar", None),  # a branch: neither word is in every match
        (r"abc", None),  # may be the end of a longer word
        (r"(?i) key error", None),  # case ignored: Python folds a Kelvin sign to k
        (r"(?x) status \s+ 500", None),  # verbose: each word starts its literal text
        (r" a b ", None),  # one character narrows nothing
    ],
)
def test_the_words_of_a_pattern(pattern: str, expected: RequiredWords | None) -> None:
    assert required_words(re.compile(pattern)) == expected


def test_the_match_expression_quotes_each_word_and_marks_prefixes() -> None:
    words = RequiredWords(("reached", "max"), ("9999",))
    assert words.match_expression() == '"reached" AND "max" AND "9999" *'


_PIECES = st.sampled_from(
    ["ab", "Key", "99", "x1", "é", "ß", "\u212a", "ſ", "_", " ", "-", ".", "\n", "(", "Ωmega"]
)


@given(st.lists(_PIECES, min_size=1, max_size=14).map("".join), st.data())
@settings(max_examples=300)
def test_the_index_finds_every_text_the_pattern_matches(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    before = data.draw(st.sampled_from(["", r"\w*", ".", r"\s?"]))
    after = data.draw(st.sampled_from(["", r"\d*", ".?", "[a-z]"]))
    flags = data.draw(st.sampled_from([0, re.IGNORECASE]))
    _assert_found(re.compile(before + re.escape(text[start:end]) + after, flags), text)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (" abé", "x abé y"),  # é continues the word: the index holds "abe"
        ("(?i) key ", "a \u212aey b"),  # Python folds the Kelvin sign to k
        ("(?i) ms ", "a m\u017f b"),  # and the long s to s
        ("-99 ", "x-99 y"),
    ],
)
def test_the_index_finds_the_edge_cases(pattern: str, text: str) -> None:
    _assert_found(re.compile(pattern), text)


def _assert_found(pattern: re.Pattern[str], text: str) -> None:
    """Where ``pattern`` matches ``text``, its words find ``text`` in a real index."""
    words = required_words(pattern)
    if words is None or pattern.search(text) is None:
        return
    connection = sqlite3.connect(":memory:")
    connection.execute(WORD_TABLE)
    connection.execute("INSERT INTO body (rowid, text) VALUES (1, ?)", (text,))
    found = connection.execute(
        "SELECT rowid FROM body WHERE body MATCH ?", (words.match_expression(),)
    ).fetchall()
    assert found == [(1,)], (pattern.pattern, text, words)


def test_a_match_older_than_the_scan_bound_is_found_through_its_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, _ = planted_engine(tmp_path)
    monkeypatch.setattr(searcher, "MAX_SCANNED", 3)  # the planted result is far older
    found = engine.search(parse_query(r"deploy_key = ZEPHYR-\d{4}", regex=True))
    assert found.total == 1 and SECRET in found.hits[0].snippet
    assert (found.scanned, found.unscanned) == (1, 0)  # the index named only its entry
    query = parse_query(r"Z[E]PHYR-\d{4}", regex=True)  # no word the index can be asked for
    unnarrowed = engine.search(query)
    assert unnarrowed.total == 0 and unnarrowed.scanned == 3 and unnarrowed.unscanned > 0
    shown = render_search(query, unnarrowed)
    assert "the scan read the newest 3 entries it could match and stopped at its bound" in shown
    assert "plain words in the pattern, each after a space or punctuation" in shown
    assert_clean_audit(engine)  # searching rewrote nothing sent
    assert_lossless(engine)
    engine.close()
