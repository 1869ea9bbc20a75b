"""The words any match of a regular expression must contain, for the index to narrow a scan.

Regex mode reads entries and runs the pattern over their text, at most
:data:`~pifold_core.search.searcher.MAX_SCANNED` of them. Without help that is the newest
entries of the session, so an error code from early in a long session was never reached.
Most patterns a model writes hold plain text (``return 99999\\d``, ``ERR-\\d+ timeout``), and
a match must contain that text; the word index can then name every entry that may match,
however old, and the scan reads only those.

Only what the index's tokenizer is sure to have cut the same way is used: runs of ASCII
letters and digits inside the pattern's top-level literal text, bounded by ASCII characters
that are neither (every one of which separates words for ``unicode61``). A run with such a
character before and after it is a whole word of any matching text; one that ends the
literal text, or is followed by a character outside ASCII (which may be a letter of the same
word), is the start of a word, which FTS5 matches as a prefix. A run at the start of the
literal text may be the end of a longer word and says nothing, and when case is ignored no
word is used. So the entries the index names are a superset of those the pattern matches:
narrowing never loses a match (tested against a real FTS5 table).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The standard library's own pattern parser (Python 3.11 on, as pifold requires): the words
# are read from the parsed pattern, never from its text, so escapes and flags count right.
from re import _parser as pattern_parser  # type: ignore[attr-defined]

MIN_WORD_CHARS = 2
"""Shortest run of letters and digits worth asking the index for (one character narrows
nothing)."""

_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")
_LITERAL = pattern_parser.LITERAL


@dataclass(frozen=True, slots=True)
class RequiredWords:
    """Words a match must contain, as the index holds them."""

    whole: tuple[str, ...]
    """Words that stand whole in any matching text."""
    prefixes: tuple[str, ...]
    """Starts of words of any matching text."""

    def match_expression(self) -> str:
        """The FTS5 ``MATCH`` expression naming every entry that may match: all the words
        (each quoted: letters and digits only, nothing to escape), prefixes with ``*``."""
        quoted = [f'"{word}"' for word in self.whole]
        quoted += [f'"{word}" *' for word in self.prefixes]
        return " AND ".join(quoted)


def required_words(pattern: re.Pattern[str]) -> RequiredWords | None:
    """The words every match of ``pattern`` contains (see the module docstring); ``None``
    when the pattern's literal text holds none the index can be asked for."""
    whole: dict[str, None] = {}
    prefixes: dict[str, None] = {}
    runs = _literal_runs(pattern)
    if runs is None:
        return None
    for text in runs:
        for found in _ASCII_WORD.finditer(text):
            start, end = found.span()
            if start == 0 or not text[start - 1].isascii() or end - start < MIN_WORD_CHARS:
                continue  # may be the end of a longer word, or too short to narrow
            word = found.group().lower()
            if end < len(text) and text[end].isascii():
                whole.setdefault(word, None)  # a separator follows: the whole word
            else:
                prefixes.setdefault(word, None)  # the word may go on
    if not whole and not prefixes:
        return None
    return RequiredWords(tuple(whole), tuple(prefixes))


def _literal_runs(pattern: re.Pattern[str]) -> list[str] | None:
    """The pattern's top-level runs of literal characters, each as text (a branch, a group,
    a class or a repeat ends a run: what lies inside them need not be in every match).
    ``None`` when case is ignored: Python then matches a ``k`` to the Kelvin sign and an
    ``s`` to the long s, which the index need not have folded the same way."""
    try:
        parsed = pattern_parser.parse(pattern.pattern, pattern.flags)
        flags = int(parsed.state.flags)
    except (re.error, AttributeError, TypeError):  # a parser of another layout: scan instead
        return None
    if flags & re.IGNORECASE:
        return None
    runs: list[str] = []
    current: list[str] = []
    for operation, argument in parsed:
        if operation is _LITERAL:
            current.append(chr(argument))
            continue
        if current:
            runs.append("".join(current))
            current = []
    if current:
        runs.append("".join(current))
    return runs


__all__ = ["MIN_WORD_CHARS", "RequiredWords", "required_words"]
