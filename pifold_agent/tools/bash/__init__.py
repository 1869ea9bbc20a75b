"""The ``bash`` tool, one module per concern.

* :mod:`~pifold_agent.tools.bash.tool`: the tool, its timeout and what it reports;
* :mod:`~pifold_agent.tools.bash.environment`: the environment without secrets, and the
  redaction of their values from the output;
* :mod:`~pifold_agent.tools.bash.groups`: process groups, and the groups left running until
  pifold exits;
* :mod:`~pifold_agent.tools.bash.output`: the output pipe, drained until its last writer
  closes it; the kept tail, the full-output log, the notices.
"""

from __future__ import annotations

from pifold_agent.tools.bash.environment import (
    PASS_VARIABLE,
    PROVIDER_KEY_VARIABLES,
    command_environment,
)
from pifold_agent.tools.bash.groups import end_background_processes, kill_group
from pifold_agent.tools.bash.output import OutputCollector, render_output
from pifold_agent.tools.bash.tool import (
    DEFAULT_TIMEOUT_SECONDS,
    TIMEOUT_VARIABLE,
    TOOL,
    BashTool,
    default_timeout,
    shell,
)

__all__ = [
    "DEFAULT_TIMEOUT_SECONDS",
    "PASS_VARIABLE",
    "PROVIDER_KEY_VARIABLES",
    "TIMEOUT_VARIABLE",
    "TOOL",
    "BashTool",
    "OutputCollector",
    "command_environment",
    "default_timeout",
    "end_background_processes",
    "kill_group",
    "render_output",
    "shell",
]
