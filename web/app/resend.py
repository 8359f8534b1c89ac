"""Actions sent but not answered yet, resent with the same id after a reconnect (docs/protocol.md,
"Resending an action").

A socket can drop after the relay committed an action but before its ack arrived, or before the frame
reached the relay at all; only the relay knows which. So every action frame is kept until its answer (ack,
rejected or error) arrives, and sent again with the same id and content, marked ``"resent": true``, once the
next socket is welcomed: the relay applies it if it never did, and otherwise answers as it did the first
time. Frame ids carry a per-page prefix, so that a
reloaded page counting from 1 again is not mistaken for a resend.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.payloads import ClientFrame

# The frames that change a table (relay/tables/resend.py holds the same list).
ACTIONS = frozenset({"start", "leave", "add_bot", "remove_bot", "place", "swap", "pass"})
# At most this many kept (a player acts once per answer; more would be a bug, not a backlog).
KEEP = 8


def page_prefix() -> str:
    """A short random prefix for this page's frame ids."""
    return secrets.token_hex(3)


class Unanswered:
    """The action frames waiting for their answer, oldest first."""

    def __init__(self) -> None:
        self.frames: dict[str, ClientFrame] = {}
        self.resent: set[str] = set()

    def sent(self, frame: ClientFrame) -> None:
        fid = frame.get("id")
        if frame.get("type") in ACTIONS and isinstance(fid, str):
            self.frames[fid] = frame.copy()
            for old in list(self.frames)[:-KEEP]:
                del self.frames[old]

    def answered(self, fid: object) -> bool:
        """Forget an answered frame; True if it had been resent (its error, if any, is stale news)."""
        if not isinstance(fid, str):
            return False
        self.frames.pop(fid, None)
        if fid in self.resent:
            self.resent.discard(fid)
            return True
        return False

    def again(self) -> list[ClientFrame]:
        """The frames to send again on a new socket (same id and content, marked ``resent``), oldest
        first."""
        self.resent.update(self.frames)
        return [{**f, "resent": True} for f in self.frames.values()]

    def clear(self) -> None:
        self.frames.clear()
        self.resent.clear()
