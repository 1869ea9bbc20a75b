"""``python -m pifold_cli ARGUMENTS``: the command line, as the ``pifold`` console script runs
it once it has arguments (the tests drive it this way in a pseudo-terminal)."""

from pifold_cli.app import main

main()
