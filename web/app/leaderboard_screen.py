"""The leaderboards' screen (issue 30; ``/leaderboard/{speed}``): one class at a time, its top players in a
table with their rank, rating and games, the viewer's own place, and the pages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from app.i18n import Translator
from app.markup import escape
from app.members import profile_href
from app.ratings_view import SPEEDS, speed_name


def _e(value: object) -> str:
    return escape(str(value), quote=True)


@dataclass(frozen=True, slots=True)
class Row:
    rank: int
    nickname: str
    rating: int
    games: int


@dataclass
class BoardState:
    """The board on screen: its class and page, and the relay's answer (``status``: loading | ok |
    error)."""

    speed: str = "normal"
    page: int = 0
    status: str = "loading"
    rows: list[Row] = field(default_factory=list)
    more: bool = False
    mine: Row | None = None


def _row(raw: object) -> Row | None:
    if not isinstance(raw, dict):
        return None
    rank, nick, rating, games = raw.get("rank"), raw.get("nickname"), raw.get("rating"), raw.get("games")
    if not (isinstance(rank, int) and isinstance(nick, str) and isinstance(rating, int)):
        return None
    return Row(rank, nick, rating, games if isinstance(games, int) else 0)


def read(board: BoardState, data: Mapping[str, object]) -> None:
    """``GET /api/leaderboard/{speed}``'s answer."""
    rows = data.get("rows")
    board.rows = [r for r in (_row(x) for x in (rows if isinstance(rows, list) else ())) if r is not None]
    board.more = data.get("more") is True
    board.mine = _row(data.get("mine"))
    board.status = "ok"


def address(speed: str, page: int = 0) -> str:
    return f"leaderboard/{speed}" + (f"?page={page}" if page else "")


def parse(path: str, search: str) -> tuple[str, int] | None:
    """``/leaderboard`` or ``/leaderboard/{speed}`` (``?page=N``) -> (speed, page); None: not a board."""
    parts = path.strip("/").split("/")
    if parts[0] != "leaderboard" or len(parts) > 2:
        return None
    speed = parts[1] if len(parts) == 2 else "normal"
    page = search.removeprefix("?page=")
    return speed, int(page) if search.startswith("?page=") and page.isdigit() and int(page) < 100 else 0


def link(tr: Translator) -> str:
    """Home's way to the leaderboards."""
    href = address("normal")
    return (
        f'<p class="board-link"><a href="{href}" id="leaderboard-link" data-act="open" data-arg="{href}">'
        f"{_e(tr.t('leaderboard'))}</a></p>"
    )


def screen(board: BoardState, tr: Translator, signed_in: bool) -> str:
    name = speed_name(tr, board.speed)
    title = _e(tr.t("leaderboard_title", speed=name))
    tabs = "".join(
        f'<li><a href="{address(s)}" data-act="open" data-arg="{address(s)}"'
        f"{' aria-current=page' if s == board.speed else ''}>{_e(speed_name(tr, s).capitalize())}</a></li>"
        for s in SPEEDS
    )
    head = (
        f'<h1 id="board-title" tabindex="-1" data-screen-title>{title}</h1>'
        f'<nav aria-label="{_e(tr.t("leaderboard"))}"><ul class="board-tabs">{tabs}</ul></nav>'
        f'<p class="muted">{_e(tr.t("leaderboard_rule"))}</p>'
    )
    if board.status == "loading":
        body = f'<p class="muted" aria-busy="true">{_e(tr.t("loading"))}</p>'
    elif board.status == "error":
        body = f'<p class="error" role="alert">{_e(tr.t("leaderboard_error"))}</p>'
    elif not board.rows:
        body = f'<p data-testid="board-empty">{_e(tr.t("leaderboard_empty"))}</p>'
    else:
        rows = "".join(
            f'<tr data-testid="board-row"{" class=mine" if board.mine and r.rank == board.mine.rank else ""}>'
            f'<td class="num">{r.rank}</td><th scope="row"><a href="{_e(profile_href(r.nickname))}" '
            f'data-act="open" data-arg="{_e(profile_href(r.nickname))}">{_e(r.nickname)}</a></th>'
            f'<td class="num">{r.rating}</td><td class="num">{r.games}</td></tr>'
            for r in board.rows
        )
        body = (
            f'<table class="board" data-testid="board"><caption class="sr">{title}'
            f'</caption><thead><tr><th scope="col" class="num">{_e(tr.t("leaderboard_rank"))}</th>'
            f'<th scope="col">{_e(tr.t("leaderboard_player"))}</th>'
            f'<th scope="col" class="num">{_e(tr.t("rating_label"))}</th>'
            f'<th scope="col" class="num">{_e(tr.t("leaderboard_games"))}</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>"
        )
    mine = ""
    if signed_in and board.status == "ok":
        said = (
            tr.t("leaderboard_mine", rank=board.mine.rank) if board.mine else tr.t("leaderboard_not_listed")
        )
        mine = f'<p data-testid="board-mine">{_e(said)}</p>'
    pages = []
    if board.page > 0:
        prev = address(board.speed, board.page - 1)
        pages.append(f'<a href="{prev}" data-act="open" data-arg="{prev}">{_e(tr.t("leaderboard_prev"))}</a>')
    if board.more:
        nxt = address(board.speed, board.page + 1)
        pages.append(f'<a href="{nxt}" data-act="open" data-arg="{nxt}">{_e(tr.t("leaderboard_more"))}</a>')
    nav = f'<p class="board-pages">{" · ".join(pages)}</p>' if pages else ""
    return (
        '<section class="leaderboard card" aria-labelledby="board-title" data-testid="leaderboard">'
        f"{head}{body}{mine}{nav}</section>"
    )
