"""Turn reminders on "My account" (issue 31; docs/protocol.md, "Web Push"): what this page knows of this
device's subscription, and the section that shows it with its one button. Pure, like
:mod:`app.account_screens`; :mod:`app.glue.push` does the calls and asks the page's main thread (which alone
has ``PushManager``) for the subscription. Answers (done, refused) are said in the account screen's live line
(``#acct-msg``), like the passkeys'."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.markup import escape

if TYPE_CHECKING:
    from app.i18n import Translator

BUSY = ' disabled aria-busy="true"'


@dataclass
class PushState:
    """``supported``: None until the page has answered; ``on``: this device's subscription is registered
    (as far as this page knows); ``busy``: "on" or "off" while asking; ``pending``: the request handed to the
    page (its id, its op)."""

    supported: bool | None = None
    on: bool = False
    busy: str | None = None
    pending: tuple[str, str] | None = None


def section(push: PushState, tr: Translator) -> str:
    """The "Turn reminders" part of My account: a heading, what it does, the state, one button."""

    def e(code: str) -> str:
        return escape(tr.t(code), quote=True)

    head = (
        f'<h2 class="acct-h2" id="push-title">{e("push_title")}</h2>'
        f'<p class="hint muted" id="push-hint">{e("push_hint")}</p>'
    )
    if push.supported is False:
        return head + f'<p data-testid="push-state" data-state="unsupported">{e("push_unsupported")}</p>'
    if push.supported is None:
        state, code = "unknown", "push_state_unknown"
    else:
        state, code = ("on", "push_state_on") if push.on else ("off", "push_state_off")
    busy = push.busy is not None
    if push.on:
        bid, act, label = "push-off", "push-off", "push_turn_off"
    else:
        bid, act, label = "push-on", "push-on", "push_turn_on"
    attrs = BUSY if busy else (" disabled" if push.supported is None else "")
    return (
        head
        + f'<p data-testid="push-state" data-state="{state}">{e(code)}</p>'
        + f'<p><button type="button" id="{bid}" data-act="{act}" aria-describedby="push-hint"{attrs}>'
        + f"{e('push_busy') if busy else e(label)}</button></p>"
    )
