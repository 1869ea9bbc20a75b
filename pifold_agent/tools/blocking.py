"""Nothing a tool does may keep the process from ending: no file that can block is opened,
and blocking file work runs in threads that never hold the process open.

**Regular files only.** ``open()`` of a FIFO with no writer blocks inside the system call,
and reading ``/dev/zero`` or ``/dev/urandom`` never ends, so the file tools never open
anything but a regular file for reading. :func:`open_regular` checks the kind with ``stat``
first (no open at all for a FIFO, a device, a socket or a folder), then opens with
``O_NONBLOCK`` (so a file swapped for a FIFO between the two steps cannot block the open
either) and checks the opened descriptor again with ``fstat``. The refusal names what the
path is.

**Daemon threads.** The tools read and write files in threads so the loop stays responsive.
They do not use ``asyncio.to_thread``: its executor's threads are joined when the event loop
closes and again when the interpreter exits, so one thread stuck in a system call (a read
from a hung network mount, or a case nobody foresaw) would keep the process alive after the
user's Ctrl-C had cancelled the call: the run would end, the process would not.
:func:`in_thread` runs the function in a *daemon* thread of its own instead. Cancelling the
awaiting task returns at once (the abort the user asked for); the thread, if it is stuck,
is abandoned and dies with the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, ParamSpec, TypeVar

_KINDS: tuple[tuple[int, str], ...] = (
    (stat.S_IFDIR, "a directory"),
    (stat.S_IFIFO, "a FIFO (named pipe)"),
    (stat.S_IFCHR, "a character device"),
    (stat.S_IFBLK, "a block device"),
    (stat.S_IFSOCK, "a socket"),
    (stat.S_IFLNK, "a symbolic link"),
)


class NotRegularFile(OSError):
    """The path exists but is not a regular file; the message names what it is."""


def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, with its article (``a FIFO (named pipe)``)."""
    file_type = stat.S_IFMT(mode)
    for kind, text in _KINDS:
        if file_type == kind:
            return text
    return "a regular file" if file_type == stat.S_IFREG else "a special file"


def refusal(shown: str, mode: int, action: str) -> str:
    """The sentence refusing ``action`` on a non-regular file ``shown``."""
    return (
        f"{shown} is {kind_of(mode)}, not a regular file; {action} only regular files "
        "(a FIFO or a device can block or never end)"
    )


def open_regular(path: Path, shown: str, action: str = "read opens") -> BinaryIO:
    """``path`` opened for binary reading, when it is a regular file (symlinks followed).

    Raises:
        NotRegularFile: it is a FIFO, a device, a socket or a folder (never opened).
        OSError: it is missing, unreadable, or a symbolic link loop.
    """
    before = os.stat(path)
    if not stat.S_ISREG(before.st_mode):
        raise NotRegularFile(refusal(shown, before.st_mode, action))
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    descriptor = os.open(path, flags)
    try:
        after = os.fstat(descriptor)
        if not stat.S_ISREG(after.st_mode):
            raise NotRegularFile(refusal(shown, after.st_mode, action))
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def existing_kind(path: Path) -> int | None:
    """The ``st_mode`` of what ``path`` names (symlinks followed), or None when nothing is
    there (a dangling symlink included). A symlink loop or a denied lookup raises."""
    try:
        return os.stat(path).st_mode
    except FileNotFoundError:
        return None


Parameters = ParamSpec("Parameters")
Result = TypeVar("Result")


async def in_thread(
    function: Callable[Parameters, Result],
    *arguments: Parameters.args,
    **keywords: Parameters.kwargs,
) -> Result:
    """``function(*arguments, **keywords)`` in a daemon thread; its result or exception.

    Cancellation of the caller is immediate and leaves the thread to finish (or not) on its
    own; whatever it returns then is dropped.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Result] = loop.create_future()

    def settle(outcome: Result | None, error: BaseException | None) -> None:
        if future.done():
            return  # the caller was cancelled: nobody waits for this any more
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(outcome)  # type: ignore[arg-type]  # None only with an error

    def work() -> None:
        try:
            outcome = function(*arguments, **keywords)
        except BaseException as error:  # handed to the awaiting task, which re-raises it
            _call_soon(loop, settle, None, error)
        else:
            _call_soon(loop, settle, outcome, None)

    name = f"pifold tool thread: {getattr(function, '__name__', 'work')}"
    threading.Thread(target=work, name=name, daemon=True).start()
    return await future


def _call_soon(
    loop: asyncio.AbstractEventLoop,
    callback: Callable[[Result | None, BaseException | None], None],
    outcome: Result | None,
    error: BaseException | None,
) -> None:
    """Hand the outcome to the loop; a loop already closed (the run ended) drops it."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(callback, outcome, error)


__all__ = [
    "NotRegularFile",
    "existing_kind",
    "in_thread",
    "kind_of",
    "open_regular",
    "refusal",
]
