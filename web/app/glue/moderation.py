"""Moderation's glue (issue 29, point 6; docs/protocol.md, "Moderation"): block and unblock over the account
API, the report dialog and its frame on the table's socket, and the relay's answer to it."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, cast

import wire
from app.moderation import REASONS, reportable

if TYPE_CHECKING:
    from app.account import AccountState
    from app.glue.accounts import Accounts
    from app.glue.connection import Connection, RelayApi
    from app.glue.doors import Tasks
    from app.glue.rendering import Renderer
    from app.glue.session import PagePatch, Session
    from app.moderation import ReportState
    from app.payloads import ClientFrame, ServerFrame

ID_PREFIX = "rep"


class Moderation:
    """The moderation actions; each ``on_*`` returns True when the event was its own (rendered here)."""

    def __init__(
        self,
        session: Session,
        page: PagePatch,
        api: RelayApi,
        conn: Connection,
        tasks: Tasks,
        renderer: Renderer,
        accounts: Accounts,
    ) -> None:
        self.session = session
        self.page = page
        self.api = api
        self.conn = conn
        self.tasks = tasks
        self.renderer = renderer
        self.accounts = accounts
        self._ids = itertools.count(1)

    @property
    def rep(self) -> ReportState:
        return self.session.report

    @property
    def acc(self) -> AccountState:
        return self.session.account

    # -- UI events -----------------------------------------------------------------------------------------
    def on_click(self, act: str, arg: str | None) -> bool:
        if act in ("block", "unblock") and arg:
            self.acc.busy = f"{act}:{arg}"
            self.tasks.spawn(self._block(arg, act == "block"))
        elif act == "report-open":
            self.open_report()
        elif act == "report-cancel":
            self.close_report()
        elif act == "report-send":
            self.send_report()
        else:
            return False
        self.renderer.render()
        return True

    def on_bind(self, bind: str, value: str, checked: bool) -> bool:
        rep = self.rep
        if bind == "report-seat" and value.isdigit():
            rep.seat, rep.also_block = int(value), False
            self.renderer.render()  # "also block" follows the player chosen
        elif bind == "report-reason" and value in REASONS:
            rep.reason = value
        elif bind == "report-note":
            rep.note = value  # no re-render while typing (the caret stays put)
        elif bind == "report-block":
            rep.also_block = checked
        else:
            return False
        return True

    def on_key(self, key: str) -> bool:
        """Escape closes the report dialog; other keys while it is open are the dialog's own."""
        if not self.rep.open:
            return False
        if key == "Escape":
            self.close_report()
            self.renderer.render()
        return True

    def on_frame(self, frame: ServerFrame) -> bool:
        """The relay's answer to the report sent (``ack`` or ``error``); False: not a report's."""
        rep, fid = self.rep, frame.get("id")
        if rep.sent is None or fid != rep.sent or frame.get("type") not in ("ack", "error"):
            return False
        rep.sent = None
        if frame.get("type") == "error":
            rep.error = (str(frame.get("code", "internal_error")), dict(frame.get("params") or {}))
            self.page.patch["focus"] = "report-send"
            return True
        name = self._seat_name(rep.seat)
        if rep.also_block and name is not None:
            self.tasks.spawn(self._block(name, True, quiet=True))
        rep.close()
        self.session.set_notice("report_done", {"name": name or "?"})
        self.page.patch["focus"] = "report-open"
        self.page.patch["focus_fallback"] = "board"
        return True

    # -- the report dialog ---------------------------------------------------------------------------------
    def open_report(self) -> None:
        s = self.session.state
        people = reportable(s.view, s.seat)
        if not people or self.acc.nickname is None:
            return
        first = int(people[0].get("seat", 0))
        self.rep.start(first if len(people) == 1 else None)
        self.page.patch["focus"] = f"report-seat-{first}" if len(people) > 1 else "report-reason-insult"

    def close_report(self) -> None:
        if self.rep.sent is not None:
            return  # sent: its answer closes the dialog
        self.rep.close()
        self.page.patch["focus"] = "report-open"
        self.page.patch["focus_fallback"] = "board"

    def send_report(self) -> None:
        rep = self.rep
        if rep.sent is not None:
            return
        if rep.seat is None:
            rep.error = ("bad_seat", {})
            self.page.patch["focus"] = "report-dialog-title"
            return
        if rep.reason not in REASONS:
            rep.error = ("report_pick_reason", {})
            self.page.patch["focus"] = "report-reason-insult"
            return
        rep.error = None
        rep.sent = f"{ID_PREFIX}{next(self._ids)}"
        frame = wire.Report(rep.sent, rep.seat, rep.reason, " ".join(rep.note.split()))
        self.session.state.outbox.append(cast("ClientFrame", frame.to_json()))
        self.conn.flush()

    def _seat_name(self, seat: int | None) -> str | None:
        for x in (self.session.state.view or {}).get("seats") or ():
            if x.get("seat") == seat and x.get("account"):
                return str(x.get("name"))
        return None

    # -- blocks --------------------------------------------------------------------------------------------
    async def _block(self, nickname: str, block: bool, *, quiet: bool = False) -> None:
        path = "/api/account/blocks" if block else "/api/account/blocks/remove"
        status, data = await self.api.call("POST", path, {"nickname": nickname})
        self.acc.busy = None
        if status not in (200, 201):
            code = str(data.get("code", "network_error")) if isinstance(data, dict) else "network_error"
            self.session.set_notice(code)
        else:
            await self.accounts.load()  # the list as the relay keeps it
            if not quiet:
                self.session.set_notice("blocked_done" if block else "unblocked_done", {"name": nickname})
        self.renderer.render()
