"""A fold's digest from its parts' digests, so no commit reads what it folds (issue 23).

Until issue 23 a fold was named by the SHA-256 of its whole source (version 1: the canonical
JSON list of its entries' records). A consolidation spanning most of a long session then read
back and hashed every entry it spanned: 4.1 s of CPU at 50,000 entries, growing with the
session's age. Version 2 names a fold by the SHA-256 of its *node*: a fixed first line, then
one line per part in transcript order, ``fold <digest>`` for a direct child fold (its own
digest, of either version) and ``entry <digest>`` for an entry between the children (the
SHA-256 of its canonical record, which the transcript keeps in each entry's facts). Building a
fold therefore costs one line per part, whatever the parts hold, and a reopen checks a logged
fold against the transcript the same way.

Lossless as before: the node commits to every entry's digest and every child's, each of which
commits to its bytes, so a fold's digest still pins its source byte for byte. Reading one
(:mod:`pifold_core.store`) checks the object's listing against the name, then every part
(each entry's line against its digest, each child by its own name), so wrong bytes are never
returned. The same span folded again with the same children gets the same digest and handle.

Version 1 folds (every state written before this) keep their digests and handles: they are
checked and read as before (:meth:`pifold_core.entry_list.EntryList.source_digest`), and a
version 2 fold may hold them as children.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from pifold_core.canonical import sha256_hex
from pifold_core.entry_list import EntryList

SOURCE_DIGEST = 1
"""Digest version 1: the SHA-256 of the fold's whole source (read, no longer written)."""
PARTS_DIGEST = 2
"""Digest version 2: the SHA-256 of the fold's node (what every new fold is named by)."""
DIGEST_VERSIONS = (SOURCE_DIGEST, PARTS_DIGEST)
"""The digest versions a fold record may carry."""
NODE_HEADER = b"pifold-fold-node 1\n"
"""The node's first line: it can never begin a source (``[``) or a record (``{``), so no node
hashes like a version 1 source or an entry."""

NodeKind = Literal["fold", "entry"]


def node_bytes(parts: Sequence[tuple[NodeKind, str]]) -> bytes:
    """The node of a fold whose parts, in order, are ``parts`` (kind and digest each)."""
    lines = "".join(f"{kind} {digest}\n" for kind, digest in parts)
    return NODE_HEADER + lines.encode("ascii")


def node_digest(parts: Sequence[tuple[NodeKind, str]]) -> str:
    """A version 2 fold digest: the SHA-256 of :func:`node_bytes`."""
    return sha256_hex(node_bytes(parts))


class ChildFold(Protocol):
    """What a fold's digest needs of a child (a :class:`~pifold_core.folds.Fold` is one)."""

    @property
    def start(self) -> int:
        """Index of the child's first entry."""

    @property
    def end(self) -> int:
        """Index one past its last entry."""

    @property
    def source_digest(self) -> str:
        """Its digest (of either version)."""

    @property
    def source_bytes(self) -> int:
        """Its whole source's length."""


def parts_digest(
    entries: EntryList, start: int, end: int, children: Sequence[ChildFold]
) -> tuple[str, int]:
    """Digest (version 2) and source length of the fold over ``[start, end)`` whose direct
    children are ``children`` (in order, inside the range).

    Only the entries between the children are looked at, and only their facts (digest and
    record length): nothing is read back from the log, and the cost follows the parts.
    """
    parts: list[tuple[NodeKind, str]] = []
    # A source is "[" + the parts' insides joined by "," + "]"; a child's inside is its
    # source less its brackets.
    insides = 0
    position = start
    for child in (*children, None):
        stop = end if child is None else child.start
        for index in range(position, stop):
            facts = entries.facts_of(index)
            parts.append(("entry", facts.digest))
            insides += facts.record_length
        if child is not None:
            parts.append(("fold", child.source_digest))
            insides += child.source_bytes - 2
            position = child.end
    return node_digest(parts), insides + max(len(parts) - 1, 0) + 2


__all__ = [
    "DIGEST_VERSIONS",
    "NODE_HEADER",
    "PARTS_DIGEST",
    "SOURCE_DIGEST",
    "ChildFold",
    "NodeKind",
    "node_bytes",
    "node_digest",
    "parts_digest",
]
