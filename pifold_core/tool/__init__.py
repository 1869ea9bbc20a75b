"""The ``pi_fold_context`` tool (DESIGN §7): schemas, argument parsing, running, rendering.

A host hands :func:`tool_definition` to its provider and passes each call's arguments to
:func:`run_tool`, which returns the text of the tool result.
"""

from __future__ import annotations

from pifold_core.tool.arguments import ToolArgumentError, parse_arguments
from pifold_core.tool.runner import ToolResult, run_tool
from pifold_core.tool.schema import ACTIONS, TOOL_NAME, action_schemas, tool_definition

__all__ = [
    "ACTIONS",
    "TOOL_NAME",
    "ToolArgumentError",
    "ToolResult",
    "action_schemas",
    "parse_arguments",
    "run_tool",
    "tool_definition",
]
