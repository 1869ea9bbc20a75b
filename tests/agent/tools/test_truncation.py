"""The shared limits: exact figures for head and tail truncation."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pifold_agent.tools.truncation import (
    MAX_BYTES,
    byte_length,
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
)


def test_head_keeps_the_first_two_thousand_lines() -> None:
    text = "\n".join(str(number) for number in range(1, 3001))
    result = truncate_head(text)
    assert result.truncated and result.truncated_by == "lines"
    assert result.total_lines == 3000 and result.output_lines == 2000
    assert result.content.split("\n")[-1] == "2000"
    assert result.output_bytes == byte_length(result.content)


def test_head_stops_at_fifty_kilobytes_on_whole_lines() -> None:
    line = "x" * 99  # 100 bytes with its newline
    text = "\n".join([line] * 1000)
    result = truncate_head(text)
    assert result.truncated_by == "bytes"
    # 512 lines: 512*99 + 511 newlines = 51,199 bytes; one more line would be 51,299.
    assert result.output_lines == 512 and result.output_bytes == 51_199


def test_a_first_line_over_the_limit_keeps_nothing() -> None:
    result = truncate_head("y" * (MAX_BYTES + 1) + "\nshort")
    assert result.first_line_exceeds_limit and result.content == "" and result.output_lines == 0


def test_tail_keeps_the_last_lines_and_the_end_of_a_huge_last_line() -> None:
    text = "\n".join(str(number) for number in range(1, 3001))
    result = truncate_tail(text)
    assert result.output_lines == 2000 and result.content.split("\n")[0] == "1001"
    huge = "head\n" + "é" * 40_000  # 80,000 bytes on one line
    partial = truncate_tail(huge)
    assert partial.last_line_partial and partial.output_lines == 1
    assert partial.output_bytes == 51_200 and set(partial.content) == {"é"}


def test_a_multibyte_cut_never_splits_a_character() -> None:
    partial = truncate_tail("a" + "€" * 20_000)  # 3 bytes each: 51,200 is not a multiple
    assert partial.content == "€" * 17_066 and partial.output_bytes == 51_198


def test_sizes_and_grep_lines() -> None:
    assert [format_size(size) for size in (512, 51_200, 1_572_864)] == ["512B", "50.0KB", "1.5MB"]
    assert truncate_line("z" * 501) == ("z" * 500 + "... [truncated]", True)
    assert truncate_line("short") == ("short", False)


@given(st.lists(st.text(max_size=300), max_size=60), st.integers(1, 40), st.integers(1, 4000))
def test_what_is_kept_is_within_both_limits_and_is_a_prefix_or_suffix(
    lines: list[str], max_lines: int, max_bytes: int
) -> None:
    text = "\n".join(lines)
    head = truncate_head(text, max_lines, max_bytes)
    tail = truncate_tail(text, max_lines, max_bytes)
    for result in (head, tail):
        assert result.output_lines <= max_lines and result.output_bytes <= max_bytes
        assert result.truncated == (result.content != text)
    assert text.startswith(head.content)
    if not tail.last_line_partial:
        assert text.endswith(tail.content)
