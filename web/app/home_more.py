"""What a newcomer meets first (issue 27): the line that says what Lexio is, a game against the computer one
click from home, the public games in progress to watch (the top game first), and a table link's first
screen while the page loads.

Pure, like :mod:`app.screens` (which puts these on its screens). The live games come from
``GET /api/tables`` (``live``, docs/protocol.md), ranked by the relay: the first is the top game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NotRequired, TypedDict

from app.i18n import Translator
from app.level_ratings import LEVEL_RATINGS
from app.markup import escape
from app.state import LEVELS, UiState

if TYPE_CHECKING:
    from app.payloads import SeatView


class LiveGame(TypedDict):
    """One game in progress (``GET /api/tables``, ``live``)."""

    id: str
    variant: str
    turn_seconds: int
    seats: list[SeatView]
    turn: int | None
    move: int | None
    watchers: int | None
    created_ms: NotRequired[int]


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def pitch(tr: Translator) -> str:
    return f'<p class="pitch" data-testid="pitch">{_e(tr.t("pitch"))}</p>'


def level_label(tr: Translator, level: str) -> str:
    """A computer level's name with its rating (app.level_ratings, made by bench/bot_ratings.py):
    ``"moyen (≈ 1500)"``; the name alone for a level without a figure."""
    rating = LEVEL_RATINGS.get(level)
    name = tr.t("level_" + level)
    return name if rating is None else f"{name} (≈ {rating})"


def computer_card(state: UiState, tr: Translator) -> str:
    """The computer's level and one button: the table is created, the computer seated and the game started
    (app.quickplay), with the name and turn time of the cards beside it."""
    options = "".join(
        f'<option value="{lv}"{" selected" if lv == state.bot_level else ""}>'
        f"{_e(level_label(tr, lv))}</option>"
        for lv in LEVELS
    )
    return (
        '<section class="card" aria-labelledby="computer-title">'
        f'<h2 id="computer-title">{_e(tr.t("vs_computer_title"))}</h2>'
        f'<label for="home-bot-level">{_e(tr.t("vs_computer_level"))}</label>'
        '<select id="home-bot-level" data-bind="bot_level" aria-describedby="computer-hint">'
        f"{options}</select>"
        '<button type="button" id="play-computer" class="primary" data-act="play-computer">'
        f"{_e(tr.t('vs_computer'))}</button>"
        f'<p class="hint muted" id="computer-hint">{_e(tr.t("vs_computer_hint"))}</p>'
        "</section>"
    )


def _names(tr: Translator, game: LiveGame) -> str:
    return ", ".join(str(s.get("name", "?")) for s in game.get("seats") or ())


def _scores(tr: Translator, game: LiveGame) -> str:
    parts = []
    for s in game.get("seats") or ():
        bot = f" ({tr.t('bot_marker')})" if s.get("bot") else ""
        parts.append(f'{_e(s.get("name", "?"))}{_e(bot)} <b class="num">{int(s.get("score") or 0)}</b>')
    return " · ".join(parts)


def _facts(tr: Translator, game: LiveGame) -> str:
    facts = []
    move = game.get("move")
    if isinstance(move, int):
        facts.append(tr.t("live_move", n=move))
    watchers = game.get("watchers")
    if isinstance(watchers, int) and watchers > 0:
        facts.append(tr.t("watchers_one") if watchers == 1 else tr.t("watchers_many", n=watchers))
    return " · ".join(facts)


def _watch_link(tr: Translator, game: LiveGame, base: str) -> str:
    gid = _e(game.get("id", ""))
    label = _e(tr.t("live_watch_label", names=_names(tr, game)))
    return (
        f'<a class="button" href="{_e(base)}t/{gid}" data-act="watch-game" data-arg="{gid}" '
        f'aria-label="{label}">{_e(tr.t("watch"))}</a>'
    )


def live_games(games: list[LiveGame], tr: Translator, base: str = "") -> str:
    """The live games' card: the top game on its own, then the others, each with Watch."""
    body: str
    if not games:
        body = f'<p class="muted">{_e(tr.t("no_live_games"))}</p>'
    else:
        top, rest = games[0], games[1:]
        body = (
            '<div class="top-game" data-testid="top-game">'
            f'<h3 id="top-game-title">{_e(tr.t("top_game"))}</h3>'
            f'<p class="scores">{_scores(tr, top)}</p>'
            f'<p class="muted">{_e(_facts(tr, top))}</p>{_watch_link(tr, top, base)}</div>'
        )
        if rest:
            rows = "".join(
                f'<li data-testid="live-game"><span>{_scores(tr, g)}</span> '
                f'<span class="muted">{_e(_facts(tr, g))}</span> {_watch_link(tr, g, base)}</li>'
                for g in rest
            )
            body += f'<ul class="tables">{rows}</ul>'
    return (
        '<section class="card live" aria-labelledby="live-title">'
        f'<h2 id="live-title">{_e(tr.t("live_games"))}</h2>'
        f'<div id="live-list" data-testid="live-list">{body}</div></section>'
    )


def opening_table(tr: Translator) -> str:
    """A table link's screen before its facts are known: it opens, whatever it turns out to be (an
    invitation, a waiting room, a game, its end); never "Game in progress" over an empty board."""
    return (
        '<section class="invite card" aria-labelledby="invite-title" aria-busy="true">'
        f'<h1 id="invite-title" tabindex="-1" data-screen-title>{_e(tr.t("opening_table"))}</h1>'
        f'<p data-testid="opening-text">{_e(tr.t("opening_table_text"))}</p>'
        f"{pitch(tr)}</section>"
    )
