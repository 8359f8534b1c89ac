"""Play now on the page (issue #30; docs/protocol.md, "Play now"): a signed-in player picks a speed class and
a table size and seeks a rated game; while the relay looks, home says how many are looking and for how long,
and offers a game against the computer meanwhile; a table found is offered in a dialog (on any screen) with
the opponents' ratings and the seconds left to confirm, said aloud at 10 and 5 s; then the table opens.

Pure, like :mod:`app.moderation`: :class:`PlayNowState` follows the relay's frames on the seek socket, the
functions draw it. The glue (:mod:`app.glue.playnow`) owns the socket. Time-varying figures (the wait, the
seconds left, what is said aloud) live in small regions of their own (:func:`live_parts`), written on the
clock's tick, so that the card and the dialog around them are not redrawn every second.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.markup import escape

if TYPE_CHECKING:
    from app.i18n import Translator
    from app.payloads import Params

SPEEDS = ("rapide", "normal", "lent")  # the classes play now pairs (relay/ratings/queue.py)
SIZES = ("2", "3-4", "any")
SAY_AT = (10, 5)  # seconds left said aloud (not every second)
# The regions written on the tick: the wait and the count (home's card), the seconds left and what is said
# aloud (the offer's dialog).
LIVE = ("playnow-elapsed", "playnow-count", "playnow-secs", "playnow-said")


def _e(value: object) -> str:
    return escape(str(value), quote=True)


@dataclass
class Offer:
    """A table offered: its id, the players (nickname, rating as shown), the deadline on this page's clock."""

    id: str
    players: list[tuple[str, str]]
    deadline: int


