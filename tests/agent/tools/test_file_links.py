"""write and edit through symbolic links and hard links: the file changes, the links stay."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pifold_agent.tools import EditTool, WriteTool
from tests.agent.tools.helpers import run


async def test_write_and_edit_go_through_a_symlink_and_keep_it(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    work = tmp_path / "work"
    outside.mkdir()
    work.mkdir()
    target = outside / "real.txt"
    target.write_text("one\n")
    target.chmod(0o640)
    os.symlink(target, work / "link.txt")
    written = await run(WriteTool(), work, path="link.txt", content="two\n")
    assert not written.is_error
    edited = await run(EditTool(), work, path="link.txt", oldText="two", newText="three")
    assert not edited.is_error
    assert (work / "link.txt").is_symlink() and os.readlink(work / "link.txt") == str(target)
    assert target.read_text() == "three\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(path.name for path in outside.iterdir()) == ["real.txt"]  # no temporary


async def test_a_chain_of_links_and_a_dangling_link(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("x")
    os.symlink("real.txt", tmp_path / "first")
    os.symlink("first", tmp_path / "second")
    await run(WriteTool(), tmp_path, path="second", content="through two links")
    assert (tmp_path / "real.txt").read_text() == "through two links"
    assert (tmp_path / "second").is_symlink() and (tmp_path / "first").is_symlink()
    os.symlink("made/by/write.txt", tmp_path / "dangling")
    await run(WriteTool(), tmp_path, path="dangling", content="created")
    assert (tmp_path / "made" / "by" / "write.txt").read_text() == "created"
    assert (tmp_path / "dangling").is_symlink()


async def test_a_symlink_loop_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    os.symlink("loop-b", tmp_path / "loop-a")
    os.symlink("loop-a", tmp_path / "loop-b")
    written = await run(WriteTool(), tmp_path, path="loop-a", content="x")
    assert written.is_error and written.text == (
        "Cannot write loop-a: Too many levels of symbolic links"
    )
    edited = await run(EditTool(), tmp_path, path="loop-a", oldText="a", newText="b")
    assert edited.is_error and "Too many levels of symbolic links" in edited.text
    assert sorted(path.name for path in tmp_path.iterdir()) == ["loop-a", "loop-b"]
    assert (tmp_path / "loop-a").is_symlink()


async def test_every_hard_link_sees_a_write_and_an_edit(tmp_path: Path) -> None:
    first = tmp_path / "first.txt"
    first.write_text("alpha\nbeta\n")
    os.link(first, tmp_path / "second.txt")
    await run(WriteTool(), tmp_path, path="first.txt", content="gamma\n")
    assert (tmp_path / "second.txt").read_text() == "gamma\n"
    await run(EditTool(), tmp_path, path="second.txt", oldText="gamma", newText="delta")
    assert first.read_text() == "delta\n"
    assert first.stat().st_ino == (tmp_path / "second.txt").stat().st_ino
    assert first.stat().st_nlink == 2
    await run(WriteTool(), tmp_path, path="second.txt", content="")  # shorter: cut to length
    assert first.read_bytes() == b""


async def test_a_new_file_takes_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o027)
    try:
        await run(WriteTool(), tmp_path, path="new.txt", content="x")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640
