"""A seat's view moved forward by one redacted event: what a client keeps between two snapshots.

The relay sends each seat :func:`~engine.views.view` once (a snapshot), then one
:func:`~engine.views.redact_event` per event. A client folds the moves into its view itself rather than
asking for a snapshot after each; :func:`fold_view` is that fold, in the engine so that it is the same
code in the browser and in the tests, and so that it is checked against ``view(apply(state, event))``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["FOLDED_EVENTS", "fold_view"]

# The events a view absorbs by itself; seating, the start and the end reshape it (a snapshot follows).
FOLDED_EVENTS: Final = frozenset({"placed", "swapped", "passed", "timed_out", "rejected"})


def _square_order(tile: Mapping[str, Any]) -> tuple[int, str]:
    # Board.to_json lists tiles row by row, then column by column: "G7" is row 7, column G.
    sq = str(tile.get("sq", ""))
    return (int(sq[1:]) if sq[1:].isdigit() else 0, sq[:1])


def fold_view(
    view: Mapping[str, Any], event: Mapping[str, Any], *, turn: int | None
) -> dict[str, Any] | None:
    """``view`` (a seat's, from :func:`~engine.views.view`) after ``event`` (redacted for that seat), or
    None when the event is not one a view absorbs (:data:`FOLDED_EVENTS`): ask for a snapshot then.

    ``turn`` is whose turn it is after the event (the relay's ``clock`` frame says it: the engine does not
    put it in the event). A ``rejected`` event only lengthens the journal: the seat's reserve comes in the
    relay's ``rejected`` answer. Pure: neither argument is changed. Unchecked: ``view`` and ``event`` must
    be what the engine produced (a malformed one may raise KeyError, TypeError or ValueError).
    """
    kind = event.get("type")
    if kind not in FOLDED_EVENTS:
        return None
    out = dict(view)
    out["journal"] = [*view.get("journal", ()), event]
    out["version"] = int(view.get("version", 0)) + 1
    if kind == "rejected":
        return out
    seat = event["seat"]
    seats = [dict(s) for s in view.get("seats", ())]
    mover = seats[seat]
    if kind == "placed":
        out["board"] = sorted([*view.get("board", ()), *event["tiles"]], key=_square_order)
        mover["score"] = int(mover.get("score", 0)) + int(event["score"])
        out["scoreless_turns"] = 0
    else:
        out["scoreless_turns"] = int(view.get("scoreless_turns", 0)) + 1
    if "rack_size" in event:
        mover["rack_size"] = event["rack_size"]
    if "bag_size" in event:
        out["bag_size"] = event["bag_size"]
    if seat == view.get("you") and "rack" in event:
        out["rack"] = event["rack"]
    out["seats"] = seats
    out["turn"] = turn
    out["turn_started_ms"] = event["at"]
    return out
