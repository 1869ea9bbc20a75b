"""docs/security.md says what the code does (Reliability II, defect 15): the tools its table
says ask are exactly the ones the approval gate guards, every other tool is said never to
ask, and a headless run has no approver at all (it never asks)."""

from __future__ import annotations

import re
from pathlib import Path

from pifold_agent.loop.approval import GUARDED_TOOLS
from pifold_agent.memory.store import MemoryStore
from pifold_agent.memory.tool import MemoryTool
from pifold_agent.provider_choice import provider_and_model
from pifold_agent.run_setup import open_run
from pifold_agent.tools import builtin_tools
from pifold_core.tool import TOOL_NAME
from tests.agent.headless_cases import answer_script, options_in

DOC = Path(__file__).resolve().parents[1] / "docs" / "security.md"


def tools_in(cell: str) -> set[str]:
    return set(re.findall(r"`([a-z_]+)`", cell))


def test_the_table_names_what_asks_and_what_never_does() -> None:
    row = next(line for line in DOC.read_text().splitlines() if line.startswith("| the app ("))
    _, _, asks, never, _ = row.split("|")
    store = MemoryStore(Path("unused-project"), Path("unused-user"))  # never touched
    every_tool = {tool.name for tool in [*builtin_tools(), MemoryTool(store)]} | {TOOL_NAME}
    assert tools_in(asks) == set(GUARDED_TOOLS)
    assert tools_in(never) == every_tool - GUARDED_TOOLS


def test_a_headless_run_has_no_approver(tmp_path: Path) -> None:
    options = options_in(tmp_path, script=answer_script(tmp_path))
    provider, descriptor = provider_and_model(options)
    opened = open_run(options, provider, descriptor)  # as pifold -p opens it
    try:
        assert opened.agent.approval is None and opened.agent.config.approver is None
    finally:
        opened.close()
