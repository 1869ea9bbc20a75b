"""Blocking file work off the event loop, in threads that never hold the process open.

The tools read and write files in threads so the loop stays responsive. They do not use
``asyncio.to_thread``: its executor's threads are joined when the event loop closes and
again when the interpreter exits, so one thread stuck in a system call (``open()`` of a
FIFO with no writer, a read from a hung network mount) would keep the process alive after
the user's Ctrl-C had cancelled the call: the run would end, the process would not.

:func:`in_thread` runs the function in a *daemon* thread of its own instead. Cancelling the
awaiting task returns at once (the abort the user asked for); the thread, if it is stuck,
is abandoned and dies with the process. The tools still avoid blocking where they can
(a non-regular file is never opened for reading, see :mod:`pifold_agent.tools.file_kinds`):
this is the guarantee for the cases nobody foresaw.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

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


__all__ = ["in_thread"]
