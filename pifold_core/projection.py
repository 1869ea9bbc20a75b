"""The projection: the messages the provider receives (DESIGN §4).

The projection is kept as a list of :class:`Item`, each covering a contiguous range of
entries and carrying one wire message, its digest and its token count. Items tile the
transcript in order. Between commits the only change is :meth:`Projection.append_entry`, so
a request costs work proportional to what was appended. A commit or a verb replaces the items
of one range at a time (:meth:`Projection.splice`), costing work proportional to what is
visible, never to the length of the session.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from pifold_core.canonical import JsonValue, wire_digest_of
from pifold_core.folds import Fold, Forest
from pifold_core.placeholders import note_message, sibling_result_placeholder, tool_result_message
from pifold_core.tokens import TokenCounter
from pifold_core.transcript import Transcript
from pifold_core.views import ViewKind


class ProjectionError(RuntimeError):
    """The projection's items no longer tile the transcript: an engine bug, never input."""


@dataclass(frozen=True, slots=True)
class Item:
    """One projected message and the entries it stands for."""

    start: int
    """First entry index covered."""
    end: int
    """One past the last entry index covered."""
    message: dict[str, JsonValue]
    """The wire message sent to the provider."""
    digest: str
    """SHA-256 of the message's wire bytes: exactly what a host sends for it
    (:func:`pifold_core.canonical.wire_bytes`), so a reordering is a different digest."""
    tokens: int
    """Estimated tokens of the message."""
    fold: str | None = None
    """Handle of the fold this item is a placeholder for, if any."""


