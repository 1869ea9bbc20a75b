"""The real sessions that ship inside the package (``pifold_agent/data/traces/``).

Each folder holds one session written by another agent, its ``PROVENANCE.md`` and its
``LICENSE``. The demo plays one of them, ``pifold bench`` with no argument benches them all,
and the tests and benchmarks use them as integration data, so a clone or an install runs
with nothing beside it.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

NOT_SESSIONS = frozenset({"PROVENANCE.md", "LICENSE", "README.md"})
"""Files in the traces folder that are not sessions: provenance, licences, the index."""

DEMO_TRACE_NAME = "pi-mono"
"""The bundled session the demo plays: a real Pi session of 439 model requests."""


def traces_folder() -> Path:
    """The folder of bundled traces, one subfolder per session.

    The package is installed as files (a wheel or an editable install, never a zip), so the
    folder is a real path that replay and the importers can open directly.
    """
    return Path(str(resources.files("pifold_agent") / "data" / "traces"))


def bundled_traces() -> list[Path]:
    """Every bundled session file, sorted by folder name."""
    return sorted(
        path
        for folder in traces_folder().iterdir()
        if folder.is_dir()
        for path in folder.iterdir()
        if path.is_file() and path.name not in NOT_SESSIONS
    )


def bundled_trace(name: str) -> Path:
    """The session file of the bundled trace in folder ``name``.

    Raises:
        KeyError: no bundled trace has that name (the message lists those that do).
    """
    for path in bundled_traces():
        if path.parent.name == name:
            return path
    names = ", ".join(path.parent.name for path in bundled_traces())
    raise KeyError(f"no bundled trace {name!r}; the bundled traces are {names}")


def demo_trace() -> Path:
    """The session file the demo plays."""
    return bundled_trace(DEMO_TRACE_NAME)


__all__ = [
    "DEMO_TRACE_NAME",
    "NOT_SESSIONS",
    "bundled_trace",
    "bundled_traces",
    "demo_trace",
    "traces_folder",
]
