"""The app's first frame loads nothing it does not draw (issue 23 item 5).

The session (its SDK, tokenizer, engine, tools and session files) is opened by a worker
right after the first frame. The loader is what that worker calls first, so what is in
``sys.modules`` when it is called is what the first frame cost to import. A fresh
interpreter runs the app as ``pifold`` does (headless), with a loader that only looks.
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = (
    "anthropic",
    "openai",
    "httpx",
    "tiktoken",
    "pygments",
    "markdown_it",
    "numpy",
    "pifold_core.engine",
    "pifold_core.search",
    "pifold_agent.loop.agent",
    "pifold_agent.tools",
    "pifold_agent.sessions",
    "pifold_tui.app.conversation",
    "pifold_core.entries",
    "pifold_agent.cache_report",
)
"""Modules the first frame does not need: the SDKs, the engine, the search and memory code,
the tools, the session files, the conversation (shown once the session is open), and the
messages and cache verdicts the footer counts once there is a session to count."""

PROBE = """
import asyncio, json, sys
from pifold_tui.app.app import PifoldApp
from pifold_tui.app.launch import conversation_for, open_prompt_project, prompt_for

seen: list[str] = []

def loader(approver):
    seen.extend(sys.modules)
    raise RuntimeError("looked")

async def main() -> None:
    app = PifoldApp(loader, conversation_for, prompt_for, on_session=open_prompt_project)
    async with app.run_test(size=(100, 30)):
        await app.loaded.wait()

asyncio.run(main())
print(json.dumps(sorted(seen)))
"""


def test_the_first_frame_imports_no_sdk_engine_tools_or_session_files() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], check=True, capture_output=True, text=True, timeout=120
    )
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "pifold_tui.app.prompt" in loaded  # the probe saw the first frame's modules
    assert sorted(name for name in HEAVY if name in loaded) == []
