"""Registered players where the game shows names (issue 29): a seat with ``"account": true`` is a signed-in
player's, its name their nickname, a link to their profile (``/u/{nickname}``); and the header's account
control ("Sign in", or the nickname with its menu). Pure HTML, like :mod:`app.render`, which uses it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from app.i18n import Translator
from app.markup import escape, quote_component
from app.ratings_view import SeatRating, of_seat, rating_html

if TYPE_CHECKING:
    from app.payloads import SeatView


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def profile_href(nickname: str) -> str:
    """The profile's address, relative to the page's ``<base href>`` (the site may live under a sub-path)."""
    return "u/" + quote_component(nickname)


def seat_name_html(
    tr: Translator, seat: SeatView, *, bot_marker: bool = True, rating: SeatRating | None = None
) -> str:
    """A seat's name as HTML: a registered player's is a link to their profile followed by a mark that says
    so in words (a check mark in sight, "registered player" for screen readers: never colour alone) and
    their rating (``rating``, else the one the lobby's JSON carries); a computer player carries
    "(computer)"; a guest's name is plain text."""
    name = str(seat.get("name", "?"))
    if seat.get("bot"):
        return _e(f"{name} ({tr.t('bot_marker')})" if bot_marker else name)
    if not seat.get("account"):
        return _e(name)
    # A new tab: a player in a game does not lose the table by looking at someone's profile.
    return (
        f'<a class="member" href="{_e(profile_href(name))}" target="_blank" rel="noopener" '
        f'data-testid="member-link">{_e(name)}</a>'
        f'<span class="member-mark" title="{_e(tr.t("member_marker"))}"> <span aria-hidden="true">✓</span>'
        f'<span class="sr"> ({_e(tr.t("member_marker"))})</span></span>'
        + rating_html(tr, rating or of_seat(cast("Mapping[str, object]", seat)))
    )


def header_control(nickname: str | None, menu_open: bool, tr: Translator) -> str:
    """The header's account control: "Sign in" for a guest; for a signed-in player a disclosure button with
    their nickname, opening a short menu (my account, my profile, sign out). Links and buttons in a list (not
    an ARIA menu): Tab reaches each, Escape closes it (web/src/index.html)."""
    if nickname is None:
        return (
            '<a class="hdr-account" id="signin-link" href="signin" data-act="account-page" data-arg="signin">'
            f"{_e(tr.t('sign_in'))}</a>"
        )
    expanded = "true" if menu_open else "false"
    # aria-controls only names an element that exists (axe: aria-valid-attr-value)
    controls = ' aria-controls="account-menu"' if menu_open else ""
    menu = ""
    if menu_open:
        menu = (
            '<ul class="account-menu" id="account-menu">'
            f'<li><a href="account" id="menu-account" data-act="account-page" data-arg="account">'
            f"{_e(tr.t('my_account'))}</a></li>"
            f'<li><a href="{_e(profile_href(nickname))}" id="menu-profile" data-act="open" '
            f'data-arg="{_e(profile_href(nickname))}">{_e(tr.t("my_profile"))}</a></li>'
            f'<li><button type="button" id="menu-signout" data-act="account-signout">'
            f"{_e(tr.t('sign_out'))}</button></li></ul>"
        )
    return (
        '<div class="hdr-member">'
        f'<button type="button" id="account-menu-btn" data-act="account-menu" aria-expanded="{expanded}" '
        f'{controls} data-testid="account-name">'
        f'<span class="mark" aria-hidden="true">◉</span><span class="nick">{_e(nickname)}</span></button>'
        f"{menu}</div>"
    )
