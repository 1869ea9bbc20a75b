"""Suggestions at a commit (issue 21, part 3): the folds most related to the fresh tail.

A commit already rewrites the window, so the request after it is the one moment a note can
reach the model without costing a cache byte. With ``surfacing`` on, the engine appends one
note there listing up to :data:`MAX_SUGGESTIONS` folds that share identifiers and paths with
what the session is doing now, each with its handle and the shared terms, so the model can
``peek`` what it would otherwise not know is there. The note is an ordinary append, written
once and never updated or withdrawn.

How the folds are chosen, deterministically (the same session gives the same note):

1. **The fresh tail's terms**: the last :data:`TAIL_ENTRIES` entries shown raw, newest first.
   From what the user and the model wrote (text and tool-call arguments) every
   identifier-like token (:func:`pifold_core.identifiers.scan_entry`: ``snake_case``,
   ``camelCase``, dotted names, paths, keys, numbers); from tool results only the values a
   brief would keep (keys, versions, definitions, paths). Tokens of fewer than
   :data:`MIN_TERM_CHARS` characters are left out; at most :data:`MAX_TERMS`, in the order
   met.
2. **The newest entries holding the terms**: the search index (every folded entry) is asked
   for entries holding any of the terms, :data:`CANDIDATE_ENTRIES` of them ordered by FTS5's
   ``bm25()`` and then newest first; each entry's score counts toward the innermost fold
   holding it (entries shown raw, and clipped results outside every fold, count for
   nothing), ties going to the newer fold. On this index ``bm25()`` is 0 for every row
   (:mod:`pifold_core.search.ranking` says why), so in effect the newest entries holding a
   term are taken and the newest folds holding them come first. Measured with ``pifold
   bench`` (``fold`` arm, seed 7): ordering by the BM25 the search now computes
   (:mod:`~pifold_core.search.ranking`) did worse, 89 later uses of a name only the
   suggested folds hold against 94.5 for random folds, where this order gives 100.
3. **The shared terms**: each chosen fold's best entries are read back verified and the terms
   found in that text (or among the paths their tool calls named, which the index keeps with
   a result) are listed; a fold none of whose terms is found there is dropped, so a listed
   term is always really in the fold.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pifold_core.entries import Entry, text_entry
from pifold_core.identifiers import scan_entry, scan_text
from pifold_core.placeholders import TOOL_NAME
from pifold_core.search.index import SearchIndex
from pifold_core.search.query import Term
from pifold_core.search.searcher import SearchedSession, verified_row
from pifold_core.search.snippets import term_check

MAX_SUGGESTIONS = 5
"""Most folds one note lists."""

TAIL_ENTRIES = 12
"""Raw entries at the end of the window whose terms are looked for."""

MAX_TERMS = 24
"""Most terms of the tail searched for."""

MAX_TAIL_CHARS = 20_000
"""Characters of one user or assistant entry read for terms."""

MIN_TERM_CHARS = 4
"""Shorter tokens (``id``, ``foo``) match too much to say two places are related."""

CANDIDATE_ENTRIES = 200
"""Best ranked entries whose scores are summed per fold."""

ENTRIES_READ_PER_FOLD = 2
"""A chosen fold's best entries read back to name the shared terms."""

FOLDS_EXAMINED = 10
"""Best ranked folds read back at most: a fold whose entries hold only the terms' pieces
apart (``handler`` and ``2468``, not ``handler_2468``) is dropped, and the note stops short
rather than read the whole ranking."""

MAX_SHARED_SHOWN = 6
"""Shared terms named per fold."""

SUGGESTIONS_TAG = "commit-suggestions"
"""Value of ``extra["pifold"]`` on the note: how a reopened session recognises one."""

_TOKEN = re.compile(r"[\w@.+/~-]+")


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One fold the note lists."""

    handle: str
    """The fold's handle (what ``peek`` takes)."""
    shared: tuple[str, ...]
    """Terms of the fresh tail found in the fold's verified text, in the tail's order."""
    score: float
    """Summed FTS5 ``bm25()`` of its entries (higher: more related); 0 on this index's
    layout (see step 2)."""


def tail_terms(session: SearchedSession) -> list[str]:
    """The fresh tail's terms, in the order met, newest entry first (see step 1)."""
    transcript, forest = session.transcript, session.forest
    terms: dict[str, None] = {}
    newest_first = range(len(transcript) - 1, max(-1, len(transcript) - 1 - TAIL_ENTRIES), -1)
    for index in newest_first:
        if len(terms) >= MAX_TERMS or not forest.shows_raw(index):
            break  # enough, or the tail ends at the newest fold
        entry = transcript.entries[index]
        for term in _entry_terms(entry):
            if len(term) >= MIN_TERM_CHARS and Term(term).pieces:
                terms.setdefault(term, None)
    return list(terms)[:MAX_TERMS]


