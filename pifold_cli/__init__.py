"""The ``pifold`` command line: the top floor, which nothing else in the project imports.

The console script (:mod:`pifold_cli.launcher`), the Typer app (:mod:`pifold_cli.app`) and
each command it offers: the headless run (:mod:`pifold_cli.run_command`), the replay and the
demo (:mod:`pifold_cli.replay_command`, :mod:`pifold_cli.headless_demo`), ``inspect``,
``doctor`` and ``settings``. It sits above the terminal app (:mod:`pifold_tui`) and the
benchmark (:mod:`pifold_bench`), which sit above the agent and the engine; the floors are
checked by import-linter's contracts in ``pyproject.toml`` (``docs/contributing.md``).
"""
