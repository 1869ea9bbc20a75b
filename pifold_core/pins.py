"""Pins: entries held raw through every commit (DESIGN §5, §7).

A pin frees nothing, so pinned mass is capped at ``minTarget`` × budget: with the cap, a
commit can always reach its target from the rest of the window. Pinning a raw entry moves no
byte. Pinning an entry that sits inside a collapsed fold, or that shows reduced (a clipped
tool result, a withdrawn peek copy), is *staged*: the next commit opens every fold around it,
one level at a time down to the entry, and drops its reduced view, so it shows raw again.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass

from pifold_core.entries import looks_like_path
from pifold_core.folds import Forest
from pifold_core.transcript import Transcript


class PinError(ValueError):
    """A pin or unpin request is invalid; nothing was changed."""


@dataclass(frozen=True, slots=True)
class PinOutcome:
    """What a ``pin`` or ``unpin`` did."""

    pinned: tuple[str, ...] = ()
    """Entry ids newly held raw (already raw: nothing moved)."""
    staged: tuple[str, ...] = ()
    """Newly pinned entries inside collapsed folds: restored at the next commit."""
    released: tuple[str, ...] = ()
    """Entry ids released by ``unpin``."""
    already: tuple[str, ...] = ()
    """Entries that were pinned before this ``pin`` (or not pinned, for ``unpin``)."""
    pinned_tokens: int = 0
    """Raw tokens every pinned entry costs, after the change."""
    cap_tokens: int = 0
    """The most pins may hold."""
    refolds: tuple[str, ...] = ()
    """Folds opened for pins that now hold none: staged to collapse at the next commit."""


def resolve_ids(ids: Sequence[str], transcript: Transcript, forest: Forest) -> list[int]:
    """Entry indices named by ``ids`` (entry ids, or fold ids for all their entries)."""
    if isinstance(ids, str) or not isinstance(ids, Sequence) or not ids:
        raise PinError("ids must be a non-empty list of entry or fold ids")
    indices: list[int] = []
    for identifier in ids:
        if not isinstance(identifier, str) or not identifier:
            raise PinError(f"ids holds {identifier!r}, which is not an id")
        if looks_like_path(identifier):
            raise PinError(f"{identifier!r} looks like a path; pins take ids, never paths")
        fold = forest.folds.get(identifier)
        if fold is not None:
            indices.extend(range(fold.start, fold.end))
            continue
        index = transcript.index_of.get(identifier)
        if index is None:
            raise PinError(f"there is no entry or fold with id {identifier!r}")
        indices.append(index)
    return sorted(set(indices))


def plan_pin(
    ids: Sequence[str],
    pinned: set[int],
    transcript: Transcript,
    forest: Forest,
    raw_tokens: Callable[[int], int],
    cap_tokens: int,
    viewed: Container[int] = frozenset(),
) -> tuple[list[int], PinOutcome]:
    """Check a ``pin`` and say what it would do; raises :class:`PinError` over the cap.

    ``raw_tokens`` is what an entry costs shown whole; ``viewed`` holds the entries shown
    reduced now (they are staged like folded ones).
    """
    wanted = resolve_ids(ids, transcript, forest)
    new = [index for index in wanted if index not in pinned]
    total = sum(raw_tokens(index) for index in pinned) + sum(raw_tokens(i) for i in new)
    if total > cap_tokens:
        raise PinError(
            f"pinning would hold {total:,} tokens raw, over the pin cap of {cap_tokens:,} "
            "(minTarget × budget); unpin something or pin less"
        )
    entries = transcript.entries
    raw_now = {i for i in new if forest.shows_raw(i) and i not in viewed}
    outcome = PinOutcome(
        pinned=tuple(entries[i].id for i in new if i in raw_now),
        staged=tuple(entries[i].id for i in new if i not in raw_now),
        already=tuple(entries[i].id for i in wanted if i in pinned),
        pinned_tokens=total,
        cap_tokens=cap_tokens,
    )
    return new, outcome


def plan_unpin(
    ids: Sequence[str],
    pinned: set[int],
    transcript: Transcript,
    forest: Forest,
    raw_tokens: Callable[[int], int],
    cap_tokens: int,
) -> tuple[list[int], PinOutcome]:
    """Check an ``unpin``: every named entry must be pinned."""
    wanted = resolve_ids(ids, transcript, forest)
    missing = [transcript.entries[i].id for i in wanted if i not in pinned]
    if missing:
        raise PinError(f"not pinned: {', '.join(missing[:5])}")
    remaining = pinned.difference(wanted)
    outcome = PinOutcome(
        released=tuple(transcript.entries[i].id for i in wanted),
        pinned_tokens=sum(raw_tokens(index) for index in remaining),
        cap_tokens=cap_tokens,
    )
    return wanted, outcome


def folds_to_open(pinned: set[int], forest: Forest) -> list[str]:
    """Collapsed folds around pinned entries, outermost first: what the next commit opens."""
    opened: list[str] = []
    seen: set[str] = set()
    for index in sorted(pinned):
        for fold in forest.chain_at(index):
            if fold.handle not in forest.expanded and fold.handle not in seen:
                seen.add(fold.handle)
                opened.append(fold.handle)
    return opened
