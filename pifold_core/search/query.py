"""A search query: checked whole before anything runs, turned into an FTS5 expression.

The language is small on purpose. Words and ``"quoted phrases"``; an entry must hold every
one (when none holds them all, entries holding any of them are ranked instead, and the
result says so). A word ending in ``*`` matches as a prefix. Each term is cut into the
pieces the index's tokenizer makes of it (runs of letters and digits: ``handler_4242`` is
``handler`` and ``4242``) and each piece is handed to FTS5 as a quoted string, so FTS5's own
operators (``AND``, ``NEAR``, ``-``, ``:``) are plain text here and a query can never reach
SQLite as syntax it refuses. The index keeps no word positions (``detail=none``, see
:mod:`pifold_core.search.index`), so for a term of several pieces (a phrase, or a word like
``handler_4242``) FTS5 only finds the entries holding every piece; the searcher then checks
the term, in order, against each candidate's verified text (:attr:`Term.needs_check`).
Filters: a tool name (exact) and a path (a part of a path a tool call named).

``regex`` mode takes a Python regular expression instead, for exact patterns (an error code,
a hex id) the word index cannot express. Python's ``re`` cannot be interrupted, so the mode is
bounded before it runs: the pattern is at most :data:`MAX_PATTERN_CHARS` characters and may
not nest quantifiers (``(a+)+``, the shape of catastrophic backtracking) or use
backreferences, and the scan reads at most :data:`~pifold_core.search.searcher.MAX_SCANNED`
entries, newest first (the result says when it stopped short).

Every refusal is a :class:`SearchError` naming what was wrong; nothing runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pifold_core.admission import AdmissionError, admit_text

DEFAULT_LIMIT = 10
"""Hits per page when no limit is given."""

MAX_LIMIT = 50
"""Most hits one page may hold: a page must stay a modest tool result."""

MAX_OFFSET = 10_000
"""Furthest a page may start: past this, narrow the query instead."""

MAX_QUERY_CHARS = 1_000
"""Longest query accepted."""

MAX_TERMS = 32
"""Most words and phrases one query may hold."""

MAX_PATTERN_CHARS = 256
"""Longest regular expression accepted."""

MAX_FILTER_CHARS = 512
"""Longest tool or path filter accepted."""

_TERM = re.compile(r'"([^"]*)"|(\S+)')
_PIECE = re.compile(r"[^\W_]+")
"""A piece of a term as the index's ``unicode61`` tokenizer cuts text: letters and digits."""
_NESTED_QUANTIFIER = re.compile(r"\((?:[^()\\]|\\.)*[*+}](?:[^()\\]|\\.)*\)\s*(?:[*+]|\{\d*,)")
_BACKREFERENCE = re.compile(r"\\[1-9]|\(\?P=")


class SearchError(ValueError):
    """A query that cannot run; the message names the argument and what is wrong."""

    def __init__(self, message: str, argument: str = "query") -> None:
        super().__init__(message)
        self.argument = argument
        """The argument at fault (``query``, ``tool``, ``path``, ``limit``, ``offset``)."""


@dataclass(frozen=True, slots=True)
class Term:
    """One word or quoted phrase of a query."""

    text: str
    """The word or the phrase's text, without quotes or a trailing ``*``."""
    prefix: bool = False
    """A trailing ``*``: match any word starting with :attr:`text`."""

    @property
    def pieces(self) -> tuple[str, ...]:
        """The term's runs of letters and digits, as the index tokenised the text."""
        return tuple(_PIECE.findall(self.text))

    @property
    def needs_check(self) -> bool:
        """More than one piece: the index finds entries holding every piece, anywhere, and
        only the entry's text can say they stand together in order."""
        return len(self.pieces) > 1

    def fts(self) -> str:
        """The term as FTS5 strings, one per piece (all of them required), ``*`` after the
        last for a prefix. A piece holds only letters and digits: no quote to escape."""
        quoted = [f'"{piece}"' for piece in self.pieces]
        if self.prefix:
            quoted[-1] += " *"
        return quoted[0] if len(quoted) == 1 else "(" + " AND ".join(quoted) + ")"


@dataclass(frozen=True, slots=True)
class SearchQuery:
    """A checked query."""

    text: str
    """The query as given."""
    terms: tuple[Term, ...]
    """Its words and phrases (empty in regex mode)."""
    pattern: re.Pattern[str] | None
    """The compiled regular expression in regex mode, else ``None``."""
    tool: str | None
    """Only entries of this tool (a result's tool or a call's name)."""
    path: str | None
    """Only entries whose tool call names a path containing this."""
    limit: int
    """Hits per page."""
    offset: int
    """Hits skipped before the page."""


