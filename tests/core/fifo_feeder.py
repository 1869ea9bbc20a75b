"""A FIFO whose reader is fed: a test of "refused unopened" fails instead of hanging.

A reader that opens a FIFO blocks until a writer opens it. The feeder thread keeps trying to
open the FIFO for writing without blocking; once a reader is there, it writes ``data`` and
closes, so code that wrongly opens the FIFO reads ``data`` and goes on (and the test's
assertion, not a hang, reports it). Code that refuses the FIFO unopened leaves the feeder
waiting until the context ends.
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def fed_fifo(path: Path, data: bytes) -> Iterator[list[int]]:
    """Make a FIFO at ``path`` and feed ``data`` to whoever opens it for reading; yields a
    list that holds one item per reader that was fed."""
    os.mkfifo(path)
    stop = threading.Event()
    fed: list[int] = []

    def feed() -> None:
        while not stop.is_set():
            try:
                descriptor = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as error:
                if error.errno != errno.ENXIO:  # ENXIO: no reader yet
                    return
                stop.wait(0.001)
                continue
            try:
                os.write(descriptor, data)
                fed.append(1)
            finally:
                os.close(descriptor)

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    try:
        yield fed
    finally:
        stop.set()
        thread.join()
