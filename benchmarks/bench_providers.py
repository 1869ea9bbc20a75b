"""What the provider adapters cost per request: converting the engine's projection into each
API's body, and assembling a streamed reply.

Run: ``.venv/bin/python benchmarks/bench_providers.py [--repeat 20] [--trace PATH]``

The projection is the whole bundled session (pi-mono, 900 messages) as raw wire messages,
the largest window a request of that session could carry unfolded; the figure per request
is the mean over ``--repeat`` conversions. The assembly row streams 20,000 text pieces and
200 tool calls of 50 argument pieces each through :class:`BlockAssembler`. Wall and CPU time
are printed side by side (the machine is shared; CPU time is the steadier figure).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from pifold_agent.bundled_traces import demo_trace
from pifold_agent.importers import load_trace
from pifold_agent.providers import anthropic_messages, openai_chat, openai_responses
from pifold_agent.providers.assembly import BlockAssembler
from pifold_agent.providers.base import ProviderRequest, ToolSpec

BUNDLED = demo_trace()

TOOLS = tuple(
    ToolSpec(name, f"The {name} tool.", {"type": "object", "properties": {}})
    for name in ("read", "write", "edit", "bash", "grep", "find", "ls", "pi_fold_context")
)


def timed(action: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Mean wall and CPU milliseconds of ``action``."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(repeat):
        action()
    return (
        (time.perf_counter() - wall) * 1000 / repeat,
        (time.process_time() - cpu) * 1000 / repeat,
    )


def assemble() -> None:
    assembler = BlockAssembler()
    for number in range(20_000):
        assembler.text("text", f"word{number} ")
    for call in range(200):
        assembler.open_tool_call(call, f"call_{call}", "read")
        for piece in range(50):
            assembler.arguments(call, '{"path": "a.py"}' if piece == 49 else "")
    assembler.blocks()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--trace", type=Path, default=BUNDLED)
    arguments = parser.parse_args()
    entries = load_trace(arguments.trace).entries
    messages = [entry.wire for entry in entries]
    size = len(json.dumps(messages))
    request = ProviderRequest(
        system="You are a coding agent.",
        messages=messages,
        tools=TOOLS,
        settled_messages=len(messages) // 2,
        session_id="bench",
        max_output_tokens=32_000,
    )
    rows = [
        (
            "anthropic body",
            lambda: anthropic_messages.build_body(request, "claude-sonnet-4-5", 32_000),
        ),
        ("responses body", lambda: openai_responses.build_body(request, "gpt-5.4", True)),
        ("chat body", lambda: openai_chat.build_body(request, "qwen3", False)),
        ("assemble 20k pieces + 200 calls", assemble),
    ]
    table = Table(title=f"provider adapters: {len(messages)} messages, {size:,} bytes of wire JSON")
    for column in ("work", "wall ms", "CPU ms"):
        table.add_column(column, justify="right" if column != "work" else "left")
    for label, action in rows:
        wall, cpu = timed(action, arguments.repeat)
        table.add_row(label, f"{wall:.1f}", f"{cpu:.1f}")
    Console().print(table)


if __name__ == "__main__":
    main()
