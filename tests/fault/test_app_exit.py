"""Fault harness, app exit: quitting the demo at any moment prints nothing and exits 0.

``pifold`` with no key plays the bundled session; Ctrl+Q is the first exit a newcomer makes,
at whatever moment they happen to press it: while the session opens, mid-reply, between tool
calls, during a commit. Each case starts the real command in its own process on a
pseudo-terminal (as a user runs it, no key in its environment, its own home and temporary
folder), waits until the first frame is drawn, waits a random moment more, presses Ctrl+Q and
waits for the exit. A case fails when:

* the exit status is not 0;
* anything but control sequences is printed after the app gave the terminal back (a
  traceback, Textual's error report, a warning from asyncio at shutdown): the screen and the
  error output share the terminal, and the app writes nothing after its last frame;
* the demo's temporary state folder is left behind.

The moments are drawn so that about one case in four quits within half a second of the first
frame (the session still opening, or its first reply starting) and the rest spread over the
first :data:`LATEST_MOMENT_S` seconds of play.
"""

from __future__ import annotations

import os
import random
import tempfile
from pathlib import Path

from tests.fault.tally import FaultTally
from tests.pty_terminal import Terminal

CATEGORY = "app exit"

FIRST_FRAME = "ctrl+p commands"
"""Text the first interactive frame always shows (:data:`pifold_tui.app.app.FIRST_FRAME_MARKER`,
not imported: this module must not load the app to drive it)."""

QUIT = "\x11"
"""Ctrl+Q as the terminal sends it."""

EARLY_SHARE = 0.25
"""Share of the cases that quit within :data:`EARLY_MOMENT_S` of the first frame."""

EARLY_MOMENT_S = 0.5
LATEST_MOMENT_S = 15.0
"""The latest moment a case quits at, in seconds after the first frame."""

KEY_VARIABLES = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")
"""Unset in every case, so the app opens the demo."""

QUICK_COUNT = 6
FULL_COUNT = 50
"""The issue's figure: quitting the demo at 50 random moments prints nothing."""


def moment(rng: random.Random) -> float:
    """Seconds after the first frame at which one case quits."""
    if rng.random() < EARLY_SHARE:
        return rng.uniform(0.0, EARLY_MOMENT_S)
    return rng.uniform(EARLY_MOMENT_S, LATEST_MOMENT_S)


def quit_at(seconds: float, root: Path) -> list[str]:
    """Run the demo in ``root``, quit ``seconds`` after its first frame; what went wrong."""
    home, project, temporary = root / "home", root / "project", root / "tmp"
    for folder in (home, project, temporary):
        folder.mkdir()
    environment = {name: value for name, value in os.environ.items() if name not in KEY_VARIABLES}
    environment.update(
        {
            "HOME": str(home),
            "PIFOLD_HOME": str(home / ".pifold"),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "TMPDIR": str(temporary),
        }
    )
    terminal = Terminal([], environment, cwd=project)
    terminal.wait_for(FIRST_FRAME)
    terminal.read_for(seconds)
    terminal.press(QUIT)
    code = terminal.finish()
    problems = []
    if code != 0:
        problems.append(f"exit status {code}")
    printed = terminal.printed_after_exit()
    if printed:
        problems.append(f"printed after exit: {printed[-600:]!r}")
    # Only pifold's own folders count (tiktoken keeps its cache there too).
    left = sorted(path.name for path in temporary.iterdir() if path.name.startswith("pifold"))
    if left:
        problems.append(f"left in the temporary folder: {left}")
    return problems


def run(count: int, seed: int) -> FaultTally:
    """Quit the demo at ``count`` moments drawn with ``seed``."""
    tally = FaultTally(CATEGORY)
    rng = random.Random(seed)
    for number in range(count):
        seconds = moment(rng)
        with tempfile.TemporaryDirectory(prefix="pifold-exit-") as root:
            problems = quit_at(seconds, Path(root))
        tally.tried += 1
        for problem in problems:
            tally.fail(f"case {number} (Ctrl+Q {seconds:.2f} s after the first frame)", problem)
    return tally


def test_quitting_the_demo_as_it_opens_prints_nothing_and_leaves_nothing() -> None:
    # One early moment (0.42 s): the session is still opening, the case that left the
    # demo's folder behind. tests/ui/app/test_shell_quit.py quits mid-stream in-process.
    tally = run(count=1, seed=1)
    assert tally.tried == 1
    assert tally.failures == []
