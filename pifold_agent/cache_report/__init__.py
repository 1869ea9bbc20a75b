"""The providers' own cache reports, audited beside the engine's wire audit (issue 22).

:mod:`~pifold_agent.cache_report.reports` reads each provider's documented diagnostics into
one shape; :mod:`~pifold_agent.cache_report.verdict` judges every request against what the
engine's audit knew (a miss explained by a commit, an expiry, a host head change or a model
switch, or unexplained); :mod:`~pifold_agent.cache_report.records` keeps the verdict with the
assistant message; :mod:`~pifold_agent.cache_report.tally` sums a session's figures.
"""
