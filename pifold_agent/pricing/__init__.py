"""What a model request costs: the dated price book, the providers' prefix caches simulated,
and Pi's compaction re-enacted request by request.

The benchmark bills every arm with it (:mod:`pifold_bench`), and the app's demo bills the
session it plays, and native compaction beside it, with the same rules and prices. It sits in
the agent's floor because the app may not import the bench.
"""
