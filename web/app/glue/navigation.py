"""Navigation between screens (home, a table's invitation or seat, the next table) and the lobby's HTTP."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from app.lobby import own_table_ids


class Navigation:
    """Where the player goes: home, a table by its link, an invitation joined or watched."""

    async def refresh_tables(self) -> None:
        status, data = await self.http("GET", "/api/tables")
        if status == 200 and isinstance(data, dict):
            self.state.tables = list(data.get("tables") or [])
        self.render()

    async def create_table(self) -> None:
        s = self.state
        problem = s.name_problem()
        if problem:
            s.notice = (problem, {"n": len(s.name.strip())})
            self.render()
            return
        body: dict[str, Any] = {"turn_seconds": s.turn_seconds, "public": s.public}
        status, data = await self.http("POST", "/api/tables", body)
        if status != 201 or not isinstance(data, dict) or "id" not in data:
            code = str(data.get("code", "network_error")) if isinstance(data, dict) else "network_error"
            s.notice = (code, {})
            self.render()
            return
        self.go_table(str(data["id"]), auto=True)

    async def refresh_mine(self) -> None:
        """The player's own tables (seat tokens kept by this browser) still waiting or playing."""
        ids = own_table_ids(self.storage)
        if not ids:
            return
        answers = await asyncio.gather(*(self.http("GET", f"/api/tables/{t}") for t in ids))
        found = []
        for table, (status, data) in zip(ids, answers, strict=True):
            if status == 200 and isinstance(data, dict):
                found.append(data)
            elif status == 404:
                self.store("lexio:" + table, None)  # the table is gone: so is the seat
        if self.state.screen == "home":
            self.state.lobby.set_mine(found)
            self.render()

    async def load_invite(self, table: str, auto: bool) -> None:
        """The invitation's facts (``GET /api/tables/{id}``); then join at once if the player already chose
        to (a table of the open list, a pasted link, a new table), or watch a finished table's end."""
        status, data = await self.http("GET", f"/api/tables/{table}")
        s = self.state
        if s.table_id != table or s.view is not None or s.lobby.invite is None:
            return
        if status == 200 and isinstance(data, dict):
            s.lobby.got_summary(table, data)
        elif status == 404:
            s.lobby.got_summary(table, None)
        else:
            s.lobby.got_summary(table, None)
            self.set_notice("network_error")
        st = s.lobby.invite_status
        if st == "ended":
            self.watch()
        elif st == "waiting" and auto and s.valid_name():
            self.join_invite()
        self.render()

    def join_invite(self) -> None:
        s = self.state
        problem = s.name_problem()
        s.lobby.join_error = None
        if problem:
            s.notice = (problem, {"n": len(s.name.strip())})
            self.patch["focus"] = "name-input"
            return
        s.notice = None
        s.lobby.joining, s.lobby.watching = True, False
        self.store("lexio:name", s.name.strip())
        self.connect()

    def watch(self) -> None:
        self.state.lobby.watching = True
        self.connect()

    def set_notice(self, code: str, params: dict[str, Any] | None = None) -> None:
        self.state.notice = (code, params or {})
        self.notice_at = time.monotonic()

    # -- navigation --------------------------------------------------------------------------------------
    def go_table(self, table: str, auto: bool = False) -> None:
        self.path = f"/t/{table}"
        self.patch["push"] = f"{self.base}t/{table}{self.search}"
        self.open_table(table, auto)

    def open_table(self, table: str, auto: bool = False) -> None:
        """A table by its link: rejoin with the seat token this browser keeps; otherwise the table's
        invitation (who sits, who invites; join with a name, or watch), joined at once when ``auto``."""
        s = self.state
        self.signals.forget()
        self.chat.reset()
        self.replay = None
        s.notice = None
        s.lobby.forget()
        s.enter_table(table, self.storage.get("lexio:" + table))
        if s.token:
            self.connect()
            self.render()
            return
        self.close_ws()
        s.conn = "idle"
        s.lobby.open_link(table)
        self.render()
        self.spawn(self.load_invite(table, auto))

    def go_home(self) -> None:
        self.close_ws()
        self.signals.forget()
        self.replay = None
        self.state.leave_table()
        self.path = "/"
        self.patch["push"] = self.base + self.search
        self.render()
        self.spawn(self.refresh_tables())
        self.spawn(self.refresh_mine())

    def route(self) -> None:
        parts = self.path.strip("/").split("/")
        if parts == ["replay"] or (len(parts) == 3 and parts[0] == "t" and parts[2] == "replay"):
            self.open_replay(parts[1] if len(parts) == 3 else None)
            return
        self.replay = None
        if self.path.startswith("/t/") and len(self.path) > 3:
            self.open_table(self.path[3:].split("/")[0])
        else:
            self.close_ws()
            self.state.leave_table()
            self.render()
            self.spawn(self.refresh_tables())
            self.spawn(self.refresh_mine())

    def follow_goto(self) -> bool:
        """Go to the table the state asks for (a new table with the same players), if any."""
        table, self.state.goto = self.state.goto, None
        if not table:
            return False
        if self.state.valid_name():
            self.store("lexio:name", self.state.name.strip())
        self.go_table(table, auto=True)
        return True
