"""The replay viewer (app.replay): a GCG file, or a finished table's record and its analysis."""

from __future__ import annotations

from typing import Any

from app import analysis_store, render, replay, replay_analysis
from app.state import UiState


class ReplayViewer:
    """Opens, fetches and renders a game record; asks for a seat's analysis with its token."""

    def open_replay(self, table: str | None) -> None:
        self.close_ws()
        self.state.leave_table()
        self.signals.forget()
        self.replay = replay.ReplayState(table=table, loading=table is not None)
        if table is not None:
            self.spawn(self.fetch_record(table))
        self.render()

    async def fetch_record(self, table: str) -> None:
        status, data = await self.http("GET", f"/api/tables/{table}/gcg")
        rs = self.replay
        if rs is None or rs.table != table:
            return  # left meanwhile
        rs.loading = False
        if status == 200 and isinstance(data, str):
            rs.open_text(data)
            replay_analysis.attach(rs, self.storage)
        else:
            rs.problem = {409: "replay_not_finished", 404: "replay_no_table"}.get(status, "replay_network")
        self.render()

    def render_replay(self, key: str) -> None:
        rs, tr = self.replay, self.tr
        assert rs is not None
        if key != self.screen_key:
            self.write("main", replay.frame(rs, tr))

        def board_html(view: dict[str, Any]) -> str:
            ui = UiState(lang=tr.lang)
            ui.view = view
            return render.board(ui, tr)

        for region, html in replay.regions(rs, tr, board_html).items():
            self.write(region, html)

    def on_file(self, d: dict[str, Any]) -> None:
        if self.replay is None or self.replay.table is not None:
            return
        if d.get("too_big"):
            self.replay.open_text("x" * (replay.MAX_BYTES + 1), str(d.get("name") or ""))
        else:
            self.replay.open_text(str(d.get("text") or ""), str(d.get("name") or ""))
        replay_analysis.attach(self.replay, self.storage)
        self.patch["focus"] = "replay"
        self.render()

    async def ask_replay_analysis(self) -> None:
        """The viewer asks for this seat's analysis with the seat's token (the viewer holds no socket)."""
        rs = self.replay
        ra = rs.analysis if rs is not None else None
        token = self.storage.get("lexio:" + ra.table) if ra is not None else None
        if rs is None or ra is None or ra.ready or ra.pending or not token:
            return
        ra.pending, ra.error = True, None
        self.render()
        status, data = await self.http("POST", f"/api/tables/{ra.table}/analysis", {"token": token})
        if self.replay is not rs:
            return  # left meanwhile (what was served is kept all the same)
        ok = status == 200 and isinstance(data, dict)
        seat, moves = (data.get("seat"), data.get("moves")) if ok else (None, None)
        if isinstance(seat, int) and isinstance(moves, list):
            self.keep_analysis(ra.table, seat, moves)
            if replay_analysis.received(rs, seat, moves):
                self.patch["refocus"] = "ra-title"  # if it was on the button, now gone
        else:
            replay_analysis.refused(
                rs, str(data.get("code", "network_error")) if isinstance(data, dict) else "network_error"
            )
        self.render()

    def keep_analysis(self, table: str, seat: int, moves: list[Any]) -> None:
        """What the relay served once, kept by this browser (app.analysis_store)."""
        self.store(analysis_store.PREFIX + table, analysis_store.encode(seat, moves, self.local_now()))
        for key in analysis_store.to_drop(self.storage):
            self.store(key, None)
