"""Folds and the fold forest (DESIGN §3).

A fold covers a contiguous range of entries ``[start, end)`` and possibly child folds. Folds
nest and never partially overlap, so the folds form a forest whose leaves are the entries.
Kinds:

* ``tool``: the results of one tool batch. The call stays visible; each result's content
  becomes the placeholder, so call/result pairing survives.
* ``span``: a run of closed units, replaced by one note.
* ``consolidated``: two or more adjacent folds plus small raw gaps, made into a deeper fold.

A fold record is immutable once made: its brief and placeholder text are fixed at creation,
so a later change elsewhere can never rewrite bytes already sent.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

from pifold_core.canonical import CANONICAL_FORMAT_VERSION, HASH_ALGORITHM, JsonValue
from pifold_core.entries import Entry
from pifold_core.fold_digest import DIGEST_VERSIONS, SOURCE_DIGEST
from pifold_core.transcript import Transcript

FoldKind = Literal["tool", "span", "consolidated"]
FOLD_KINDS: tuple[FoldKind, ...] = ("tool", "span", "consolidated")
BriefProvenance = Literal["runtime", "agent"]


class ForestError(ValueError):
    """The fold forest broke one of its rules; the message names the folds involved."""


@dataclass(frozen=True, slots=True)
class Fold:
    """One fold record."""

    handle: str
    """Content-derived id, ``fold-`` plus hex of the source digest."""
    kind: FoldKind
    """``tool``, ``span`` or ``consolidated``."""
    start: int
    """Index of the first entry covered."""
    end: int
    """Index one past the last entry covered."""
    first_id: str
    """Id of the first entry covered (checked against the transcript on load)."""
    last_id: str
    """Id of the last entry covered."""
    children: tuple[str, ...]
    """Handles of the direct child folds, in transcript order."""
    source_digest: str
    """The fold's digest (:mod:`pifold_core.fold_digest`): by :attr:`digest_version`, of its
    node (2) or of its whole source, the canonical JSON list of its entries' records (1)."""
    source_bytes: int
    """Length of the source in bytes."""
    entry_count: int
    """Entries covered."""
    tool_call_count: int
    """Tool calls among the covered entries."""
    brief: str
    """The brief, at most 2,000 characters."""
    brief_provenance: BriefProvenance
    """``runtime`` for a deterministic brief, ``agent`` for a supplied one."""
    placeholder: str
    """The exact placeholder text shown to the model, fixed at creation."""
    commit: int
    """Number of the commit that made this fold."""
    digest_version: int = SOURCE_DIGEST
    """How :attr:`source_digest` was taken (:data:`~pifold_core.fold_digest.DIGEST_VERSIONS`)."""

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)

    def contains(self, other: Fold) -> bool:
        """Whether ``other`` lies inside this fold's range (and is not this fold)."""
        return other.handle != self.handle and self.start <= other.start and other.end <= self.end

    def to_record(self) -> dict[str, JsonValue]:
        source: dict[str, JsonValue] = {"hash": HASH_ALGORITHM, "format": CANONICAL_FORMAT_VERSION}
        source.update(digest=self.source_digest, bytes=self.source_bytes)
        if self.digest_version != SOURCE_DIGEST:  # version 1 records stay as they were
            source["digestVersion"] = self.digest_version
        return {
            "handle": self.handle,
            "kind": self.kind,
            "start": self.start,
            "end": self.end,
            "first_id": self.first_id,
            "last_id": self.last_id,
            "children": list(self.children),
            "source": source,
            "entry_count": self.entry_count,
            "tool_call_count": self.tool_call_count,
            "brief": self.brief,
            "brief_provenance": self.brief_provenance,
            "placeholder": self.placeholder,
            "commit": self.commit,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Fold:
        try:
            source = record["source"]
            version = source.get("digestVersion", SOURCE_DIGEST)
            if (source["hash"], source["format"]) != (HASH_ALGORITHM, CANONICAL_FORMAT_VERSION) or (
                version not in DIGEST_VERSIONS
            ):
                raise ForestError(
                    f"fold {record.get('handle')}: source format {source['format']}/"
                    f"{source['hash']}, digest version {version!r} is not supported"
                )
            kind = record["kind"]
            if kind not in FOLD_KINDS:
                raise ForestError(f"fold {record.get('handle')}: unknown kind {kind!r}")
            return cls(
                handle=str(record["handle"]),
                kind=cast(FoldKind, kind),
                start=int(record["start"]),
                end=int(record["end"]),
                first_id=str(record["first_id"]),
                last_id=str(record["last_id"]),
                children=tuple(str(child) for child in record["children"]),
                source_digest=str(source["digest"]),
                source_bytes=int(source["bytes"]),
                entry_count=int(record["entry_count"]),
                tool_call_count=int(record["tool_call_count"]),
                brief=str(record["brief"]),
                brief_provenance=cast(BriefProvenance, record["brief_provenance"]),
                placeholder=str(record["placeholder"]),
                commit=int(record["commit"]),
                digest_version=int(version),
            )
        except (KeyError, TypeError) as error:
            raise ForestError(f"fold record is malformed: missing or bad {error}") from error


def source_of(entries: Sequence[Entry]) -> bytes:
    """The source bytes of a fold: the canonical JSON list of its entries' records.

    Canonical JSON of a list is ``[`` + the members' canonical bytes joined by ``,`` + ``]``,
    so the source is built from the cached per-entry bytes without re-serialising.
    """
    return b"[" + b",".join(entry.record_bytes for entry in entries) + b"]"


ForestSnapshot = tuple[dict[str, Fold], dict[str, str | None], set[str], list[str], list[int]]
"""What :meth:`Forest.snapshot` copies: folds, parents, expanded set, roots, root starts."""


class Forest:
    """The set of folds, their nesting and which of them are expanded."""

    def __init__(self) -> None:
        self.folds: dict[str, Fold] = {}
        """Every fold by handle."""
        self.parent: dict[str, str | None] = {}
        """Each fold's parent handle (``None`` for a root)."""
        self.expanded: set[str] = set()
        """Folds currently shown open (one level)."""
        self._root_starts: list[int] = []
        self._roots: list[str] = []

    # -- queries -------------------------------------------------------------------------

    def __contains__(self, handle: object) -> bool:
        return handle in self.folds

    def __len__(self) -> int:
        return len(self.folds)

    def roots(self) -> list[Fold]:
        """Root folds in transcript order."""
        return [self.folds[handle] for handle in self._roots]

    def roots_within(self, start: int, end: int) -> list[Fold]:
        """Root folds lying inside ``[start, end)``."""
        position = bisect.bisect_left(self._root_starts, start)
        found: list[Fold] = []
        while position < len(self._roots):
            fold = self.folds[self._roots[position]]
            if fold.start >= end:
                break
            found.append(fold)
            position += 1
        return found

    def root_overlapping(self, start: int, end: int) -> list[Fold]:
        """Root folds that intersect ``[start, end)``."""
        position = max(0, bisect.bisect_right(self._root_starts, start) - 1)
        found: list[Fold] = []
        while position < len(self._roots):
            fold = self.folds[self._roots[position]]
            if fold.start >= end:
                break
            if fold.end > start:
                found.append(fold)
            position += 1
        return found

    def root_containing(self, index: int) -> Fold | None:
        """The root fold covering entry ``index``, if any."""
        position = bisect.bisect_right(self._root_starts, index) - 1
        if position < 0:
            return None
        fold = self.folds[self._roots[position]]
        return fold if fold.start <= index < fold.end else None

    def root_before(self, index: int) -> Fold | None:
        """The last root fold ending at or before ``index``."""
        position = bisect.bisect_left(self._root_starts, index) - 1
        while position >= 0:
            fold = self.folds[self._roots[position]]
            if fold.end <= index:
                return fold
            position -= 1
        return None

    def root_after(self, index: int) -> Fold | None:
        """The first root fold starting at or after ``index``."""
        position = bisect.bisect_left(self._root_starts, index)
        return self.folds[self._roots[position]] if position < len(self._roots) else None

    def chain_at(self, index: int) -> list[Fold]:
        """Every fold covering entry ``index``, outermost first."""
        chain: list[Fold] = []
        fold = self.root_containing(index)
        while fold is not None:
            chain.append(fold)
            fold = next(
                (
                    child
                    for child in (self.folds[handle] for handle in fold.children)
                    if child.start <= index < child.end
                ),
                None,
            )
        return chain

    def shows_raw(self, index: int) -> bool:
        """Entry ``index`` is shown raw: every fold covering it is expanded."""
        return all(fold.handle in self.expanded for fold in self.chain_at(index))

    def ancestors(self, handle: str) -> Iterator[Fold]:
        """The parent, grandparent, ... of a fold."""
        parent = self.parent.get(handle)
        while parent is not None:
            yield self.folds[parent]
            parent = self.parent.get(parent)

    def depth(self, handle: str) -> int:
        return sum(1 for _ in self.ancestors(handle))

    def is_visible(self, handle: str) -> bool:
        """Shown as a placeholder right now: collapsed, every ancestor expanded."""
        return handle not in self.expanded and all(
            ancestor.handle in self.expanded for ancestor in self.ancestors(handle)
        )

    def collapse(self, handle: str) -> None:
        """Close a fold and everything inside it, so reopening it shows one level again."""
        self.expanded.discard(handle)
        self.expanded.difference_update(nested.handle for nested in self.descendants(handle))

    def is_visible_open(self, handle: str) -> bool:
        """Shown open right now: expanded, and every ancestor expanded too."""
        return handle in self.expanded and all(
            ancestor.handle in self.expanded for ancestor in self.ancestors(handle)
        )

    def descendants(self, handle: str) -> Iterator[Fold]:
        """Every fold nested inside ``handle``, depth first."""
        for child in self.folds[handle].children:
            yield self.folds[child]
            yield from self.descendants(child)

    def in_order(self) -> list[Fold]:
        """Every fold in transcript order, parents before their children."""
        ordered: list[Fold] = []

        def visit(handle: str) -> None:
            fold = self.folds[handle]
            ordered.append(fold)
            for child in fold.children:
                visit(child)

        for root in self._roots:
            visit(root)
        return ordered

    # -- changes -------------------------------------------------------------------------

    def add(self, fold: Fold) -> None:
        """Add a fold whose children are exactly the roots inside its range.

        Raises:
            ForestError: when the fold would partially overlap a root or misname its children.
        """
        if fold.handle in self.folds:
            raise ForestError(f"fold {fold.handle} already exists")
        overlapping = self.root_overlapping(fold.start, fold.end)
        inside = [root.handle for root in overlapping]
        for root in overlapping:
            if root.start < fold.start or root.end > fold.end:
                raise ForestError(
                    f"fold {fold.handle} [{fold.start},{fold.end}) partially overlaps "
                    f"{root.handle} [{root.start},{root.end})"
                )
        if tuple(inside) != fold.children:
            raise ForestError(
                f"fold {fold.handle} names children {list(fold.children)} but the roots "
                f"inside its range are {inside}"
            )
        self.folds[fold.handle] = fold
        self.parent[fold.handle] = None
        for child in inside:
            self.parent[child] = fold.handle
            # A fold swallowed by a new parent shows collapsed when the parent opens.
            if self.expanded:  # nothing to close otherwise: no walk (a reopen adds 20,000)
                self.expanded.discard(child)
                self.expanded.difference_update(n.handle for n in self.descendants(child))
        first = bisect.bisect_left(self._root_starts, fold.start)
        last = first + len(inside)
        self._roots[first:last] = [fold.handle]
        self._root_starts[first:last] = [fold.start]

    def extend(self, folds: Iterable[Fold]) -> None:
        for fold in folds:
            self.add(fold)

    def snapshot(self) -> ForestSnapshot:
        """The folds, parents, expanded set and roots, copied (a commit's undo)."""
        copied = (dict(self.folds), dict(self.parent), set(self.expanded))
        return (*copied, list(self._roots), list(self._root_starts))

    def restore_snapshot(self, snapshot: ForestSnapshot) -> None:
        """Put back what :meth:`snapshot` copied."""
        self.folds, self.parent, self.expanded, self._roots, self._root_starts = snapshot

    # -- validation ----------------------------------------------------------------------

    def validate(self, transcript: Transcript) -> None:
        """Check every forest rule against the transcript; raise naming the first breach."""
        previous_end = 0
        for handle in self._roots:
            root = self.folds[handle]
            if root.start < previous_end:
                raise ForestError(f"root {handle} overlaps the root before it")
            previous_end = root.end
        for fold in self.folds.values():
            self._validate_fold(fold, transcript)
        for handle in self.expanded:
            if handle not in self.folds:
                raise ForestError(f"expanded set names unknown fold {handle}")

    def validate_folds(self, folds: Iterable[Fold], transcript: Transcript) -> None:
        """Check the rules for the given (new or changed) folds only: the per-commit check."""
        for fold in folds:
            self._validate_fold(fold, transcript)
            parent = self.parent.get(fold.handle)
            if parent is not None and not self.folds[parent].contains(fold):
                raise ForestError(f"fold {fold.handle} is not inside its parent {parent}")

    def _validate_fold(self, fold: Fold, transcript: Transcript) -> None:
        if not 0 <= fold.start < fold.end <= len(transcript):
            raise ForestError(f"fold {fold.handle} range [{fold.start},{fold.end}) is invalid")
        # Ids and kinds from the transcript's facts: a folded entry need not be read back.
        if (transcript.id_of(fold.start), transcript.id_of(fold.end - 1)) != (
            fold.first_id,
            fold.last_id,
        ):
            raise ForestError(f"fold {fold.handle} no longer matches its entry ids")
        position = fold.start
        for child_handle in fold.children:
            child = self.folds.get(child_handle)
            if child is None:
                raise ForestError(f"fold {fold.handle} names missing child {child_handle}")
            if self.parent.get(child_handle) != fold.handle:
                raise ForestError(f"fold {child_handle} has the wrong parent")
            if child.start < position or child.end > fold.end:
                raise ForestError(f"child {child_handle} of {fold.handle} is out of order")
            position = child.end
        if fold.kind == "tool":
            if fold.children:
                raise ForestError(f"tool fold {fold.handle} has children")
            kinds = {transcript.kind_of(index) for index in range(fold.start, fold.end)}
            if kinds != {"tool_result"}:
                raise ForestError(f"tool fold {fold.handle} covers a non-result entry")
        else:
            split = transcript.split_call(fold.start, fold.end)
            if split is not None:
                raise ForestError(f"fold {fold.handle} separates call {split} from its result")
        if fold.kind == "consolidated" and len(fold.children) < 2:
            raise ForestError(f"consolidated fold {fold.handle} has fewer than two children")
