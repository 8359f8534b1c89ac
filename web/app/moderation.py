"""Moderation on the page (issue 29, point 6; docs/protocol.md, "Moderation"): the report dialog at a table,
block and unblock on a profile, the blocked players on "my account", a host's ban said on home and on "my
account". Pure state and HTML, like :mod:`app.render`; the actions are :mod:`app.glue.moderation`'s."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.i18n import Translator
from app.markup import escape
from app.members import profile_href

if TYPE_CHECKING:
    from app.account import AccountState
    from app.payloads import SeatView, View

REASONS = ("insult", "cheating", "spam", "nickname", "other")  # relay/accounts/moderation.py REASONS
NOTE_MAX = 500
BUSY = ' aria-busy="true" disabled'


def _e(value: object) -> str:
    return escape(str(value), quote=True)


@dataclass
class ReportState:
    """The report dialog: open, the seat and reason chosen, the note typed, whether to block too, and the
    relay's answer (``sent``: the frame id awaiting it)."""

    open: bool = False
    seat: int | None = None
    reason: str = ""
    note: str = ""
    also_block: bool = False
    sent: str | None = None
    error: tuple[str, dict[str, object]] | None = None

    def start(self, seat: int | None) -> None:
        self.open, self.seat, self.reason, self.note = True, seat, "", ""
        self.also_block, self.sent, self.error = False, None, None

    def close(self) -> None:
        self.open, self.sent, self.error = False, None, None


def reportable(view: View | None, my_seat: int | None) -> list[SeatView]:
    """The people one may report at a table: every seat but one's own and the computer players."""
    return [s for s in (view or {}).get("seats") or () if not s.get("bot") and s.get("seat") != my_seat]


def report_button(view: View | None, my_seat: int | None, member: str | None, tr: Translator) -> str:
    """Under the players: "Report a player…" for a signed-in player when there is someone to report."""
    if member is None or not reportable(view, my_seat):
        return ""
    return (
        '<p class="report-line"><button type="button" class="link-button" id="report-open" '
        f'data-act="report-open" aria-haspopup="dialog">{_e(tr.t("report_open"))}</button></p>'
    )


def report_dialog(rep: ReportState, view: View | None, my_seat: int | None, tr: Translator) -> str:
    """The modal dialog (the bootstrap keeps Tab inside ``.modal``; Escape and "Cancel" close it): who, why,
    a note, "also block" for a registered player, and the relay's refusal said under the form."""
    if not rep.open:
        return ""
    people = reportable(view, my_seat)
    who = "".join(
        f'<label class="choice"><input type="radio" name="report-seat" id="report-seat-{n}" '
        f'data-bind="report-seat" value="{n}"{" checked" if n == rep.seat else ""}> '
        f"{_e(s.get('name', '?'))}</label>"
        for s in people
        for n in (int(s.get("seat", -1)),)
    )
    why = "".join(
        f'<label class="choice"><input type="radio" name="report-reason" id="report-reason-{r}" '
        f'data-bind="report-reason" value="{r}"{" checked" if rep.reason == r else ""}> '
        f"{_e(tr.t('reason_' + r))}</label>"
        for r in REASONS
    )
    target = next((s for s in people if s.get("seat") == rep.seat), None)
    block = ""
    if target is not None and target.get("account"):
        block = (
            '<label class="choice"><input type="checkbox" id="report-block" data-bind="report-block"'
            f"{' checked' if rep.also_block else ''}> {_e(tr.t('report_also_block'))}</label>"
        )
    error = ""
    if rep.error is not None:
        code, params = rep.error
        error = f'<p class="error" role="alert" data-testid="report-error">{_e(tr.error(code, params))}</p>'
    busy = rep.sent is not None
    return (
        '<div class="backdrop"><div class="modal" role="dialog" aria-modal="true" id="report-dialog" '
        'aria-labelledby="report-dialog-title" aria-describedby="report-excerpt">'
        f'<h2 id="report-dialog-title">{_e(tr.t("report_title"))}</h2>'
        f"<fieldset><legend>{_e(tr.t('report_who'))}</legend>{who}</fieldset>"
        f"<fieldset><legend>{_e(tr.t('report_why'))}</legend>{why}</fieldset>"
        f'<label for="report-note">{_e(tr.t("report_note"))}</label>'
        f'<textarea id="report-note" data-bind="report-note" maxlength="{NOTE_MAX}" rows="3">'
        f"{_e(rep.note)}</textarea>"
        f'<p class="hint muted" id="report-excerpt">{_e(tr.t("report_excerpt"))}</p>'
        f"{block}{error}"
        '<div class="actions">'
        '<button type="button" id="report-send" class="primary" data-act="report-send"'
        f"{BUSY if busy else ''}>"
        f"{_e(tr.t('report_sending') if busy else tr.t('report_send'))}</button>"
        f'<button type="button" id="report-cancel" data-act="report-cancel">{_e(tr.t("cancel"))}</button>'
        "</div></div></div>"
    )


def block_button(nickname: str, acc: AccountState, tr: Translator) -> str:
    """On someone else's profile, for a signed-in viewer: block or unblock, with what a block does."""
    if acc.nickname is None or not acc.known:
        return ""
    blocked = acc.blocks(nickname)
    label = tr.t("unblock_player" if blocked else "block_player", name=nickname)
    act = "unblock" if blocked else "block"
    busy = acc.busy == f"{act}:{nickname}"
    return (
        '<div class="block-line"><button type="button" id="block-toggle" '
        f'data-act="{act}" data-arg="{_e(nickname)}" aria-describedby="block-hint"{BUSY if busy else ""}>'
        f'{_e(label)}</button> <span class="hint muted" id="block-hint">{_e(tr.t("block_hint"))}</span></div>'
    )


def blocked_section(acc: AccountState, tr: Translator, since: Mapping[str, str]) -> str:
    """ "My account": the blocked players, each with its profile link, since when (``since``: in words, by
    nickname) and "Unblock"."""
    if acc.nickname is None:
        return ""
    rows = []
    for name in sorted(acc.blocked, key=str.casefold):
        href = profile_href(name)
        busy = acc.busy == f"unblock:{name}"
        rows.append(
            f'<li data-testid="blocked-player"><a href="{_e(href)}" data-act="open" data-arg="{_e(href)}">'
            f'{_e(name)}</a> <span class="muted">{_e(since.get(name, ""))}</span> '
            f'<button type="button" data-act="unblock" data-arg="{_e(name)}"'
            f' aria-label="{_e(tr.t("unblock_player", name=name))}"{BUSY if busy else ""}>'
            f"{_e(tr.t('unblock'))}</button></li>"
        )
    listing = (
        f'<ul class="blocked" aria-labelledby="blocked-title">{"".join(rows)}</ul>'
        if rows
        else f'<p class="muted" data-testid="blocked-none">{_e(tr.t("blocked_none"))}</p>'
    )
    return f'<h2 class="acct-h2" id="blocked-title">{_e(tr.t("blocked_title"))}</h2>' + listing


def ban_notice(acc: AccountState, tr: Translator) -> str:
    """A host's ban in force, said in words with its reason and end (home and "my account")."""
    if acc.ban is None:
        return ""
    reason, until = acc.ban
    return (
        '<section class="ban-notice card" role="status" aria-labelledby="ban-title" data-testid="ban-notice">'
        f'<h2 id="ban-title">{_e(tr.t("ban_title"))}</h2>'
        f"<p>{_e(tr.error('banned', {'reason': reason, 'until': until}))}</p></section>"
    )