class Projection:
    """The current projection, maintained incrementally."""

    def __init__(self, transcript: Transcript, forest: Forest, counter: TokenCounter) -> None:
        self.transcript = transcript
        self.forest = forest
        self.counter = counter
        self.items: list[Item] = []
        """The projected messages in order."""
        self.tokens = 0
        """Sum of the items' token estimates."""
        self._starts: list[int] = []
        self._placeholder_cache: dict[tuple[str, int], Item] = {}
        self.views: dict[int, tuple[ViewKind, str]] = {}
        """Raw tool results shown reduced (clipped or withdrawn), by entry index."""

    # -- building items --------------------------------------------------------------------

    def raw_item(self, index: int) -> Item:
        view = self.views.get(index)
        if view is not None:
            return self._view_item(index, view[1])
        entry = self.transcript.entries[index]
        message = entry.wire
        digest = entry.wire_digest
        return Item(index, index + 1, message, digest, self.counter.count_message(message, digest))

    def _message_item(self, start: int, end: int, message: dict[str, JsonValue], fold: str) -> Item:
        digest = wire_digest_of(message)
        return Item(start, end, message, digest, self.counter.count_message(message, digest), fold)

    def _view_item(self, index: int, text: str) -> Item:
        entry = self.transcript.entries[index]
        message = tool_result_message(
            str(entry.call_id), str(entry.tool_name), entry.is_error, text
        )
        digest = wire_digest_of(message)
        return Item(index, index + 1, message, digest, self.counter.count_message(message, digest))

    def collapsed_items(self, fold: Fold) -> list[Item]:
        """The placeholder items of a collapsed fold."""
        if fold.kind != "tool":
            key = (fold.handle, -1)
            item = self._placeholder_cache.get(key)
            if item is None:
                item = self._message_item(
                    fold.start, fold.end, note_message(fold.placeholder), fold.handle
                )
                self._placeholder_cache[key] = item
            return [item]
        items: list[Item] = []
        total = fold.end - fold.start
        for position, index in enumerate(range(fold.start, fold.end)):
            key = (fold.handle, index)
            cached = self._placeholder_cache.get(key)
            if cached is None:
                result = self.transcript.entries[index]
                text = (
                    fold.placeholder
                    if position == 0
                    else sibling_result_placeholder(fold.handle, position + 1, total)
                )
                message = tool_result_message(
                    str(result.call_id), str(result.tool_name), result.is_error, text
                )
                cached = self._message_item(index, index + 1, message, fold.handle)
                self._placeholder_cache[key] = cached
            items.append(cached)
        return items

    def items_of_fold(self, fold: Fold) -> list[Item]:
        """Items for a fold as the forest shows it now: collapsed, or open one level."""
        if fold.handle not in self.forest.expanded:
            return self.collapsed_items(fold)
        return self.interior_items(fold)

    def interior_items(self, fold: Fold) -> list[Item]:
        """Items of an expanded fold: its raw leaves and its children as they are shown."""
        items: list[Item] = []
        position = fold.start
        for child_handle in fold.children:
            child = self.forest.folds[child_handle]
            items.extend(self.raw_item(index) for index in range(position, child.start))
            items.extend(self.items_of_fold(child))
            position = child.end
        items.extend(self.raw_item(index) for index in range(position, fold.end))
        return items

    def range_items(self, start: int, end: int) -> list[Item]:
        """Items for ``[start, end)`` at the top level, where root folds start inside it."""
        items: list[Item] = []
        position = start
        for root in self.forest.roots_within(start, end):
            items.extend(self.raw_item(index) for index in range(position, root.start))
            items.extend(self.items_of_fold(root))
            position = root.end
        items.extend(self.raw_item(index) for index in range(position, end))
        return items

    # -- changing the projection -------------------------------------------------------------

    def append_entry(self, index: int) -> None:
        """Project a newly appended entry (always raw: new entries are never folded)."""
        item = self.raw_item(index)
        self.items.append(item)
        self._starts.append(item.start)
        self.tokens += item.tokens

    def undo_append_entry(self, index: int) -> None:
        """Take back :meth:`append_entry` of ``index`` (the append's log write failed)."""
        if not self.items or self.items[-1].start != index or self.items[-1].end != index + 1:
            raise ProjectionError(f"entry {index} is not the last projected item")
        item = self.items.pop()
        self._starts.pop()
        self.tokens -= item.tokens

    def splice(self, start: int, end: int, replacement: list[Item]) -> None:
        """Replace the items covering exactly ``[start, end)`` with ``replacement``."""
        first = bisect.bisect_left(self._starts, start)
        last = bisect.bisect_left(self._starts, end, lo=first)
        if (
            first >= len(self.items)
            or self.items[first].start != start
            or self.items[last - 1].end != end
        ):
            raise ProjectionError(f"items do not tile [{start},{end}); cannot splice")
        removed = self.items[first:last]
        self.tokens += sum(item.tokens for item in replacement) - sum(
            item.tokens for item in removed
        )
        self.items[first:last] = replacement
        self._starts[first:last] = [item.start for item in replacement]

    def set_view(self, index: int, kind: ViewKind, text: str) -> None:
        """Show raw entry ``index`` reduced; it must be a top-level raw item now."""
        self.views[index] = (kind, text)
        self.splice(index, index + 1, [self.raw_item(index)])

    def clear_view(self, index: int) -> None:
        """Show top-level entry ``index`` whole again (a pin holds it raw)."""
        del self.views[index]
        self.splice(index, index + 1, [self.raw_item(index)])

    def whole_tokens(self, index: int) -> int:
        """Tokens entry ``index`` costs shown whole: no fold, no view (what a pin holds)."""
        entry = self.transcript.entries[index]
        return self.counter.count_message(entry.wire, entry.wire_digest)

    def drop_views(self, start: int, end: int) -> None:
        """Forget the views inside ``[start, end)``: a fold now holds those entries whole."""
        if self.views:
            for index in [index for index in self.views if start <= index < end]:
                del self.views[index]

    def show_fold(self, fold: Fold) -> None:
        """Re-render the range of ``fold`` after it was made, expanded or refolded."""
        self.splice(fold.start, fold.end, self.items_of_fold(fold))

    def rebuild(self) -> None:
        """Render everything from scratch (used on reopen and to cross-check)."""
        self.items = self.range_items(0, len(self.transcript))
        self._starts = [item.start for item in self.items]
        self.tokens = sum(item.tokens for item in self.items)

    def load(self, items: list[Item], views: dict[int, tuple[ViewKind, str]]) -> None:
        """Take a projection a checkpoint kept (:mod:`pifold_core.checkpoint`): its items
        must tile the transcript, in order."""
        position = 0
        for item in items:
            if item.start != position or item.end <= item.start:
                raise ProjectionError(f"items do not tile the transcript at entry {position}")
            position = item.end
        if position != len(self.transcript):
            raise ProjectionError(f"items end at entry {position}, not {len(self.transcript)}")
        self.items = items
        self._starts = [item.start for item in items]
        self.tokens = sum(item.tokens for item in items)
        self.views = views

    def snapshot(self) -> tuple[list[Item], list[int], int, dict[int, tuple[ViewKind, str]]]:
        """The items, their starts, the tokens and the views, copied (a commit's undo)."""
        return list(self.items), list(self._starts), self.tokens, dict(self.views)

    def restore_snapshot(
        self, snapshot: tuple[list[Item], list[int], int, dict[int, tuple[ViewKind, str]]]
    ) -> None:
        """Put back what :meth:`snapshot` copied, and forget placeholders cached for folds
        the forest no longer holds (a failed commit's folds)."""
        self.items, self._starts, self.tokens, self.views = snapshot
        cache = self._placeholder_cache
        for key in [key for key in cache if key[0] not in self.forest.folds]:
            del cache[key]

    # -- reading ----------------------------------------------------------------------------

    def digests(self) -> list[str]:
        return [item.digest for item in self.items]

    def messages(self) -> list[dict[str, JsonValue]]:
        return [item.message for item in self.items]

    def item_index_at(self, entry_index: int) -> int:
        """Position of the item covering ``entry_index``."""
        return bisect.bisect_right(self._starts, entry_index) - 1

    def tokens_of_range(self, start: int, end: int) -> int:
        """Tokens the items of ``[start, end)`` cost now (the range must be item-aligned)."""
        first = bisect.bisect_left(self._starts, start)
        last = bisect.bisect_left(self._starts, end, lo=first)
        return sum(item.tokens for item in self.items[first:last])
