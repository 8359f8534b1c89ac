"""The leaderboards' glue (issue 30): the board of the page's address, asked of the relay."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.leaderboard_screen import BoardState, read

if TYPE_CHECKING:
    from app.glue.connection import RelayApi
    from app.glue.doors import Tasks
    from app.glue.rendering import Renderer
    from app.glue.session import Session


class Leaderboards:
    def __init__(self, session: Session, api: RelayApi, tasks: Tasks, renderer: Renderer) -> None:
        self.session = session
        self.api = api
        self.tasks = tasks
        self.renderer = renderer

    def show(self, speed: str, page: int) -> None:
        board = BoardState(speed=speed, page=page)
        self.session.board = board
        self.tasks.spawn(self.load(board))

    async def load(self, board: BoardState) -> None:
        status, data = await self.api.call("GET", f"/api/leaderboard/{board.speed}?page={board.page}")
        if self.session.board is not board:
            return  # left meanwhile
        if status == 200 and isinstance(data, dict):
            read(board, data)
        else:
            board.status = "error"
        self.renderer.render()
