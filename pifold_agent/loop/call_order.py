"""Which earlier calls of a batch each call waits for: calls that share a file run in order.

A batch's calls run concurrently, but ``edit``/``write`` are read-modify-replace: two of
them on one file at once lose one of the updates, and a listing beside a write may catch
its temporary file. So each call waits for every *earlier* call it conflicts with
(:class:`~pifold_agent.tools.protocol.Footprint`): a write against any call touching
the same file, a write at or under a folder another call lists or searches. Calls on
different files stay concurrent, reads beside reads too. The result is exactly the
sequential run in the model's order as far as files go, at the price of concurrency only
where two calls really meet.

**The same file under different spellings.** Each path is compared by its normalised
absolute form (``./x``, ``sub/../x`` and the absolute path agree), by its form with
symbolic links resolved (a link and its target agree) and, when it exists, by its inode
(two hard links agree). Two calls conflict when any of these match; more matches only cost
concurrency, never correctness.

**bash is a barrier.** A shell command may touch any file, under any name, and create or
move the links the comparison above relies on; nothing short of running it says which. So
bash waits for every earlier call that touches files, and every later one waits for it.
Reads of the file system's shape are therefore made lazily: a call's paths are resolved
only once the barrier before it has finished, so a link bash creates is seen by the calls
after it. Tools without a footprint (the fold tool) touch no file and are never held back.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pifold_agent.tools.protocol import Footprint


@dataclass(frozen=True, slots=True)
class PathIdentity:
    """Every name one path is known by, for comparing it with another."""

    spellings: frozenset[str]
    """The normalised absolute path and the one with symbolic links resolved."""
    inode: tuple[int, int] | None
    """``(device, inode)`` of what it names, when something is there."""

    def same_file(self, other: PathIdentity) -> bool:
        """Whether the two may name one file."""
        if self.spellings & other.spellings:
            return True
        return self.inode is not None and self.inode == other.inode

    def within(self, folder: PathIdentity) -> bool:
        """Whether this path may lie at or under ``folder``."""
        for path in self.spellings:
            for root in folder.spellings:
                if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
                    return True
        return self.same_file(folder)


def identify(path: Path) -> PathIdentity:
    """The identity of ``path`` as the file system stands now; never raises."""
    lexical = os.path.normpath(str(path))
    spellings = {lexical}
    with contextlib.suppress(OSError, ValueError):  # a NUL in the name, a lookup denied
        spellings.add(os.path.realpath(lexical))
    try:
        info = os.stat(lexical)
        inode: tuple[int, int] | None = (info.st_dev, info.st_ino)
    except (OSError, ValueError):
        inode = None
    return PathIdentity(frozenset(spellings), inode)


@dataclass(frozen=True, slots=True)
class ResolvedFootprint:
    """A footprint with every path identified."""

    reads: tuple[PathIdentity, ...]
    writes: tuple[PathIdentity, ...]
    trees: tuple[PathIdentity, ...]

    @classmethod
    def of(cls, footprint: Footprint) -> ResolvedFootprint:
        return cls(
            tuple(identify(path) for path in footprint.reads),
            tuple(identify(path) for path in footprint.writes),
            tuple(identify(path) for path in footprint.trees),
        )

    def writes_into(self, other: ResolvedFootprint) -> bool:
        """Whether one of this footprint's writes meets anything ``other`` touches."""
        for written in self.writes:
            if any(written.same_file(path) for path in (*other.reads, *other.writes)):
                return True
            if any(written.within(folder) for folder in other.trees):
                return True
        return False


def conflict(first: ResolvedFootprint, second: ResolvedFootprint) -> bool:
    """Whether two calls touching files must not overlap."""
    return first.writes_into(second) or second.writes_into(first)


class CallOrder:
    """When each call of one batch may start; every call must be marked finished."""

    def __init__(self, footprints: Sequence[Footprint]) -> None:
        self._footprints = list(footprints)
        self._finished = [asyncio.Event() for _ in self._footprints]
        self._resolved: dict[int, ResolvedFootprint] = {}

    def finished(self, index: int) -> None:
        """Call ``index`` ended (any way at all): the calls waiting for it may go."""
        self._finished[index].set()

    async def wait_turn(self, index: int) -> None:
        """Return once every earlier call that call ``index`` conflicts with has finished."""
        footprint = self._footprints[index]
        if not footprint.touches_files:
            return
        if footprint.everything:
            for earlier in range(index):
                if self._footprints[earlier].touches_files:
                    await self._finished[earlier].wait()
            return
        barrier = self._barrier_before(index)
        if barrier is not None:
            # The barrier itself waited for everything before it.
            await self._finished[barrier].wait()
        start = 0 if barrier is None else barrier + 1
        mine = self._resolve(index)
        for earlier in range(start, index):
            if self._footprints[earlier].touches_files and conflict(self._resolve(earlier), mine):
                await self._finished[earlier].wait()

    def _barrier_before(self, index: int) -> int | None:
        for earlier in range(index - 1, -1, -1):
            if self._footprints[earlier].everything:
                return earlier
        return None

    def _resolve(self, index: int) -> ResolvedFootprint:
        """The call's paths identified. The first call of a segment (the calls between two
        barriers) to ask identifies the whole segment at once, after the barrier before it
        finished and before any of the segment's calls started."""
        if index not in self._resolved:
            barrier = self._barrier_before(index)
            position = 0 if barrier is None else barrier + 1
            while position < len(self._footprints) and not self._footprints[position].everything:
                self._resolved[position] = ResolvedFootprint.of(self._footprints[position])
                position += 1
        return self._resolved[index]


__all__ = ["CallOrder", "PathIdentity", "ResolvedFootprint", "conflict", "identify"]