def parse_query(
    text: object,
    tool: object = None,
    path: object = None,
    regex: object = False,
    limit: object = DEFAULT_LIMIT,
    offset: object = 0,
) -> SearchQuery:
    """Check every argument and build the query.

    Raises:
        SearchError: naming the argument and what is wrong with it.
    """
    if not isinstance(regex, bool):
        raise SearchError(f"regex must be true or false, got {regex!r}", "regex")
    query = _text(text)
    limit_value = _whole(limit, "limit", 1, MAX_LIMIT)
    offset_value = _whole(offset, "offset", 0, MAX_OFFSET)
    tool_value = _filter(tool, "tool")
    path_value = _filter(path, "path")
    if regex:
        return SearchQuery(
            query, (), _pattern(query), tool_value, path_value, limit_value, offset_value
        )
    return SearchQuery(
        query, _terms(query), None, tool_value, path_value, limit_value, offset_value
    )


def _text(text: object) -> str:
    if not isinstance(text, str):
        raise SearchError(f"query must be a string, got {type(text).__name__}")
    if not text.strip():
        raise SearchError("query is empty: give the words, phrase or pattern to find")
    if len(text) > MAX_QUERY_CHARS:
        raise SearchError(f"query is {len(text):,} characters, more than {MAX_QUERY_CHARS:,}")
    return _admitted(text, "query")


def _admitted(text: str, name: str) -> str:
    """``text`` as UTF-8 can hold it (a split surrogate pair joined); a lone surrogate is
    refused here, never met by SQLite as an encoding error."""
    try:
        return admit_text(text, name)
    except AdmissionError as error:
        raise SearchError(str(error), name) from None


def _terms(text: str) -> tuple[Term, ...]:
    if text.count('"') % 2:
        raise SearchError(f"query {text!r} has an unbalanced quote: close the phrase with '\"'")
    terms: list[Term] = []
    for phrase, word in _TERM.findall(text):
        raw = phrase if phrase else word
        prefix = not phrase and raw.endswith("*") and len(raw) > 1
        body = raw.rstrip("*") if prefix else raw
        if not _PIECE.search(body):
            shown = f'"{raw}"' if phrase else raw
            raise SearchError(
                f"query term {shown!r} holds no letter or digit, and only words are indexed; "
                "use regex mode for punctuation"
            )
        terms.append(Term(body, prefix))
    if len(terms) > MAX_TERMS:
        raise SearchError(f"query has {len(terms)} words and phrases, more than {MAX_TERMS}")
    return tuple(terms)


def _pattern(text: str) -> re.Pattern[str]:
    if len(text) > MAX_PATTERN_CHARS:
        raise SearchError(
            f"regex is {len(text):,} characters, more than {MAX_PATTERN_CHARS}: "
            "search for its distinctive part"
        )
    if _NESTED_QUANTIFIER.search(text):
        raise SearchError(
            f"regex {text!r} repeats a group that itself repeats (like (a+)+), which can "
            "take exponential time; write it without the nested repetition"
        )
    if _BACKREFERENCE.search(text):
        raise SearchError(f"regex {text!r} uses a backreference, which is not allowed here")
    try:
        return re.compile(text)
    except re.error as error:
        raise SearchError(
            f"regex {text!r} is not a valid Python regular expression: {error}"
        ) from None


def _whole(value: object, name: str, lowest: int, highest: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SearchError(f"{name} must be a whole number, got {value!r}", name)
    if not lowest <= value <= highest:
        raise SearchError(f"{name} is {value}, outside {lowest} to {highest}", name)
    return value


def _filter(value: object, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise SearchError(f"{name} filter must be a non-empty string, got {value!r}", name)
    if len(value) > MAX_FILTER_CHARS:
        raise SearchError(
            f"{name} filter is {len(value):,} characters, more than {MAX_FILTER_CHARS}", name
        )
    return _admitted(value, name)


__all__ = [
    "DEFAULT_LIMIT",
    "MAX_FILTER_CHARS",
    "MAX_LIMIT",
    "MAX_OFFSET",
    "MAX_PATTERN_CHARS",
    "MAX_QUERY_CHARS",
    "SearchError",
    "SearchQuery",
    "Term",
    "parse_query",
]
