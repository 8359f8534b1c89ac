"""HTML of the way to a seat: the home screen (own tables first, create, open tables, join by link) and
the invitation a table link opens (who invites, who sits, the turn time; join with a name, or watch).

Pure, like :mod:`app.render` (which re-exports ``home`` and ``table_list``). Every screen has exactly one
``h1`` (``data-screen-title``): the glue moves the focus to it when the screen changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from typing import TYPE_CHECKING

from app.home_more import computer_card, live_games, opening_table, pitch
from app.i18n import Translator
from app.lobby import free_seats, host_name
from app.markup import escape
from app.members import seat_name_html
from app.state import TURN_CHOICES, UiState
from engine.game import DAY_SECONDS, TURN_DAYS

if TYPE_CHECKING:
    from app.payloads import GameEvent, SeatView, TableSummary

BUSY = ' disabled aria-busy="true"'


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def duration(tr: Translator, seconds: int) -> str:
    """A turn time as the form's list says it: "30 s", "1,5 min" / "1.5 min", "2 min", "3 jours"."""
    if seconds >= DAY_SECONDS and seconds % DAY_SECONDS == 0:
        return tr.t("days_short", n=seconds // DAY_SECONDS)
    if seconds < 60:
        return tr.t("seconds_short", n=seconds)
    text = tr.t("minutes_short", n=round(seconds / 60, 1)).replace(".0", "")
    return text.replace(".", ",") if tr.lang == "fr" else text


def _duration_of(tr: Translator, value: object) -> str:
    return duration(tr, value) if isinstance(value, int) and not isinstance(value, bool) else "?"


def seat_name(tr: Translator, seat: SeatView) -> str:
    """A seat's name as every list shows it: a computer player carries "(ordinateur)" / "(computer)"."""
    name = str(seat.get("name", "?"))
    return f"{name} ({tr.t('bot_marker')})" if seat.get("bot") else name


def names_at_each_event(journal: Sequence[GameEvent], now: Mapping[int, str]) -> list[Mapping[int, str]]:
    """Seat number -> name as it was at each event: seats are renumbered when one leaves before the start,
    and a seat that left (or a computer player removed) is no longer in the view's seats. Seats the journal
    does not show joining (an abridged journal) keep the view's names."""
    seats: list[str] = []
    out: list[Mapping[int, str]] = []
    for ev in journal:
        kind = ev.get("type")
        if kind == "seat_joined":
            seats.append(str(ev.get("name", "?")))
        current = {**now, **dict(enumerate(seats))} if seats else now
        out.append(current)
        seat = ev.get("seat")
        if kind == "seat_left" and isinstance(seat, int) and 0 <= seat < len(seats):
            seats.pop(seat)
    return out


def watchers_text(tr: Translator, n: int) -> str:
    return tr.t("watchers_one") if n == 1 else tr.t("watchers_many", n=n)


def h1(hid: str, text: str) -> str:
    # tabindex=-1: the focus can be put on it (a new screen), without adding a Tab stop.
    return f'<h1 id="{hid}" tabindex="-1" data-screen-title>{_e(text)}</h1>'


def name_error(state: UiState, tr: Translator) -> str:
    """What is wrong with the name, said next to its field (the region ``#name-error``)."""
    if state.lobby.join_error is not None:
        code, params = state.lobby.join_error
        # A guest typed a registered player's name: the way to sign in is right there.
        link = '<a href="signin" id="name-signin" data-act="account-page" data-arg="signin">'
        signin = f" {link}{_e(tr.t('sign_in'))}</a>" if code == "name_registered" else ""
        return (
            f'<span data-testid="name-error" data-code="{_e(code)}">✖ {_e(tr.error(code, params))}</span>'
            + signin
        )
    problem = state.name_problem()
    if problem in ("name_too_long", "name_unprintable", "name_reserved") or (
        problem and state.notice is not None and state.notice[0] == problem
    ):
        return (
            f'<span data-testid="name-error" data-code="{_e(problem)}">✖ '
            f"{_e(tr.t(problem, n=len(state.name.strip())))}</span>"
        )
    return ""


def _name_field(state: UiState, tr: Translator, enter: str) -> str:
    if state.member is not None:
        # Signed in: the relay seats the player under their nickname, whatever is typed (no field to type in).
        return (
            f'<p class="playing-as" data-testid="playing-as">{_e(tr.t("playing_as", name=state.member))}</p>'
            '<p class="field-error" id="name-error" aria-live="polite"></p>'
        )
    err = name_error(state, tr)
    invalid = ' aria-invalid="true"' if err else ""
    return (
        f'<label for="name-input">{_e(tr.t("your_name"))}</label>'
        # No maxlength: browsers count UTF-16 units, the table counts characters (an emoji is 1, not 2).
        '<input id="name-input" name="name" autocomplete="nickname" '
        f'value="{_e(state.name)}" data-bind="name" data-enter="{enter}" required '
        f'aria-describedby="name-hint name-error"{invalid}>'
        f'<p class="hint muted" id="name-hint">{_e(tr.t("name_hint"))}</p>'
        # Space reserved (min-height): a message appearing does not move what follows.
        f'<p class="field-error" id="name-error" aria-live="polite">{err}</p>'
    )


# -- home -------------------------------------------------------------------------------------------------
def _rated_field(state: UiState, tr: Translator) -> str:
    """A signed-in player may make the table rated (issue 30): only registered players will sit."""
    if state.member is None:
        return ""
    return (
        '<label class="check"><input type="checkbox" id="rated-check" data-bind="rated" '
        f'aria-describedby="rated-hint"{" checked" if state.rated else ""}> '
        f"{_e(tr.t('rated_checkbox'))}</label>"
        f'<p class="hint muted" id="rated-hint">{_e(tr.t("rated_hint"))}</p>'
    )


def _turn_options(state: UiState, tr: Translator) -> str:
    """The turn times offered: seconds and minutes to everyone; days (issue 31, correspondence) to a
    signed-in player only, in a group of their own."""

    def option(s: int) -> str:
        chosen = " selected" if s == state.turn_seconds else ""
        return f'<option value="{s}"{chosen}>{_e(duration(tr, s))}</option>'

    live = "".join(option(s) for s in TURN_CHOICES)
    if state.member is None:
        return live
    days = "".join(option(d * DAY_SECONDS) for d in TURN_DAYS)
    return (
        f'<optgroup label="{_e(tr.t("turn_speed_group"))}">{live}</optgroup>'
        f'<optgroup label="{_e(tr.t("turn_days_group"))}">{days}</optgroup>'
    )


def home(state: UiState, tr: Translator, my_games: str = "", listed: Set[str] = frozenset()) -> str:
    """``my_games``: a signed-in player's games (app.profile_screens.my_games), first; ``listed``: the tables
    it lists, left out of this browser's own tables below it (never twice)."""
    options = _turn_options(state, tr)
    mine = my_tables(state, tr, listed)
    return (
        '<section class="home" aria-labelledby="home-title">'
        + h1("home-title", tr.t("app_title"))
        + pitch(tr)  # what Lexio is, in one line (issue 27)
        + my_games
        + (f'<section class="card mine" aria-labelledby="mine-title">{mine}</section>' if mine else "")
        + '<div class="card">'
        + _name_field(state, tr, "create")
        + "</div>"
        # Only the button (or Enter in the name field) creates a table: the form itself does nothing.
        + '<form class="card" id="create-form" onsubmit="return false">'
        f"<h2>{_e(tr.t('create_table'))}</h2>"
        f'<label for="turn-select">{_e(tr.t("turn_time"))}</label>'
        f'<select id="turn-select" data-bind="turn_seconds">{options}</select>'
        f'<label class="check"><input type="checkbox" id="public-check" data-bind="public"'
        f"{' checked' if state.public else ''}> {_e(tr.t('public_table'))}</label>"
        + _rated_field(state, tr)
        + '<button type="button" id="create-table" class="primary" data-act="create">'
        f"{_e(tr.t('create_table'))}</button>"
        "</form>"
        + computer_card(state, tr)
        + live_games(state.lobby.live, tr)
        + '<section class="card" aria-labelledby="open-title"><h2 id="open-title">'
        f"{_e(tr.t('open_tables'))}</h2>"
        f'<button type="button" id="refresh-tables" data-act="refresh">{_e(tr.t("refresh"))}</button>'
        f'<div id="table-list" data-testid="table-list">{table_list(state, tr)}</div></section>'
        '<form class="card" id="link-form" onsubmit="return false">'
        f"<h2>{_e(tr.t('join_by_link'))}</h2>"
        f'<label for="link-input">{_e(tr.t("link_or_code"))}</label>'
        f'<input id="link-input" name="link" autocomplete="off" data-enter="join-link" data-bind="link" '
        f'value="{_e(state.lobby.link)}">'
        f'<button type="button" id="join-link" data-act="join-link">{_e(tr.t("join"))}</button>'
        "</form></section>"
    )


def my_tables(state: UiState, tr: Translator, listed: Set[str] = frozenset()) -> str:
    """The player's own tables still waiting or playing, each with Resume ("" when there is none);
    ``listed``: tables shown already (a signed-in player's "my games")."""
    rows = []
    for t in state.lobby.mine:
        if t.get("id") in listed:
            continue
        names = ", ".join(seat_name(tr, s) for s in t.get("seats") or ())
        status = "status_playing" if t.get("status") == "playing" else "status_waiting"
        rows.append(
            f'<li data-testid="my-table" data-status="{_e(t.get("status", ""))}">'
            f"<span>{_e(names or '—')}</span> "
            f'<span class="muted">{_e(tr.t(status))} · {_e(_duration_of(tr, t.get("turn_seconds")))}</span> '
            f'<button type="button" class="primary" data-act="resume" data-arg="{_e(t.get("id", ""))}">'
            f"{_e(tr.t('resume'))}</button></li>"
        )
    if not rows:
        return ""
    return f'<h2 id="mine-title">{_e(tr.t("my_tables"))}</h2><ul class="tables">{"".join(rows)}</ul>'


def table_list(state: UiState, tr: Translator) -> str:
    mine = {t.get("id") for t in state.lobby.mine}
    tables = [t for t in state.tables if t.get("id") not in mine]  # own tables are listed above, with Resume
    if not tables:
        return f'<p class="muted">{_e(tr.t("no_open_tables"))}</p>'
    rows = []
    for t in tables:
        names = ", ".join(seat_name(tr, s) for s in t.get("seats") or ())
        rows.append(
            f'<li data-testid="open-table"><span>{_e(names or "—")}</span> '
            f'<span class="muted">{_e(_duration_of(tr, t.get("turn_seconds")))} · '
            f"{_e(tr.t('free_n', n=t.get('free', '?')))}</span> "
            f'<button type="button" data-act="join" data-arg="{_e(t.get("id", ""))}">'
            f"{_e(tr.t('join'))}</button></li>"
        )
    return f'<ul class="tables">{"".join(rows)}</ul>'


# -- invitation -------------------------------------------------------------------------------------------
def _seat_items(tr: Translator, inv: TableSummary, scores: bool) -> str:
    items = []
    for s in inv.get("seats") or ():
        marks = [tr.t("host_marker")] if s.get("seat") == 0 and not scores else []
        extra = f' <span class="muted">({_e(", ".join(marks))})</span>' if marks else ""
        score = f' <span class="num">{int(s.get("score") or 0)}</span>' if scores else ""
        items.append(f'<li data-testid="invite-seat"><b>{seat_name_html(tr, s)}</b>{extra}{score}</li>')
    return "".join(items)


def invite(state: UiState, tr: Translator) -> str:
    lobby = state.lobby
    inv = lobby.invite or {}
    status = lobby.invite_status
    home_link = f'<p><a href="/" data-act="home" id="invite-home">{_e(tr.t("back_home_link"))}</a></p>'
    if status == "loading":
        return opening_table(tr)  # the same words as the page's shell said while Python loaded
    if status == "missing":
        return (
            '<section class="invite card" aria-labelledby="invite-title">'
            + h1("invite-title", tr.t("invite_missing"))
            + f"<p>{_e(tr.t('invite_missing_text'))}</p>{home_link}</section>"
        )
    turn = _duration_of(tr, inv.get("turn_seconds"))
    if status != "waiting" or free_seats(inv) == 0:
        # Started (or full): watch at once, no name needed.
        title = tr.t("invite_playing") if status == "playing" else tr.t("invite_full")
        busy = BUSY if lobby.watching else ""
        return (
            '<section class="invite card" aria-labelledby="invite-title">'
            + h1("invite-title", title)
            + f'<p data-testid="invite-info">{_e(tr.t("invite_playing_text"))} '
            f"{_e(tr.t('per_turn', t=turn))}.</p>"
            f'<ul class="invite-seats" id="invite-seats">{_seat_items(tr, inv, True)}</ul>'
            f'<div class="actions"><button type="button" id="watch-table" class="primary" data-act="watch"'
            f"{busy}>{_e(tr.t('watch'))}</button></div>{home_link}</section>"
        )
    host = host_name(inv)
    title = tr.t("invite_by", name=host) if host else tr.t("invite_empty")
    seats = _seat_items(tr, inv, False)
    joining = lobby.joining
    return (
        '<section class="invite card" aria-labelledby="invite-title">'
        + h1("invite-title", title)
        + f'<p data-testid="invite-info">{_e(tr.t("per_turn", t=turn))} · '
        f"{_e(tr.t('free_n', n=free_seats(inv)))}</p>"
        f"<h2>{_e(tr.t('invite_seated'))}</h2>"
        + (
            f'<ul class="invite-seats" id="invite-seats">{seats}</ul>'
            if seats
            else f'<p class="muted">{_e(tr.t("invite_nobody"))}</p>'
        )
        + '<form id="invite-form" onsubmit="return false">'
        + _name_field(state, tr, "invite-join")
        + '<div class="actions">'
        f'<button type="button" id="join-table" class="primary" data-act="invite-join"'
        f"{BUSY if joining else ''}>"
        f"{_e(tr.t('invite_joining') if joining else tr.t('invite_join'))}</button>"
        "</div></form>"
        # Watching needs no seat, before the start as after it (issue 27).
        f'<p class="invite-watch">{_e(tr.t("invite_or_watch"))} '
        f'<button type="button" id="watch-table" data-act="watch"{BUSY if lobby.watching else ""}>'
        f"{_e(tr.t('watch'))}</button></p>"
        f"{home_link}</section>"
    )
