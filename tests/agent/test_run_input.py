"""Input that is not UTF-8 is decoded with replacement and said (Reliability II, defect 7).

The README's own ``pifold -p "summarise this log" < build.log`` ended in a traceback on one
stray Latin-1 byte; a prompt holding bytes that are not UTF-8 reaches Python as lone
surrogates, which no JSON encoder takes. Both are sent with U+FFFD in place of each bad
byte, and one warning line says how many were replaced.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pifold_agent.run_input import decode_bytes
from tests.agent.headless_cases import (
    answer_script,
    assert_session_consistent,
    headless,
    newest,
    options_in,
)


def test_piped_latin1_is_replaced_and_said(tmp_path: Path) -> None:
    outcome = headless(
        options_in(tmp_path, prompt="summarise this log", script=answer_script(tmp_path)),
        stdin=b"build failed at caf\xe9 step\n",
    )
    assert (outcome.code, outcome.out) == (0, "ok\n")
    assert outcome.err == (
        "warning: piped stdin is not valid UTF-8: 1 byte was replaced by U+FFFD\n"
    )
    users = [entry.text for entry in newest(tmp_path).messages() if entry.kind == "user"]
    assert users == ["build failed at caf\ufffd step\n", "summarise this log"]
    assert_session_consistent(newest(tmp_path).path)


def test_a_prompt_with_escaped_bytes_is_replaced_and_said(tmp_path: Path) -> None:
    prompt = b"fix \xff\xfe now".decode("utf-8", "surrogateescape")  # as argv gives it
    outcome = headless(options_in(tmp_path, prompt=prompt, script=answer_script(tmp_path)))
    assert (outcome.code, outcome.out) == (0, "ok\n")
    assert outcome.err == (
        "warning: the prompt given to -p is not valid UTF-8: 2 bytes were replaced by U+FFFD\n"
    )
    users = [entry.text for entry in newest(tmp_path).messages() if entry.kind == "user"]
    assert users == ["fix \ufffd\ufffd now"]
    assert_session_consistent(newest(tmp_path).path)


def test_the_command_line_takes_bad_bytes_in_argv_and_on_stdin(tmp_path: Path) -> None:
    script = answer_script(tmp_path)
    command = [
        sys.executable, "-c", "from pifold_cli.app import main; main()",
        b"-p", b"summarise \xe9", "--script", str(script),
    ]  # fmt: skip
    done = subprocess.run(
        command,
        input=b"one \x80 stray byte\n",
        capture_output=True,
        cwd=tmp_path,
        env={"PIFOLD_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, b"ok\n"), done.stderr
    assert done.stderr.decode().splitlines() == [
        "warning: piped stdin is not valid UTF-8: 1 byte was replaced by U+FFFD",
        "warning: the prompt given to -p is not valid UTF-8: 1 byte was replaced by U+FFFD",
    ]


@given(st.binary(max_size=200))
def test_every_invalid_byte_becomes_one_replacement(data: bytes) -> None:
    text, replaced = decode_bytes(data)
    # Each bad byte (one) became U+FFFD (three bytes); every other byte was kept as it was.
    assert len(text.encode("utf-8")) == len(data) + 2 * replaced


@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=100))
def test_valid_text_is_kept_exactly(value: str) -> None:
    assert decode_bytes(value.encode("utf-8")) == (value, 0)
