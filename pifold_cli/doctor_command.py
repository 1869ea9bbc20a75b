"""``pifold doctor STATE``: report what is damaged in a session's state, repair what can be.

The report names who holds the engine's lock and, when one does, who is writing the session
file (its own lock, held in every mode: a ``--no-fold`` run holds only that one).

Exit codes: 0 when the state is healthy (after ``--repair``, when nothing is left), 1 when
damage remains (or a repair was refused because the session is open), 2 on bad usage (not a
state folder). The report goes to stdout; errors go to stderr with no traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from pifold_agent.sessions.writer_lock import SESSION_LOCK_NAME
from pifold_core.doctor import (
    DoctorError,
    DoctorReport,
    Finding,
    describe_holder,
    examine,
    repair,
)
from pifold_core.lock import LockHolder, holder_of

HEALTHY, DAMAGED, USAGE = 0, 1, 2
"""The command's exit codes."""


def doctor(
    state: Annotated[Path, typer.Argument(help="A session's state folder (replay's --state).")],
    fix: Annotated[
        bool,
        typer.Option(
            "--repair",
            help="Repair what can be: rebuild damaged store objects from the log (verified), "
            "cut a torn last line, remove temporaries, tighten modes. Refused while open.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Check a session's state: log lines, torn tail, store objects, evidence, modes, lock."""
    try:
        if fix:
            repaired = repair(state)
            actions, report = repaired.actions, repaired.after
            assert report is not None  # repair always examines afterwards
        else:
            actions, report = [], examine(state)
    except DoctorError as error:
        sys.stderr.write(f"error: {error}\n")
        raise typer.Exit(DAMAGED if fix and state.is_dir() else USAGE) from None
    except OSError as error:
        sys.stderr.write(f"error: cannot examine {state}: {error.strerror or error}\n")
        raise typer.Exit(USAGE) from None
    writer = _session_writer(state)
    if as_json:
        sys.stdout.write(json.dumps(_json(report, actions, fix, writer), indent=2) + "\n")
    else:
        _print(report, actions, fix, writer)
    raise typer.Exit(HEALTHY if report.healthy else DAMAGED)


def _session_writer(state: Path) -> LockHolder | None:
    """Who writes the session file (its own lock, held in every mode, ``--no-fold`` too)."""
    try:
        return holder_of(state / SESSION_LOCK_NAME)
    except OSError:
        return None


def _print(
    report: DoctorReport, actions: list[str], fixed: bool, writer: LockHolder | None
) -> None:
    echo = typer.echo
    echo(f"pifold doctor: {report.state_dir}")
    echo(f"  session: {describe_holder(report.holder)}")
    if writer is not None:
        echo(f"  session file: {describe_holder(writer)}")
    echo(
        f"  checked: {report.entries:,} entries, {report.folds:,} store objects, "
        f"{report.evidence:,} evidence artifacts"
    )
    for action in actions:
        echo(f"  repaired: {action}")
    for finding in report.findings:
        echo(f"  {_label(finding)} {finding.kind} {finding.subject}: {finding.detail}")
    if report.healthy:
        echo("healthy" if not actions else "healthy after repair")
        return
    repairable = sum(1 for finding in report.damage if finding.repairable)
    hint = (
        f"; {repairable} can be repaired with --repair"
        if repairable and not fixed
        else " (close the session first)"
        if repairable
        else ""
    )
    echo(f"{len(report.damage)} problem(s) remain{hint}")


def _label(finding: Finding) -> str:
    if not finding.damage:
        return "note:   "
    return "damaged:" if not finding.repairable else "fixable:"


def _json(
    report: DoctorReport, actions: list[str], fixed: bool, writer: LockHolder | None
) -> dict[str, Any]:
    holder = report.holder
    return {
        "state": str(report.state_dir),
        "healthy": report.healthy,
        "repaired": actions if fixed else None,
        "lockHolder": None if holder is None else {"pid": holder.pid, "since": holder.since},
        "sessionFileHolder": None if writer is None else {"pid": writer.pid, "since": writer.since},
        "checked": {
            "entries": report.entries,
            "storeObjects": report.folds,
            "evidence": report.evidence,
        },
        "findings": [
            {
                "kind": finding.kind,
                "subject": finding.subject,
                "detail": finding.detail,
                "repairable": finding.repairable,
                "damage": finding.damage,
            }
            for finding in report.findings
        ],
    }
