"""read reads only what it returns, and bounds images.

How much a call read is taken from ``/proc/self/io`` (``rchar``: the bytes every read system
call of this process returned), so the tests see the file system's side of the call, not
the tool's own account of it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pifold_agent.tools import ReadTool
from pifold_agent.tools.read import IMAGE_MAX_BYTES, SCAN_BEYOND_BYTES
from tests.agent.tools.helpers import run

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

needs_proc_io = pytest.mark.skipif(
    not Path("/proc/self/io").exists(), reason="/proc/self/io counts the bytes read"
)


def bytes_read() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


def sparse(path: Path, size: int, head: bytes = b"") -> Path:
    """A file of ``size`` bytes taking no disk: ``head``, then zeros."""
    with path.open("wb") as handle:
        handle.write(head)
        handle.truncate(size)
    return path


@needs_proc_io
async def test_a_2gb_file_costs_one_screen(tmp_path: Path) -> None:
    sparse(tmp_path / "huge.bin", 2 * 1024**3, b"first line\nsecond line\n")
    before = bytes_read()
    outcome = await run(ReadTool(), tmp_path, path="huge.bin", limit=2)
    assert bytes_read() - before < 2 * SCAN_BEYOND_BYTES
    assert outcome.text == (
        "first line\nsecond line\n\n[More lines in file (2.0GB in all). Use offset=3 to continue.]"
    )
    line = await run(ReadTool(), tmp_path, path="huge.bin", offset=3)
    assert line.text == (
        "[Line 3 is over 1.0MB, exceeds 50.0KB limit. "
        "Use bash: sed -n '3p' huge.bin | head -c 51200]"
    )
    assert bytes_read() - before < 4 * SCAN_BEYOND_BYTES


@needs_proc_io
async def test_many_lines_are_streamed_up_to_the_limits(tmp_path: Path) -> None:
    lines = 400_000  # 5.6 MB
    (tmp_path / "log.txt").write_text("".join(f"entry {n:07d}\n" for n in range(lines)))
    size = (tmp_path / "log.txt").stat().st_size
    before = bytes_read()
    outcome = await run(ReadTool(), tmp_path, path="log.txt", offset=11, limit=3)
    assert outcome.text == (
        "entry 0000010\nentry 0000011\nentry 0000012\n\n"
        "[More lines in file (5.3MB in all). Use offset=14 to continue.]"
    )
    assert bytes_read() - before < size // 2
    tail = await run(ReadTool(), tmp_path, path="log.txt", offset=lines - 1)
    assert tail.text == "entry 0399998\nentry 0399999\n"


async def test_a_30mb_image_is_refused_with_its_size_before_it_is_read(tmp_path: Path) -> None:
    sparse(tmp_path / "photo.png", 30 * 1024**2, PNG_SIGNATURE)
    outcome = await run(ReadTool(), tmp_path, path="photo.png")
    assert outcome.is_error and outcome.images == ()
    assert outcome.text.startswith(
        "photo.png is a 30.0MB image/png image; read sends images of at most 3.8MB"
    )
    sparse(tmp_path / "small.png", IMAGE_MAX_BYTES, PNG_SIGNATURE)
    small = await run(ReadTool(), tmp_path, path="small.png")
    assert not small.is_error and small.images[0].media_type == "image/png"


async def test_counts_stay_exact_for_files_of_ordinary_size(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    assert (await run(ReadTool(), tmp_path, path="a.txt", limit=1)).text == (
        "one\n\n[3 more lines in file. Use offset=2 to continue.]"
    )
    assert (await run(ReadTool(), tmp_path, path="a.txt")).text == "one\ntwo\nthree\n"
    beyond = await run(ReadTool(), tmp_path, path="a.txt", offset=9)
    assert beyond.text == "Offset 9 is beyond end of file (4 lines total)"
    (tmp_path / "empty.txt").write_text("")
    assert (await run(ReadTool(), tmp_path, path="empty.txt")).text == ""
    os.symlink("a.txt", tmp_path / "link")
    assert (await run(ReadTool(), tmp_path, path="link", offset=3)).text == "three\n"