@dataclass
class PlayNowState:
    """``status``: ``idle``, ``connecting`` (the socket opens), ``seeking``, ``offered``, ``confirmed``."""

    speed: str = "normal"
    size: str = "2"
    status: str = "idle"
    count: int | None = None
    since: int | None = None  # when the seek began (this page's ms)
    offer: Offer | None = None
    said: int | None = None  # the last seconds-left said aloud
    message: tuple[str, Params] | None = None  # why the last seek ended, or a refusal (said in the card)
    spoken: str = field(default="")  # what the dialog's live line says now

    @property
    def active(self) -> bool:
        return self.status != "idle"

    def start(self, now: int) -> None:
        self.status, self.since, self.count, self.offer, self.message = "connecting", now, None, None, None

    def stop(self, message: tuple[str, Params] | None = None) -> None:
        self.status, self.since, self.count, self.offer, self.said = "idle", None, None, None, None
        self.message, self.spoken = message, ""

    def on_frame(self, frame: dict[str, object], now: int) -> str | None:
        """One frame of the seek socket; returns the table to go to once ``paired``."""
        kind = frame.get("type")
        if kind == "seeking":
            if self.offer is not None:  # the table fell through (someone did not confirm): still looking
                self.message = ("playnow_requeued", {})
            self.status, self.offer, self.said, self.spoken = "seeking", None, None, ""
            count = frame.get("count")
            self.count = count if isinstance(count, int) else self.count
        elif kind == "offer":
            players = frame.get("players")
            server_left = _int(frame.get("deadline")) - _int(frame.get("now"))
            self.offer = Offer(
                str(frame.get("offer", "")),
                [
                    (str(p.get("nickname", "?")), str(p.get("rating", "?")))
                    for p in (players if isinstance(players, list) else [])
                    if isinstance(p, dict)
                ],
                now + max(0, server_left),
            )
            self.status, self.said, self.message, self.spoken = "offered", None, None, ""
        elif kind == "confirmed":
            if self.offer is not None and frame.get("offer") == self.offer.id:
                self.status = "confirmed"
        elif kind == "paired":
            self.stop()
            return str(frame.get("table", "")) or None
        elif kind == "dropped":
            self.stop(("playnow_dropped", {}))
        elif kind == "cancelled":
            self.stop()
        elif kind == "error":
            code = str(frame.get("code", "lexio_error"))
            params = frame.get("params")
            said = (code, dict(params) if isinstance(params, dict) else {})
            if code == "not_offered" and self.offer is not None:
                self.message = said  # the offer is over: the relay says what follows (dropped, seeking)
            elif self.status in ("connecting", "seeking") and code != "rate_limited":
                self.stop(said)  # the seek was refused (or the socket is a guest's)
            else:
                self.message = said
        return None

    def seconds_left(self, now: int) -> int:
        if self.offer is None:
            return 0
        return max(0, (self.offer.deadline - now + 999) // 1000)

    def tick(self, now: int) -> None:
        """What the dialog says aloud: the offer once, then the seconds left at 10 and at 5."""
        if self.offer is None or self.status != "offered":
            return
        left = self.seconds_left(now)
        for mark in SAY_AT:
            if left <= mark and (self.said is None or self.said > mark) and left > 0:
                self.said = mark
                self.spoken = mark_text(mark)


def mark_text(mark: int) -> str:
    """A placeholder turned into words by :func:`live_parts` (the state keeps no translator)."""
    return f"left:{mark}"


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def elapsed(ms: int) -> str:
    """A wait as a clock shows it: "0:07", "2:41", "1:02:03"."""
    secs = max(0, ms // 1000)
    h, rest = divmod(secs, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def live_parts(st: PlayNowState, tr: Translator, now: int) -> dict[str, str]:
    """The regions that change with time (:data:`LIVE`), as they read at ``now``."""
    spoken = st.spoken
    if spoken.startswith("left:"):
        spoken = tr.t("playnow_left", n=int(spoken[5:]))
    count = "" if st.count is None else tr.t("playnow_count", n=st.count)
    parts = {
        "playnow-elapsed": elapsed(now - st.since) if st.since is not None else "",
        "playnow-count": count,
        "playnow-secs": tr.t("playnow_secs", n=st.seconds_left(now)) if st.offer is not None else "",
        "playnow-said": spoken,
    }
    return {region: _e(text) for region, text in parts.items()}


# -- home's card ------------------------------------------------------------------------------------------
def card(st: PlayNowState, tr: Translator, member: str | None) -> str:
    """The "Play now" card of a signed-in player's home ("" for a guest)."""
    if member is None:
        return ""
    message = ""
    if st.message is not None:
        code, params = st.message
        message = (
            f'<p class="notice" data-testid="playnow-message" data-code="{_e(code)}">'
            f"{_e(tr.error(code, params))}</p>"
        )
    body = _seeking(st, tr) if st.active else _form(st, tr)
    return (
        '<section class="card playnow" aria-labelledby="playnow-title" data-testid="playnow">'
        f'<h2 id="playnow-title">{_e(tr.t("playnow_title"))}</h2>'
        f"{message}{body}</section>"
    )


def _form(st: PlayNowState, tr: Translator) -> str:
    speeds = "".join(
        f'<option value="{s}"{" selected" if s == st.speed else ""}>{_e(tr.t("playnow_speed_" + s))}</option>'
        for s in SPEEDS
    )
    sizes = "".join(
        f'<label class="choice"><input type="radio" name="playnow-size" id="playnow-size-{s}" '
        f'data-bind="playnow-size" value="{s}"{" checked" if s == st.size else ""}> '
        f"{_e(tr.t('playnow_size_' + s.replace('-', '_')))}</label>"
        for s in SIZES
    )
    return (
        f'<p class="hint muted" id="playnow-hint">{_e(tr.t("playnow_intro"))}</p>'
        f'<label for="playnow-speed">{_e(tr.t("playnow_speed"))}</label>'
        f'<select id="playnow-speed" data-bind="playnow-speed">{speeds}</select>'
        f"<fieldset><legend>{_e(tr.t('playnow_size'))}</legend>{sizes}</fieldset>"
        '<button type="button" id="playnow-seek" class="primary" data-act="playnow-seek" '
        f'aria-describedby="playnow-hint">{_e(tr.t("playnow_seek"))}</button>'
    )


def _seeking(st: PlayNowState, tr: Translator) -> str:
    what = tr.t(
        "playnow_what",
        speed=tr.t("playnow_speed_" + st.speed),
        size=tr.t("playnow_size_" + st.size.replace("-", "_")),
    )
    state = tr.t("playnow_connecting") if st.status == "connecting" else tr.t("playnow_seeking")
    if st.status in ("offered", "confirmed"):
        state = tr.t("playnow_found")
    return (
        f'<p data-testid="playnow-state" data-status="{_e(st.status)}"><b>{_e(state)}</b> '
        f'<span class="muted">{_e(what)}</span></p>'
        # Filled in by the tick (live_parts): not a live region, it would speak every second.
        f'<p class="muted">{_e(tr.t("playnow_waited"))} <span id="playnow-elapsed" class="num"></span>'
        ' · <span id="playnow-count" data-testid="playnow-count"></span></p>'
        '<div class="actions">'
        f'<button type="button" id="playnow-cancel" data-act="playnow-cancel">{_e(tr.t("cancel"))}</button>'
        '<button type="button" id="playnow-computer" data-act="play-computer" '
        f'aria-describedby="playnow-meanwhile">{_e(tr.t("playnow_computer"))}</button></div>'
        f'<p class="hint muted" id="playnow-meanwhile">{_e(tr.t("playnow_meanwhile"))}</p>'
    )


def chip(st: PlayNowState, tr: Translator, on_home: bool) -> str:
    """Off home, the header says a seek goes on (and offers to cancel it): the player may be at a table."""
    if not st.active or on_home or st.offer is not None:
        return ""
    return (
        f'<span class="playnow-chip" data-testid="playnow-chip">{_e(tr.t("playnow_seeking"))} '
        f'<button type="button" id="playnow-chip-cancel" data-act="playnow-cancel" '
        f'aria-label="{_e(tr.t("playnow_cancel_label"))}">{_e(tr.t("cancel"))}</button></span>'
    )


# -- the offer --------------------------------------------------------------------------------------------
def offer_dialog(st: PlayNowState, tr: Translator) -> str:
    """A table found: the players and their ratings, Confirm (with the seconds left) and Decline. A modal
    alert dialog on any screen (the bootstrap keeps Tab inside ``.modal``; Escape declines)."""
    offer = st.offer
    if offer is None:
        return ""
    rows = "".join(
        f'<li data-testid="playnow-player"><b>{_e(name)}</b> <span class="num">{_e(rating)}</span></li>'
        for name, rating in offer.players
    )
    confirmed = st.status == "confirmed"
    busy = ' disabled aria-busy="true"' if confirmed else ""
    label = tr.t("playnow_confirmed") if confirmed else tr.t("playnow_confirm")
    return (
        '<div class="backdrop"><div class="modal" role="alertdialog" aria-modal="true" id="playnow-dialog" '
        'aria-labelledby="playnow-dialog-title" aria-describedby="playnow-offer-text">'
        f'<h2 id="playnow-dialog-title">{_e(tr.t("playnow_offer_title"))}</h2>'
        f'<p id="playnow-offer-text">{_e(tr.t("playnow_offer_text"))}</p>'
        f'<ul class="playnow-players" aria-label="{_e(tr.t("playnow_players"))}">{rows}</ul>'
        '<p class="muted" id="playnow-said" aria-live="polite" data-testid="playnow-said"></p>'
        '<div class="actions">'
        f'<button type="button" id="playnow-confirm" class="primary" data-act="playnow-confirm"{busy}>'
        f'{_e(label)} <span id="playnow-secs" class="num"></span></button>'
        f'<button type="button" id="playnow-decline" data-act="playnow-decline">{_e(tr.t("playnow_decline"))}'
        "</button></div></div></div>"
    )
