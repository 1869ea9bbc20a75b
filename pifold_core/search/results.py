"""What a search returns: the total, one page of hits, and what the index had to do first."""

from __future__ import annotations

from dataclasses import dataclass

from pifold_core.canonical import JsonValue


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One entry that matched."""

    fold: str | None
    """The innermost fold holding the entry now (folds consolidate, so this is computed
    against the current folds at every search); ``None`` for a clipped result outside every
    fold, which ``peek`` takes by its entry id."""
    entry: str
    """The entry's id."""
    index: int
    """The entry's place in the transcript (0-based)."""
    role: str
    """``user``, ``assistant``, ``tool_result`` or ``note``."""
    tool: str | None
    """A result's tool, or the first tool an assistant entry calls; ``None`` otherwise."""
    snippet: str
    """At most 300 characters around the match, cut from the entry's verified bytes."""
    byte_offset: int | None = None
    """Where the match lies in the bytes ``peek`` of :attr:`peek_id` reads, when it was
    found there; ``None`` otherwise."""
    peek_id: str | None = None
    """What to peek for the matched bytes: the entry id, or for a result kept as evidence
    the evidence id (the entry holds only a preview)."""

    def to_json(self) -> dict[str, JsonValue]:
        """The hit as ``pifold search --json`` prints it."""
        return {
            "fold": self.fold,
            "entry": self.entry,
            "index": self.index,
            "role": self.role,
            "tool": self.tool,
            "snippet": self.snippet,
            "byteOffset": self.byte_offset,
            "peek": self.peek_id,
        }


@dataclass(frozen=True, slots=True)
class SearchResults:
    """The outcome of one search."""

    total: int
    """Entries that matched in all (regex mode: among those scanned)."""
    hits: tuple[SearchHit, ...]
    """The page asked for, best first (regex mode: newest first)."""
    offset: int
    """Hits skipped before this page."""
    rebuilt: str | None = None
    """Set when the index had to be rebuilt first: why (it is never done silently)."""
    any_term: bool = False
    """No entry held every word, so entries holding any of them were ranked instead."""
    scanned: int | None = None
    """Regex mode: entries read and matched."""
    unscanned: int = 0
    """Regex mode: older indexed entries left unread at the scan's bound."""
    checked: int | None = None
    """A query with a phrase (or a word of several pieces): candidates whose verified text
    was checked for it, best ranked first; :attr:`total` counts the matches among them."""
    unchecked: int = 0
    """Candidates holding every piece left unchecked at the check's bound."""

    def to_json(self) -> dict[str, JsonValue]:
        """``{"total": N, "hits": [...]}`` and the notes a reader needs."""
        body: dict[str, JsonValue] = {
            "total": self.total,
            "offset": self.offset,
            "hits": [hit.to_json() for hit in self.hits],
        }
        if self.rebuilt is not None:
            body["rebuilt"] = self.rebuilt
        if self.any_term:
            body["anyTerm"] = True
        if self.scanned is not None:
            body["scanned"] = self.scanned
            body["unscanned"] = self.unscanned
        if self.checked is not None:
            body["checked"] = self.checked
            body["unchecked"] = self.unchecked
        return body


__all__ = ["SearchHit", "SearchResults"]
