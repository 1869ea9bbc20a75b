"""Time from launching ``pifold`` to its first interactive frame, beside a bare Textual app.

Each run starts the program in a fresh detached tmux session of a fixed size and polls
``tmux capture-pane`` until a marker the first frame shows appears: for pifold the footer's
key hints (``FIRST_FRAME_MARKER``: the prompt and the footer are in that frame), for the bare
app (a header, an input and a footer) its input's placeholder. Wall time is from just
before ``tmux new-session`` to the poll that saw the marker; CPU time is the program's own
(user + system, read from ``/proc`` when the marker is seen), so the load of a shared
machine shows as the gap between the two; the resident memory (``VmRSS``) is read at the
same moment. pifold runs with no API key (the demo: the session opens after the first
frame, in a worker, so what it has loaded by the poll that sees the marker counts too).

    .venv/bin/python benchmarks/bench_app_startup.py            # 7 runs of each
    .venv/bin/python benchmarks/bench_app_startup.py --runs 15
    .venv/bin/python benchmarks/bench_app_startup.py --inside   # read inside each process

With ``--inside`` each program reads its own CPU time and memory as it writes its first
frame to the terminal (Textual's ``App._display``, wrapped) and exits; pifold does not open
its session. Nothing done after the frame counts (the worker opening pifold's session, the
widgets mounted after it), however late a poll would have seen the frame.

Target: pifold under 0.6 s; the bare app is about 0.35 s on this machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pifold_tui.app.app import FIRST_FRAME_MARKER  # noqa: E402 - after the path is set

BARE_MARKER = "bare app ready"
"""The bare app's input placeholder."""

BARE_APP = f'''
from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Input


class Bare(App[None]):
    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="{BARE_MARKER}")
        yield Footer()


Bare().run()
'''

REPORT = """
import os, time
from pathlib import Path

from textual.app import App

display = App._display


def display_then_report(app, screen, renderable):
    # The first update written to the terminal is the first frame: the figures then.
    display(app, screen, renderable)
    if renderable is None or app._batch_count or os.environ.get("FIRST_FRAME_SEEN"):
        return
    os.environ["FIRST_FRAME_SEEN"] = "1"
    cpu = time.process_time()  # the process's, every thread's
    rss = next(
        int(line.split()[1]) / 1024
        for line in Path("/proc/self/status").read_text().splitlines()
        if line.startswith("VmRSS:")
    )
    Path(os.environ["FIRST_FRAME_REPORT"]).write_text(f"{cpu} {rss}")
    app.exit()


App._display = display_then_report
"""

BARE_INSIDE = REPORT + BARE_APP

PIFOLD_INSIDE = (
    REPORT
    + """
import sys

from pifold_tui.app.app import PifoldApp

PifoldApp._start_opening = lambda app: None  # the session is not opened: nothing to close
from pifold_cli.launcher import main

sys.argv = ["pifold"]
main()
"""
)

POLL_S = 0.005
TIMEOUT_S = 30.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Sample:
    wall_s: float
    cpu_s: float
    rss_mb: float
    """Resident memory when the marker was seen."""


def rss_megabytes(pid: int) -> float:
    """``VmRSS`` of ``pid``, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    """User + system time of ``pid`` and its reaped children, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    # After the command name: state is field 3; utime, stime, cutime, cstime are 14-17.
    return sum(int(value) for value in fields[11:15]) / CLOCK_TICKS


def tmux(*arguments: str) -> str:
    done = subprocess.run(["tmux", *arguments], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"tmux {arguments[0]} failed: {done.stderr.strip()}")
    return done.stdout


