"""HTML of a player's profile (``/u/{nickname}``: member since, statistics, finished games paged, a
head-to-head with ``?vs=``) and of home's "my games" (issue 29, point 4). Pure, like :mod:`app.screens`.

Every address inside the app is a real link (``href``, relative to the page's ``<base>``: a new tab works)
that the page's bootstrap hands to Python instead (``data-act="open"``, the address in ``data-arg``): no
reload of Python for a click. A result is said in words (Win, Draw, Loss), never by colour alone; the games
are a ``table`` with a caption and column headers."""

from __future__ import annotations

import time

from app import rating_chart
from app.i18n import Translator
from app.i18n_profile import MONTHS
from app.markup import escape
from app.profile import FinishedGame, GamePlayer, LastMove, LiveGame, MyGames, ProfileState, address
from app.screens import duration


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def open_link(rest: str, text: str, *, lid: str = "", cls: str = "", label: str = "") -> str:
    """A link inside the app (``rest``: ``u/Alice``, ``t/ID``), followed without reloading the page."""
    attrs = f' id="{_e(lid)}"' if lid else ""
    attrs += f' class="{_e(cls)}"' if cls else ""
    attrs += f' aria-label="{_e(label)}"' if label else ""
    return f'<a href="{_e(rest)}" data-act="open" data-arg="{_e(rest)}"{attrs}>{_e(text)}</a>'


def long_date(ms: int, tr: Translator) -> str:
    """ "30 novembre 2026" / "30 November 2026" (French writes the first of a month "1er")."""
    t = time.localtime(ms / 1000)
    month = MONTHS[tr.lang][t.tm_mon - 1]
    day = "1er" if tr.lang == "fr" and t.tm_mday == 1 else str(t.tm_mday)
    return f"{day} {month} {t.tm_year}"


def short_date(ms: int, tr: Translator) -> tuple[str, str]:
    """(ISO for ``<time datetime>``, the date as shown: "30/11/2026" / "2026-11-30")."""
    t = time.localtime(ms / 1000)
    return time.strftime("%Y-%m-%dT%H:%M", t), time.strftime("%d/%m/%Y" if tr.lang == "fr" else "%Y-%m-%d", t)


def player_name(tr: Translator, p: GamePlayer) -> str:
    """A player as every list here shows them: a registered player's name links to their profile, with a
    check mark and "(registered player)" for screen readers; a computer player and a guest are said so; a
    deleted account is "deleted player", neither its old name nor a link (whoever has the nickname now is
    somebody else)."""
    if p.deleted:
        gone = _e(tr.t("deleted_player"))
        return f'<span class="deleted-player" data-testid="deleted-player">{gone}</span>'
    if p.nickname:
        return (
            open_link(address(p.nickname), p.nickname, cls="member")
            + '<span class="member-mark"> <span aria-hidden="true">✓</span>'
            f'<span class="sr"> ({_e(tr.t("member_marker"))})</span></span>'
        )
    marker = tr.t("bot_marker") if p.bot else tr.t("guest_marker")
    return f'{_e(p.name)} <span class="muted">({_e(marker)})</span>'


def _plain_names(tr: Translator, players: tuple[GamePlayer, ...]) -> str:
    return ", ".join(tr.t("deleted_player") if p.deleted else p.nickname or p.name for p in players) or "—"


def score(tr: Translator, n: int) -> str:
    """A score as the language writes a number (a true minus sign: a game ended by passes can leave one
    below zero)."""
    return tr.num(n, 0)


def result_word(tr: Translator, result: str) -> str:
    return tr.t("result_" + result)


def _record(tr: Translator, wins: int, draws: int, losses: int) -> str:
    one = losses == 1 or (tr.lang == "fr" and losses == 0)
    parts = (
        tr.t("rec_wins", n=wins),
        tr.t("rec_draws", n=draws),
        tr.t("rec_loss_one" if one else "rec_loss_many", n=losses),
    )
    return ", ".join(parts)


