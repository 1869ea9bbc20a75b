"""pifold's engine: lossless context folding, host-agnostic.

This package must import without textual or rich installed (a test proves it).
"""

from __future__ import annotations
