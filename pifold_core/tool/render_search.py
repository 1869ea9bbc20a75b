"""The text of a ``search`` result (issue 21): the total, one page of hits, the next step.

Like every result of the tool it is a pure function of what it reports (it becomes part of
the cached prefix). Each hit names the fold to peek and the entry inside it, and the call
that reads just around the match, so the model's next step is a narrow ``peek``.
"""

from __future__ import annotations

from pifold_core.search import DEFAULT_LIMIT, SearchHit, SearchQuery, SearchResults
from pifold_core.tool.render import call_text

PEEK_BEFORE_BYTES = 200
"""Bytes before the match the suggested ``peek`` starts at."""

PEEK_BYTES = 800
"""Bytes the suggested ``peek`` reads."""


def render_search(query: SearchQuery, results: SearchResults) -> str:
    """The hits, best first, with a ready ``peek`` for each."""
    mode = "regex" if query.pattern is not None else "search"
    filters = "".join(
        f" {name} {value!r}"
        for name, value in (("tool", query.tool), ("path", query.path))
        if value is not None
    )
    lines = [f"{mode} {query.text!r}{filters}: {_summary(results)}"]
    if results.rebuilt is not None:
        lines.append(f"note: {results.rebuilt}")
    if results.any_term:
        lines.append("note: no entry holds every word; entries holding any of them are ranked")
    if results.scanned is not None and results.unscanned:
        lines.append(
            f"note: the scan read the newest {results.scanned:,} entries it could match and "
            f"stopped at its bound; {results.unscanned:,} older ones were not read (plain "
            "words in the pattern, each after a space or punctuation, let the index pick the "
            "entries holding them; or drop regex, or narrow with tool or path)"
        )
    if results.checked is not None and results.unchecked:
        lines.append(
            f"note: a phrase is checked in each entry's exact text; the best "
            f"{results.checked:,} entries holding its words were checked, {results.unchecked:,} "
            "more were not (add words, or narrow with tool or path)"
        )
    for number, hit in enumerate(results.hits, start=results.offset + 1):
        lines.extend(_hit_lines(number, hit))
    following = results.offset + len(results.hits)
    if following < results.total:
        hint: dict[str, object] = {"action": "search", "query": query.text}
        if query.pattern is not None:
            hint["regex"] = True
        for name, value in (("tool", query.tool), ("path", query.path)):
            if value is not None:
                hint[name] = value
        if query.limit != DEFAULT_LIMIT:
            hint["limit"] = query.limit
        hint["offset"] = following
        lines.append(f"more: {results.total - following:,} further hits; next: {call_text(**hint)}")
    if results.hits:
        lines.append(
            "next: peek a hit narrowly and answer from its exact bytes, not from the snippet"
        )
    return "\n".join(lines)


def _summary(results: SearchResults) -> str:
    if results.total == 0:
        scanned = f" among {results.scanned:,} entries read" if results.scanned is not None else ""
        if results.checked:
            scanned = f" among {results.checked:,} entries checked for the phrase"
        return f"no hits{scanned} (only folded entries and clipped results are searched)"
    noun = "hit" if results.total == 1 else "hits"
    if not results.hits:
        return f"{results.total:,} {noun}, none at offset {results.offset:,}"
    first, last = results.offset + 1, results.offset + len(results.hits)
    return f"{results.total:,} {noun}, showing {first:,} to {last:,}"


def _hit_lines(number: int, hit: SearchHit) -> list[str]:
    where = f"fold {hit.fold}" if hit.fold is not None else "clipped, outside every fold"
    tool = f" {hit.tool}" if hit.tool is not None else ""
    offset = max(0, (hit.byte_offset or 0) - PEEK_BEFORE_BYTES)
    peek: dict[str, object] = {"action": "peek", "id": hit.peek_id or hit.entry}
    if offset:
        peek["offset"] = offset
    peek["bytes"] = PEEK_BYTES
    return [
        f"{number}. {where} · entry {hit.entry} · {hit.role}{tool}",
        f"   {hit.snippet}",
        f"   peek: {call_text(**peek)}",
    ]


__all__ = ["PEEK_BEFORE_BYTES", "PEEK_BYTES", "render_search"]
