"""Snippets: at most :data:`MAX_SNIPPET_CHARS` characters of an entry's text around a match.

A snippet is cut from text rebuilt from the entry's bytes as read back from the session and
verified against the entry's digest (:mod:`pifold_core.search.searcher` does the read), never
from the index, which holds no text at all. The match is found again in that text: the first
place a query word or phrase occurs (words matched case-insensitively, whole at their start,
as the index tokenises them), or the regular expression's first match. Whitespace runs are
shown as one space so a snippet is one line; ``…`` marks a cut.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pifold_core.search.query import Term

MAX_SNIPPET_CHARS = 300
"""Longest snippet, ellipses included."""

_LEAD = 80
"""Characters of context kept before the match."""

_WHITESPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+")


def term_pattern(terms: Sequence[Term]) -> re.Pattern[str] | None:
    """A pattern finding any of ``terms`` in text: each word at a word start, a phrase's words
    separated by anything that is not a word character (as the index splits them)."""
    alternatives: list[str] = []
    for term in terms:
        words = _WORD.findall(term.text)
        if not words:
            continue
        body = r"\W+".join(re.escape(word) for word in words)
        ending = r"\w*" if term.prefix else r"(?!\w)"
        alternatives.append(rf"(?<!\w){body}{ending}")
    if not alternatives:
        return None
    return re.compile("|".join(alternatives), re.IGNORECASE)


def cut_snippet(text: str, pattern: re.Pattern[str] | None) -> str:
    """At most :data:`MAX_SNIPPET_CHARS` characters of ``text`` around the first match of
    ``pattern`` (its start when nothing matches, or no pattern is given)."""
    found = pattern.search(text) if pattern is not None else None
    start = 0 if found is None else found.start()
    match_length = 0 if found is None else found.end() - start
    begin = max(0, start - _LEAD)
    # Take generously (squeezed whitespace shortens it), then trim to the limit. The match
    # starts at most _LEAD characters in, so it is always shown.
    piece = text[begin : begin + MAX_SNIPPET_CHARS * 2 + match_length]
    shown = _WHITESPACE.sub(" ", piece)
    head = ""
    if begin > 0:
        head, shown = "…", shown.lstrip()
    else:
        shown = shown.lstrip()
    cut_short = begin + len(piece) < len(text)
    if cut_short or len(head) + len(shown.rstrip()) > MAX_SNIPPET_CHARS:
        return head + shown[: MAX_SNIPPET_CHARS - len(head) - 1].rstrip() + "…"
    return head + shown.rstrip()


__all__ = ["MAX_SNIPPET_CHARS", "cut_snippet", "term_pattern"]
