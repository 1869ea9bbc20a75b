"""Snippets: at most :data:`MAX_SNIPPET_CHARS` characters of an entry's text around a match.

A snippet is cut from text rebuilt from the entry's bytes as read back from the session and
verified against the entry's digest (:mod:`pifold_core.search.searcher` does the read), never
from the index, which holds no text at all. The match is found again in that text: the first
place a query word or phrase occurs (its pieces of letters and digits matched whole, in
order, case-insensitively, as the index tokenises them), or the regular expression's first
match. Whitespace runs are shown as one space so a snippet is one line; ``…`` marks a cut.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from pifold_core.search.query import Term

MAX_SNIPPET_CHARS = 300
"""Longest snippet, ellipses included."""

_LEAD = 80
"""Characters of context kept before the match."""

_WHITESPACE = re.compile(r"\s+")


def term_pattern(terms: Sequence[Term]) -> re.Pattern[str] | None:
    """A pattern finding any of ``terms`` in text as the index tokenises it: a term's pieces
    (runs of letters and digits) whole, in order, apart only by other characters
    (``handler_4242`` finds ``handler-4242``), case folded; a prefix's last piece may go on."""
    alternatives: list[str] = []
    for term in terms:
        pieces = term.pieces
        if not pieces:
            continue
        body = r"[\W_]+".join(re.escape(piece) for piece in pieces)
        ending = r"[^\W_]*" if term.prefix else r"(?![^\W_])"
        alternatives.append(rf"(?<![^\W_]){body}{ending}")
    if not alternatives:
        return None
    return re.compile("|".join(alternatives), re.IGNORECASE)


def term_check(term: Term) -> Callable[[str], bool]:
    """Whether a text holds ``term`` as :func:`term_pattern` finds it, made fast for checking
    many entries: the text is case folded once and the pattern starts with the term's first
    piece as a literal (which ``re`` scans for quickly); the word boundary before it is
    asserted after it."""
    pieces = [piece.casefold() for piece in term.pieces]
    first = re.escape(pieces[0])
    rest = "".join(r"[\W_]+" + re.escape(piece) for piece in pieces[1:])
    ending = r"[^\W_]*" if term.prefix else r"(?![^\W_])"
    pattern = re.compile(rf"{first}(?<![^\W_]{first}){rest}{ending}")
    return lambda text: pattern.search(text.casefold()) is not None


def line_prefilter(terms: Sequence[Term]) -> Callable[[bytes], bool] | None:
    """Whether an entry's raw log line (JSON, unverified) may hold every one of ``terms``:
    true for every line whose entry's text holds them (a JSON escape such as ``\\n`` is let
    stand where the text has a separator), so it may pass a line the exact check then
    refuses, never the reverse. ``None`` when a piece is not ASCII (the line may spell it
    escaped): every line must then be checked in full."""
    if not all(piece.isascii() for term in terms for piece in term.pieces):
        return None
    escape = rb"\\u[0-9a-f]{4}|\\[a-z\"/\\]"
    separator = rb"(?:" + escape + rb"|[^a-z0-9])+"
    patterns: list[re.Pattern[bytes]] = []
    for term in terms:
        pieces = [re.escape(piece.lower().encode("ascii")) for piece in term.pieces]
        first = pieces[0]
        # The boundary before the first piece, asserted after it: nothing alphanumeric, or
        # an escape's last character.
        before = (
            rb"(?:(?<![a-z0-9]" + first + rb")|(?<=\\[a-z]" + first + rb")"
            rb"|(?<=\\u[0-9a-f]{4}" + first + rb"))"
        )
        rest = b"".join(separator + piece for piece in pieces[1:])
        patterns.append(re.compile(first + before + rest))
    return lambda line: all(
        pattern.search(lowered) is not None for lowered in (line.lower(),) for pattern in patterns
    )


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


__all__ = ["MAX_SNIPPET_CHARS", "cut_snippet", "line_prefilter", "term_check", "term_pattern"]
