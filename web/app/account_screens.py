"""HTML of the account screens (issue 29): sign in with a passkey, sign up (a nickname, then the passkey),
recovery with a code, my account (passkeys, recovery codes left, sign out, export and deletion), the dialog
that shows the recovery codes once and the one that confirms a deletion. Pure, like :mod:`app.screens`.

Each screen is a frame (its ``h1`` and a live message line, ``#acct-msg``) drawn once per screen and
language, and a body (``#acct-body``: the form, its buttons' busy state) redrawn when it changes; a field's
error (``#nick-error``) is also written alone while the player types (the caret stays put)."""

from __future__ import annotations

import time
from collections.abc import Mapping

from app.account import AccountState, nickname_problem
from app.i18n import Translator
from app.markup import escape
from app.members import profile_href
from app.push_screen import section as push_section

BUSY = ' disabled aria-busy="true"'
TITLES = {
    "signin": "signin_title",
    "signup": "signup_title",
    "recover": "recover_title",
    "account": "account_title",
}


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _page_link(tr: Translator, page: str, code: str, lid: str) -> str:
    return f'<a href="{page}" id="{lid}" data-act="account-page" data-arg="{page}">{_e(tr.t(code))}</a>'


def error_text(tr: Translator, code: str, params: Mapping[str, object] | None = None) -> str:
    """A refusal in words: the account API's codes, the browser's passkey errors (a code the page does not
    know is said as a general failure, never as a bare code)."""
    key = {"rate_limited": "account_rate_limited", "bad_origin": "account_bad_origin"}.get(code, code)
    return tr.error(key, params)


def frame(acc: AccountState, tr: Translator) -> str:
    """The screen's frame: its title, the live line for answers, the body's slot."""
    page = acc.page or "signin"
    if page == "account" and acc.nickname is None:
        page = "signin"  # signed out meanwhile: the way back in
    title = tr.t(TITLES[page])
    return (
        f'<section class="account card" data-testid="account-screen" data-page="{page}" '
        'aria-labelledby="acct-title">'
        f'<h1 id="acct-title" tabindex="-1" data-screen-title>{_e(title)}</h1>'
        # Under the title: an answer is in sight on a phone too, whatever was clicked.
        '<div id="acct-msg" class="acct-msg" role="status" aria-live="polite"></div>'
        '<div id="acct-body"></div>'
        "</section>"
    )


def message(acc: AccountState, tr: Translator) -> str:
    """The last answer: a refusal (✖) or a success (✔), in words."""
    if acc.error is not None:
        code, params = acc.error
        return (
            f'<p class="field-error" data-testid="account-error" data-code="{_e(code)}">✖ '
            f"{_e(error_text(tr, code, params))}</p>"
        )
    if acc.done is not None:
        code, params = acc.done
        return f'<p class="acct-done" data-testid="account-done">✔ {_e(tr.t(code, **params))}</p>'
    return ""


def body(acc: AccountState, tr: Translator, seats: int, export_url: str = "") -> str:
    """The form of the screen shown; ``seats``: how many seat tokens this browser would hand over;
    ``export_url``: the relay's ``/api/account/export``."""
    page = acc.page or "signin"
    if page == "account" and acc.nickname is not None:
        return _manage(acc, tr) + _my_data(acc, tr, export_url)
    if page == "signup":
        return _signup(acc, tr, seats)
    if page == "recover":
        return _recover(acc, tr, seats)
    return _signin(acc, tr, seats)


def _handover(tr: Translator, seats: int) -> str:
    return f'<p class="muted" data-testid="seats-handover">{_e(tr.t("seats_handover"))}</p>' if seats else ""


def _signin(acc: AccountState, tr: Translator, seats: int) -> str:
    busy = acc.busy == "signin"
    return (
        f"<p>{_e(tr.t('signin_text'))}</p>"
        '<div class="actions">'
        f'<button type="button" id="signin-passkey" class="primary" data-act="account-signin"'
        f"{BUSY if busy else ''}>{_e(tr.t('signin_busy') if busy else tr.t('signin_passkey'))}</button></div>"
        + _handover(tr, seats)
        + f'<h2 class="acct-h2">{_e(tr.t("signin_new"))}</h2>'
        f"<p>{_page_link(tr, 'signup', 'signup_link', 'to-signup')}</p>"
        f'<h2 class="acct-h2">{_e(tr.t("signin_lost"))}</h2>'
        f"<p>{_page_link(tr, 'recover', 'recover_link', 'to-recover')}</p>"
        f'<p class="muted">{_e(tr.t("guest_ok"))} '
        f'<a href="/" data-act="home" id="acct-home">{_e(tr.t("back_home_link_short"))}</a></p>'
    )


