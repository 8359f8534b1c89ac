"""The replay viewer (app.replay): a GCG file, or a finished table's record and its analysis."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app import analysis_store, played, replay, replay_analysis

if TYPE_CHECKING:
    from app.glue.connection import Connection, RelayApi
    from app.glue.doors import Clock, Network, Tasks
    from app.glue.rendering import Renderer
    from app.glue.session import PagePatch, Session
    from app.payloads import AnalysisMove, UiEvent


class ReplayViewer:
    """Opens and fetches a game record; asks for a seat's analysis with its token (app.replay_analysis)."""

    def __init__(
        self,
        session: Session,
        page: PagePatch,
        conn: Connection,
        api: RelayApi,
        tasks: Tasks,
        renderer: Renderer,
        clock: Clock,
        net: Network,
    ) -> None:
        self.session = session
        self.page = page
        self.conn = conn
        self.api = api
        self.tasks = tasks
        self.renderer = renderer
        self.clock = clock
        self.net = net

    def open_replay(self, table: str | None) -> None:
        self.conn.close()
        self.session.state.leave_table()
        self.session.signals.forget()
        addr = self.session.addr
        self.session.replay = replay.ReplayState(
            table=table,
            loading=table is not None,
            played=played.load(self.page.storage),
            links=(addr.base, addr.search),
        )
        if table is not None:
            self.tasks.spawn(self.fetch_record(table))
        self.renderer.render()

    async def fetch_record(self, table: str) -> None:
        status, data = await self.api.call("GET", f"/api/tables/{table}/gcg")
        rs = self.session.replay
        if rs is None or rs.table != table:
            return  # left meanwhile
        rs.loading = False
        # Offline, the service worker answers with the records already viewed (sw.js), and the analysis
        # cannot be asked for; a record never viewed is not there, which is no fault of the relay's.
        rs.offline = not self.net.online()
        if status == 200 and isinstance(data, str):
            rs.open_text(data)
            replay_analysis.attach(rs, self.page.storage)
        elif status == 0 and rs.offline:
            rs.problem = "replay_offline"
        else:
            rs.problem = {409: "replay_not_finished", 404: "replay_no_table"}.get(status, "replay_network")
        self.renderer.render()

    def on_file(self, d: UiEvent) -> None:
        rs = self.session.replay
        if rs is None or rs.table is not None:
            return
        if d.get("too_big"):
            rs.open_text("x" * (replay.MAX_BYTES + 1), str(d.get("name") or ""))
        else:
            rs.open_text(str(d.get("text") or ""), str(d.get("name") or ""))
        replay_analysis.attach(rs, self.page.storage)
        self.page.patch["focus"] = "replay"
        self.renderer.render()

    async def ask_analysis(self) -> None:
        """The viewer asks for this seat's analysis with the seat's token (the viewer holds no socket)."""
        rs = self.session.replay
        ra = rs.analysis if rs is not None else None
        token = self.page.storage.get("lexio:" + ra.table) if ra is not None else None
        if rs is None or ra is None or ra.ready or ra.pending or not token:
            return
        rs.offline = not self.net.online()  # the button says so offline; a click checks again
        if rs.offline:
            self.renderer.render()
            return
        ra.pending, ra.error = True, None
        self.renderer.render()
        status, data = await self.api.call("POST", f"/api/tables/{ra.table}/analysis", {"token": token})
        if self.session.replay is not rs:
            return  # left meanwhile (what was served is kept all the same)
        ok = status == 200 and isinstance(data, dict)
        seat, moves = (data.get("seat"), data.get("moves")) if isinstance(data, dict) and ok else (None, None)
        if isinstance(seat, int) and isinstance(moves, list):
            self.keep_analysis(ra.table, seat, moves)
            if replay_analysis.received(rs, seat, moves):
                self.page.patch["refocus"] = "ra-title"  # if it was on the button, now gone
        else:
            code = data.get("code", "network_error") if isinstance(data, dict) else "network_error"
            replay_analysis.refused(rs, str(code))
        self.renderer.render()

    def keep_analysis(self, table: str, seat: int, moves: list[AnalysisMove]) -> None:
        """What the relay served once, kept by this browser (app.analysis_store)."""
        at = self.clock.now_ms()
        for key, value in analysis_store.keep(self.page.storage, table, seat, moves, at).items():
            self.page.store(key, value)
