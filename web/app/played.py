"""The games this browser played to their end (issue 27, point 10), kept in its localStorage so that the
replay page can list them (``/replay``): the table, when it ended, who played, the scores and the result.

Only what the end screen already shows every seat (names, final scores, winners): no rack, no token. One key,
:data:`KEY`, holds a JSON list, newest first, at most :data:`KEEP` games. Pure: the glue writes what
:func:`remember` returns and hands :func:`load`'s list to the replay viewer.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.i18n import Translator
from app.markup import escape

if TYPE_CHECKING:
    from app.state import UiState

__all__ = ["KEEP", "KEY", "Played", "load", "remember", "section"]

# A colon after the prefix: never read as a table's seat token (app.lobby.own_table_ids).
KEY = "lexio:games:played"
KEEP = 50


def _e(value: object) -> str:
    return escape(str(value), quote=True)


@dataclass(frozen=True)
class Played:
    table: str
    at: int  # ms since the epoch, when this browser saw the end
    names: tuple[str, ...]
    scores: tuple[int, ...]
    seat: int  # this browser's seat
    winners: tuple[int, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "table": self.table,
            "at": self.at,
            "names": list(self.names),
            "scores": list(self.scores),
            "seat": self.seat,
            "winners": list(self.winners),
        }


def _read(item: object) -> Played | None:
    if not isinstance(item, dict):
        return None
    table, at, seat = item.get("table"), item.get("at"), item.get("seat")
    names, scores, winners = item.get("names"), item.get("scores"), item.get("winners")
    if not (isinstance(table, str) and table and isinstance(at, int) and isinstance(seat, int)):
        return None
    if not (isinstance(names, list) and isinstance(scores, list) and isinstance(winners, list)):
        return None
    if not all(isinstance(s, int) for s in [*scores, *winners]) or len(names) != len(scores):
        return None
    return Played(table, at, tuple(str(n) for n in names), tuple(scores), seat, tuple(winners))


def load(storage: Mapping[str, str]) -> list[Played]:
    """The games kept, newest first; an unreadable entry (or key) is skipped, never raised."""
    try:
        items = json.loads(storage.get(KEY) or "[]")
    except ValueError:
        return []
    if not isinstance(items, list):
        return []
    return [p for p in (_read(i) for i in items) if p is not None]


def remember(state: UiState, storage: Mapping[str, str], at: int) -> str | None:
    """The key's new value once this browser's seat sees its game end (None: nothing new to keep)."""
    view = state.view or {}
    result = view.get("result") or {}
    if state.screen != "end" or state.seat is None or not state.table_id or state.demo:
        return None
    kept = load(storage)
    if any(p.table == state.table_id for p in kept):
        return None
    seats = sorted(view.get("seats") or (), key=lambda s: int(s.get("seat", 0)))
    finals = result.get("scores")
    scores = [
        int(finals[i]) if isinstance(finals, list) and i < len(finals) else int(s.get("score", 0))
        for i, s in enumerate(seats)
    ]
    game = Played(
        state.table_id,
        at,
        tuple(str(s.get("name", "?")) for s in seats),
        tuple(scores),
        state.seat,
        tuple(int(w) for w in result.get("winners") or ()),
    )
    return json.dumps([p.to_json() for p in [game, *kept][:KEEP]], separators=(",", ":"))


def _date(ms: int, tr: Translator) -> tuple[str, str]:
    """(ISO date-time for ``<time>``, the date and hour as the page's language writes them)."""
    t = time.localtime(ms / 1000)
    iso = time.strftime("%Y-%m-%dT%H:%M", t)
    shown = time.strftime("%d/%m/%Y %H:%M" if tr.lang == "fr" else "%Y-%m-%d %H:%M", t)
    return iso, shown


def _result(p: Played, tr: Translator) -> str:
    if p.seat not in p.winners:
        return tr.t("played_lost")
    return tr.t("played_tie") if len(p.winners) > 1 else tr.t("played_won")


def section(games: list[Played], tr: Translator, base: str, search: str = "") -> str:
    """The replay page's list of the games this browser played, each a link to its replay."""
    if not games:
        return (
            '<section class="card played" aria-labelledby="played-title">'
            f'<h2 id="played-title">{_e(tr.t("played_title"))}</h2>'
            f'<p class="muted" data-testid="played-none">{_e(tr.t("played_none"))}</p></section>'
        )
    items = []
    for p in games:
        iso, shown = _date(p.at, tr)
        players = " · ".join(f"{n} {s}" for n, s in zip(p.names, p.scores, strict=True))
        me = p.names[p.seat] if 0 <= p.seat < len(p.names) else "?"
        # The whole line is the link: its name says which game it opens (date, players, result).
        items.append(
            f'<li data-testid="played-game" data-table="{_e(p.table)}">'
            f'<a href="{_e(base)}t/{_e(p.table)}/replay{_e(search)}" '
            f'data-act="replay" data-arg="{_e(p.table)}">'
            f'<time datetime="{iso}">{_e(shown)}</time> '
            f'<span class="played-players">{_e(players)}</span> '
            f'<span class="played-result">{_e(tr.t("played_result", name=me, result=_result(p, tr)))}</span>'
            "</a></li>"
        )
    return (
        '<section class="card played" aria-labelledby="played-title">'
        f'<h2 id="played-title">{_e(tr.t("played_title"))}</h2>'
        f'<ul class="played-list" data-testid="played-list">{"".join(items)}</ul></section>'
    )