def _entry_terms(entry: Entry) -> list[str]:
    """An entry's candidate terms in text order (see step 1 of the module docstring)."""
    if entry.kind == "tool_result":
        found = scan_entry(entry)
        return [*found.keys, *found.versions, *found.definitions, *found.paths]
    pieces = [entry.text]
    for call in entry.tool_calls:
        arguments = call.arguments
        values = arguments.values() if isinstance(arguments, dict) else [arguments]
        pieces.extend(value for value in values if isinstance(value, str))
    text = "\n".join(pieces)[:MAX_TAIL_CHARS]
    found = scan_text(text)
    wanted = found.tokens() | found.values()
    tokens = (raw.rstrip(".-") for raw in _TOKEN.findall(text))
    return [token for token in tokens if token in wanted]


def mid_batch(session: SearchedSession) -> bool:
    """The newest tool batch still waits for results: a note cannot go there yet."""
    units = session.transcript.units
    return bool(units) and bool(units[-1].pending_calls) and not units[-1].sealed


def related_folds(
    session: SearchedSession, index: SearchIndex, terms: Sequence[str]
) -> list[Suggestion]:
    """Up to :data:`MAX_SUGGESTIONS` folds most related to ``terms`` (steps 2 and 3)."""
    if not terms:
        return []
    query = [Term(term) for term in terms]
    expression = " OR ".join(term.fts() for term in query)
    rows = (
        index.connection()
        .execute(
            "SELECT e.rowid, e.entry_id, e.role, e.tools, e.paths, bm25(body) FROM body "
            "JOIN entries AS e ON e.rowid = body.rowid WHERE body MATCH ? "
            "ORDER BY bm25(body), e.rowid DESC LIMIT ?",
            (expression, CANDIDATE_ENTRIES),
        )
        .fetchall()
    )
    forest = session.forest
    scores: dict[str, float] = {}
    places: dict[str, list[tuple[int, str, str, str]]] = {}
    paths: dict[str, list[str]] = {}
    newest: dict[str, int] = {}
    for rowid, entry_id, role, tools, named, rank in rows:
        place = int(rowid)
        if forest.shows_raw(place):
            continue
        handle = forest.chain_at(place)[-1].handle
        scores[handle] = scores.get(handle, 0.0) - float(rank)  # bm25: lower is better
        places.setdefault(handle, []).append((place, str(entry_id), str(role), str(tools)))
        paths.setdefault(handle, []).append(str(named))
        newest[handle] = max(newest.get(handle, -1), place)
    ranked = sorted(scores, key=lambda handle: (-scores[handle], -newest[handle]))
    checks = [(term, term_check(Term(term))) for term in terms]
    chosen: list[Suggestion] = []
    for handle in ranked[:FOLDS_EXAMINED]:
        if len(chosen) >= MAX_SUGGESTIONS:
            break
        read = places[handle][:ENTRIES_READ_PER_FOLD]
        texts = [verified_row(session, *place)[1] for place in read]
        texts.extend(paths[handle][: len(read)])  # a result's call named them
        shared = tuple(term for term, check in checks if any(check(text) for text in texts))
        if shared:
            chosen.append(Suggestion(handle, shared, scores[handle]))
    return chosen


def suggestion_text(commit: int, suggestions: Sequence[Suggestion]) -> str:
    """What the note says: the folds, their shared terms, and how to look."""
    lines = [
        f"[pi-fold] Commit {commit} folded older context. Folds that share names with what "
        "you are working on now (peek one if it bears on the task):"
    ]
    for suggestion in suggestions:
        shown = ", ".join(suggestion.shared[:MAX_SHARED_SHOWN])
        more = len(suggestion.shared) - MAX_SHARED_SHOWN
        if more > 0:
            shown += f" and {more} more"
        lines.append(f"- {suggestion.handle}: {shown}")
    lines.append(f'Look with {TOOL_NAME} {{"action":"peek","id":"<handle>"}}, or search.')
    return "\n".join(lines)


def suggestion_entry(
    session: SearchedSession, commit: int, suggestions: Sequence[Suggestion]
) -> Entry:
    """The note to append, stamped with the newest entry's time (replays stay identical)."""
    transcript = session.transcript
    timestamp = transcript.entries[-1].timestamp_ms if len(transcript) else 0
    return text_entry(
        f"pifold-suggest-{commit}-{len(transcript)}",
        "note",
        suggestion_text(commit, suggestions),
        timestamp,
        extra={"pifold": SUGGESTIONS_TAG, "suggested": [item.handle for item in suggestions]},
    )


__all__ = [
    "CANDIDATE_ENTRIES",
    "MAX_SUGGESTIONS",
    "MAX_TERMS",
    "SUGGESTIONS_TAG",
    "TAIL_ENTRIES",
    "Suggestion",
    "mid_batch",
    "related_folds",
    "suggestion_entry",
    "suggestion_text",
    "tail_terms",
]
