"""pifold bench: what folding saves against compaction, measured offline on real sessions.

Every arm replays the same trace (with the same planted values) against the same serving
budget; a simulated provider with a positional prefix cache bills each request with the
rules and prices of the dated data file (:mod:`pifold_agent.pricing`). See
:mod:`pifold_bench.run` for the driver and :mod:`pifold_bench.command` for ``pifold bench``.
"""
