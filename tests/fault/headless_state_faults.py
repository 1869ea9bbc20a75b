"""The faults of ``agent: headless errors`` on the engine's state, the configuration files
and the provider (see :mod:`tests.fault.headless_faults` for what every fault checks).

Damage to the fold log, the store or the checkpoint is met as the refusal says: ``pifold
doctor --repair``, then the state moved aside when the log itself is beyond repair (the
session file holds every message, and a new state is built from it); either way nothing the
session recorded may be lost. A refused configuration file is removed; a provider's failure
needs nothing undone.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

from pifold_cli.app import app
from pifold_core.config_file import MAX_CONFIG_BYTES
from tests.agent.headless_cases import Outcome, refusal_problems
from tests.agent.providers.local_server import json_reply, serve, sse_reply
from tests.core.fifo_feeder import fed_fifo
from tests.fault.headless_faults import (
    RUNNER,
    Case,
    accepted_problems,
    branch_ids,
    run_failure_problems,
)

# -- the engine's state -----------------------------------------------------------------------


def _repair_or_set_aside(case: Case) -> None:
    """What the refusal says to do: ``pifold doctor --repair``, else move the state aside."""
    RUNNER.invoke(app, ["doctor", str(case.state), "--repair"])
    if case.run().code != 0:
        shutil.move(case.state, case.state.with_name(case.state.name + ".aside"))


def _after_damage(case: Case, before: list[str], outcome: Outcome) -> None:
    if outcome.code == 0:  # a torn tail cut, or nothing the open needed was damaged
        case.check("runs on", accepted_problems(outcome))
    else:
        case.check("refuses it", refusal_problems(outcome, 2, "pifold doctor"))
        case.check(
            "records nothing",
            [] if branch_ids(case.session_path) == before else ["the session changed"],
        )
        _repair_or_set_aside(case)
    case.still_opens(before)


def damaged_log(case: Case) -> None:
    """Bytes of the fold log overwritten at a random place."""
    before = branch_ids(case.session_path)
    log = case.state / "fold-log.jsonl"
    data = bytearray(log.read_bytes())
    for _ in range(case.rng.randrange(1, 4)):
        data[case.rng.randrange(len(data))] = case.rng.randrange(256)
    log.write_bytes(bytes(data))
    _after_damage(case, before, case.run())


def deleted_log(case: Case) -> None:
    """The fold log deleted (the store may still hold folds)."""
    before = branch_ids(case.session_path)
    (case.state / "fold-log.jsonl").unlink()
    _after_damage(case, before, case.run())


def truncated_log(case: Case) -> None:
    """The fold log cut at a random length."""
    before = branch_ids(case.session_path)
    log = case.state / "fold-log.jsonl"
    data = log.read_bytes()
    log.write_bytes(data[: case.rng.randrange(len(data))])
    _after_damage(case, before, case.run())


def corrupt_store_object(case: Case) -> None:
    """A fold store object overwritten, truncated or deleted."""
    before = branch_ids(case.session_path)
    objects = sorted(path for path in (case.state / "store").rglob("*") if path.is_file())
    if not objects:
        return
    target = case.rng.choice(objects)
    os.chmod(target, 0o600)
    how = case.rng.choice(["garbage", "truncate", "delete"])
    if how == "delete":
        target.unlink()
    elif how == "truncate":
        target.write_bytes(target.read_bytes()[: case.rng.randrange(target.stat().st_size)])
    else:
        target.write_bytes(case.rng.randbytes(case.rng.randrange(1, 200)))
    outcome = case.run()
    if outcome.code == 0:
        case.check(f"runs on ({how})", accepted_problems(outcome))
    else:
        case.check(f"says it ({how})", refusal_problems(outcome, outcome.code))
    RUNNER.invoke(app, ["doctor", str(case.state), "--repair"])
    case.still_opens(before)


def corrupt_checkpoint(case: Case) -> None:
    """A checkpoint made garbage, cut short, or planted where there was none."""
    before = branch_ids(case.session_path)
    path = case.state / "checkpoint.json"
    if path.exists() and case.rng.random() < 0.5:
        data = path.read_bytes()
        path.write_bytes(data[: case.rng.randrange(len(data))])
    else:
        path.write_bytes(case.rng.choice([b"{garbage", b"", case.rng.randbytes(64), b"{}"]))
    case.check("runs on", accepted_problems(case.run()))
    case.still_opens(before)


def _settings_bytes(rng: random.Random) -> tuple[str, bytes]:
    return rng.choice(
        [
            ("invalid JSON", b"{bad"),
            ("an unknown option", b'{"maxTarget": 0.9}'),
            ("a bad value", b'{"toolFoldThreshold": 1.5}'),
            ("not UTF-8", b'{"palette": "caf\xe9"}'),
            ("nested deep", b"[" * 50_000),
            ("too large", b"{}" + b" " * MAX_CONFIG_BYTES),
            ("a list", b"[]"),
            ("NaN", b'{"toolFoldThreshold": NaN}'),
        ]
    )


def settings_file(case: Case, config: Path) -> None:
    """``settings.json`` a FIFO, a device, a folder, or refused content (folding reads it)."""
    if case.no_fold:
        return  # --no-fold reads no engine settings
    path = config / "pi-fold" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    shape = case.rng.choice(["fifo", "device", "folder", "content"])
    try:
        if shape == "fifo":
            with fed_fifo(path, b"{}") as fed:
                outcome = case.run()
                case.check("never opens the FIFO", ["the FIFO was opened"] if fed else [])
        else:
            if shape == "device":
                path.symlink_to("/dev/null")
            elif shape == "folder":
                path.mkdir()
            else:
                shape, data = _settings_bytes(case.rng)
                path.write_bytes(data)
            outcome = case.run()
        case.check(f"refuses {shape}", refusal_problems(outcome, 2, "settings file"))
    finally:
        if path.is_dir() and not path.is_symlink():
            path.rmdir()
        else:
            path.unlink(missing_ok=True)
    case.still_opens()


def models_file(case: Case, config: Path) -> None:
    """``models.json`` refused before any provider is made (a compatible server's run)."""
    path = config / "pi-fold" / "models.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    shape, data = case.rng.choice(
        [
            ("invalid JSON", b'{"models": '),
            ("unknown field", b'{"models": {"m": {"provider": "openai", "colour": 1}}}'),
            ("too large", b'{"models": {}}' + b" " * MAX_CONFIG_BYTES),
            ("not UTF-8", b'{"models": {"\xff": {}}}'),
            ("fifo", b""),
        ]
    )
    fields = {"script": None, "provider": "openai-chat", "base_url": "http://127.0.0.1:9/v1"}
    try:
        if shape == "fifo":
            with fed_fifo(path, b'{"models": {}}') as fed:
                outcome = case.run(**fields)
                case.check("never opens the FIFO", ["the FIFO was opened"] if fed else [])
        else:
            path.write_bytes(data)
            outcome = case.run(**fields)
        case.check(f"refuses {shape}", refusal_problems(outcome, 2, str(path)))
    finally:
        path.unlink(missing_ok=True)
    case.still_opens()


