"""The ``pifold`` command line: the Typer app, its options, and the commands it offers.

With no command it opens the terminal app (:mod:`pifold_tui.app.launch`), or with ``-p``
runs one prompt headless (:mod:`pifold_cli.run_command`); each other command lives in its
own module of this package (``bench`` in :mod:`pifold_bench.command`).
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path
from typing import Annotated

import typer

from pifold_agent.providers.registry import provider_help
from pifold_bench.command import bench
from pifold_cli.doctor_command import doctor
from pifold_cli.inspect_command import inspect
from pifold_cli.replay_command import demo, replay
from pifold_cli.search_command import search
from pifold_cli.settings_command import settings_app

app = typer.Typer(
    add_completion=False,
    no_args_is_help=False,
    help="pifold: lossless context folding for coding agents.",
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(settings_app, name="settings")
app.command()(bench)
app.command()(doctor)
app.command()(inspect)
app.command()(search)
app.command()(demo)
app.command()(replay)


def _print_version(value: bool) -> None:
    if value:
        sys.stdout.write(f"pifold {metadata.version('pifold')}\n")
        raise typer.Exit(0)


@app.callback(invoke_without_command=True)
def main_callback(
    context: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version."
        ),
    ] = False,
    prompt: Annotated[
        str | None,
        typer.Option("-p", "--prompt", help="Run this prompt headless; print the final answer."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="With -p: every event as a JSON line.")
    ] = False,
    provider: Annotated[
        str | None,
        typer.Option(help=provider_help("scripted")),
    ] = None,
    model: Annotated[str | None, typer.Option(help="The model id.")] = None,
    base_url: Annotated[
        str | None, typer.Option(help="A compatible server's URL (Ollama, vLLM, ...).")
    ] = None,
    api_key_env: Annotated[
        str | None, typer.Option(help="The environment variable that holds the API key.")
    ] = None,
    script: Annotated[
        Path | None, typer.Option(help="A script or trace for the scripted provider.")
    ] = None,
    no_fold: Annotated[
        bool, typer.Option("--no-fold", help="Pi's native compaction instead of folding.")
    ] = False,
    budget: Annotated[
        int | None, typer.Option(help="With -p: the serving budget in tokens.")
    ] = None,
    no_text_calls: Annotated[
        bool,
        typer.Option(
            "--no-text-calls",
            help="With --base-url: a tool call the model writes as text stays text.",
        ),
    ] = False,
    timeout: Annotated[
        float | None,
        typer.Option(
            help="Seconds a request may wait for the server's next byte (default 600; "
            "1800 with --base-url; or PIFOLD_REQUEST_TIMEOUT)."
        ),
    ] = None,
    continue_session: Annotated[
        bool, typer.Option("--continue", "-c", help="Continue this directory's newest session.")
    ] = False,
    resume: Annotated[
        str | None, typer.Option(help="Resume the session with this id (or id prefix).")
    ] = None,
    yes: Annotated[
        bool,
        typer.Option(
            "--yes",
            "-y",
            help="In the app, write, edit and bash run without asking for approval; "
            "with --continue, start a new session if there is none.",
        ),
    ] = False,
) -> None:
    """With no command, open the app (the demo when no key is set); with -p, one prompt
    headless."""
    if context.invoked_subcommand is None:
        # Imported here so the other commands never load the agent and its SDKs.
        from pifold_agent.run_input import HeadlessOptions
        from pifold_cli.run_command import main_stdio

        options = HeadlessOptions(
            prompt=prompt,
            as_json=as_json,
            provider=provider,
            model=model,
            base_url=base_url,
            api_key_env=api_key_env,
            script=script,
            no_fold=no_fold,
            budget=budget,
            timeout_s=timeout,
            text_calls=not no_text_calls,
            continue_session=continue_session,
            resume=resume,
            yes=yes,
            cwd=Path.cwd(),
        )
        if prompt is not None:
            raise typer.Exit(main_stdio(options))
        from pifold_tui.app.launch import run_app

        raise typer.Exit(run_app(options))


def main() -> None:
    """Run the command line on the process's arguments (``python -m pifold_cli`` too)."""
    app()
