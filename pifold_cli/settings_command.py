"""``pifold settings``: show the effective options and check a settings file (DESIGN §9).

Exit codes: 0 when the file is good (or absent, for ``show``), 2 when it is refused, with
the file and the reason on stderr. Anything but a regular file is refused unopened (a FIFO
would block the command), and a file other users may write is read with a warning line on
stderr (:mod:`pifold_core.config_file`).
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from pifold_core.options import OPTION_NAMES
from pifold_core.settings import HOST_SETTINGS, SettingsError, SettingsFile

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
    _warn(settings)
    values: dict[str, object] = dict(options.to_settings())
    # The agent's own settings (memory resurfacing, ...) sit in the same file beside the
    # engine's options; a user checking what is in force must see them too.
    values.update({name: settings.host_setting(name) for name in HOST_SETTINGS})
    names = [*OPTION_NAMES, *HOST_SETTINGS]
    if as_json:
        report = {
            "file": str(settings.path),
            "found": settings.found,
            "fromFile": [name for name in names if name in settings.names],
            "options": {name: values[name] for name in OPTION_NAMES},
            "agent": {name: values[name] for name in HOST_SETTINGS},
        }
        typer.echo(json.dumps(report, indent=2))
        return
    columns = shutil.get_terminal_size().columns
    head = f"settings file: {settings.path}"
    if not settings.found:
        state = "(not found: every option is the default)"
        # On a narrow terminal the state goes on its own line rather than being cut.
        head = f"{head} {state}" if len(head) + 1 + len(state) <= columns else f"{head}\n{state}"
    typer.echo(head)
    width = max(len(name) for name in names)
    for name in names:
        source = "file" if name in settings.names else "default"
        value = json.dumps(values[name])
        row = f"  {name:<{width}}  {value}  ({source})"
        if len(row) <= columns:
            typer.echo(row)
            continue
        # Too wide for the terminal (the thresholds at 80 columns): the value goes under
        # the name, wrapped between its items.
        typer.echo(f"  {name:<{width}}  ({source})")
        for piece in textwrap.wrap(value, max(20, columns - 6)):
            typer.echo(f"      {piece}")
    if "providerInputBudget" not in settings.names:
        # The default shown is pifold's fallback; the user should not think it is the
        # budget every session gets.
        note = "providerInputBudget is not set by the file, so a session takes its model's budget."
        typer.echo(textwrap.fill(note, max(20, columns)))


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
    _warn(settings)
    names = [name for name in (*OPTION_NAMES, *HOST_SETTINGS) if name in settings.names]
    sets = f"sets {', '.join(names)}" if names else "sets no option; every option is the default"
    typer.echo(f"{file}: valid ({sets})")


def _warn(settings: SettingsFile) -> None:
    """Say on stderr who else may change the file (it is read all the same)."""
    if settings.warning is not None:
        typer.echo(f"warning: settings file {settings.warning}", err=True)


def _refuse(error: SettingsError) -> NoReturn:
    typer.echo(f"error: {error}", err=True)
    raise typer.Exit(REFUSED_EXIT_CODE)
