"""How a game ends, said so that everyone understands it (issue 27, point 17).

Many games end by two rounds of the table without a placement (nearly all beginners' games: bench/levels.py).
Once the bag is empty or the passes have started, the status line counts the turns without a placement left
before that end (the engine's own count, ``engine.scoreless_limit``); the end screen says in plain words why
the game ended. Nothing here looks at the board or the racks: the table never looks for a word for anyone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.markup import escape
from engine.game import scoreless_limit

if TYPE_CHECKING:
    from app.i18n import Translator
    from app.payloads import View


def scoreless_left(view: View) -> int | None:
    """Turns without a placement that still end the game (1: the next one does), during a game once the bag
    is empty or a turn went by without a placement; None otherwise (nothing worth saying yet)."""
    if view.get("status") != "playing":
        return None
    done = int(view.get("scoreless_turns") or 0)
    if done == 0 and view.get("bag_size") != 0:
        return None
    return max(1, scoreless_limit(len(view.get("seats") or ())) - done)


def scoreless_line(view: View, tr: Translator, *, where: str = "status") -> str:
    """The count ("" when :func:`scoreless_left` has nothing to say). ``where``: ``status`` (the status
    line: on a phone, a player's is hidden for the one ``below``, so that its appearing never moves the
    board), ``below`` (under the rack, a player's phone only) or ``watching`` (a spectator's status line,
    shown at every size: a spectator places nothing on the board)."""
    left = scoreless_left(view)
    if left is None:
        return ""
    text = escape(tr.t("scoreless_left", n=left))
    urgent = " urgent" if left <= 2 else ""
    testid = "scoreless-left-below" if where == "below" else "scoreless-left"
    tag = "p" if where == "below" else "span"
    return f'<{tag} class="scoreless {where}{urgent}" data-testid="{testid}">{text}</{tag}>'


def end_reason(view: View, tr: Translator) -> str:
    """Why the game ended, in plain words ("" before the end)."""
    result = view.get("result") or {}
    reason = result.get("reason")
    seats = view.get("seats") or ()
    if reason == "scoreless":
        return tr.t("end_why_scoreless", n=scoreless_limit(len(seats)))
    if reason == "out":
        racks = result.get("racks") or []
        out = next((i for i, rack in enumerate(racks) if not rack), None)
        names = {int(s.get("seat", -1)): str(s.get("name", "?")) for s in seats}
        return tr.t("end_why_out", name=names.get(out if out is not None else -1, "?"))
    return ""
