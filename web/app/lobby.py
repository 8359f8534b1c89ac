"""The way to a seat: the player's own tables (from the seat tokens the browser keeps), the invitation a
table link opens (who is seated, who invites, the turn time), joining from it or watching.

Pure Python: the glue (``web/src/main.py``) fetches ``GET /api/tables/{id}`` summaries (docs/protocol.md) and
hands them here; :mod:`app.screens` renders what this holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.home_more import LiveGame
    from app.payloads import Notice, TableSummary

STORE_PREFIX = "lexio:"
# Keys of the page's own settings under the same prefix; every other "lexio:<id>" holds a seat token.
# (Each was once taken for a table: "your tables" looked it up, got 404, and deleted the setting.)
SETTINGS = frozenset({"name", "lang", "sound", "chat-mute", "chat-watchers"})
MINE_MAX = 12  # tables looked up for the "your tables" list (one small request each)


def own_table_ids(storage: Mapping[str, str]) -> list[str]:
    """The tables this browser holds a seat token for (``localStorage["lexio:<id>"]``), in a stable order."""
    ids = []
    for key, value in storage.items():
        if not key.startswith(STORE_PREFIX) or not value:
            continue
        table = key[len(STORE_PREFIX) :]
        if table and table not in SETTINGS and "/" not in table and ":" not in table:
            ids.append(table)
    return sorted(ids)[:MINE_MAX]


def host_name(summary: TableSummary) -> str | None:
    """The first arrival, who starts the game: the one who invites (None on an empty table)."""
    seats = summary.get("seats") or ()
    for s in seats:
        if s.get("seat") == 0:
            return str(s.get("name", "?"))
    return str(seats[0].get("name", "?")) if seats else None


def free_seats(summary: TableSummary) -> int:
    return max(0, 4 - len(summary.get("seats") or ()))


class Lobby:
    """What the home and invitation screens hold beyond the name and the public list."""

    def __init__(self) -> None:
        # The table a link opened, before this tab sits or watches: its public summary, or
        # {"id": …, "loading": True} while it is fetched.
        self.invite: TableSummary | None = None
        # The refusal of our join (e.g. the name is taken), shown next to the name field.
        self.join_error: Notice | None = None
        self.joining = False  # a join was sent from the invitation; its answer has not come
        self.watching = False  # this tab asked to watch, not to sit
        # Own tables waiting or playing (summaries), listed first on the home screen with Resume.
        self.mine: list[TableSummary] = []
        # What is typed in "join by link": kept here so that a re-render (the open list arriving) keeps it.
        self.link = ""
        # Public games in progress to watch, the top game first (``GET /api/tables``, ``live``; issue 27).
        self.live: list[LiveGame] = []

    def open_link(self, table: str) -> None:
        self.invite = {"id": table, "loading": True}
        self.join_error = None
        self.joining = False
        self.watching = False

    def got_summary(self, table: str, summary: TableSummary | None) -> None:
        """The relay's summary of the table the link names (None: unknown table)."""
        if self.invite is None or self.invite.get("id") != table:
            return  # the player went elsewhere meanwhile
        self.invite = summary.copy() if summary is not None else {"id": table, "missing": True}

    @property
    def invite_status(self) -> str | None:
        """loading | missing | waiting | playing | ended (None: no invitation on screen)."""
        inv = self.invite
        if inv is None:
            return None
        if inv.get("loading"):
            return "loading"
        if inv.get("missing"):
            return "missing"
        status = str(inv.get("status", "waiting"))
        return "waiting" if status in ("empty", "waiting") else status

    def set_mine(self, summaries: Iterable[TableSummary]) -> None:
        """Keep the tables still waiting or playing: waiting ones first (they need their host), newest
        first."""
        keep = [s.copy() for s in summaries if s.get("status") in ("empty", "waiting", "playing")]
        keep.sort(key=lambda s: (s.get("status") == "playing", -int(s.get("created_ms") or 0)))
        self.mine = keep

    def forget(self) -> None:
        self.invite = None
        self.join_error = None
        self.joining = False
        self.watching = False
