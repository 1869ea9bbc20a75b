"""The ``/fold-status`` section on the provider's own cache report, beside the wire audit.

The wire audit says whether pifold kept the bytes it sent; this section says whether the
provider reused them, and when it did not, why: each miss the provider reported (or that its
usage shows) is explained by a commit, an expiry, a host head change or a model switch, or
counted **unexplained** (:mod:`pifold_agent.cache_report`). The unexplained figure is shown
like the audit's unattributed rewrites: green at zero, the warning colour otherwise.
"""

from __future__ import annotations

from pifold_agent.cache_report.tally import CacheTally
from pifold_tui.screens.status.figures import ReportStyles, heading, share, tokens
from pifold_tui.screens.status.rows import FigureRows, must_be_zero_row


def cache_rows(table: FigureRows, tally: CacheTally, styles: ReportStyles) -> None:
    """The provider's cache section: hit ratio, misses, unexplained, the last miss."""
    table.add_heading(heading("Provider's cache", styles))
    table.add(
        "read from cache",
        tokens(tally.read_tokens),
        share(tally.read_tokens, tally.prompt_tokens),
        f"the hit ratio: of {tokens(tally.prompt_tokens)} prompt tokens"
        if tally.prompt_tokens
        else "no usage reported yet",
    )
    if not tally.judged:
        table.add("reports", "–", "", "this provider or model gives no cache report")
        return
    table.add(
        "reports",
        f"{tally.reported:,}",
        share(tally.reported, tally.judged),
        "requests the provider compared with the reply before"
        + (
            f"; {tally.unknown_reports:,} not in the documented shape"
            if tally.unknown_reports
            else ""
        ),
    )
    table.add(
        "explained misses",
        f"{tally.explained:,}",
        share(tally.explained, tally.judged),
        "a commit, an expiry, a host head change or a model switch",
    )
    must_be_zero_row(
        table,
        styles,
        "unexplained misses",
        tally.unexplained,
        tally.judged,
        "the provider re-read bytes pifold kept, and nothing pifold knows says why",
        "none",
    )
    last = tally.last_miss
    if last is not None:
        where = "" if last.request is None else f"request {last.request:,}: "
        notes = []
        if last.reason and last.cause:
            notes.append(f"the provider said {last.reason}")
        if last.missed_tokens is not None:
            notes.append(f"{tokens(last.missed_tokens)} tokens not reused")
        table.add("last miss", where + last.describe(), "", "; ".join(notes))


__all__ = ["cache_rows"]
