"""The player's account as this page knows it (issue 29; docs/protocol.md, "Accounts"): who is signed in,
the account screens' fields and answers, and the seat tokens this browser hands over at sign-up, sign-in and
recovery. Pure Python: the glue (:mod:`app.glue.accounts`) does the HTTP and the passkey ceremonies,
:mod:`app.account_screens` draws what this holds.

The session cookie is ``HttpOnly``: the page learns who is signed in only from ``GET /api/account``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.lobby import SETTINGS, STORE_PREFIX
from app.push_screen import PushState

if TYPE_CHECKING:
    from app.payloads import Notice

NICK_MIN, NICK_MAX = 3, 20
MAX_SEATS = 50  # the relay takes at most 50 seat tokens per call
# The account screens' addresses (under the site's base): /signin, /signup, /recover, /account.
PAGES = ("signin", "signup", "recover", "account")


def nickname_problem(raw: str) -> str | None:
    """What the relay would refuse in a nickname, as a message code (None: fine). The relay's own rule
    (relay/accounts/nicknames.py): 3 to 20 letters, digits, ``-`` or ``_``, counted after NFC."""
    name = unicodedata.normalize("NFC", raw.strip())
    if not name:
        return "nick_required"
    if len(name) < NICK_MIN:
        return "nick_too_short"
    if len(name) > NICK_MAX:
        return "nick_too_long"
    if any(not (ch.isalnum() or ch in "-_") for ch in name):
        return "nick_bad_chars"
    return None


def same_nickname(typed: str, nickname: str) -> bool:
    """Whether ``typed`` names ``nickname`` as the relay compares nicknames: ignoring case and accents
    (relay/accounts/nicknames.py ``fold``), surrounding spaces dropped."""

    def fold(name: str) -> str:
        decomposed = unicodedata.normalize("NFKD", name)
        return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()

    return bool(typed.strip()) and fold(typed.strip()) == fold(nickname)


def seat_tokens(storage: Mapping[str, str]) -> list[dict[str, str]]:
    """The seats this browser holds (``localStorage["lexio:<table>"]``: waiting, playing and finished tables
    alike), as the relay's ``seats`` field wants them: ``[{"table", "token"}]``, at most :data:`MAX_SEATS`.
    Keys with a colon after the prefix (``lexio:games:played``, ``lexio:analysis:…``) are not seats."""
    seats = []
    for key in sorted(storage):
        value = storage[key]
        table = key[len(STORE_PREFIX) :] if key.startswith(STORE_PREFIX) else ""
        if not table or not value or table in SETTINGS or ":" in table or "/" in table:
            continue  # the page's own settings, lists kept under "lexio:…:…"
        seats.append({"table": table, "token": value})
    return seats[:MAX_SEATS]


@dataclass
class Passkey:
    id: str
    name: str
    created_ms: int
    used_ms: int | None


@dataclass
class AccountState:
    """The signed-in player (``nickname``; None: a guest, or not known yet) and the account screens."""

    known: bool = False  # GET /api/account has answered (until then the header offers to sign in)
    nickname: str | None = None
    passkeys: list[Passkey] = field(default_factory=list)
    codes_left: int | None = None
    page: str | None = None  # one of PAGES while an account screen is shown
    back_to: str = "/"  # where the player was before (they go back there once signed in)
    menu_open: bool = False  # the header's menu (my account, sign out)
    # the forms
    nick: str = ""  # sign-up and recovery: the nickname typed
    code: str = ""  # recovery: the code typed
    renaming: str | None = None  # the passkey whose name is being edited
    new_name: str = ""
    # answers
    busy: str | None = None  # the action under way (its button says so, aria-busy)
    error: Notice | None = None  # the relay's (or the browser's) refusal, said in words under the form
    field_error: str | None = None  # what is wrong with the nickname, said next to its field
    done: Notice | None = None  # the last success on "my account" (a passkey added, removed, renamed)
    claimed: int | None = None  # games attached by the last sign-up, sign-in or recovery
    codes: list[str] = field(default_factory=list)  # recovery codes shown ONCE (the sign-up's dialog)
    codes_saved: bool = False  # "I saved them" ticked
    # deleting the account: its dialog is open, the nickname typed to confirm, what is wrong with it
    deleting: bool = False
    delete_typed: str = ""
    delete_error: str | None = None
    # the passkey ceremony handed to the page's main thread (app.glue.accounts): its id and what it is for
    pending: tuple[str, str, str] | None = None  # (request id, purpose, ceremony id)
    # moderation (app.moderation): the players this account blocks (nickname -> since, ms) and a host's ban
    # in force on the account or this address (reason, until ms)
    blocked: dict[str, int] = field(default_factory=dict)
    ban: tuple[str, int] | None = None
    # turn reminders on this device (issue 31: app.push_screen, app.glue.push)
    push: PushState = field(default_factory=PushState)

    def signed_in(self, me: Mapping[str, object]) -> None:
        """``GET /api/account``'s answer (or the account part of a sign-in's)."""
        account = me.get("account")
        if isinstance(account, dict) and isinstance(account.get("nickname"), str):
            self.nickname = str(account["nickname"])
        self.known = True
        keys = me.get("passkeys")
        if isinstance(keys, list):
            self.passkeys = [
                Passkey(
                    str(k.get("id", "")),
                    str(k.get("name") or ""),
                    int(k.get("created_ms") or 0),
                    int(k["used_ms"]) if isinstance(k.get("used_ms"), int) else None,
                )
                for k in keys
                if isinstance(k, dict)
            ]
        left = me.get("recovery_codes_left")
        if isinstance(left, int):
            self.codes_left = left
        blocked = me.get("blocked")
        if isinstance(blocked, list):
            self.blocked = {
                str(b["nickname"]): int(b.get("since") or 0)
                for b in blocked
                if isinstance(b, dict) and isinstance(b.get("nickname"), str)
            }
        ban = me.get("ban")
        if isinstance(ban, dict) and isinstance(ban.get("until"), int):
            self.ban = (str(ban.get("reason") or ""), int(ban["until"]))
        elif "ban" in me:
            self.ban = None

    def blocks(self, nickname: str) -> bool:
        """Whether this account blocks ``nickname`` (compared as the relay compares nicknames)."""
        return any(same_nickname(nickname, b) for b in self.blocked)

    def signed_out(self) -> None:
        self.known, self.nickname = True, None
        self.passkeys, self.codes_left = [], None
        self.blocked, self.ban = {}, None
        self.menu_open = False
        self.claimed = None
        self.deleting, self.delete_typed, self.delete_error = False, "", None

    def open(self, page: str) -> None:
        """An account screen: its forms start clean (what was typed for another stays, the answers go)."""
        self.page = page
        self.menu_open = False
        self.error = self.done = None
        self.field_error = None
        self.busy = None
        self.renaming = None

    def refuse(self, code: str, params: Mapping[str, str | int] | None = None) -> None:
        self.busy, self.pending = None, None
        self.error = (code, dict(params or {}))
