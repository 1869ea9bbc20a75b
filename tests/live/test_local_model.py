"""The agent against a real model: a local OpenAI-compatible server named by
``PIFOLD_LIVE_BASE_URL`` (for example llama.cpp serving Qwen2.5-Coder-1.5B-Instruct at
``http://127.0.0.1:8089/v1``). Skipped when it is unset, so a clone's test command and CI
never need a model; ``PIFOLD_LIVE_MODEL`` names the model (default ``qwen2.5-coder``).

Slow by nature (a first request of ~2,800 prompt tokens takes minutes on two CPU cores):
run alone, ``PIFOLD_LIVE_BASE_URL=http://127.0.0.1:8089/v1 .venv/bin/python -m pytest -m
live tests/live``.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.agent.headless_cases import assert_session_consistent, headless, newest, options_in

BASE_URL = os.environ.get("PIFOLD_LIVE_BASE_URL", "")
MODEL = os.environ.get("PIFOLD_LIVE_MODEL", "qwen2.5-coder")

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(not BASE_URL, reason="PIFOLD_LIVE_BASE_URL names no model server"),
]

MAIN = '''"""Inventory of a small shop."""


def restock_threshold(item: str) -> int:
    """How few of ``item`` may be left before it is ordered again."""
    return {"apples": 12, "pears": 7}.get(item, 5)
'''

HELPER = "\n".join(
    f"def helper_{n}(value: int) -> int:\n    return value + {n}\n" for n in range(60)
)


def last_answer(root: Path) -> str:
    """The text of the session's last assistant message."""
    replies = [entry for entry in newest(root).messages() if entry.kind == "assistant"]
    return replies[-1].text if replies else ""


def events_of(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


ATTEMPTS = 5
"""A small model is sampled (the server's temperature): one answer in a few may describe
the call instead of making it. Each attempt is a fresh session in the same folder (the same
system prompt, so the server's prefix cache spares every attempt after the first its
minutes of prefill); one must succeed."""


def ask(root: Path, prompt: str, **fields: object) -> tuple[int, str, str]:
    outcome = headless(
        options_in(
            root,
            prompt=prompt,
            base_url=BASE_URL,
            model=MODEL,
            as_json=True,
            timeout_s=1_800.0,
            budget=4_000,
            **fields,
        )
    )
    return outcome.code, outcome.out, outcome.err


def test_a_real_model_reads_the_file_and_answers_from_it_and_a_commit_lands(
    tmp_path: Path,
) -> None:
    tried: list[str] = []
    root = tmp_path / "attempt"
    for _ in range(ATTEMPTS):
        shutil.rmtree(root, ignore_errors=True)
        work = options_in(root).cwd
        (work / "main.py").write_text(MAIN)
        (work / "helpers.py").write_text(HELPER)
        code, out, err = ask(root, "What does main.py define? Read it first.")
        assert code == 0, err
        calls = [event for event in events_of(out) if event["type"] == "tool_execution_start"]
        answer = last_answer(root)
        if any(call.get("name") == "read" for call in calls) and "restock_threshold" in answer:
            break
        tried.append(answer[-300:])
    else:
        raise AssertionError(f"no attempt read main.py and answered from it: {tried}")
    assert_session_consistent(newest(root).path)
    code, out, err = ask(
        root,
        "Now read helpers.py and tell me how many functions it defines.",
        continue_session=True,
    )
    assert code == 0, err
    commits = [event for event in events_of(out) if event["type"] == "commit"]
    assert commits, "no commit landed at a 4,000-token budget"
    assert_session_consistent(newest(root).path)
