"""FIFOs, devices and folders where a file is expected: refused clearly, never opened, never
replaced."""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from pifold_agent.loop import ToolOutcome
from pifold_agent.tools import EditTool, GrepTool, ReadTool, WriteTool
from pifold_core.canonical import JsonValue
from tests.agent.tools.helpers import run

BOUND_SECONDS = 20
"""A call that has not returned by then hangs (a bound, not a measurement)."""


@contextlib.contextmanager
def fifo(path: Path) -> Iterator[Path]:
    """A named pipe; on the way out, a reader stuck in ``open()`` on it is released (a
    writer opening it lets that open return), so a failing test cannot hang the suite."""
    os.mkfifo(path)
    try:
        yield path
    finally:
        with contextlib.suppress(OSError):
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))


async def bounded(tool: object, cwd: Path, **arguments: JsonValue) -> ToolOutcome:
    return await asyncio.wait_for(run(tool, cwd, **arguments), BOUND_SECONDS)  # type: ignore[arg-type]


async def test_read_refuses_a_fifo_and_devices_without_opening_them(tmp_path: Path) -> None:
    with fifo(tmp_path / "pipe"):
        outcome = await bounded(ReadTool(), tmp_path, path="pipe")
        assert outcome.is_error
        assert outcome.text.startswith("pipe is a FIFO (named pipe), not a regular file")
    zero = await bounded(ReadTool(), tmp_path, path="/dev/zero")
    assert zero.is_error and "/dev/zero is a character device" in zero.text
    os.symlink("/dev/zero", tmp_path / "zero-link")
    linked = await bounded(ReadTool(), tmp_path, path="zero-link")
    assert linked.is_error and "zero-link is a character device" in linked.text


async def test_write_and_edit_refuse_a_fifo_and_leave_it_a_fifo(tmp_path: Path) -> None:
    with fifo(tmp_path / "pipe") as path:
        written = await bounded(WriteTool(), tmp_path, path="pipe", content="x")
        assert written.is_error and "pipe is a FIFO (named pipe)" in written.text
        edited = await bounded(EditTool(), tmp_path, path="pipe", oldText="a", newText="b")
        assert edited.is_error and "pipe is a FIFO (named pipe)" in edited.text
        assert stat.S_ISFIFO(path.stat().st_mode)
        assert sorted(child.name for child in tmp_path.iterdir()) == ["pipe"]


async def test_write_through_a_link_to_a_device_is_refused(tmp_path: Path) -> None:
    os.symlink("/dev/null", tmp_path / "sink")
    outcome = await bounded(WriteTool(), tmp_path, path="sink", content="x")
    assert outcome.is_error and "sink is a character device" in outcome.text
    assert (tmp_path / "sink").is_symlink() and stat.S_ISCHR(os.stat("/dev/null").st_mode)


async def test_folders_where_files_are_expected(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    read = await bounded(ReadTool(), tmp_path, path="folder")
    assert read.text == "folder is a directory; use ls to list it"
    written = await bounded(WriteTool(), tmp_path, path="folder", content="x")
    assert written.text == "folder is a directory"
    edited = await bounded(EditTool(), tmp_path, path="folder", oldText="a", newText="b")
    assert edited.text == "folder is a directory; edit changes files"


async def test_grep_skips_a_fifo_in_the_tree_and_refuses_one_as_its_path(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("needle\n")
    with fifo(tmp_path / "pipe"):
        found = await bounded(GrepTool(use_ripgrep=False), tmp_path, pattern="needle")
        assert found.text == "a.txt:1: needle"
        refused = await bounded(GrepTool(use_ripgrep=False), tmp_path, pattern="x", path="pipe")
        assert refused.is_error and refused.text.startswith("grep: pipe is a FIFO (named pipe)")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
async def test_unreadable_files_are_an_error_naming_the_cause(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("x")
    secret.chmod(0)
    outcome = await bounded(ReadTool(), tmp_path, path="secret.txt")
    assert outcome.text == "Cannot read secret.txt: Permission denied"
