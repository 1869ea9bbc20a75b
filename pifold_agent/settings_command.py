"""``pifold settings``: show the effective options and check a settings file (DESIGN §9).

Exit codes: 0 when the file is good (or absent, for ``show``), 2 when it is refused, with
the file and the reason on stderr.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from pifold_core.options import OPTION_NAMES
from pifold_core.settings import SettingsError, SettingsFile

settings_app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Show the effective options, or check a settings file.",
)

REFUSED_EXIT_CODE = 2
"""Exit status for a refused settings file, as for any other bad input to pifold."""


@settings_app.command()
def show(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    file: Annotated[
        Path | None,
        typer.Option(
            "--file",
            help="Settings file to read (default: $XDG_CONFIG_HOME/pi-fold/settings.json, "
            "else ~/.config/pi-fold/settings.json).",
        ),
    ] = None,
) -> None:
    """Print the effective options (defaults with the settings file on top) and their file."""
    settings = SettingsFile(file)
    try:
        options = settings.load()
    except SettingsError as error:
        _refuse(error)
    values = options.to_settings()
    if as_json:
        report = {
            "file": str(settings.path),
            "found": settings.found,
            "fromFile": [name for name in OPTION_NAMES if name in settings.names],
            "options": values,
        }
        typer.echo(json.dumps(report, indent=2))
        return
    state = "" if settings.found else " (not found: every option is the default)"
    typer.echo(f"settings file: {settings.path}{state}")
    width = max(len(name) for name in OPTION_NAMES)
    for name in OPTION_NAMES:
        source = "file" if name in settings.names else "default"
        typer.echo(f"  {name:<{width}}  {json.dumps(values[name])}  ({source})")
    if "providerInputBudget" not in settings.names:
        # The default shown is pifold's fallback; the user should not think it is the
        # budget every session gets.
        typer.echo(
            "providerInputBudget is not set by the file, so a session takes its model's budget."
        )


@settings_app.command()
def check(
    file: Annotated[Path, typer.Argument(help="The settings file to check.")],
) -> None:
    """Check a settings file: exit 0 when it is valid, 2 with the reason when it is refused."""
    settings = SettingsFile(file)
    try:
        settings.load(missing_ok=False)
    except SettingsError as error:
        _refuse(error)
    names = [name for name in OPTION_NAMES if name in settings.names]
    sets = f"sets {', '.join(names)}" if names else "sets no option; every option is the default"
    typer.echo(f"{file}: valid ({sets})")


def _refuse(error: SettingsError) -> NoReturn:
    typer.echo(f"error: {error}", err=True)
    raise typer.Exit(REFUSED_EXIT_CODE)
