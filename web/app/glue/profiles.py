"""The profiles' glue (issue 29, point 4; docs/protocol.md, "Profiles and history"): a profile and its
pages of games, a head-to-head, and home's "my games" for a signed-in player."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from app.markup import quote_component
from app.profile import MyGames, ProfileState, address, read_profile, read_versus

if TYPE_CHECKING:
    from app.glue.connection import RelayApi
    from app.glue.doors import Tasks
    from app.glue.rendering import Renderer
    from app.glue.session import PagePatch, Session


def _q(nickname: str) -> str:
    return quote_component(nickname)


class Profiles:
    """Opens a profile (``/u/{nickname}``, ``?vs=``), pages through its games, and keeps "my games"."""

    def __init__(
        self, session: Session, page: PagePatch, api: RelayApi, tasks: Tasks, renderer: Renderer
    ) -> None:
        self.session = session
        self.page = page
        self.api = api
        self.tasks = tasks
        self.renderer = renderer

    # -- a profile -----------------------------------------------------------------------------------------
    def show(self, nickname: str, vs: str | None) -> None:
        """The profile of the page's address; its data is asked for at once (and the head-to-head's)."""
        ps = ProfileState(nickname=nickname, vs=vs)
        self.session.profile = ps
        self.tasks.spawn(self.load(ps))
        if vs:
            self.tasks.spawn(self.load_versus(ps))

    async def load(self, ps: ProfileState, page: int = 0) -> None:
        path = f"/api/users/{_q(ps.nickname)}" + (f"?page={page}" if page else "")
        status, data = await self.api.call("GET", path)
        if self.session.profile is not ps:
            return  # left meanwhile
        ps.loading_more = False
        if status == 200 and isinstance(data, dict):
            before = len(ps.games)
            read_profile(ps, data)
            ps.more_error = False
            if page and len(ps.games) > before:
                self.page.patch["focus"] = f"game-{before}"  # the first game the button added
        elif page:
            ps.more_error = True  # the games shown stay; the button offers the page again
        elif status == 404:
            ps.status = "missing"
        else:
            ps.status = "error"
        self.renderer.render()

    async def load_versus(self, ps: ProfileState) -> None:
        assert ps.vs is not None
        status, data = await self.api.call("GET", f"/api/users/{_q(ps.nickname)}/versus/{_q(ps.vs)}")
        if self.session.profile is not ps:
            return
        if status == 200 and isinstance(data, dict):
            read_versus(ps, data)
        else:
            ps.versus_status = "missing" if status == 404 else "error"
        self.renderer.render()

    def more(self) -> None:
        ps = self.session.profile
        if ps is None or not ps.more or ps.loading_more:
            return
        ps.loading_more = True
        self.tasks.spawn(self.load(ps, ps.page + 1))

    def retry(self) -> None:
        ps = self.session.profile
        if ps is not None:
            self.show(ps.nickname, ps.vs)

    def compare_address(self) -> str | None:
        """The head-to-head the profile's field asks for (None: nothing typed)."""
        ps = self.session.profile
        other = ps.compare.strip() if ps is not None else ""
        if ps is None or not other:
            return None
        return address(ps.shown_name or ps.nickname, other)

    # -- home: my games -----------------------------------------------------------------------------------
    def refresh_home(self) -> None:
        """Home's "my games" asked again (a signed-in player on the home screen only)."""
        ses = self.session
        if ses.account.nickname is None:
            ses.my_games = MyGames()
            return
        if (
            ses.state.screen == "home"
            and ses.profile is None
            and ses.replay is None
            and ses.account.page is None
        ):
            self.tasks.spawn(self.load_my_games())

    async def load_my_games(self) -> None:
        ses = self.session
        status, data = await self.api.call("GET", "/api/account/games")
        if status == 200 and isinstance(data, dict):
            mg = MyGames()
            mg.read(data)
            ses.my_games = mg
            self._count_in_title(mg.your_turn)
            await self._turns(mg)
        elif status == 401:
            ses.my_games = MyGames()
            self._count_in_title(0)
        self.renderer.render()

    def _count_in_title(self, waiting: int) -> None:
        """Issue 31: the games waiting for the player, in the page title ("(2) Lexio — 2 parties à vous")
        and as ``badge`` (the page sets the app icon's badge with it where the browser can:
        ``navigator.setAppBadge``, cleared at 0)."""
        tr = self.session.tr
        self.page.patch["title"] = tr.t("title_games_waiting", n=waiting) if waiting else tr.t("title_plain")
        self.page.patch["badge"] = waiting

    async def _turns(self, mg: MyGames) -> None:
        """Whose turn it is in the games that are not the player's turn (the table's public summary):
        "Bob's turn" says more than "another player's"."""
        others = [
            g.table
            for g in mg.live
            if g.status == "playing" and not g.your_turn and g.table not in mg.turn_names
        ][:10]
        if not others:
            return
        answers = await asyncio.gather(*(self.api.call("GET", f"/api/tables/{t}") for t in others))
        for table, (status, data) in zip(others, answers, strict=True):
            if status != 200 or not isinstance(data, dict):
                continue
            turn = data.get("turn")
            for seat in data.get("seats") or ():
                if isinstance(seat, dict) and seat.get("seat") == turn and isinstance(turn, int):
                    mg.turn_names[table] = str(seat.get("name", ""))
