"""Navigation between screens (home, a table's invitation or seat, the next table) and the lobby's HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from app.account import PAGES
from app.leaderboard_screen import parse as parse_board
from app.lobby import own_table_ids
from app.profile import parse_address
from app.quickplay import QuickGame

if TYPE_CHECKING:
    from app.glue.connection import Connection, RelayApi
    from app.glue.doors import Tasks
    from app.glue.rendering import Renderer
    from app.glue.replay_viewer import ReplayViewer
    from app.glue.session import PagePatch, Session
    from app.payloads import TableSummary


class Navigation:
    """Where the player goes: home, a table by its link, an invitation joined or watched, a replay."""

    def __init__(
        self,
        session: Session,
        page: PagePatch,
        conn: Connection,
        api: RelayApi,
        tasks: Tasks,
        renderer: Renderer,
        viewer: ReplayViewer,
    ) -> None:
        self.session = session
        self.page = page
        self.conn = conn
        self.api = api
        self.tasks = tasks
        self.renderer = renderer
        self.viewer = viewer
        self.quick = QuickGame()  # a game against the computer asked from home, until it starts
        # Shows an account screen (/signin, /signup, /recover, /account): set by the client
        self.account_page: Callable[[str], None] = lambda page: None
        # Shows a player's profile (/u/NICK, ?vs=OTHER), and asks for home's "my games": set by the client
        self.profile_page: Callable[[str, str | None], None] = lambda nick, vs: None
        self.board_page: Callable[[str, int], None] = lambda speed, page: None  # app.glue.leaderboards
        self.refresh_games: Callable[[], None] = lambda: None

    # -- the lobby's HTTP --------------------------------------------------------------------------------
    async def refresh_tables(self) -> None:
        status, data = await self.api.call("GET", "/api/tables")
        if status == 200 and isinstance(data, dict):
            self.session.state.tables = list(data.get("tables") or [])
            self.session.state.lobby.live = list(data.get("live") or [])
        self.renderer.render()

    async def create_table(self, bot: str | None = None) -> None:
        """A new table, joined at once; ``bot``: a computer player of that level is seated and the game
        started as soon as this browser sits (app.quickplay), at a private table nobody else may join."""
        s = self.session.state
        problem = s.name_problem()
        if problem:
            s.notice = (problem, {"n": len(s.name.strip())})
            self.page.patch["focus"] = "name-input"
            self.renderer.render()
            return
        body: dict[str, object] = {"turn_seconds": s.turn_seconds, "public": s.public and bot is None}
        if s.rated and bot is None and s.member is not None:
            body["rated"] = True
        status, data = await self.api.call("POST", "/api/tables", body)
        if status != 201 or not isinstance(data, dict) or "id" not in data:
            code = str(data.get("code", "network_error")) if isinstance(data, dict) else "network_error"
            s.notice = (code, {})
            self.renderer.render()
            return
        if bot is not None:
            self.quick.arm(str(data["id"]), bot)
        self.go_table(str(data["id"]), auto=True)

    async def refresh_mine(self) -> None:
        """The player's own tables (seat tokens kept by this browser) still waiting or playing."""
        ids = own_table_ids(self.page.storage)
        if not ids:
            return
        answers = await asyncio.gather(*(self.api.call("GET", f"/api/tables/{t}") for t in ids))
        found: list[TableSummary] = []
        for table, (status, data) in zip(ids, answers, strict=True):
            if status == 200 and isinstance(data, dict):
                found.append(cast("TableSummary", data))
            elif status == 404:
                self.page.store("lexio:" + table, None)  # the table is gone: so is the seat
        if self.session.state.screen == "home":
            self.session.state.lobby.set_mine(found)
            self.renderer.render()

    async def load_invite(self, table: str, auto: bool) -> None:
        """The invitation's facts (``GET /api/tables/{id}``); then join at once if the player already chose
        to (a table of the open list, a pasted link, a new table), or watch a finished table's end."""
        status, data = await self.api.call("GET", f"/api/tables/{table}")
        s = self.session.state
        if s.table_id != table or s.view is not None or s.lobby.invite is None:
            return
        if status == 200 and isinstance(data, dict):
            s.lobby.got_summary(table, cast("TableSummary", data))
        elif status == 404:
            s.lobby.got_summary(table, None)
        else:
            s.lobby.got_summary(table, None)
            self.session.set_notice("network_error")
        st = s.lobby.invite_status
        if st == "ended":
            self.watch()
        elif st == "waiting" and auto and s.valid_name():
            self.join_invite()
        self.renderer.render()

    async def poll_invite(self) -> None:
        """The invitation kept true while it is on screen (issue 27): who sits, and whether the host has
        started (then Watch is what it offers). A failed look is not said: the next one comes soon."""
        s = self.session.state
        table = s.table_id
        if table is None or s.lobby.invite_status not in ("waiting", "playing"):
            return
        status, data = await self.api.call("GET", f"/api/tables/{table}")
        lobby = s.lobby
        if (
            s.table_id != table
            or s.view is not None
            or lobby.invite is None
            or lobby.joining
            or lobby.watching
        ):
            return
        if status == 200 and isinstance(data, dict):
            lobby.got_summary(table, cast("TableSummary", data))
            if lobby.invite_status == "ended":
                self.watch()
            self.renderer.render()

    def join_invite(self) -> None:
        s = self.session.state
        problem = s.name_problem()
        s.lobby.join_error = None
        if problem:
            s.notice = (problem, {"n": len(s.name.strip())})
            self.page.patch["focus"] = "name-input"
            return
        s.notice = None
        s.lobby.joining, s.lobby.watching = True, False
        self.page.store("lexio:name", s.name.strip())
        self.conn.connect()

    def watch(self) -> None:
        self.session.state.lobby.watching = True
        self.conn.connect()

    # -- navigation --------------------------------------------------------------------------------------
    def go_table(self, table: str, auto: bool = False) -> None:
        self.session.addr.path = f"/t/{table}"
        self.page.patch["push"] = self.session.addr.page(f"t/{table}")
        self.open_table(table, auto)

    def open_table(self, table: str, auto: bool = False) -> None:
        """A table by its link: rejoin with the seat token this browser keeps; otherwise the table's
        invitation (who sits, who invites; join with a name, or watch), joined at once when ``auto``."""
        ses = self.session
        s = ses.state
        ses.signals.forget()
        ses.chat.reset()
        ses.replay = None
        ses.account.page = None
        ses.profile = None
        ses.board = None
        s.notice = None
        s.lobby.forget()
        s.enter_table(table, self.page.storage.get("lexio:" + table))
        if s.token:
            self.conn.connect()
            self.renderer.render()
            return
        self.conn.close()
        s.conn = "idle"
        s.lobby.open_link(table)
        self.renderer.render()
        self.tasks.spawn(self.load_invite(table, auto))

    def go_home(self) -> None:
        self.conn.close()
        self.session.signals.forget()
        self.session.replay = None
        self.session.account.page = None
        self.session.profile = None
        self.session.board = None
        self.session.state.leave_table()
        self.page.patch["push"] = self.session.addr.go("")
        self.renderer.render()
        self.tasks.spawn(self.refresh_tables())
        self.tasks.spawn(self.refresh_mine())
        self.refresh_games()

    def open_address(self, rest: str) -> None:
        """A link inside the app (``u/Alice``, ``u/Alice?vs=Bob``, ``t/ID``): the address bar follows and the
        screen is the address's, as after a reload, without loading the page again."""
        self.page.patch["push"] = self.session.addr.go(rest.lstrip("/"))
        self.route()

    def route(self) -> None:
        """The screen of the page's address (at start, and when the browser goes back or forward)."""
        path = self.session.addr.path
        parts = path.strip("/").split("/")
        self.session.account.page = None
        self.session.profile = None
        self.session.board = None
        board = parse_board(path, self.session.addr.search)
        if board is not None:
            self.conn.close()
            self.session.replay = None
            self.session.state.leave_table()
            self.board_page(*board)
            self.renderer.render()
            return
        profile = parse_address(path, self.session.addr.search)
        if profile is not None:
            self.conn.close()
            self.session.replay = None
            self.session.signals.forget()
            self.session.state.leave_table()
            self.profile_page(*profile)
            self.renderer.render()
            return
        if len(parts) == 1 and parts[0] in PAGES:
            self.conn.close()
            self.session.replay = None
            self.session.state.leave_table()
            self.account_page(parts[0])
            self.renderer.render()
            return
        if parts == ["replay"] or (len(parts) == 3 and parts[0] == "t" and parts[2] == "replay"):
            self.viewer.open_replay(parts[1] if len(parts) == 3 else None)
            return
        self.session.replay = None
        if path.startswith("/t/") and len(path) > 3:
            self.open_table(path[3:].split("/")[0])
        else:
            self.conn.close()
            self.session.state.leave_table()
            self.renderer.render()
            self.tasks.spawn(self.refresh_tables())
            self.tasks.spawn(self.refresh_mine())
            self.refresh_games()

    def follow_goto(self) -> bool:
        """Go to the table the state asks for (a new table with the same players), if any."""
        s = self.session.state
        table, s.goto = s.goto, None
        if not table:
            return False
        if s.valid_name():
            self.page.store("lexio:name", s.name.strip())
        self.go_table(table, auto=True)
        return True
