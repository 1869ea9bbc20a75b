"""The conversation view of the app: the message list and the widgets of its rows.

The shell mounts :class:`Conversation` over the session (a :class:`TranscriptSource`) and the
engine (a :class:`FoldSource`) and posts it every loop event as an ``AgentEventPosted``.
"""

from pifold_tui.app.conversation.conversation import MOUNTED_LIMIT, Conversation
from pifold_tui.app.conversation.source import FoldSource, TranscriptRow, TranscriptSource

__all__ = ["MOUNTED_LIMIT", "Conversation", "FoldSource", "TranscriptRow", "TranscriptSource"]