def nick_error(acc: AccountState, tr: Translator) -> str:
    """What is wrong with the nickname typed, said next to its field (once the player tried, or at once
    for a character that can never be right)."""
    code = acc.field_error
    return f'<span data-testid="nick-error" data-code="{_e(code)}">✖ {_e(tr.t(code))}</span>' if code else ""


def check_nick(acc: AccountState, *, submitting: bool) -> None:
    """Sets the field's error: while typing only what typing more cannot fix (too long, a bad character)."""
    problem = nickname_problem(acc.nick)
    if not submitting and problem in ("nick_required", "nick_too_short"):
        problem = None
    acc.field_error = problem


def _nick_field(acc: AccountState, tr: Translator, fid: str, enter: str, hint: str) -> str:
    invalid = ' aria-invalid="true"' if acc.field_error else ""
    return (
        f'<label for="{fid}">{_e(tr.t("nickname"))}</label>'
        f'<input id="{fid}" name="nickname" autocomplete="username" autocapitalize="none" spellcheck="false" '
        f'value="{_e(acc.nick)}" data-bind="acct-nick" data-enter="{enter}" required '
        f'aria-describedby="nick-hint nick-error"{invalid}>'
        f'<p class="hint muted" id="nick-hint">{_e(tr.t(hint))}</p>'
        f'<p class="field-error" id="nick-error" aria-live="polite">{nick_error(acc, tr)}</p>'
    )


def _signup(acc: AccountState, tr: Translator, seats: int) -> str:
    busy = acc.busy == "signup"
    return (
        f"<p>{_e(tr.t('signin_text'))}</p>"
        '<form id="signup-form" class="acct-form" onsubmit="return false">'
        + _nick_field(acc, tr, "nick-input", "account-signup", "nickname_hint")
        + f'<button type="button" id="signup-go" class="primary" data-act="account-signup"'
        f"{BUSY if busy else ''}>{_e(tr.t('signup_busy') if busy else tr.t('signup_go'))}</button></form>"
        + _handover(tr, seats)
        + f"<p>{_e(tr.t('signin_instead'))} {_page_link(tr, 'signin', 'sign_in', 'to-signin')}</p>"
    )


def _recover(acc: AccountState, tr: Translator, seats: int) -> str:
    busy = acc.busy == "recover"
    return (
        f"<p>{_e(tr.t('recover_text'))}</p>"
        '<form id="recover-form" class="acct-form" onsubmit="return false">'
        + _nick_field(acc, tr, "rec-nick", "account-recover", "recover_nick_hint")
        + f'<label for="rec-code">{_e(tr.t("recovery_code"))}</label>'
        f'<input id="rec-code" name="code" autocomplete="one-time-code" autocapitalize="none" '
        f'spellcheck="false" value="{_e(acc.code)}" data-bind="acct-code" data-enter="account-recover" '
        'required aria-describedby="code-hint">'
        f'<p class="hint muted" id="code-hint">{_e(tr.t("recovery_code_hint"))}</p>'
        f'<button type="button" id="recover-go" class="primary" data-act="account-recover"'
        f"{BUSY if busy else ''}>{_e(tr.t('recover_busy') if busy else tr.t('recover_go'))}</button></form>"
        + _handover(tr, seats)
        + f"<p>{_page_link(tr, 'signin', 'back_to_signin', 'to-signin')}</p>"
    )


def _date(ms: int, tr: Translator) -> str:
    t = time.localtime(ms / 1000)
    return time.strftime("%d/%m/%Y" if tr.lang == "fr" else "%Y-%m-%d", t)


