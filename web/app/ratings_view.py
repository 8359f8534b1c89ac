"""Ratings on the page (issue 30; docs/ratings.md): the numbers the relay sends for a table (its ``ratings``
frame) and for the lobby, written beside registered players' names; a rated game's changes and win chances.

A number is never conveyed by colour: a provisional one carries "?" in sight and "provisional rating" for
screen readers; a change has its sign written out (+12, and a true minus sign for a loss)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from app.i18n import Translator
from app.markup import escape

SPEEDS = ("rapide", "normal", "lent", "correspondance")  # relay/ratings/classes.py, in that order


def _e(value: object) -> str:
    return escape(str(value), quote=True)


@dataclass(frozen=True, slots=True)
class SeatRating:
    rating: int
    provisional: bool
    change: int | None = None
    chance: float | None = None


@dataclass
class TableRatings:
    """The last ``ratings`` frame of the table on screen: its class, whether it is rated, each account
    seat's number."""

    speed: str = ""
    rated: bool = False
    seats: dict[int, SeatRating] = field(default_factory=dict)

    @classmethod
    def from_frame(cls, frame: Mapping[str, object]) -> TableRatings:
        seats: dict[int, SeatRating] = {}
        raw = frame.get("seats")
        for s in raw if isinstance(raw, list) else ():
            if (
                not isinstance(s, dict)
                or not isinstance(s.get("seat"), int)
                or not isinstance(s.get("rating"), int)
            ):
                continue
            change, chance = s.get("change"), s.get("chance")
            seats[int(s["seat"])] = SeatRating(
                int(s["rating"]),
                bool(s.get("provisional")),
                change if isinstance(change, int) else None,
                float(chance) if isinstance(chance, int | float) else None,
            )
        return cls(str(frame.get("speed") or ""), bool(frame.get("rated")), seats)


def at_seat(ratings: TableRatings | None, seat: Mapping[str, object]) -> SeatRating | None:
    """The table's number for ``seat`` (a view's seat), if the relay sent one."""
    n = seat.get("seat")
    return ratings.seats.get(n) if ratings is not None and isinstance(n, int) else None


def of_seat(seat: Mapping[str, object]) -> SeatRating | None:
    """A lobby or invitation seat's number (``rating``/``provisional`` in its JSON), if it has one."""
    rating = seat.get("rating")
    return SeatRating(rating, bool(seat.get("provisional"))) if isinstance(rating, int) else None


def rating_html(tr: Translator, r: SeatRating | None) -> str:
    """ " 1512" or " 1346?" after a name, the "?" said in words for screen readers."""
    if r is None:
        return ""
    mark = f'?<span class="sr"> ({_e(tr.t("rating_provisional"))})</span>' if r.provisional else ""
    label = _e(tr.t("rating_label"))
    return f' <span class="rating" data-testid="rating" title="{label}">{r.rating}{mark}</span>'


def change_text(r: SeatRating | None) -> str:
    """ "+12", or a loss with a true minus sign (U+2212), "±0"; "" when there is no change to say."""
    if r is None or r.change is None:
        return ""
    if r.change > 0:
        return f"+{r.change}"
    return f"\u2212{-r.change}" if r.change < 0 else "±0"


def change_html(tr: Translator, r: SeatRating | None) -> str:
    text = change_text(r)
    if not text:
        return ""
    words = _e(tr.t("rating_change", change=text))
    return (
        f' <span class="rating-change" data-testid="rating-change" aria-label="{words}">({_e(text)})</span>'
    )


def chance_text(tr: Translator, r: SeatRating | None) -> str:
    """ "52 % de chances de gagner" before a rated game's start; "" otherwise."""
    if r is None or r.chance is None:
        return ""
    return tr.t("rating_chance", pct=round(100 * r.chance))


def speed_name(tr: Translator, speed: str) -> str:
    return tr.t(f"speed_{speed}") if speed in SPEEDS else speed


def table_kind(tr: Translator, ratings: TableRatings | None) -> str:
    """ "Partie classée · rapide" for a rated table; "" for a casual one."""
    if ratings is None or not ratings.rated:
        return ""
    return tr.t("rated_game", speed=speed_name(tr, ratings.speed))
