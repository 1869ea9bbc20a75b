"""End to end through the real command line: the model runs ``env`` and reads pifold's own
environment, and no key reaches the session file, the state folder or the next request.

``pifold -p`` runs as a subprocess with the scripted provider (its tool calls execute for
real) and three keys in its environment: the two the providers read and the one
``--api-key-env`` names. The next request is the engine's projection after the call: the
last request the fold log recorded is checked to be that projection, digest for digest, and
its messages are searched for the keys.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pifold_agent.sessions import latest_for
from pifold_core.audit import request_digest
from pifold_core.engine import Engine
from pifold_core.journal import Journal
from tests.core.engine_checks import assert_clean_audit, assert_lossless

REPOSITORY = Path(__file__).resolve().parents[3]
KEYS = {
    "ANTHROPIC_API_KEY": "sk-ant-e2e-9f8e7d6c5b4a39281706",
    "OPENAI_API_KEY": "sk-e2e-0a1b2c3d4e5f60718293",
    "LOCAL_LLM_KEY": "local-e2e-5566778899aabbccdd",
}
COMMAND = "env; echo ---; tr '\\0' '\\n' < /proc/$PPID/environ"
"""The model's command: its own environment, then pifold's (bash's parent), which holds
every key: the second shows that the keys were there to leak."""


def test_env_through_pifold_p_leaks_no_key(tmp_path: Path) -> None:
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    script = tmp_path / "script.jsonl"
    lines = [
        {"script": "pifold", "version": 1, "tools": "execute"},
        {
            "assistant": "Checking the environment.",
            "tool_calls": [{"id": "env", "name": "bash", "arguments": {"command": COMMAND}}],
        },
        {"assistant": "Done."},
    ]
    script.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    environment = {**os.environ, **KEYS, "PIFOLD_HOME": str(home)}
    environment.pop("PIFOLD_BASH_PASS_ENV", None)
    entry_point = "from pifold_cli.app import main; main()"
    command = [sys.executable, "-c", entry_point, "-p", "go", "--script", str(script)]
    finished = subprocess.run(
        [*command, "--api-key-env", "LOCAL_LLM_KEY"],
        cwd=work,
        env={**environment, "PYTHONPATH": str(REPOSITORY)},
        capture_output=True,
        timeout=120,
    )
    assert finished.returncode == 0, finished.stderr.decode()
    assert finished.stdout.decode() == "Done.\n"

    session = latest_for(work, home / "sessions")
    assert session is not None
    result = next(entry for entry in session.messages() if entry.kind == "tool_result")
    own, parents = result.text.split("\n---\n")
    assert "PATH=" in own and "PIFOLD_HOME=" in own  # env ran
    for name in KEYS:
        assert f"{name}=[{name} removed]" in parents  # pifold's own environment had it

    files = [session.path, *session.state_directory.rglob("*")]
    for path in files:
        if path.is_file():
            data = path.read_bytes()
            for name, value in KEYS.items():
                assert value.encode() not in data, f"{path} holds {name}"

    requests = [
        record.body for record in Journal(session.state_directory / "fold-log.jsonl").read_all()
    ]
    last = [body for body in requests if "prefix" in body][-1]
    engine = Engine.open(session.state_directory, read_only=True)
    try:
        assert request_digest(engine.view.projection.digests()[: last["count"]]) == last["prefix"]
        sent = json.dumps(engine.view.projection.messages()[: last["count"]], ensure_ascii=False)
        assert "[ANTHROPIC_API_KEY removed]" in sent  # the request did carry the result
        for name, value in KEYS.items():
            assert value not in sent, f"the next request carries {name}"
        assert_clean_audit(engine)
        assert_lossless(engine)
    finally:
        engine.close()
