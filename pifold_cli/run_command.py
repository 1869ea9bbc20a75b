"""``pifold -p "prompt"``: one prompt run headless, the final answer printed.

The run goes through the same loop, engine and session code as every other host: the
session file (``~/.pifold/sessions/<project>/``) records each message before the engine's
state folder beside it, ``--continue`` and ``--resume ID`` reopen a session and first catch
the engine up with anything the session holds that the engine lacks (a kill between the two
writes), and a second Ctrl-C is never needed: the first aborts the run cleanly (exit 1).

Exit codes, and every failure is one line on stderr (the missing key's help aside), never a
traceback:

* **2**: what the user must fix before anything runs: no key, a bad option or budget, an
  unknown or unreadable session, one another process is writing (one writer per session, in
  every mode), damaged state (with what ``pifold doctor`` can do), a refused settings or
  models file, a message too large for any request, or stdin too large. Nothing is recorded.
* **1**: a run that started and then failed (the provider refused, a write failed) or was
  aborted; the session keeps what happened and opens again.

Warnings (one line each, the run goes on): input bytes that were not UTF-8 and were
replaced, session lines skipped, a hand edit of the session file that the engine's log
overrides, a configuration file others may write.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import Callable
from typing import Any, TextIO

from pifold_agent.cache_report.tally import CacheTally
from pifold_agent.loop import AgentEvent, RunResult, ToolCrash, event_json
from pifold_agent.loop.agent import Agent
from pifold_agent.loop.events import (
    CommitDone,
    CompactionDone,
    RetryWait,
    RunEnd,
    ServerWaiting,
)
from pifold_agent.provider_choice import provider_and_model
from pifold_agent.run_input import CommandError, HeadlessOptions, clean_text, gather_messages
from pifold_agent.run_setup import open_run
from pifold_agent.setup_report import flatten, one_line
from pifold_core.canonical import JsonValue
from pifold_core.engine import Engine


def run_headless(options: HeadlessOptions, stdin: TextIO | None, out: TextIO, err: TextIO) -> int:
    """Run one headless prompt; returns the exit code (messages already printed)."""
    try:
        return _run(options, stdin, out, err)
    except CommandError as error:
        err.write(f"error: {error}\n")
        return error.code
    except ToolCrash as crash:
        err.write(f"error: the run stopped: {one_line(crash)}\n")
        return 1
    except Exception as error:
        # The run had started: the session file, the engine's log or store could not be
        # written or read mid-run (a full disk, a vanished folder). What was recorded stays.
        err.write(f"error: the run stopped: {_failure(error)}\n")
        return 1


def _failure(error: Exception) -> str:
    if isinstance(error, OSError | ValueError | RuntimeError):
        return one_line(error)
    return (
        f"unexpected {type(error).__name__}: {one_line(error)} (a bug in pifold: please report it)"
    )


def _run(options: HeadlessOptions, stdin: TextIO | None, out: TextIO, err: TextIO) -> int:
    messages = gather_messages(options.prompt, stdin)
    for warning in messages.warnings:
        err.write(f"warning: {warning}\n")
    provider, descriptor = provider_and_model(options)
    opened = open_run(options, provider, descriptor, messages=messages.texts)
    try:
        for notice in opened.notices:
            err.write(f"warning: {notice}\n")
        if options.as_json and opened.budget_origin is not None:
            out.write(json.dumps({"type": "budget", "origin": opened.budget_origin}) + "\n")
        if options.as_json and opened.engine is not None:
            out.write(json.dumps(prefix_json(opened.engine)) + "\n")
        agent = opened.agent
        recorded = agent.recorder.recorded
        agent.subscribe(_printer(options, out, err, lambda: CacheTally.of(recorded()).to_json()))
        for text in messages.texts[1:]:
            agent.steer(text)
        result = _run_until_done(agent, messages.texts[0])
    finally:
        opened.close()
    return _report(result, options, out, err)


def prefix_json(engine: Engine) -> dict[str, JsonValue]:
    """The ``--json`` run's line about the fixed prefix: its estimated size, the budget and
    the floor it sets (``None``: none), before the first event (issue 22)."""
    floor = engine.status().prefix_floor
    return {
        "type": "prefix",
        "tokens": engine.view.prefix_tokens,
        "budget": engine.options.budget,
        "floor": None if floor is None else floor.describe(),
    }


def _printer(
    options: HeadlessOptions,
    out: TextIO,
    err: TextIO,
    cache: Callable[[], dict[str, Any]] | None = None,
) -> Callable[[AgentEvent], None]:
    """Every event as JSON on stdout with ``--json`` (``run_end`` with the session's cache
    figures, ``cache``); otherwise stdout keeps only the final answer and stderr says why the
    run is waiting (a retry) or what the context did."""

    said_at = [0]  # the wait last reported on stderr, in seconds

    def show(event: AgentEvent) -> None:
        if options.as_json:
            body = event_json(event)
            if isinstance(event, RunEnd) and cache is not None:
                body["cache"] = cache()
            line = json.dumps(body, ensure_ascii=False)
            if clean_text(line)[1]:
                # A lone surrogate from a reply has no UTF-8 form; JSON's escapes keep it.
                line = json.dumps(body)
            out.write(line + "\n")
            out.flush()
        elif isinstance(event, ServerWaiting):
            # 10 s, 30 s, then each minute: a long prefill is visible without filling the log.
            said = said_at[0]
            due = next((mark for mark in (10, 30, 60) if said < mark), said + 60)
            if event.seconds >= due:
                said_at[0] = event.seconds
                err.write(
                    f"waiting for the server: {event.seconds} s without a first token (a "
                    "local server reads the whole prompt first; --timeout bounds the wait)\n"
                )
        elif isinstance(event, RetryWait):
            err.write(
                f"retrying in {event.delay_s:.1f} s (attempt {event.attempt}): {event.error}\n"
            )
        elif isinstance(event, CommitDone):
            prefix = f" (fixed prefix {event.prefix:,})" if event.prefix else ""
            err.write(
                f"folded: commit {event.number} ({event.cause}), {event.tokens_before:,} → "
                f"{event.tokens_after:,} tokens{prefix}\n"
            )
        elif isinstance(event, CompactionDone):
            err.write(
                f"compacted ({event.reason}): {event.tokens_before:,} → "
                f"{event.tokens_after:,} tokens\n"
            )

    return show


def _run_until_done(agent: Agent, prompt: str) -> RunResult | None:
    """Run the prompt; Ctrl-C or SIGTERM aborts it cleanly. ``None`` means aborted."""

    async def main() -> RunResult | None:
        task = asyncio.ensure_future(agent.run(prompt))
        loop = asyncio.get_running_loop()
        for signal_number in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signal_number, task.cancel)
        try:
            return await task
        except asyncio.CancelledError:
            return None
        finally:
            for signal_number in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(signal_number)

    return asyncio.run(main())


def _report(result: RunResult | None, options: HeadlessOptions, out: TextIO, err: TextIO) -> int:
    if result is None:
        err.write("aborted: the run was interrupted; the session keeps what happened\n")
        return 1
    if result.outcome != "stop":
        err.write(f"error: {flatten(result.error or 'the run failed')}\n")
        return 1
    if not options.as_json:
        # A reply's lone surrogate cannot reach a UTF-8 stream: it is shown replaced.
        out.write(clean_text(result.final_text)[0].rstrip("\n") + "\n")
    return 0


def main_stdio(options: HeadlessOptions) -> int:
    """:func:`run_headless` on the process's own streams."""
    return run_headless(options, sys.stdin, sys.stdout, sys.stderr)


__all__ = ["main_stdio", "run_headless"]
