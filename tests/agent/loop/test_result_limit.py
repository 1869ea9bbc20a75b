"""A tool's notice tells the truth about what the model saw: tools cut their output under the
engine's evidence threshold, so the engine never hides the middle of a result behind them.

Without the limit a 60 KB read came back as 50 KB ending "Use offset=N to continue", and the
engine (threshold 32 KiB) showed the model an 8 KiB head, a pointer and a 4 KiB tail: a
model following the notice never saw the lines in between.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pifold_agent.tools import builtin_tools
from pifold_agent.tools.truncation import (
    MAX_BYTES,
    NOTICE_ROOM_BYTES,
    SMALLEST_OUTPUT_BYTES,
    output_limit,
)
from pifold_core.entries import Entry, TextBlock
from tests.agent.loop.helpers import (
    ProgrammedProvider,
    assert_session_consistent,
    make_agent,
    open_engine,
    reply,
)

NOTICE = re.compile(
    r"\n\n\[Showing lines (\d+)-(\d+) of (\d+)[^\]]*Use offset=(\d+) to continue\.\]$"
)


def text_of(entry: Entry) -> str:
    return "".join(block.text for block in entry.content if isinstance(block, TextBlock))


def test_the_output_limit_leaves_room_for_the_notice() -> None:
    assert output_limit(None) == MAX_BYTES
    assert output_limit(32 * 1024) == 32 * 1024 - NOTICE_ROOM_BYTES
    assert output_limit(10 * 1024 * 1024) == MAX_BYTES
    assert output_limit(1024) == SMALLEST_OUTPUT_BYTES + 256
    assert output_limit(300) == SMALLEST_OUTPUT_BYTES


def sent_result(provider: ProgrammedProvider, call_id: str) -> str:
    """The text of ``call_id``'s result as the provider was last sent it: what the model saw."""
    for message in provider.requests[-1].messages:
        if message.get("role") == "tool" and message.get("call_id") == call_id:
            content = message["content"]
            assert isinstance(content, list)
            return "".join(str(block["text"]) for block in content if isinstance(block, dict))
    raise AssertionError(f"{call_id} was not sent")


@pytest.mark.parametrize("threshold", [32 * 1024, 8 * 1024])
async def test_following_the_read_notice_shows_the_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threshold: int
) -> None:
    """A 61 KB read at the default evidence threshold and at a lower one: every notice names
    exactly the lines the model was sent, and following it reaches every line (issue 22)."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    lines = [f"{number:05d} " + "x" * 55 for number in range(1, 1001)]  # 61 KB
    (work / "big.txt").write_text("\n".join(lines) + "\n")
    engine = open_engine(tmp_path, evidence_threshold_bytes=threshold)
    provider = ProgrammedProvider([reply("", ("r1", "read", {"path": "big.txt"})), reply("ok")])
    agent, recorder, _ = make_agent(engine, provider, builtin_tools())
    assert (await agent.run("read it")).outcome == "stop"
    seen: list[str] = []
    for turn in range(2, 40):
        result = [entry for entry in engine.view.transcript.entries if entry.kind == "tool_result"][
            -1
        ]
        text = sent_result(provider, str(result.call_id))
        assert text == text_of(result)  # the engine sent the result as the tool wrote it
        assert "pi-fold evidence" not in text and "evidence" not in result.extra
        assert len(text.encode()) <= threshold
        notice = NOTICE.search(text)
        if notice is None:
            seen += text.split("\n")
            break
        first, last, total, offset = (int(group) for group in notice.groups())
        assert (first, total, offset) == (len(seen) + 1, 1001, last + 1)
        seen += text[: notice.start()].split("\n")
        assert len(seen) == last  # every line the notice claims was shown, was
        call = (f"r{turn}", "read", {"path": "big.txt", "offset": offset})
        provider.replies += [reply("", call), reply("ok")]
        assert (await agent.run("go on")).outcome == "stop"
    assert seen == [*lines, ""]  # the final newline ends an empty last line, as in Pi
    assert_session_consistent(engine, recorder)


async def test_bash_output_stays_whole_and_names_the_full_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    engine = open_engine(tmp_path)
    threshold = engine.options.evidence_threshold_bytes
    command = {"command": "seq 1 9000"}  # 43,893 bytes: over the threshold, under 50 KB
    provider = ProgrammedProvider([reply("", ("b1", "bash", command)), reply("ok")])
    agent, recorder, _ = make_agent(engine, provider, builtin_tools())
    assert (await agent.run("count")).outcome == "stop"
    result = [entry for entry in engine.view.transcript.entries if entry.kind == "tool_result"][-1]
    text = text_of(result)
    assert "evidence" not in result.extra and len(text.encode()) <= threshold
    body, notice = text.rsplit("\n\n", 1)
    first = int(body.split("\n")[0])
    assert body.endswith("\n9000") and notice.startswith(f"[Showing lines {first}-9000 of 9000")
    log = Path(notice.rsplit("Full output: ", 1)[1].rstrip("]"))
    assert log.read_text() == "".join(f"{number}\n" for number in range(1, 9001))
    log.unlink()
    assert_session_consistent(engine, recorder)
