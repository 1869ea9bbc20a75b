"""The engine's ``pi_fold_context`` tool as one of the agent's tools.

It goes through the same batch path as every other tool: the loop awaits it, records its
result first in the session file and then in the engine. The call id is passed on so an
ephemeral peek can be withdrawn at the next commit. A damaged store object is not something
the model can act on, so it stops the run (:class:`ToolCrash`) instead of becoming a result.
"""

from __future__ import annotations

from typing import cast

from pifold_agent.tools.protocol import ToolContext, ToolCrash, ToolOutcome, ToolTraits
from pifold_core.canonical import JsonValue
from pifold_core.engine import Engine
from pifold_core.store import StoreError
from pifold_core.tool import TOOL_NAME, run_tool, tool_definition


class FoldTool:
    """``pi_fold_context`` over one engine."""

    traits = ToolTraits(headline=("action", "id"))
    """It touches no file and asks nothing; a call's header shows its action and the id."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._definition = tool_definition()

    @property
    def name(self) -> str:
        return TOOL_NAME

    @property
    def description(self) -> str:
        return str(self._definition["description"])

    @property
    def parameters(self) -> dict[str, JsonValue]:
        return cast(dict[str, JsonValue], self._definition["input_schema"])

    async def run(self, arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        try:
            result = run_tool(self._engine, arguments, context.call_id)
        except StoreError as error:
            raise ToolCrash(f"the fold store is damaged: {error}") from error
        details: dict[str, JsonValue] = {"action": result.action, "moved_bytes": result.moved_bytes}
        return ToolOutcome(result.text, result.is_error, details=details)


__all__ = ["FoldTool"]