# -- the games' table ------------------------------------------------------------------------------------
def games_table(games: list[FinishedGame], tr: Translator, caption: str, cid: str, first_id: int = 0) -> str:
    """The finished games, one row each; each row's last cell links to the game (its end and replay), with
    ``id="game-{i}"`` so that the focus can go to the first row a "more" button added."""
    rows = []
    for i, g in enumerate(games):
        opponents = g.opponents
        opp = "".join(
            f'<li>{player_name(tr, p)} <span class="num">{score(tr, p.score)}</span></li>' for p in opponents
        )
        iso, shown = short_date(g.ended_ms, tr)
        label = tr.t("game_view_label", date=shown, names=_plain_names(tr, opponents))
        view = open_link("t/" + g.table, tr.t("game_view"), lid=f"game-{first_id + i}", label=label)
        rows.append(
            f'<tr data-testid="game-row" data-table="{_e(g.table)}" data-result="{_e(g.result)}">'
            f'<td class="date"><time datetime="{iso}">{_e(shown)}</time></td>'
            f'<td class="opp"><ul class="opp-list">{opp}</ul></td>'
            f'<td class="num">{score(tr, g.score)}</td>'
            f'<td class="res res-{_e(g.result)}">{_e(result_word(tr, g.result))}</td>'
            f"<td>{view}</td>"
            "</tr>"
        )
    num = ' class="num"'
    head = "".join(
        f'<th scope="col"{num if c == "col_score" else ""}>{_e(tr.t(c))}</th>'
        for c in ("col_date", "col_opponents", "col_score", "col_result", "col_game")
    )
    return (
        f'<table class="games" data-testid="games"><caption class="sr" id="{cid}">{_e(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


# -- the profile -----------------------------------------------------------------------------------------
def _head(ps: ProfileState, tr: Translator, me: str | None) -> str:
    name = ps.shown_name or ps.nickname
    since = ""
    if ps.created_ms is not None:
        since = (
            f'<p class="muted" data-testid="member-since">'
            f"{_e(tr.t('member_since', date=long_date(ps.created_ms, tr)))}</p>"
        )
    you = ""
    if me is not None and me.casefold() == name.casefold():
        you = f'<p class="muted">{_e(tr.t("this_is_you"))}</p>'
    return (
        f'<h1 id="prof-title" tabindex="-1" data-screen-title>{_e(name)}'
        f'<span class="member-mark"> <span aria-hidden="true">✓</span>'
        f'<span class="sr"> ({_e(tr.t("member_marker"))})</span></span></h1>{since}{you}'
    )


def _stat(key: str, label: str, value: str) -> str:
    return f'<div><dt>{label}</dt><dd data-stat="{key}">{value}</dd></div>'


def stats_html(ps: ProfileState, tr: Translator) -> str:
    st = ps.stats
    none = _e(tr.t("stat_none"))
    pct = tr.num(100 * st.wins / st.games, 0) if st.games else "0"
    wins = tr.t("stat_wins_value", n=st.wins, pct=pct) if st.games else str(st.wins)
    avg = tr.num(st.average, 1) if st.average is not None else none
    best = score(tr, st.best_score) if st.best_score is not None else none
    play = none
    if st.best_play:
        word, points = st.best_play
        play = f'<span class="word">{_e(word)}</span> <small>{_e(tr.t("stat_points", n=points))}</small>'

    return (
        '<section class="card" aria-labelledby="stats-title">'
        f'<h2 id="stats-title">{_e(tr.t("stats_title"))}</h2>'
        '<dl class="stats" data-testid="stats">'
        + _stat("games", _e(tr.t("stat_games")), str(st.games))
        + _stat("wins", _e(tr.t("stat_wins")), _e(wins))
        + _stat("average", _e(tr.t("stat_average")), _e(avg))
        + _stat("best_score", _e(tr.t("stat_best")), _e(best))
        + _stat("best_play", _e(tr.t("stat_best_play")), play)
        + _stat("bingos", _e(tr.t("stat_bingos")), str(st.bingos))
        + "</dl></section>"
    )


def _games_section(ps: ProfileState, tr: Translator) -> str:
    name = ps.shown_name or ps.nickname
    if not ps.games:
        body = f'<p class="muted" data-testid="games-none">{_e(tr.t("games_none"))}</p>'
    else:
        body = (
            # The scrolling box is named by the table's caption (the section by its heading: two names).
            '<div class="games-scroll" role="region" tabindex="0" aria-labelledby="games-caption">'
            + games_table(ps.games, tr, tr.t("games_caption", name=name), "games-caption")
            + "</div>"
            f'<p class="muted" data-testid="games-shown">'
            f"{_e(tr.t('games_shown', n=len(ps.games), total=max(ps.stats.games, len(ps.games))))}</p>"
        )
    if ps.more_error:
        body += f'<p class="field-error" role="alert">✖ {_e(tr.t("games_more_error"))}</p>'
    if ps.more:
        busy = ' disabled aria-busy="true"' if ps.loading_more else ""
        text = tr.t("games_more_busy") if ps.loading_more else tr.t("games_more")
        body += (
            f'<p><button type="button" id="prof-more" data-act="profile-more"{busy}>{_e(text)}</button></p>'
        )
    return (
        '<section class="card" aria-labelledby="games-title" data-testid="games-section">'
        f'<h2 id="games-title">{_e(tr.t("games_title"))}</h2>{body}</section>'
    )


def _versus_section(ps: ProfileState, tr: Translator) -> str:
    name = ps.shown_name or ps.nickname
    other = ps.other or ps.vs or ""
    heading = tr.t("versus_heading", name=name, other=other)
    back = (
        f'<p class="links">{open_link(address(name), tr.t("versus_all", name=name), lid="versus-all")}'
        + (
            f" · {open_link(address(other), tr.t('versus_other_profile', name=other))}"
            if ps.versus_status == "ok"
            else ""
        )
        + "</p>"
    )
    if ps.versus_status == "loading":
        body = f'<p class="muted" aria-busy="true">{_e(tr.t("profile_loading_text"))}</p>'
    elif ps.versus_status == "missing":
        body = f'<p data-testid="versus-missing">{_e(tr.t("versus_missing", name=other))}</p>'
    elif ps.versus_status == "error":
        body = f'<p class="field-error">✖ {_e(tr.t("profile_error_text"))}</p>'
    else:
        wins, draws, losses = ps.record
        record = tr.t("versus_record", name=name, other=other, record=_record(tr, wins, draws, losses))
        body = f'<p class="versus-record" data-testid="versus-record">{_e(record)}</p>'
        if ps.versus_games:
            caption = tr.t("versus_caption", name=name, other=other)
            body += (
                '<div class="games-scroll" role="region" tabindex="0" aria-labelledby="vs-caption">'
                + games_table(ps.versus_games, tr, caption, "vs-caption")
                + "</div>"
            )
        else:
            body += f'<p class="muted">{_e(tr.t("versus_none"))}</p>'
    return (
        '<section class="card" aria-labelledby="vs-title" data-testid="versus">'
        f'<h2 id="vs-title">{_e(heading)}</h2>{body}{back}</section>'
    )


def _compare(ps: ProfileState, tr: Translator, me: str | None) -> str:
    """The way to a head-to-head: against the viewer, against a registered opponent of the games shown, or
    any nickname typed."""
    name = ps.shown_name or ps.nickname
    links = []
    if me is not None and me.casefold() != name.casefold():
        links.append(open_link(address(name, me), tr.t("versus_you", name=name), lid="versus-you"))
    seen: set[str] = {name.casefold(), (me or "").casefold()}
    opponents = []
    for g in ps.games:
        for p in g.opponents:
            if p.nickname and p.nickname.casefold() not in seen:
                seen.add(p.nickname.casefold())
                opponents.append(
                    "<li>"
                    + open_link(
                        address(name, p.nickname),
                        tr.t("versus_against", name=p.nickname),
                        cls="vs-link",
                    )
                    + "</li>"
                )
    parts = "".join(f"<p>{x}</p>" for x in links)
    if opponents:
        parts += (
            f'<p id="vs-opponents">{_e(tr.t("versus_opponents"))}</p>'
            f'<ul class="vs-list" aria-labelledby="vs-opponents">{"".join(opponents[:12])}</ul>'
        )
    return (
        '<section class="card" aria-labelledby="vs-title" data-testid="compare">'
        f'<h2 id="vs-title">{_e(tr.t("versus_title"))}</h2>{parts}'
        '<form class="vs-form" onsubmit="return false">'
        f'<label for="vs-input">{_e(tr.t("versus_field"))}</label>'
        '<span class="vs-row"><input id="vs-input" name="vs" autocomplete="off" autocapitalize="none" '
        f'spellcheck="false" value="{_e(ps.compare)}" data-bind="profile-vs" data-enter="profile-vs">'
        f'<button type="button" id="vs-go" data-act="profile-vs">{_e(tr.t("versus_go"))}</button></span>'
        "</form></section>"
    )


def screen(ps: ProfileState, tr: Translator, me: str | None, block: str = "") -> str:
    """The whole profile screen; ``me``: the signed-in viewer's nickname (None: a guest); ``block``: the
    block control under the head (app.moderation), for a signed-in viewer on someone else's profile."""
    home = f'<p><a href="/" data-act="home" id="prof-home">{_e(tr.t("back_home_link_short"))}</a></p>'
    if ps.status == "loading":
        return (
            '<section class="profile" aria-labelledby="prof-title" data-testid="profile" aria-busy="true">'
            f'<h1 id="prof-title" tabindex="-1" data-screen-title>'
            f"{_e(tr.t('profile_loading', name=ps.nickname))}</h1>"
            f'<p class="muted">{_e(tr.t("profile_loading_text"))}</p></section>'
        )
    if ps.status in ("missing", "error"):
        title, text = (
            ("no_such_player", "no_such_player_text")
            if ps.status == "missing"
            else ("profile_error", "profile_error_text")
        )
        retry = (
            f'<p><button type="button" id="prof-retry" data-act="profile-retry">'
            f"{_e(tr.t('profile_retry'))}</button></p>"
            if ps.status == "error"
            else ""
        )
        return (
            f'<section class="profile card" aria-labelledby="prof-title" data-testid="profile" '
            f'data-status="{ps.status}">'
            f'<h1 id="prof-title" tabindex="-1" data-screen-title>{_e(tr.t(title))}</h1>'
            f'<p data-testid="profile-problem">{_e(tr.t(text, name=ps.nickname))}</p>{retry}{home}</section>'
        )
    rest = _versus_section(ps, tr) if ps.vs else _compare(ps, tr, me) + _games_section(ps, tr)
    return (
        '<section class="profile" aria-labelledby="prof-title" data-testid="profile" data-status="ok">'
        f'<div class="prof-head">{_head(ps, tr, me)}{block}</div>'
        + stats_html(ps, tr)
        + (rating_chart.section(ps.ratings, ps.rating_history, tr) if not ps.vs else "")
        + rest
        + "</section>"
    )


# -- home: my games --------------------------------------------------------------------------------------
def _live_row(g: LiveGame, tr: Translator, turn_name: str | None) -> str:
    names = ", ".join(p.name for p in g.players) or "—"
    if g.status == "waiting":
        state = f'<span class="muted">{_e(tr.t("my_waiting"))}</span>'
    elif g.your_turn:
        state = f'<strong class="your-turn">{_e(tr.t("my_your_turn"))}</strong>'
    elif turn_name:
        state = f'<span class="muted">{_e(tr.t("my_their_turn", name=turn_name))}</span>'
    else:
        state = f'<span class="muted">{_e(tr.t("my_others_turn"))}</span>'
    scores = " · ".join(
        f'{_e(p.name)}{_e(" (" + tr.t("bot_marker") + ")" if p.bot else "")} <b class="num">{p.score}</b>'
        for p in g.players
    )
    action = tr.t("my_play") if g.your_turn else tr.t("my_open")
    details = _live_details(g, tr)
    link = open_link(
        "t/" + g.table,
        action,
        cls="button primary" if g.your_turn else "button",
        label=tr.t("my_open_label", action=action, names=names),
    )
    return (
        f'<li data-testid="my-live" data-table="{_e(g.table)}" data-your-turn="{str(g.your_turn).lower()}">'
        f"<span>{scores}</span> {state} {details}{link}</li>"
    )


def time_left(tr: Translator, ms: int) -> str:
    """The time left on a turn in words, the two largest units: "Il reste 2 jours et 3 heures",
    "5 minutes left"; "Temps écoulé" at zero."""
    secs = max(0, ms) // 1000
    if secs <= 0:
        return tr.t("left_none")
    days, hours, minutes = secs // 86_400, secs % 86_400 // 3600, secs % 3600 // 60
    if days:
        parts = [tr.t("days_short", n=days)] + ([tr.t("hours_word", n=hours)] if hours else [])
    elif hours:
        parts = [tr.t("hours_word", n=hours)] + ([tr.t("minutes_word", n=minutes)] if minutes else [])
    elif minutes:
        parts = [tr.t("minutes_word", n=minutes)]
    else:
        parts = [tr.t("seconds_word", n=secs)]
    return tr.t("left_two", a=parts[0], b=parts[1]) if len(parts) == 2 else tr.t("left_one", a=parts[0])


def last_move(tr: Translator, move: LastMove | None) -> str:
    """A game's last move in words: "Dernier coup : Zoé, MAISON (+24)", "... Max a passé"."""
    if move is None:
        return tr.t("last_none")
    if move.kind == "place":
        return tr.t("last_place", name=move.name, word=move.word or "?", score=move.score or 0)
    if move.kind == "swap":
        return tr.t("last_swap", name=move.name, n=move.tiles or 0)
    return tr.t("last_pass" if move.kind == "pass" else "last_timeout", name=move.name)


def _live_details(g: LiveGame, tr: Translator) -> str:
    """Issue 31: the turn time, the time left (words, not only digits) and the last move of a game in play."""
    if g.status != "playing":
        return ""
    parts = []
    if g.turn_seconds > 0:
        parts.append(tr.t("turn_time_each", time=duration(tr, g.turn_seconds)))
    if g.time_left_ms is not None:
        parts.append(f'<span data-testid="my-time-left">{_e(time_left(tr, g.time_left_ms))}</span>')
    parts.append(f'<span data-testid="my-last-move">{_e(last_move(tr, g.last_move))}</span>')
    return (
        '<span class="muted my-details">'
        + " · ".join(p if p.startswith("<") else _e(p) for p in parts)
        + "</span> "
    )


def _recent_row(g: FinishedGame, tr: Translator) -> str:
    opp = g.opponents
    iso, shown = short_date(g.ended_ms, tr)
    names = ", ".join(f"{player_name(tr, p)} {_e(score(tr, p.score))}" for p in opp) or "—"
    label = tr.t("game_view_label", date=shown, names=_plain_names(tr, opp))
    return (
        f'<li data-testid="my-recent" data-table="{_e(g.table)}" data-result="{_e(g.result)}">'
        f'<span><time datetime="{iso}">{_e(shown)}</time> · {_e(tr.t("against"))} '
        f"{names}</span> "
        f'<span>{_e(tr.t("my_score", n=score(tr, g.score)))} · <span class="res res-{_e(g.result)}">'
        f"{_e(result_word(tr, g.result))}</span></span> "
        f"{open_link('t/' + g.table, tr.t('game_view'), cls='button', label=label)}</li>"
    )


def my_games(mg: MyGames, tr: Translator, me: str | None) -> str:
    """Home's "my games" card for a signed-in player ("" for a guest, or before the relay answered):
    games in progress first (whose turn, said in words), then the last finished ones."""
    if me is None or not mg.loaded:
        return ""
    parts = []
    if mg.live:
        rows = "".join(_live_row(g, tr, mg.turn_names.get(g.table)) for g in mg.live)
        waiting = (
            f' <span class="my-count" data-testid="my-count">({_e(tr.t("my_waiting_count", n=mg.your_turn))})'
            "</span>"
            if mg.your_turn
            else ""
        )
        parts.append(
            f'<h3 id="my-live-title">{_e(tr.t("my_live"))}{waiting}</h3>'
            f'<ul class="tables" aria-labelledby="my-live-title" data-testid="my-live-list">{rows}</ul>'
        )
    if mg.recent:
        rows = "".join(_recent_row(g, tr) for g in mg.recent[:5])
        parts.append(
            f'<h3 id="my-recent-title">{_e(tr.t("my_recent"))}</h3>'
            f'<ul class="tables" aria-labelledby="my-recent-title" data-testid="my-recent-list">{rows}</ul>'
        )
    if not parts:
        parts.append(f'<p class="muted">{_e(tr.t("my_none"))}</p>')
    if mg.recent:
        parts.append(f"<p>{open_link(address(me), tr.t('my_all'), lid='my-all')}</p>")
    return (
        '<section class="card mine my-games" aria-labelledby="my-games-title" data-testid="my-games">'
        f'<h2 id="my-games-title">{_e(tr.t("my_games"))}</h2>{"".join(parts)}</section>'
    )
