"""What a footer line keeps at some width: shortened paths, sorted hints, compact counts."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pifold_tui.app.footer_fit import compact_count, middle_ellipsis, short_path, split_hints

LIVE_HINTS = "esc abort · ctrl+p commands · /help"
DEMO_HINTS = "f2 pause · ctrl+p commands · /fold-editor"


def test_paths_under_home_read_with_a_tilde_and_long_ones_lose_their_middle() -> None:
    home = Path("/home/ada")
    assert short_path(home / "code" / "pifold", home) == "~/code/pifold"
    assert short_path(home, home) == "~"
    assert short_path(Path("/srv") / ("x" * 60) / "project", home, width=20) == "/srv/…/project"
    deep = home / "code" / "clients" / "acme" / "pifold"
    assert short_path(deep, home, width=16) == "~/…/acme/pifold"
    assert short_path(deep, home, width=12) == "~/…/pifold"
    # Not even the last name fits beside the first folder: the end is kept.
    assert short_path(Path("/srv") / ("y" * 30), home, width=12) == "…" + "y" * 11


@given(
    st.lists(st.text("abc-", min_size=1, max_size=12), min_size=1, max_size=8), st.integers(1, 60)
)
def test_a_shortened_path_fits_and_keeps_its_ends(names: list[str], width: int) -> None:
    text = "/" + "/".join(names)
    short = middle_ellipsis(text, width)
    assert len(short) <= width
    if len(text) <= width:
        assert short == text
    else:
        assert short.count("…") == 1
        head, tail = short.split("…")
        assert text.startswith(head) and text.endswith(tail)


def test_hints_are_sorted_into_kept_keys_and_commands() -> None:
    assert split_hints(DEMO_HINTS) == (["ctrl+p commands"], ["f2 pause"], ["/fold-editor"])
    assert split_hints(LIVE_HINTS) == (["esc abort", "ctrl+p commands"], [], ["/help"])
    assert split_hints("") == ([], [], [])


@given(st.integers(min_value=0, max_value=10**11))
def test_compact_counts_are_short_and_keep_the_order_of_magnitude(tokens: int) -> None:
    text = compact_count(tokens)
    assert len(text) <= 7
    if tokens < 1_000:
        assert text == str(tokens)
        return
    scale = {"k": 1_000, "M": 1_000_000, "B": 1_000_000_000}[text[-1]]
    # The shown figure is the count to the shown precision: half of the last digit.
    digits = len(text[:-1].split(".")[1])
    assert abs(float(text[:-1]) * scale - tokens) <= scale * 0.5 * 10**-digits + 1e-6 * scale
    assert float(text[:-1]) < 1_000
