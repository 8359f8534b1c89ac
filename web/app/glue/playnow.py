"""Play now's glue (issue #30; docs/protocol.md, "Play now"): the seek socket ``/ws/seek``, opened when the
player seeks and closed when the seek ends; the card's and the dialog's actions; the table it leads to.

The socket lives apart from the table's (:class:`app.glue.connection.Connection`): the player may play the
computer meanwhile, and the offer then comes over that game. Both are an
:class:`app.glue.relay_socket.RelaySocket`: the callbacks of a socket given up on find theirs stale and do
nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from app.glue.relay_socket import RelaySocket
from app.playnow import LIVE, SIZES, SPEEDS, PlayNowState, live_parts

if TYPE_CHECKING:
    from app.glue.doors import Clock, Socket, Sockets
    from app.glue.navigation import Navigation
    from app.glue.rendering import Renderer
    from app.glue.session import PagePatch, Session
    from app.i18n import Translator

    class SeekDoors(Clock, Sockets, Protocol):
        """What play now needs of the browser: a socket, the clock."""


class PlayNow:
    """The seek socket and play now's UI events; each ``on_*`` returns True when the event was its own."""

    def __init__(
        self, session: Session, page: PagePatch, doors: SeekDoors, renderer: Renderer, nav: Navigation
    ) -> None:
        self.session = session
        self.page = page
        self.doors = doors
        self.renderer = renderer
        self.nav = nav
        self.socket = RelaySocket(doors)

    @property
    def ws(self) -> Socket | None:
        return self.socket.ws

    @property
    def st(self) -> PlayNowState:
        return self.session.playnow

    # -- UI events -----------------------------------------------------------------------------------------
    def on_click(self, act: str, arg: str | None) -> bool:
        if act == "playnow-seek":
            self.seek()
        elif act == "playnow-cancel":
            self.send({"type": "cancel"})
            if self.ws is None:  # nothing to cancel on the relay's side
                self.st.stop()
        elif act == "playnow-confirm" and self.st.offer is not None and self.st.status == "offered":
            self.send({"type": "confirm", "offer": self.st.offer.id})
        elif act == "playnow-decline":
            self.decline()
        elif not act.startswith("playnow-"):
            return False
        self.renderer.render()
        return True

    def on_bind(self, bind: str, value: str) -> bool:
        if bind == "playnow-speed" and value in SPEEDS:
            self.st.speed = value
        elif bind == "playnow-size" and value in SIZES:
            self.st.size = value
        else:
            return bind.startswith("playnow-")
        return True

    def on_key(self, key: str) -> bool:
        """Escape declines the offer; other keys while its dialog is open are the dialog's own."""
        if self.st.offer is None:
            return False
        if key == "Escape":
            self.decline()
            self.renderer.render()
        return True

    def decline(self) -> None:
        offer = self.st.offer
        if offer is not None:
            self.send({"type": "decline", "offer": offer.id})
            self.st.offer = None  # the dialog closes at once; the relay's "cancelled" ends the seek

    # -- the socket ----------------------------------------------------------------------------------------
    def seek(self) -> None:
        """Opens the seek socket and seeks in the class and size chosen (a signed-in player, not seeking)."""
        st = self.st
        if st.active or self.session.state.member is None:
            return
        st.start(self.doors.now_ms())
        frame = {"type": "seek", "speed": st.speed, "size": st.size}

        def on_close(code: int) -> None:
            if self.st.active:  # not ended by the relay's word: the connection was lost
                self.st.stop(("playnow_lost", {}))
                self.renderer.render()

        self.page.patch["focus"] = "playnow-cancel"
        self.socket.open(self.session.addr.ws_url("seek"), lambda: frame, self.on_frame, on_close)

    def on_frame(self, frame: dict[str, object]) -> None:
        st = self.st
        was = st.offer
        table = st.on_frame(frame, self.doors.now_ms())
        if not st.active:
            self.close()  # the seek is over (paired, dropped, cancelled, refused): so is its socket
        if table is not None:
            self.nav.go_table(table, auto=True)  # sits under the nickname; the game starts by itself
            return
        # The control that had the focus may be gone (the dialog closed, the card changed): the next one to
        # use gets it, or the board at a table.
        if st.offer is not None and st.offer is not was:
            self._focus("playnow-confirm")  # the dialog opens on its main action
        elif not st.active:
            self._focus("playnow-seek")  # seek again
        elif was is not None and st.offer is None:
            self._focus("playnow-cancel")  # the offer fell through: still looking
        self.renderer.render()

    def _focus(self, control: str) -> None:
        self.page.patch["focus"] = control
        self.page.patch["focus_fallback"] = "board"

    def send(self, frame: dict[str, object]) -> None:
        self.socket.send(frame)

    def close(self) -> None:
        self.socket.close()


def write_live(page: PagePatch, st: PlayNowState, tr: Translator, now: int) -> None:
    """The time-varying regions (app.playnow.live_parts): afresh when the region around them was redrawn
    (the page's copy is then empty), else only when they changed (the clock's tick)."""
    redrawn = page.patch.get("r", {})
    if "main" in redrawn or "dialog-root" in redrawn or "hdr" in redrawn:
        for region in LIVE:
            page.cache.pop(region, None)
    if not st.active:
        return
    st.tick(now)
    for region, html in live_parts(st, tr, now).items():
        page.write(region, html)


__all__ = ["PlayNow", "write_live"]
