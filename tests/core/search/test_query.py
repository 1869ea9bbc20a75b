"""Bad queries get a clear error naming what was wrong; good ones become safe FTS5 strings."""

from __future__ import annotations

import pytest

from pifold_core.search import SearchError, parse_query


@pytest.mark.parametrize(
    ("arguments", "argument", "message"),
    [
        ({"text": ""}, "query", "empty"),
        ({"text": "   "}, "query", "empty"),
        ({"text": 7}, "query", "must be a string"),
        ({"text": '"open phrase'}, "query", "unbalanced quote"),
        ({"text": "--- ***"}, "query", "no letter or digit"),
        ({"text": "x" * 1001}, "query", "more than 1,000"),
        ({"text": "(unclosed", "regex": True}, "query", "not a valid Python regular"),
        ({"text": "(a+)+b", "regex": True}, "query", "exponential"),
        ({"text": r"(x)\1", "regex": True}, "query", "backreference"),
        ({"text": "a" * 257, "regex": True}, "query", "more than 256"),
        ({"text": "ok", "regex": "yes"}, "regex", "true or false"),
        ({"text": "ok", "limit": 51}, "limit", "outside 1 to 50"),
        ({"text": "ok", "limit": 0}, "limit", "outside 1 to 50"),
        ({"text": "ok", "limit": True}, "limit", "whole number"),
        ({"text": "ok", "offset": -1}, "offset", "outside 0"),
        ({"text": "ok", "tool": ""}, "tool", "non-empty"),
        ({"text": "ok", "path": 3}, "path", "non-empty"),
    ],
)
def test_bad_queries_are_refused_by_name(
    arguments: dict[str, object], argument: str, message: str
) -> None:
    with pytest.raises(SearchError, match=message) as raised:
        parse_query(**arguments)
    assert raised.value.argument == argument


def test_fts_operators_are_plain_words() -> None:
    query = parse_query('NEAR(a b) OR -x "col:umn" pre*')
    assert [term.fts() for term in query.terms] == [
        '("NEAR" AND "a")',
        '"b"',
        '"OR"',
        '"x"',
        '("col" AND "umn")',
        '"pre" *',
    ]


def test_a_term_is_cut_into_the_pieces_the_index_holds() -> None:
    word, phrase, prefix = parse_query('handler_4242 "parser buffer" log_lev*').terms
    assert (word.pieces, word.needs_check) == (("handler", "4242"), True)
    assert (phrase.pieces, phrase.needs_check) == (("parser", "buffer"), True)
    assert prefix.fts() == '("log" AND "lev" *)'
    assert not parse_query("parser").terms[0].needs_check


def test_quotes_inside_words_never_reach_fts() -> None:
    assert [term.fts() for term in parse_query('say"s" it').terms] == ['("say" AND "s")', '"it"']
