"""``pifold search STATE_DIR "query"``: full-text search over a session's folded history.

The same engine search the model's ``search`` action runs (:mod:`pifold_core.search`), for a
person: a short table, or ``--json``
(``{"total": N, "hits": [{"fold": ..., "entry": ..., "role": ..., "tool": ..., "snippet":
...}]}``). The session is opened read-only, so the command runs beside a live agent and
changes nothing: an index that must be rebuilt is rebuilt in memory, and that is said on
stderr (and as ``"rebuilt"`` in the JSON). Exit codes: 0 with hits, 1 with none, 2 on bad
usage (not a session, a bad query); errors go to stderr with no traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pifold_core.engine import LOG_NAME, Engine, EngineError
from pifold_core.journal import JournalCorrupt
from pifold_core.search import DEFAULT_LIMIT, SearchError, SearchResults, parse_query
from pifold_core.store import StoreError

FOUND, NOTHING, USAGE = 0, 1, 2
"""The command's exit codes."""


def search(
    state: Annotated[Path, typer.Argument(help="A session's state folder (replay's --state).")],
    query: Annotated[str, typer.Argument(help='Words and "quoted phrases" (or a regex).')],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    tool: Annotated[
        str | None, typer.Option("--tool", help="Only this tool's calls and results.")
    ] = None,
    path: Annotated[
        str | None, typer.Option("--path", help="Only tool calls naming a path containing this.")
    ] = None,
    regex: Annotated[
        bool, typer.Option("--regex", help="Take the query as a Python regular expression.")
    ] = False,
    limit: Annotated[int, typer.Option("--limit", help="Hits to show (1 to 50).")] = DEFAULT_LIMIT,
    offset: Annotated[int, typer.Option("--offset", help="Hits to skip first.")] = 0,
) -> None:
    """Search a session's folded entries and clipped results; prints the best hits."""
    try:
        checked = parse_query(query, tool, path, regex, limit, offset)
    except SearchError as error:
        _fail(f"{error.argument}: {error}")
    engine = _open(state)
    try:
        results = engine.search(checked)
    except SearchError as error:
        _fail(str(error))
    except StoreError as error:
        _fail(f"the session's bytes do not verify: {error}")
    finally:
        engine.close()
    if results.rebuilt is not None:
        sys.stderr.write(f"note: {results.rebuilt}\n")
    if as_json:
        sys.stdout.write(json.dumps(results.to_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        _print(results)
    raise typer.Exit(FOUND if results.total else NOTHING)


def _open(state: Path) -> Engine:
    if not state.is_dir():
        _fail(f"{state} is not a folder (give a session's state folder)")
    if not (state / LOG_NAME).is_file():
        _fail(f"{state} holds no pifold session: there is no {LOG_NAME} in it")
    try:
        return Engine.open(state, read_only=True)
    except (EngineError, JournalCorrupt, StoreError, ValueError) as error:
        _fail(f"cannot open the session in {state}: {error}")
    except OSError as error:
        _fail(f"cannot read {state}: {error.strerror or error}")


def _print(results: SearchResults) -> None:
    console = Console(highlight=False, soft_wrap=False)
    if not results.hits:
        console.print(f"no hits ({results.total:,} in all)")
        return
    table = Table(box=None, pad_edge=False, show_edge=False)
    for column in ("#", "fold", "entry", "role", "tool", "snippet"):
        table.add_column(column, overflow="fold" if column == "snippet" else "ellipsis")
    for number, hit in enumerate(results.hits, start=results.offset + 1):
        table.add_row(
            str(number),
            hit.fold or "(clipped)",
            hit.entry,
            hit.role,
            hit.tool or "",
            escape(hit.snippet),
        )
    console.print(table)
    shown = f"{results.offset + 1:,} to {results.offset + len(results.hits):,}"
    console.print(f"{results.total:,} hits in all; showing {shown}")


def _fail(message: str) -> NoReturn:
    sys.stderr.write(f"error: {message}\n")
    raise typer.Exit(USAGE)


__all__ = ["search"]