def time_one(command: str, marker: str, environment: dict[str, str], session: str) -> Sample:
    start = time.perf_counter()
    tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "36", f"exec {command}")
    try:
        pid = int(tmux("display-message", "-p", "-t", session, "#{pane_pid}").strip())
        while time.perf_counter() - start < TIMEOUT_S:
            if marker in tmux("capture-pane", "-p", "-t", session):
                wall = time.perf_counter() - start
                return Sample(wall, cpu_seconds(pid), rss_megabytes(pid))
            time.sleep(POLL_S)
        raise RuntimeError(f"{marker!r} never appeared: {command}")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def read_inside(command: str, report: Path, session: str) -> Sample:
    """Run ``command`` until it writes its first frame's figures to ``report``."""
    report.unlink(missing_ok=True)
    start = time.perf_counter()
    tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "36", f"exec {command}")
    try:
        while time.perf_counter() - start < TIMEOUT_S:
            text = report.read_text() if report.exists() else ""
            if text.count(" ") == 1:
                cpu, rss = (float(figure) for figure in text.split())
                return Sample(time.perf_counter() - start, cpu, rss)
            time.sleep(POLL_S)
        raise RuntimeError(f"no first frame reported: {command}")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def environment_line(environment: dict[str, str]) -> str:
    return " ".join(f"{key}={value}" for key, value in environment.items())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of each program")
    parser.add_argument(
        "--inside", action="store_true", help="read each program's figures at its first frame"
    )
    options = parser.parse_args()
    if shutil.which("tmux") is None:
        print(
            "error: tmux is not installed; this benchmark drives the app in tmux", file=sys.stderr
        )
        return 2
    python = sys.executable
    pifold = str(Path(python).parent / "pifold")
    with tempfile.TemporaryDirectory(prefix="pifold-startup-") as folder:
        bare = Path(folder) / "bare.py"
        bare.write_text(BARE_INSIDE if options.inside else BARE_APP)
        wrapper = Path(folder) / "pifold_inside.py"
        wrapper.write_text(PIFOLD_INSIDE)
        report = Path(folder) / "first-frame"
        # No key: the demo, whose session opens after the first frame. Nothing is written
        # under the real home (PIFOLD_HOME and XDG_CONFIG_HOME point into the temp folder).
        environment = {"PIFOLD_HOME": folder, "XDG_CONFIG_HOME": folder, "TERM": "xterm-256color"}
        # Both programs read byte code cached by their warm-up run, as an installed program
        # does (pip compiles what it installs). With PYTHONDONTWRITEBYTECODE set, as it is on
        # the machine these figures come from, pifold's own modules (an editable install)
        # were compiled from source on every run while Textual's were read compiled: about
        # 0.1 s of CPU the first frame of an installed pifold does not spend. The cache goes
        # to the temp folder, for both programs alike, so the tree is not written.
        environment["PYTHONPYCACHEPREFIX"] = str(Path(folder) / "bytecode")
        environment["FIRST_FRAME_REPORT"] = str(report)
        prefix = (
            "env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY -u PYTHONDONTWRITEBYTECODE "
            f"{environment_line(environment)}"
        )
        programs = {
            "bare Textual app (header, input, footer)": (f"{prefix} {python} {bare}", BARE_MARKER),
            "pifold (no key: the demo)": (
                f"{prefix} {python} {wrapper}" if options.inside else f"{prefix} {pifold}",
                FIRST_FRAME_MARKER,
            ),
        }
        results: dict[str, list[Sample]] = {name: [] for name in programs}
        # A session that outlives the runs keeps the tmux server up between them (a server
        # that exits with its last session races the next new-session).
        holder = f"pifold-startup-{os.getpid()}-holder"
        tmux("new-session", "-d", "-s", holder, "sleep 3600")
        try:
            # Interleaved, so a burst of load hits both alike; one warm-up run each.
            for run in range(options.runs + 1):
                for name, (command, marker) in programs.items():
                    session = f"pifold-startup-{os.getpid()}-{run}-{len(results[name])}"
                    if options.inside:
                        sample = read_inside(command, report, session)
                    else:
                        sample = time_one(command, marker, environment, session)
                    if run:
                        results[name].append(sample)
        finally:
            subprocess.run(["tmux", "kill-session", "-t", holder], capture_output=True)
    how = "read inside each process" if options.inside else "tmux 120x36, polled every 5 ms"
    print(f"first interactive frame, {options.runs} runs each ({how})")
    print(
        f"{'program':<42} {'wall median':>11} {'wall min':>9} {'cpu median':>11} "
        f"{'cpu / bare':>10} {'rss median':>10} {'rss / bare':>10}"
    )
    bare = next(iter(results.values()))
    bare_cpu = statistics.median(sample.cpu_s for sample in bare)
    bare_rss = statistics.median(sample.rss_mb for sample in bare)
    for name, samples in results.items():
        walls = [sample.wall_s for sample in samples]
        cpu = statistics.median(sample.cpu_s for sample in samples)
        rss = statistics.median(sample.rss_mb for sample in samples)
        print(
            f"{name:<42} {statistics.median(walls):>10.3f}s {min(walls):>8.3f}s "
            f"{cpu:>10.3f}s {cpu / bare_cpu:>9.2f}x {rss:>8.1f}MB {rss / bare_rss:>9.2f}x"
        )
    print("target: pifold under 0.6 s, and at most 1.2x the bare app's CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
