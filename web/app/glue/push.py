"""Turn reminders' glue (issue 31; docs/protocol.md, "Web Push"): "My account"'s button on this device.

``PushManager`` exists only on the page's main thread, and this runs in a worker: as for passkeys
(:mod:`app.glue.accounts`), each request goes to the page in a patch (``webpush``: its id, ``state``,
``subscribe`` with the relay's key from ``GET /api/push/key``, or ``unsubscribe``); the page's bootstrap asks
the service worker's registration and answers with one UI event (``t: "push"``): whether this browser holds
a subscription, the subscription's ``toJSON()``, the endpoint it dropped, or the error's name. The
subscription then goes to the relay (``POST /api/account/push``) or leaves it
(``POST /api/account/push/remove``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.account import AccountState
    from app.glue.connection import RelayApi
    from app.glue.doors import Tasks
    from app.glue.rendering import Renderer
    from app.glue.session import PagePatch, Session
    from app.payloads import UiEvent
    from app.push_screen import PushState

# The browser's refusals (DOMException names) in the page's words; any other: push_failed with its name.
BROWSER_ERRORS = {"NotAllowedError": "push_denied", "NotSupportedError": "push_unsupported"}


class Push:
    """Turning reminders on and off for this device, and learning whether they are on."""

    def __init__(
        self, session: Session, page: PagePatch, api: RelayApi, tasks: Tasks, renderer: Renderer
    ) -> None:
        self.session = session
        self.page = page
        self.api = api
        self.tasks = tasks
        self.renderer = renderer
        self.asked = 0

    @property
    def acc(self) -> AccountState:
        return self.session.account

    @property
    def state(self) -> PushState:
        return self.session.account.push

    def _ask(self, op: str, key: str | None = None) -> None:
        self.asked += 1
        rid = f"wp{self.asked}"
        self.state.pending = (rid, op)
        request: dict[str, object] = {"id": rid, "op": op}
        if key is not None:
            request["key"] = key
        self.page.patch["webpush"] = request

    def show(self) -> None:
        """My account is shown: ask the page whether this browser holds a subscription."""
        if self.state.pending is None:
            self._ask("state")

    def forget(self) -> None:
        """Signed out or deleted: the relay has dropped this session's subscriptions; the browser's goes too
        (a next account on this browser starts with reminders off). No answer is awaited."""
        self.state.on = False
        self.state.busy = None
        self._ask("unsubscribe")
        self.state.pending = None

    def on_click(self, act: str) -> bool:
        """``push-on`` / ``push-off``; True when ``act`` was one (the caller renders)."""
        st = self.state
        if act not in ("push-on", "push-off"):
            return False
        if st.busy is not None or self.acc.nickname is None:
            return True
        self.acc.error = self.acc.done = None
        if act == "push-on":
            st.busy = "on"
            self.tasks.spawn(self._turn_on())
        else:
            st.busy = "off"
            self._ask("unsubscribe")
        return True

    async def _turn_on(self) -> None:
        status, data = await self.api.call("GET", "/api/push/key")
        key = data.get("key") if isinstance(data, dict) else None
        if status != 200 or not isinstance(key, str):
            self._refused("push_unavailable" if status in (404, 501, 503) else "network_error")
            return
        self._ask("subscribe", key)
        self.renderer.render()

    def on_push(self, d: UiEvent) -> None:
        """The page's answer (its ``id`` names the request): the state, a subscription, or a refusal."""
        st = self.state
        if st.pending is None or st.pending[0] != d.get("id"):
            return  # an answer to a request given up on
        op = st.pending[1]
        st.pending = None
        if not d.get("ok"):
            name = str(d.get("error") or "")
            # Unsupported: the section says so. Any other failure to read the state: off, with its button.
            st.supported = name != "NotSupportedError"
            if op != "state":
                self._refused(BROWSER_ERRORS.get(name, "push_failed"), {"detail": name or "?"})
            else:
                self.renderer.render()
            return
        st.supported = True
        if op == "state":
            st.on = bool(d.get("subscribed"))
            self.renderer.render()
        elif op == "subscribe":
            sub = d.get("subscription")
            if isinstance(sub, dict):
                self.tasks.spawn(self._register(sub))
            else:
                self._refused("push_failed", {"detail": "?"})
        else:
            endpoint = d.get("endpoint")
            self.tasks.spawn(self._remove(endpoint if isinstance(endpoint, str) else None))

    async def _register(self, sub: dict[str, object]) -> None:
        status, data = await self.api.call("POST", "/api/account/push", {"subscription": sub})
        if status != 201:
            # Not kept by the relay: the browser's subscription would only mislead the next visit.
            self._ask("unsubscribe")
            self.state.pending = None
            self._refused(
                str(data.get("code", "network_error")) if isinstance(data, dict) else "network_error"
            )
            return
        st = self.state
        st.on, st.busy = True, None
        self.acc.done = ("push_on_done", {})
        self.renderer.render()

    async def _remove(self, endpoint: str | None) -> None:
        if endpoint is not None:
            status, data = await self.api.call("POST", "/api/account/push/remove", {"endpoint": endpoint})
            if status != 200:
                self._refused(
                    str(data.get("code", "network_error")) if isinstance(data, dict) else "network_error"
                )
                return
        st = self.state
        st.on, st.busy = False, None
        self.acc.done = ("push_off_done", {})
        self.renderer.render()

    def _refused(self, code: str, params: dict[str, str] | None = None) -> None:
        self.state.busy = None
        self.acc.refuse(code, params)
        self.renderer.render()