def _passkeys(acc: AccountState, tr: Translator) -> str:
    rows = []
    for k in acc.passkeys:
        name = k.name or tr.t("passkey_unnamed")
        when = (
            tr.t("passkey_created", date=_date(k.created_ms, tr))
            + ", "
            + (tr.t("passkey_used", date=_date(k.used_ms, tr)) if k.used_ms else tr.t("passkey_never"))
        )
        if acc.renaming == k.id:
            rows.append(
                f'<li data-testid="passkey" data-id="{_e(k.id)}" class="renaming">'
                f'<label for="pk-name">{_e(tr.t("passkey_name"))}</label>'
                f'<input id="pk-name" value="{_e(acc.new_name)}" data-bind="acct-pk-name" '
                f'data-enter="passkey-save" autocomplete="off" maxlength="40">'
                f'<span class="pk-actions"><button type="button" id="pk-save" class="primary" '
                f'data-act="passkey-save" data-arg="{_e(k.id)}"{BUSY if acc.busy == "rename" else ""}>'
                f"{_e(tr.t('passkey_save'))}</button>"
                f'<button type="button" id="pk-cancel" data-act="passkey-cancel">'
                f"{_e(tr.t('passkey_cancel'))}</button></span></li>"
            )
            continue
        rows.append(
            f'<li data-testid="passkey" data-id="{_e(k.id)}"><span class="pk-name">{_e(name)}</span> '
            f'<span class="muted pk-when">{_e(when)}</span>'
            f'<span class="pk-actions"><button type="button" class="small" data-act="passkey-rename" '
            f'data-arg="{_e(k.id)}" aria-label="{_e(tr.t("passkey_rename_label", name=name))}">'
            f"{_e(tr.t('passkey_rename'))}</button>"
            f'<button type="button" class="small" data-act="passkey-remove" data-arg="{_e(k.id)}" '
            f'aria-label="{_e(tr.t("passkey_remove_label", name=name))}"'
            f"{BUSY if acc.busy == 'remove:' + k.id else ''}>"
            f"{_e(tr.t('passkey_remove'))}</button></span></li>"
        )
    return f'<ul class="passkeys" data-testid="passkeys" aria-labelledby="pk-title">{"".join(rows)}</ul>'


def _manage(acc: AccountState, tr: Translator) -> str:
    nick = acc.nickname or ""
    adding = acc.busy == "add"
    claimed = f'<p data-testid="claimed">{_e(tr.t("claimed_n", n=acc.claimed))}</p>' if acc.claimed else ""
    left = (
        f'<p data-testid="codes-left">{_e(tr.t("codes_left", n=acc.codes_left))}</p>'
        if acc.codes_left is not None
        else ""
    )
    out_busy = acc.busy in ("signout", "signout-all")
    return (
        f'<p data-testid="signed-in-as">{_e(tr.t("signed_in_as", name=nick))} '
        f'<a href="{_e(profile_href(nick))}" id="acct-profile" data-act="open" '
        f'data-arg="{_e(profile_href(nick))}">{_e(tr.t("my_profile"))}</a></p>'
        + claimed
        + f'<h2 class="acct-h2" id="pk-title">{_e(tr.t("passkeys"))}</h2>'
        + _passkeys(acc, tr)
        + f'<p><button type="button" id="passkey-add" data-act="passkey-add"{BUSY if adding else ""}>'
        f"{_e(tr.t('passkey_add_busy') if adding else tr.t('passkey_add'))}</button></p>"
        f'<h2 class="acct-h2">{_e(tr.t("codes_list"))}</h2>'
        + left
        + push_section(acc.push, tr)  # issue 31: turn reminders on this device
        + f'<h2 class="acct-h2">{_e(tr.t("sessions"))}</h2>'
        '<div class="actions">'
        f'<button type="button" id="sign-out" data-act="account-signout"{" disabled" if out_busy else ""}>'
        f"{_e(tr.t('sign_out'))}</button>"
        '<button type="button" id="sign-out-all" data-act="account-signout-all" '
        f'aria-describedby="out-all-hint"'
        f"{' disabled' if out_busy else ''}>{_e(tr.t('sign_out_all'))}</button></div>"
        f'<p class="hint muted" id="out-all-hint">{_e(tr.t("sign_out_all_hint"))}</p>'
    )


def _my_data(acc: AccountState, tr: Translator, export_url: str) -> str:
    """Export (a plain download: the browser sends the cookie, the relay names the file) and deletion (its
    dialog asks for the nickname)."""
    name = f"lexio-{acc.nickname or ''}-games.zip"
    return (
        f'<h2 class="acct-h2" id="data-title">{_e(tr.t("my_data"))}</h2>'
        '<div class="actions">'
        f'<a class="button" id="export-games" href="{_e(export_url)}" download="{_e(name)}" '
        f'aria-describedby="export-hint">{_e(tr.t("export_games"))}</a></div>'
        f'<p class="hint muted" id="export-hint">{_e(tr.t("export_hint"))}</p>'
        '<div class="actions">'
        '<button type="button" id="delete-account" class="danger" data-act="account-delete" '
        f'aria-haspopup="dialog" aria-describedby="delete-hint">{_e(tr.t("delete_account"))}</button></div>'
        f'<p class="hint muted" id="delete-hint">{_e(tr.t("delete_hint"))}</p>'
    )


