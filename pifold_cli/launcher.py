"""The ``pifold`` console script: ``pifold`` alone opens the app at once, the rest is the CLI.

The command line (:mod:`pifold_cli.app`) imports every command it offers (the replay,
the benchmark, doctor, the engine) before it parses anything. ``pifold`` with no arguments
only opens the app, so it goes straight there, and the app imports the agent, the SDKs and
the engine after its first frame: the first interactive frame comes as soon as Textual can
draw it (``benchmarks/bench_app_startup.py``).
"""

from __future__ import annotations

import sys


def main() -> None:
    if not sys.argv[1:]:
        from pifold_tui.app.launch import run_plain

        sys.exit(run_plain())
    from pifold_cli.app import main as command_line

    command_line()


__all__ = ["main"]
