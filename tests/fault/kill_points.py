"""Kill points for the crash harness: SIGKILL at the Nth call of a chosen write.

:func:`wrapped` wraps the log's append and the fold store's and evidence store's atomic
writer for as long as it is entered: it counts their calls per target and, given a
:class:`KillPoint`, kills the process there, before the call, after it, with half a log line
written (a torn line) or with half a temporary file left. It is entered only in a forked
child (or, to count, around a reference run): the product code has no kill hook.
"""

from __future__ import annotations

import os
import signal
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pifold_core import evidence as evidence_module
from pifold_core import store as store_module
from pifold_core.journal import Journal

TARGET_WEIGHTS: dict[str, float] = {"log": 0.35, "commit": 0.35, "store": 0.2, "evidence": 0.1}
"""Where kills land: commits and store writes are few but the riskiest, so weighted up."""

MODES: dict[str, tuple[str, ...]] = {
    "log": ("before", "torn", "after"),
    "commit": ("before", "torn", "after"),
    "store": ("before", "temporary", "after"),
    "evidence": ("before", "temporary", "after"),
}


@dataclass(frozen=True)
class KillPoint:
    """Where the child kills itself."""

    target: str
    """``log`` (any log append), ``commit`` (a commit record), ``store`` or ``evidence``."""
    nth: int
    """1-based count of calls to the target at which the kill comes."""
    mode: str
    """``before`` the call, ``after`` it, ``torn`` (half a log line) or ``temporary``
    (half a temporary file, never renamed)."""
    cause: str | None = None
    """For ``commit``: count only commits of this cause (``overflow``)."""

    def describe(self, trace: str) -> str:
        cause = f" ({self.cause})" if self.cause else ""
        return f"{trace}: kill {self.mode} {self.target}{cause} #{self.nth}"


def _kill() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


@contextmanager
def wrapped(point: KillPoint | None, counts: Counter[str]) -> Iterator[None]:
    """Count calls per target into ``counts``; with a ``point``, kill there."""
    original_append = Journal.append
    original_store_write = store_module.write_file_atomically
    # The evidence module holds its own reference to the store's writer.
    evidence_names = vars(evidence_module)
    original_evidence_write = evidence_names["write_file_atomically"]

    def due(target: str, mode: str) -> bool:
        """Whether the kill comes now: this call of ``target``, at this moment of it."""
        return point is not None and (point.target, point.mode, point.nth) == (
            target,
            mode,
            counts[target],
        )

    def arrive(target: str, when: str) -> None:
        if due(target, when):
            _kill()

    def append(journal: Journal, kind: str, body: dict[str, Any], *args: Any, **kw: Any) -> int:
        counted = ["log"]
        if kind == "commit" and (point is None or point.cause in (None, body.get("cause"))):
            counted.append("commit")
        for target in counted:
            counts[target] += 1
            arrive(target, "before")
        sequence = original_append(journal, kind, body, *args, **kw)
        for target in counted:
            if due(target, "torn"):
                tear_last_line(journal.path)
                _kill()
            arrive(target, "after")
        return sequence

    def writer(target: str, original: Callable[..., None]) -> Callable[..., None]:
        def write(path: Path, data: bytes, *args: Any, **kw: Any) -> None:
            counts[target] += 1
            arrive(target, "before")
            if due(target, "temporary"):
                path.parent.mkdir(parents=True, exist_ok=True)
                (path.parent / f".{path.name}.crashed").write_bytes(data[: len(data) // 2])
                _kill()
            original(path, data, *args, **kw)
            arrive(target, "after")

        return write

    Journal.append = append  # type: ignore[method-assign,assignment]
    store_module.write_file_atomically = writer("store", original_store_write)
    evidence_names["write_file_atomically"] = writer("evidence", original_evidence_write)
    try:
        yield
    finally:
        Journal.append = original_append  # type: ignore[method-assign]
        store_module.write_file_atomically = original_store_write
        evidence_names["write_file_atomically"] = original_evidence_write


def tear_last_line(log: Path) -> None:
    """Cut the record just written in half, as a kill in the middle of the write would."""
    data = log.read_bytes()
    start = data.rstrip(b"\n").rfind(b"\n") + 1
    with open(log, "r+b") as handle:
        handle.truncate(start + (len(data) - start) // 2)