def delete_dialog(acc: AccountState, tr: Translator) -> str:
    """The deletion's confirmation: a modal dialog that keeps the focus (the bootstrap cycles Tab inside
    ``.modal``), asking for the nickname typed; Escape and "Cancel" close it."""
    if not acc.deleting or acc.nickname is None:
        return ""
    nick, busy = acc.nickname, acc.busy == "delete"
    problem = acc.delete_error
    invalid = ' aria-invalid="true"' if problem else ""
    error = (
        f'<span data-testid="delete-error" data-code="{_e(problem)}">✖ {_e(error_text(tr, problem))}</span>'
        if problem
        else ""
    )
    return (
        '<div class="backdrop"><div class="modal delete-modal" id="delete-dialog" role="alertdialog" '
        'aria-modal="true" aria-labelledby="delete-title" aria-describedby="delete-text">'
        f'<h2 id="delete-title">{_e(tr.t("delete_title", name=nick))}</h2>'
        f'<p id="delete-text">{_e(tr.t("delete_text"))}</p>'
        f'<label for="delete-confirm">{_e(tr.t("delete_type", name=nick))}</label>'
        f'<input id="delete-confirm" name="confirm" autocomplete="off" autocapitalize="none" '
        f'spellcheck="false" value="{_e(acc.delete_typed)}" data-bind="acct-delete" '
        f'data-enter="account-delete-go" aria-describedby="delete-error"{invalid}>'
        f'<p class="field-error" id="delete-error" aria-live="assertive">{error}</p>'
        '<div class="actions">'
        f'<button type="button" id="delete-cancel" data-act="account-delete-cancel">'
        f"{_e(tr.t('delete_cancel'))}</button>"
        f'<button type="button" id="delete-go" class="danger" data-act="account-delete-go"'
        f"{BUSY if busy else ''}>{_e(tr.t('delete_busy') if busy else tr.t('delete_go'))}</button></div>"
        "</div></div>"
    )


def codes_text(acc: AccountState, tr: Translator) -> str:
    """The recovery codes as the downloaded file and the clipboard get them."""
    head = tr.t("codes_file_head", name=acc.nickname or "")
    return head + "\n\n" + "\n".join(acc.codes) + "\n"


def codes_dialog(acc: AccountState, tr: Translator) -> str:
    """The recovery codes, shown once after sign-up, in a modal dialog that keeps the focus (the page's
    bootstrap cycles Tab inside ``.modal``); it closes only once the player says they saved them."""
    if not acc.codes:
        return ""
    items = "".join(f"<li><code>{_e(c)}</code></li>" for c in acc.codes)
    claimed = f'<p data-testid="claimed">{_e(tr.t("claimed_n", n=acc.claimed))}</p>' if acc.claimed else ""
    saved = acc.codes_saved
    return (
        '<div class="backdrop"><div class="modal codes-modal" id="codes-dialog" role="dialog" '
        'aria-modal="true" aria-labelledby="codes-title" aria-describedby="codes-text">'
        f'<h2 id="codes-title">{_e(tr.t("codes_title"))}</h2>'
        f'<p id="codes-text">{_e(tr.t("codes_text", name=acc.nickname or ""))}</p>'
        f'<ol class="codes" data-testid="recovery-codes" aria-label="{_e(tr.t("codes_list"))}">{items}</ol>'
        f"{claimed}"
        '<div class="actions">'
        f'<button type="button" id="codes-copy" data-act="codes-copy">{_e(tr.t("codes_copy"))}</button>'
        f'<button type="button" id="codes-download" data-act="codes-download">'
        f"{_e(tr.t('codes_download'))}</button></div>"
        f'<label class="check"><input type="checkbox" id="codes-saved" data-bind="codes-saved"'
        f"{' checked' if saved else ''}> {_e(tr.t('codes_saved'))}</label>"
        '<div class="actions">'
        f'<button type="button" id="codes-done" class="primary" data-act="codes-done"'
        f"{'' if saved else ' disabled'}>{_e(tr.t('codes_done'))}</button></div>"
        "</div></div>"
    )
