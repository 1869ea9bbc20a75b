"""The prompt prefix stays byte-stable: the date and never a time, the tools in one order."""

from __future__ import annotations

import datetime
import random
import re
from pathlib import Path

import pytest

from pifold_agent.loop.system_prompt import ordered_tools, system_prompt
from pifold_agent.tools import builtin_tools
from pifold_agent.tools.registry import TOOL_ORDER as BUILT_IN_ORDER
from tests.agent.loop.helpers import ProgrammedProvider, make_agent, open_engine, reply


def test_the_prompt_carries_the_date_and_no_time() -> None:
    tools = ordered_tools(builtin_tools())
    text = system_prompt(tools, Path("/repo"), datetime.date(2026, 12, 1))
    assert "Current date: 2026-12-01" in text
    assert re.search(r"\d{1,2}:\d{2}", text) is None
    assert text == system_prompt(tools, Path("/repo"), datetime.date(2026, 12, 1))


def test_tools_come_in_one_order_whatever_order_they_are_given() -> None:
    tools = builtin_tools()
    shuffled = random.Random(7).sample(tools, len(tools))  # any number of tools
    assert [tool.name for tool in ordered_tools(shuffled)] == list(BUILT_IN_ORDER)
    with pytest.raises(ValueError, match="two tools share the name read"):
        ordered_tools([tools[0], tools[0]])


async def test_every_request_of_a_run_carries_the_same_system_and_tools(tmp_path: Path) -> None:
    engine = open_engine(tmp_path)
    provider = ProgrammedProvider(
        [reply("", ("c1", "pi_fold_context", {"action": "status"})), reply("done")]
    )
    agent, _, _ = make_agent(engine, provider, builtin_tools())
    await agent.run("status please")
    first, second = provider.requests
    assert first.system == second.system == "test system"
    assert first.tools == second.tools
    assert [spec.name for spec in first.tools] == [*BUILT_IN_ORDER, "pi_fold_context"]
    engine.close()