DROPS_PER_RUN = 2
"""Dropped streams per harness run: each costs the loop's first retry wait (2 s)."""


def provider_refuses(case: Case, drops: list[int]) -> None:
    """A compatible server (the real OpenAI SDK) that refuses, overflows, stays busy or
    drops the stream."""
    before = branch_ids(case.session_path)
    busy = json_reply(503, {"error": {"message": "busy"}}, {"retry-after": "0"})
    kinds = ["fatal", "overflow", "busy"] + (["drop"] if len(drops) < DROPS_PER_RUN else [])
    kind = case.rng.choice(kinds)
    replies = {
        "fatal": [json_reply(case.rng.choice([400, 401, 403, 404]), {"error": {"message": "no"}})],
        # More than the run can use: a compaction's summary request takes one too.
        "overflow": [
            json_reply(400, {"error": {"message": "maximum context length is 8192 tokens"}})
        ]
        * 6,
        "busy": [busy] * 4,
        "drop": [
            sse_reply("chat_text.sse", drop_after=case.rng.randrange(1, 60)),
            sse_reply("chat_text.sse"),
        ],
    }[kind]
    if kind == "drop":
        drops.append(1)
    with serve(replies) as server:
        outcome = case.run(script=None, provider="openai-chat", base_url=f"{server.base_url}/v1")
    if kind == "drop":
        case.check("retries a dropped stream", accepted_problems(outcome, ("retrying in ",)))
    else:
        problems = run_failure_problems(outcome)
        retries = [line for line in outcome.err.splitlines() if line.startswith("retrying in ")]
        if kind == "busy" and len(retries) != 3:
            problems.append(f"{len(retries)} retries said, not 3")
        case.check(f"ends the run ({kind})", problems)
    case.still_opens(before)


__all__ = [
    "DROPS_PER_RUN",
    "corrupt_checkpoint",
    "corrupt_store_object",
    "damaged_log",
    "deleted_log",
    "models_file",
    "provider_refuses",
    "settings_file",
    "truncated_log",
]
