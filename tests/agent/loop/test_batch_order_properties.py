"""The batch's call order under any footprints and finishing times (hypothesis).

Footprints are drawn over a few real paths (a file, its symbolic link, a hard link, a file in
a folder, the folder); each call takes a random number of event-loop turns. Whatever the
draw: a call never starts before an earlier call it conflicts with has finished, and a call
that conflicts with no earlier one starts at once (in the first round, before any call that
yields has finished).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pifold_agent.loop.call_order import CallOrder, ResolvedFootprint, conflict
from pifold_agent.tools.protocol import Footprint

NAMES = ("a.txt", "link-a", "hard-a", "dir/c.txt", "dir", "other.txt")


def world(root: Path) -> None:
    (root / "dir").mkdir()
    (root / "a.txt").write_text("a")
    (root / "dir" / "c.txt").write_text("c")
    os.symlink("a.txt", root / "link-a")
    os.link(root / "a.txt", root / "hard-a")


footprint_shapes = st.lists(
    st.tuples(
        st.sampled_from(("read", "write", "tree", "everything", "none")),
        st.sampled_from(NAMES),
        st.integers(min_value=0, max_value=5),
    ),
    min_size=1,
    max_size=8,
)


def footprint(kind: str, path: Path) -> Footprint:
    if kind == "read":
        return Footprint(reads=(path,))
    if kind == "write":
        return Footprint(writes=(path,))
    if kind == "tree":
        return Footprint(trees=(path,))
    return Footprint(everything=kind == "everything")


FILE_OF = {
    "a.txt": "A",
    "link-a": "A",
    "hard-a": "A",
    "dir/c.txt": "C",
    "dir": "D",
    "other.txt": "O",
}
"""Which file each name is (a link and a hard link are the file they name)."""
UNDER = {"dir": {"C", "D"}}
"""What a listing or search of a name covers beyond the name's own file."""


def touches(kind: str, name: str, written: str) -> bool:
    """Whether a call of ``kind`` on ``name`` meets a write of the file ``written``."""
    if kind in ("read", "write"):
        return FILE_OF[name] == written
    return kind == "tree" and written in UNDER.get(name, {FILE_OF[name]})


def must_wait(shapes: list[tuple[str, str, int]], earlier: int, later: int) -> bool:
    """The oracle, written from the rules rather than from the code."""
    (first, first_name, _), (second, second_name, _) = shapes[earlier], shapes[later]
    if "none" in (first, second):
        return False
    if "everything" in (first, second):
        return True
    return (first == "write" and touches(second, second_name, FILE_OF[first_name])) or (
        second == "write" and touches(first, first_name, FILE_OF[second_name])
    )


@settings(max_examples=60, deadline=None)
@given(shapes=footprint_shapes)
def test_conflicting_calls_never_overlap_and_free_ones_start_at_once(
    shapes: list[tuple[str, str, int]],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        world(root)
        footprints = [footprint(kind, root / name) for kind, name, _ in shapes]
        order = CallOrder(footprints)
        log: list[tuple[str, int]] = []

        async def call(index: int) -> None:
            try:
                await order.wait_turn(index)
                log.append(("start", index))
                for _ in range(shapes[index][2]):
                    await asyncio.sleep(0)
                log.append(("finish", index))
            finally:
                order.finished(index)

        async def batch() -> None:
            await asyncio.gather(*(call(index) for index in range(len(shapes))))

        asyncio.run(batch())
        position = {event: place for place, event in enumerate(log)}
        # Calls that yield at least once finish after the first round of starts.
        slow = [position[("finish", index)] for index, shape in enumerate(shapes) if shape[2]]
        first_slow_finish = min(slow, default=len(log))
        for later in range(len(shapes)):
            blockers = [e for e in range(later) if must_wait(shapes, e, later)]
            for earlier in blockers:
                assert position[("finish", earlier)] < position[("start", later)]
            if not blockers:
                assert position[("start", later)] < first_slow_finish


def test_a_link_a_hard_link_and_a_folder_are_the_same_file_or_its_parent() -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        world(root)
        write_a = ResolvedFootprint.of(Footprint(writes=(root / "a.txt",)))
        for other in (
            Footprint(reads=(root / "link-a",)),
            Footprint(reads=(root / "hard-a",)),
            Footprint(reads=(root / "dir" / ".." / "a.txt",)),
            Footprint(trees=(root,)),
        ):
            assert conflict(write_a, ResolvedFootprint.of(other)), other
        for apart in (
            Footprint(reads=(root / "other.txt",)),
            Footprint(trees=(root / "dir",)),
            Footprint(writes=(root / "dir" / "c.txt",)),
        ):
            assert not conflict(write_a, ResolvedFootprint.of(apart)), apart
