"""The account screens' glue (issue 29; docs/protocol.md, "Accounts"): who is signed in, the account API's
calls, and the passkey ceremonies.

WebAuthn exists only on the page's main thread, and this runs in a worker: a ceremony's options go to the
page in a patch (``webauthn``: its id, ``create`` or ``get``, the relay's ``publicKey`` JSON), the page's
bootstrap parses them with ``PublicKeyCredential.parseCreationOptionsFromJSON`` /
``parseRequestOptionsFromJSON``, calls ``navigator.credentials.create`` / ``get``, and sends back one UI event
(``t: "webauthn"``) with ``credential.toJSON()`` or the error's name; this then finishes the ceremony with the
relay. The session cookie is ``HttpOnly``: what the page knows of it comes from ``GET /api/account``."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING

from app.account import PAGES, same_nickname, seat_tokens
from app.account_screens import check_nick, codes_text, nick_error

if TYPE_CHECKING:
    from app.account import AccountState
    from app.glue.connection import RelayApi
    from app.glue.doors import Tasks
    from app.glue.rendering import Renderer
    from app.glue.session import PagePatch, Session
    from app.payloads import UiEvent

# purpose -> (options path, finishing path, WebAuthn operation)
CEREMONIES = {
    "signup": ("/api/account/signup/options", "/api/account/signup", "create"),
    "signin": ("/api/account/signin/options", "/api/account/signin", "get"),
    "recover": ("/api/account/recover/options", "/api/account/recover", "create"),
    "add": ("/api/account/passkeys/options", "/api/account/passkeys", "create"),
}
# The browser's refusals (DOMException names) in the page's words.
BROWSER_ERRORS = {
    "NotAllowedError": "webauthn_cancelled",
    "AbortError": "webauthn_cancelled",
    "InvalidStateError": "webauthn_exists",
    "NotSupportedError": "webauthn_unsupported",
    "SecurityError": "webauthn_unsupported",
}


def _code(data: object) -> str:
    return str(data.get("code", "network_error")) if isinstance(data, dict) else "network_error"


class Accounts:
    """The account screens' actions, the relay's answers, and the signed-in nickname kept in the UI state
    (a signed-in player sits under it: the name fields show it)."""

    def __init__(
        self,
        session: Session,
        page: PagePatch,
        api: RelayApi,
        tasks: Tasks,
        renderer: Renderer,
        route: Callable[[], None],
    ) -> None:
        self.session = session
        self.page = page
        self.api = api
        self.tasks = tasks
        self.renderer = renderer
        self.route = route  # show the screen of the page's address (Navigation.route)
        # Who is signed in is known (home's "my games" follows): set by the client
        self.on_member: Callable[[], None] = lambda: None
        # Turn reminders (issue 31, app.glue.push): My account shown (this device's state is asked), and this
        # browser signed out or its account deleted (its subscription goes too). Set by the client.
        self.on_account_page: Callable[[], None] = lambda: None
        self.on_leave: Callable[[], None] = lambda: None
        self.asked = 0  # ceremonies handed to the page (each answer names its own)

    @property
    def acc(self) -> AccountState:
        return self.session.account

    # -- who is signed in ----------------------------------------------------------------------------------
    async def load(self) -> None:
        """``GET /api/account``: the account and its passkeys (401 ``not_signed_in``: a guest)."""
        status, data = await self.api.call("GET", "/api/account")
        if status == 200 and isinstance(data, dict):
            self.acc.signed_in(data)
        elif status == 401:
            self.acc.signed_out()
        self._sync_member()
        self.on_member()
        self.renderer.render()

    def _sync_member(self) -> None:
        self.session.state.member = self.acc.nickname

    # -- screens -------------------------------------------------------------------------------------------
    def show(self, page: str) -> None:
        """An account screen by its address (``/signin``, ``/signup``, ``/recover``, ``/account``)."""
        self.acc.open(page)
        if page == "account":
            self.tasks.spawn(self.load())  # passkeys and codes left as they are now
            self.on_account_page()

    def go(self, page: str) -> None:
        """A link or button to an account screen: the address bar follows; the way back is remembered."""
        addr = self.session.addr
        if self.acc.page is None:
            self.acc.back_to = addr.path + addr.search  # a head-to-head's ?vs= included
        self.page.patch["push"] = addr.go(page)
        self.show(page)
        self.renderer.render()

    def go_back(self) -> None:
        """Signed in: back where the player was before the account screens (a table, home)."""
        addr, back = self.session.addr, self.acc.back_to
        self.acc.page = None
        if back.partition("?")[0].strip("/") in PAGES:
            back = "/"
        self.page.patch["push"] = addr.go(back.lstrip("/"))
        self.route()

    # -- UI events -----------------------------------------------------------------------------------------
    def on_click(self, act: str, arg: str | None) -> bool:
        """The account's actions; True when ``act`` was one (rendered here)."""
        acc = self.acc
        if act != "account-menu" and acc.menu_open:
            acc.menu_open = False  # any other action closes the header's menu
            if not act.startswith(("account-", "passkey-", "codes-")):
                return False
        if act == "account-page" and arg in PAGES:
            self.go(arg)
            return True
        handler = self._actions().get(act)
        if handler is None:
            return False
        handler(arg)
        self.renderer.render()
        return True

    def _actions(self) -> dict[str, Callable[[str | None], None]]:
        return {
            "account-menu": lambda _: setattr(self.acc, "menu_open", not self.acc.menu_open),
            "account-signin": lambda _: self.begin("signin", {}),
            "account-signup": lambda _: self.signup(),
            "account-recover": lambda _: self.recover(),
            "account-signout": lambda _: self.spawn_busy("signout", self.sign_out("/api/account/signout")),
            "account-signout-all": lambda _: self.spawn_busy(
                "signout-all", self.sign_out("/api/account/signout-all")
            ),
            "passkey-add": lambda _: self.begin("add", {}),
            "passkey-rename": self.start_rename,
            "passkey-cancel": lambda _: setattr(self.acc, "renaming", None),
            "passkey-save": self.save_name,
            "passkey-remove": self.remove,
            "codes-copy": lambda _: self.copy_codes(),
            "codes-download": lambda _: self.download_codes(),
            "codes-done": lambda _: self.codes_done(),
            "account-delete": lambda _: self.open_delete(),
            "account-delete-cancel": lambda _: self.close_delete(),
            "account-delete-go": lambda _: self.delete(),
        }

    def on_bind(self, bind: str, value: str, checked: bool, typing: bool) -> bool:
        """The account forms' fields (no re-render while typing: the caret stays put)."""
        acc = self.acc
        if bind == "acct-nick":
            acc.nick = value
            if typing:
                check_nick(acc, submitting=False)
                self.page.write("nick-error", nick_error(acc, self.session.tr))
                self.page.attr(
                    "rec-nick" if acc.page == "recover" else "nick-input",
                    "aria-invalid",
                    "true" if acc.field_error else "false",
                )
                self.page.send()
        elif bind == "acct-code":
            acc.code = value
        elif bind == "acct-pk-name":
            acc.new_name = value
        elif bind == "acct-delete":
            acc.delete_typed = value  # no re-render while typing (the caret stays put)
        elif bind == "codes-saved":
            acc.codes_saved = checked
            self.renderer.render()
        else:
            return False
        return True

    # -- the ceremonies ------------------------------------------------------------------------------------
    def signup(self) -> None:
        acc = self.acc
        check_nick(acc, submitting=True)
        if acc.field_error:
            acc.error = None
            self.page.patch["focus"] = "nick-input"
            return
        self.begin("signup", {"nickname": acc.nick.strip()})

    def recover(self) -> None:
        acc = self.acc
        check_nick(acc, submitting=True)
        if acc.field_error:
            self.page.patch["focus"] = "rec-nick"
            return
        if not acc.code.strip():
            acc.refuse("code_required")
            self.page.patch["focus"] = "rec-code"
            return
        self.begin("recover", {"nickname": acc.nick.strip(), "code": acc.code.strip().lower()})

    def begin(self, purpose: str, body: dict[str, object]) -> None:
        if self.acc.busy is not None:
            return  # one thing at a time (a double click asks once)
        self.acc.error = self.acc.done = None
        self.spawn_busy(purpose, self._ask_options(purpose, body))

    def spawn_busy(self, what: str, coro: Coroutine[object, object, None]) -> None:
        self.acc.busy = what
        self.acc.error = None
        self.tasks.spawn(coro)

    async def _ask_options(self, purpose: str, body: dict[str, object]) -> None:
        options, _, op = CEREMONIES[purpose]
        status, data = await self.api.call("POST", options, body)
        if status != 200 or not isinstance(data, dict) or "publicKey" not in data:
            self._refused(status, data)
            return
        self.asked += 1
        rid = f"wa{self.asked}"
        self.acc.pending = (rid, purpose, str(data.get("ceremony", "")))
        self.page.patch["webauthn"] = {"id": rid, "op": op, "publicKey": data["publicKey"]}
        self.renderer.render()

    def on_webauthn(self, d: UiEvent) -> None:
        """The page's answer to a ceremony: the credential (``toJSON()``), or the browser's refusal."""
        acc = self.acc
        if acc.pending is None or acc.pending[0] != d.get("id"):
            return  # an answer to a ceremony given up on
        _, purpose, ceremony = acc.pending
        acc.pending = None
        credential = d.get("credential")
        if not d.get("ok") or not isinstance(credential, dict):
            name = str(d.get("error") or "")
            acc.refuse(BROWSER_ERRORS.get(name, "webauthn_failed"), {"detail": name or "?"})
            self.renderer.render()
            return
        body: dict[str, object] = {"ceremony": ceremony, "credential": credential}
        if purpose != "add":
            body["seats"] = seat_tokens(self.page.storage)
        self.tasks.spawn(self._finish(purpose, body))

    async def _finish(self, purpose: str, body: dict[str, object]) -> None:
        _, path, _ = CEREMONIES[purpose]
        status, data = await self.api.call("POST", path, body)
        acc = self.acc
        if status not in (200, 201) or not isinstance(data, dict):
            self._refused(status, data)
            return
        acc.busy = None
        if purpose == "add":
            acc.done = ("passkey_added", {})
            await self.load()
            return
        acc.signed_in(data)
        self._sync_member()
        claimed = data.get("claimed")
        acc.claimed = len(claimed) if isinstance(claimed, list) else 0
        codes = data.get("recovery_codes")
        if isinstance(codes, list) and codes:
            acc.codes, acc.codes_saved = [str(c) for c in codes], False
            self.renderer.render()  # the dialog: the codes, once
            return
        self.welcome()

    def welcome(self) -> None:
        """Signed in: back where the player was, told so, with the games attached."""
        acc = self.acc
        self.go_back()
        name = acc.nickname or ""
        if acc.claimed:
            self.session.set_notice("welcome_claimed", {"name": name, "n": acc.claimed})
        else:
            self.session.set_notice("welcome_back", {"name": name})
        self.renderer.render()

    def _refused(self, status: int, data: object) -> None:
        code = _code(data)
        if status == 401 and code == "not_signed_in":
            self.acc.signed_out()
            self._sync_member()
        self.acc.refuse(code)
        self.renderer.render()

    # -- my account ----------------------------------------------------------------------------------------
    async def sign_out(self, path: str) -> None:
        status, data = await self.api.call("POST", path, {})
        acc = self.acc
        acc.busy = None
        if status != 200:
            self._refused(status, data)
            return
        n = data.get("signed_out") if isinstance(data, dict) else None
        acc.signed_out()
        self.on_leave()
        self._sync_member()
        acc.page = None
        self.page.patch["push"] = self.session.addr.go("")
        self.route()
        all_ = path.endswith("-all")
        self.session.set_notice("signed_out_all" if all_ else "signed_out", {"n": int(n or 0)})
        self.renderer.render()

    def start_rename(self, arg: str | None) -> None:
        key = next((k for k in self.acc.passkeys if k.id == arg), None)
        if key is not None:
            self.acc.renaming, self.acc.new_name = key.id, key.name
            self.page.patch["focus"] = "pk-name"

    def save_name(self, arg: str | None) -> None:
        acc = self.acc
        kid = arg or acc.renaming
        if kid and acc.busy is None:
            body = {"id": kid, "name": acc.new_name.strip()}
            self.spawn_busy(
                "rename", self._passkey_call("/api/account/passkeys/rename", body, "passkey_renamed")
            )

    def remove(self, arg: str | None) -> None:
        if arg and self.acc.busy is None:
            body = {"id": arg}
            self.spawn_busy(
                "remove:" + arg, self._passkey_call("/api/account/passkeys/remove", body, "passkey_removed")
            )

    async def _passkey_call(self, path: str, body: Mapping[str, object], done: str) -> None:
        status, data = await self.api.call("POST", path, body)
        acc = self.acc
        acc.busy = None
        if status != 200:
            self._refused(status, data)
            return
        acc.renaming, acc.done = None, (done, {})
        await self.load()
        self.page.patch["focus"] = "passkey-add"  # the row acted on may be gone: a stable place

    # -- deleting the account -----------------------------------------------------------------------------
    def open_delete(self) -> None:
        acc = self.acc
        if acc.nickname is not None and acc.busy is None:
            acc.deleting, acc.delete_typed, acc.delete_error = True, "", None
            self.page.patch["focus"] = "delete-confirm"  # the field to type in, not the dialog's first button

    def close_delete(self) -> None:
        """Cancel or Escape: the dialog goes, the focus back on the button that opened it."""
        acc = self.acc
        if acc.busy == "delete":
            return  # asked already: its answer closes the dialog
        acc.deleting, acc.delete_typed, acc.delete_error = False, "", None
        self.page.patch["focus"] = "delete-account"

    def delete(self) -> None:
        acc = self.acc
        if not acc.deleting or acc.busy is not None or acc.nickname is None:
            return
        if not same_nickname(acc.delete_typed, acc.nickname):
            acc.delete_error = "bad_confirm"  # said before asking: the relay would refuse the same
            self.page.patch["focus"] = "delete-confirm"
            return
        acc.delete_error = None
        self.spawn_busy("delete", self._delete(acc.delete_typed.strip()))

    async def _delete(self, typed: str) -> None:
        status, data = await self.api.call("POST", "/api/account/delete", {"confirm": typed})
        acc = self.acc
        acc.busy = None
        if status != 200:
            code = _code(data)
            if status == 401:  # deleted or signed out meanwhile, from another device
                acc.deleting = False
                self._refused(status, data)
                return
            acc.delete_error = code
            self.page.patch["focus"] = "delete-confirm"
            self.renderer.render()
            return
        name = acc.nickname or ""
        acc.signed_out()  # the dialog closes with it
        self.on_leave()
        for seat in seat_tokens(self.page.storage):  # the account's seats: their links seat nobody now
            self.page.store("lexio:" + seat["table"], None)
        self._sync_member()
        acc.page = None
        self.page.patch["push"] = self.session.addr.go("")
        self.route()
        self.session.set_notice("account_deleted", {"name": name})
        self.renderer.render()

    # -- the recovery codes' dialog -----------------------------------------------------------------------
    def copy_codes(self) -> None:
        self.page.patch["copy"] = codes_text(self.acc, self.session.tr)
        self.session.set_notice("codes_copied")

    def download_codes(self) -> None:
        name = f"lexio-{self.acc.nickname or 'codes'}-recovery.txt"
        self.page.patch["download"] = [name, codes_text(self.acc, self.session.tr)]

    def codes_done(self) -> None:
        acc = self.acc
        if not acc.codes_saved:
            return
        acc.codes, acc.codes_saved = [], False  # never shown again
        self.welcome()
