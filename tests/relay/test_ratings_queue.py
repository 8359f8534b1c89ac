"""Play now (issue #30, points 5 and 6) on SQLite and PostgreSQL: the seek socket ``/ws/seek``, the queue in
the accounts database (relay/ratings/queue.py), windows that widen with the wait, the 15 s confirmation,
blocked players kept apart, one seek per player, every refusal with its code and nothing changed; and on a
cluster of two relays, one pairing per seek and the same table for both."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import psycopg
import pytest
from accountkit import Browser
from clusterkit import node, stopping
from harness.services import RedisServer
from relaykit import FakeClock, Player, RunningRelay, start_relay, wait_until

import relay.http.seek as seek_module
from relay.http.keys import ACCOUNTS_KEY
from relay.ratings.classes import SpeedClass
from relay.ratings.model import DISPLAY_SCALE, MU0
from relay.ratings.pairing import WINDOW_BASE, WINDOW_MAX, WINDOW_STEP, WINDOW_STEP_SECONDS, SizePref
from relay.ratings.queue import CONFIRM_MS, UNSEEN_MS, SeekQueue

FRONT = "http://localhost:8443"


@pytest.fixture(autouse=True)
def quick_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rounds every 50 ms instead of every second (the in-process relays read it at each round)."""
    monkeypatch.setattr(seek_module, "ROUND_SECONDS", 0.05)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def site(
    tmp_path: Path, clock: FakeClock, journal_settings: dict[str, Any]
) -> AsyncIterator[RunningRelay]:
    """A relay on a fake clock, with its accounts in SQLite, then in PostgreSQL: every test runs on both."""
    running = await start_relay(tmp_path, clock=clock, account_burst=1000, **journal_settings)
    yield running
    await running.stop()


class Seeker:
    """One signed-in page's seek socket: every frame it got, in order."""

    def __init__(self, browser: Browser, ws: aiohttp.ClientWebSocketResponse, account: str) -> None:
        self.browser = browser
        self.ws = ws
        self.account = account
        self.frames: list[dict[str, Any]] = []
        self.closed: int | None = None
        self._changed = asyncio.Event()
        self.reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, browser: Browser, account: str = "", url: str | None = None) -> Seeker:
        ws = await browser.session.ws_connect(
            (url or browser.url) + "/ws/seek", headers={"Origin": browser.origin}
        )
        return cls(browser, ws, account)

    async def _read(self) -> None:
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            self.frames.append(json.loads(msg.data))
            self._changed.set()
        self.closed = self.ws.close_code
        self._changed.set()

    async def send(self, frame: dict[str, Any] | str) -> None:
        await self.ws.send_str(frame if isinstance(frame, str) else json.dumps(frame))

    async def next(self, kind: str, *, timeout: float = 5.0) -> dict[str, Any]:
        """The first frame of ``kind`` not taken yet (frames before it are passed over)."""

        async def scan() -> dict[str, Any]:
            while True:
                for i, f in enumerate(self.frames):
                    if f["type"] == kind:
                        del self.frames[: i + 1]
                        return f
                if self.closed is not None:
                    raise ConnectionError(f"closed with {self.closed}, frames {self.frames}")
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(scan(), timeout)

    async def error(self, frame: dict[str, Any] | str) -> str:
        await self.send(frame)
        return str((await self.next("error"))["code"])

    def got(self, kind: str) -> bool:
        return any(f["type"] == kind for f in self.frames)

    async def close(self) -> None:
        await self.ws.close()
        await self.reader


@pytest.fixture
async def signed_up(site: RunningRelay) -> AsyncIterator[Callable[[str], Any]]:
    """Signs a new player up on ``site`` and opens their seek socket."""
    browsers: list[Browser] = []
    seekers: list[Seeker] = []

    async def make(nickname: str) -> Seeker:
        browser = Browser.at(site.url)
        browsers.append(browser)
        account = (await browser.signup(nickname))["account"]["id"]
        seekers.append(await Seeker.open(browser, account))
        return seekers[-1]

    yield make
    for s in seekers:
        with contextlib.suppress(Exception):
            await s.close()
    for b in browsers:
        await b.close()


def _rows(site: RunningRelay, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
    with site.app[ACCOUNTS_KEY].db.transaction() as tx:
        return tx.rows(sql, params)


def _queue(site: RunningRelay) -> list[tuple[Any, ...]]:
    """Everything the queue holds, to check that a refusal changed nothing."""
    return [
        *_rows(site, "SELECT account_id, speed, size, rating, enqueued_ms, offer_id FROM seeks ORDER BY 1"),
        *_rows(site, "SELECT id, confirmed, table_id FROM offers ORDER BY 1"),
        *_rows(site, "SELECT offer_id, account_id, confirmed_ms FROM offer_seats ORDER BY 1, 2"),
    ]


def _rate(site: RunningRelay, account: str, pairing_value: int, speed: str = "normal") -> None:
    """Gives ``account`` a settled rating whose pairing value is ``pairing_value`` in ``speed``."""
    mu = MU0 + (pairing_value - 1500) / DISPLAY_SCALE
    with site.app[ACCOUNTS_KEY].db.transaction() as tx:
        tx.run(
            "INSERT INTO ratings (account_id, speed, mu, sigma, played_ms, games) VALUES (?, ?, ?, ?, ?, ?)",
            (account, speed, mu, 2.0, site.clock() if site.clock else 0, 50),
        )


SEEK = {"type": "seek", "speed": "normal", "size": "2"}


# -- the whole way --------------------------------------------------------------------------------------
async def test_two_seekers_are_offered_a_table_confirm_and_both_sit_at_the_same_rated_table(
    site: RunningRelay, clock: FakeClock, signed_up: Callable[[str], Any]
) -> None:
    ana, bo = await signed_up("Ana"), await signed_up("Bob")
    await ana.send(SEEK)
    assert (await ana.next("seeking")) == {"type": "seeking", "speed": "normal", "count": 1}
    clock.advance(1)  # Ana's seek is the older
    await bo.send(SEEK)
    assert (await bo.next("seeking"))["count"] == 2
    offer = await ana.next("offer")
    assert offer == await bo.next("offer")
    assert [p["nickname"] for p in offer["players"]] == ["Ana", "Bob"]  # the oldest seek first
    assert [p["rating"] for p in offer["players"]] == ["1346?", "1346?"]  # newcomers, shown with "?"
    assert offer["deadline"] - offer["now"] == 15_000
    await ana.send({"type": "confirm", "offer": offer["offer"]})
    assert (await ana.next("confirmed"))["offer"] == offer["offer"]
    assert not ana.got("paired")
    await bo.send({"type": "confirm", "offer": offer["offer"]})
    paired = await ana.next("paired")
    assert paired == await bo.next("paired")
    table_id = paired["table"]
    assert paired["link"] == f"{site.url}/t/{table_id}"
    table = site.referee.tables[table_id]
    assert table.state.rated and not table.public and table.state.turn_seconds == 120
    await wait_until(lambda: _rows(site, "SELECT COUNT(*) FROM seeks")[0][0] == 0)  # both seeks done
    assert _rows(site, "SELECT table_id FROM offers") == [(table_id,)]  # kept: its seats are reserved
    # Both sit under their nicknames (whatever name is sent); the game starts by itself with the second.
    players = []
    for s in (ana, bo):
        p = await Player.connect(s.browser.session, site, table_id)
        await p.join("typed")
        players.append(p)
    await wait_until(lambda: table.status == "playing")
    assert [x.name for x in table.state.seats] == ["Ana", "Bob"]
    for p in players:
        await p.close()


async def test_an_offer_is_never_dated_before_the_seeks_it_pairs(
    site: RunningRelay, clock: FakeClock, signed_up: Callable[[str], Any]
) -> None:
    """A round reads the clock, then the seeks: on PostgreSQL one committed in between (read committed) is
    paired too, and must still get its full 15 s to confirm (seen in CI: 14,999 ms)."""
    ana, bo = await signed_up("Ana"), await signed_up("Bob")
    db = site.app[ACCOUNTS_KEY].db
    later = SeekQueue(db, lambda: clock() + 1, lambda: "unused")  # enqueued 1 ms after the round's reading
    for who in (ana, bo):
        later.seek(who.account, f"s-{who.account}", "far", SpeedClass.NORMAL, SizePref.TWO, 1500, "1500")
    SeekQueue(db, clock, lambda: "the-offer").pair("far", [])
    await wait_until(lambda: bool(_rows(site, "SELECT id FROM offers")))  # this round's, or the relay's
    [(created, deadline)] = _rows(site, "SELECT created_ms, deadline_ms FROM offers")
    assert (created, deadline) == (clock() + 1, clock() + 1 + CONFIRM_MS)


async def test_a_seek_dies_with_its_socket_and_cancel_withdraws_it(
    site: RunningRelay, signed_up: Callable[[str], Any]
) -> None:
    ana = await signed_up("Ana")
    await ana.send(SEEK)
    await ana.next("seeking")
    await ana.send({"type": "cancel"})
    await ana.next("cancelled")
    assert _rows(site, "SELECT COUNT(*) FROM seeks")[0][0] == 0
    await ana.send(SEEK)
    await ana.next("seeking")
    assert _rows(site, "SELECT COUNT(*) FROM seeks")[0][0] == 1
    await ana.close()
    await wait_until(lambda: _rows(site, "SELECT COUNT(*) FROM seeks")[0][0] == 0)


# -- windows ---------------------------------------------------------------------------------------------
async def test_a_wide_gap_is_paired_once_the_windows_have_widened_enough(
    site: RunningRelay, clock: FakeClock, signed_up: Callable[[str], Any]
) -> None:
    ana, bo, cy = await signed_up("Ana"), await signed_up("Bob"), await signed_up("Cyd")
    gap = WINDOW_BASE + 3 * WINDOW_STEP  # reached after 3 steps of waiting
    _rate(site, ana.account, 1500)
    _rate(site, bo.account, 1500 + gap)
    _rate(site, cy.account, 1500 + gap + WINDOW_MAX + 1)
    for s in (ana, bo, cy):
        await s.send(SEEK)
        await s.next("seeking")
    await asyncio.sleep(0.3)  # several rounds
    assert not ana.got("offer") and not bo.got("offer")
    clock.advance(int(3 * WINDOW_STEP_SECONDS * 1000) - 1)
    await asyncio.sleep(0.3)
    assert not ana.got("offer")
    clock.advance(1)
    offer = await ana.next("offer")
    assert {p["nickname"] for p in offer["players"]} == {"Ana", "Bob"}  # seeks of the same ms: any order
    assert offer == await bo.next("offer")
    # Cy, past the largest window from both, waits (for an hour, and more).
    clock.advance(3600 * 1000)
    await asyncio.sleep(0.3)
    assert not cy.got("offer") and not cy.got("dropped")


# -- confirmation ----------------------------------------------------------------------------------------
async def test_a_seat_that_does_not_confirm_in_15_s_is_dropped_and_the_others_wait_again_with_their_time(
    site: RunningRelay, clock: FakeClock, signed_up: Callable[[str], Any]
) -> None:
    ana, bo = await signed_up("Ana"), await signed_up("Bob")
    await ana.send(SEEK)
    await ana.next("seeking")
    enqueued = _rows(site, "SELECT enqueued_ms FROM seeks")[0][0]
    clock.advance(2000)
    await bo.send(SEEK)
    offer = await ana.next("offer")
    await bo.next("offer")
    await bo.send({"type": "confirm", "offer": offer["offer"]})
    await bo.next("confirmed")
    clock.advance(15_000)
    await asyncio.sleep(0.3)  # at the deadline the offer stands: a confirmation still counts
    assert not ana.got("dropped") and not bo.got("seeking")
    clock.advance(1)
    await ana.next("dropped")
    again = await bo.next("seeking")  # waiting again
    assert again["speed"] == "normal"
    assert _rows(site, "SELECT account_id, enqueued_ms, offer_id FROM seeks") == [
        (bo.account, enqueued + 2000, None)
    ]
    # Ana's socket stays open: a late confirmation is refused, and Ana may seek again.
    assert await ana.error({"type": "confirm", "offer": offer["offer"]}) == "not_offered"
    await ana.send(SEEK)
    offer2 = await ana.next("offer")
    assert [p["nickname"] for p in offer2["players"]] == ["Bob", "Ana"]  # Bo kept their place


async def test_declining_drops_the_decliner_and_a_cancel_while_offered_requeues_the_other(
    site: RunningRelay, signed_up: Callable[[str], Any]
) -> None:
    ana, bo, cy = await signed_up("Ana"), await signed_up("Bob"), await signed_up("Cyd")
    await ana.send(SEEK)
    await bo.send(SEEK)
    offer = await ana.next("offer")
    await bo.next("offer")
    await bo.send({"type": "decline", "offer": offer["offer"]})
    await bo.next("cancelled")
    await ana.next("seeking")
    assert _rows(site, "SELECT account_id, offer_id FROM seeks") == [(ana.account, None)]
    await cy.send(SEEK)
    offer = await ana.next("offer")
    await cy.next("offer")
    await cy.send({"type": "cancel"})
    await cy.next("cancelled")
    await ana.next("seeking")
    assert _rows(site, "SELECT COUNT(*) FROM offers")[0][0] == 0


# -- blocks ----------------------------------------------------------------------------------------------
async def test_blocked_players_are_never_paired_together_even_alone_in_the_queue(
    site: RunningRelay, clock: FakeClock, signed_up: Callable[[str], Any]
) -> None:
    ana, bo, cy = await signed_up("Ana"), await signed_up("Bob"), await signed_up("Cyd")
    status, body, _ = await bo.browser.post("/api/account/blocks", {"nickname": "Ana"})
    assert status == 201, body
    await ana.send({**SEEK, "size": "any"})
    await ana.next("seeking")
    clock.advance(1)  # Ana's seek is the oldest
    await bo.send({**SEEK, "size": "any"})
    await bo.next("seeking")
    clock.advance(3600 * 1000)
    await asyncio.sleep(0.3)
    assert not ana.got("offer") and not bo.got("offer")
    await cy.send({**SEEK, "size": "any"})
    offer = await ana.next("offer")
    assert [p["nickname"] for p in offer["players"]] == ["Ana", "Cyd"]
    assert not bo.got("offer")


# -- one seek per player, and the refusals -----------------------------------------------------------
async def test_one_seek_per_player_on_any_socket_and_a_second_is_refused_with_nothing_changed(
    site: RunningRelay, signed_up: Callable[[str], Any]
) -> None:
    ana = await signed_up("Ana")
    await ana.send(SEEK)
    await ana.next("seeking")
    before = _queue(site)
    assert await ana.error({**SEEK, "speed": "rapide"}) == "seek_twice"
    other_tab = await Seeker.open(ana.browser, ana.account)
    try:
        assert await other_tab.error(SEEK) == "seek_twice"
        # Another tab cannot cancel this tab's seek either.
        assert await other_tab.error({"type": "cancel"}) == "no_seek"
    finally:
        await other_tab.close()
    assert _queue(site) == before


BAD_INPUT: list[tuple[dict[str, Any] | str, str]] = [
    ({"type": "seek", "speed": "blitz", "size": "2"}, "unknown_class"),
    ({"type": "seek", "speed": "correspondance", "size": "2"}, "unknown_class"),
    ({"type": "seek", "speed": 3, "size": "2"}, "unknown_class"),
    ({"type": "seek", "speed": "normal", "size": "5"}, "bad_size"),
    ({"type": "seek", "speed": "normal"}, "bad_size"),
    ({"type": "confirm", "offer": "nope"}, "not_offered"),
    ({"type": "decline", "offer": "nope"}, "not_offered"),
    ({"type": "confirm", "offer": 7}, "not_offered"),
    ({"type": "cancel"}, "no_seek"),
    ({"type": "seek", "speed": "normal", "size": "2", "extra": 1}, "bad_message"),
    ({"type": "play"}, "bad_message"),
    ("not json", "bad_message"),
    ("[1, 2]", "bad_message"),
]


async def test_bad_input_gets_its_code_and_changes_nothing(
    site: RunningRelay, signed_up: Callable[[str], Any]
) -> None:
    waiting = await signed_up("Ana")
    await waiting.send(SEEK)
    await waiting.next("seeking")
    me = await signed_up("Bob")
    before = _queue(site)
    for i, (frame, code) in enumerate(BAD_INPUT):
        if i >= seek_module.FRAMES_BURST - 2:
            await asyncio.sleep(1 / seek_module.FRAMES_PER_SECOND)  # within the socket's frame budget
        assert await me.error(frame) == code, frame
        assert _queue(site) == before, frame
    # The socket is still usable: a good seek now goes through.
    await me.send(SEEK)
    await me.next("offer")


async def test_a_flood_of_frames_is_refused_past_the_sockets_budget(
    site: RunningRelay, signed_up: Callable[[str], Any]
) -> None:
    me = await signed_up("Ana")
    for _ in range(int(seek_module.FRAMES_BURST) + 2):
        await me.send({"type": "cancel"})
    codes = [str((await me.next("error"))["code"]) for _ in range(int(seek_module.FRAMES_BURST) + 2)]
    assert codes.count("no_seek") == seek_module.FRAMES_BURST and codes.count("rate_limited") == 2
    assert _queue(site) == []


async def test_confirming_an_offer_made_to_others_is_refused_and_changes_nothing(
    site: RunningRelay, signed_up: Callable[[str], Any]
) -> None:
    ana, bo, cy = await signed_up("Ana"), await signed_up("Bob"), await signed_up("Cyd")
    await ana.send(SEEK)
    await bo.send(SEEK)
    offer = await ana.next("offer")
    await cy.send({**SEEK, "speed": "lent"})
    await cy.next("seeking")
    before = _queue(site)
    for kind in ("confirm", "decline"):
        assert await cy.error({"type": kind, "offer": offer["offer"]}) == "not_offered"
    assert _queue(site) == before


async def test_a_guest_is_told_to_sign_in_and_the_socket_closes(site: RunningRelay) -> None:
    browser = Browser.at(site.url)
    try:
        guest = await Seeker.open(browser)
        assert (await guest.next("error"))["code"] == "not_signed_in"
        await guest.reader
        assert guest.closed == seek_module.CLOSE_NOT_SIGNED_IN
        assert _queue(site) == []
    finally:
        await browser.close()


async def test_a_seek_socket_from_another_site_is_refused_before_the_upgrade(site: RunningRelay) -> None:
    browser = Browser.at(site.url)
    try:
        with pytest.raises(aiohttp.WSServerHandshakeError) as excinfo:
            await browser.session.ws_connect(
                site.url + "/ws/seek", headers={"Origin": "https://evil.example"}
            )
        assert excinfo.value.status == 403
    finally:
        await browser.close()


async def test_the_seeks_of_a_relay_that_died_expire_unseen(
    site: RunningRelay, clock: FakeClock, signed_up: Callable[[str], Any]
) -> None:
    ana = await signed_up("Ana")
    with site.app[ACCOUNTS_KEY].db.transaction() as tx:
        tx.run(
            "INSERT INTO seeks (account_id, socket, node, speed, size, rating, label, enqueued_ms, seen_ms)"
            " VALUES (?, 'gone', 'dead-relay', 'normal', '2', 1500, '1500', ?, ?)",
            (ana.account, clock(), clock()),
        )
    clock.advance(UNSEEN_MS - 1)
    await asyncio.sleep(0.3)
    assert _rows(site, "SELECT COUNT(*) FROM seeks")[0][0] == 1
    clock.advance(2)
    await wait_until(lambda: _rows(site, "SELECT COUNT(*) FROM seeks")[0][0] == 0)
    # Ana's own socket, alive on this relay, may seek now.
    await ana.send(SEEK)
    await ana.next("seeking")
    clock.advance(UNSEEN_MS * 3)  # its relay refreshes it every round: never unseen
    await asyncio.sleep(0.3)
    assert _rows(site, "SELECT COUNT(*) FROM seeks")[0][0] == 1


# -- a cluster ---------------------------------------------------------------------------------------------
@pytest.fixture
def cluster_pair(tmp_path: Path, pg_url: str, redis: RedisServer) -> Iterator[tuple[Any, Any]]:
    extra = ["--public-url", FRONT]
    a = node(tmp_path, "a", pg_url, redis.url, extra=extra)
    b = node(tmp_path, "b", pg_url, redis.url, extra=extra)
    with stopping(a, b):
        yield a, b


async def test_two_seekers_on_two_relays_are_paired_once_and_get_the_same_table(
    cluster_pair: tuple[Any, Any], pg_url: str
) -> None:
    a, b = cluster_pair
    await asyncio.gather(a.astart(), b.astart())
    zoe, max_ = Browser.at(a.url), Browser.at(b.url)
    zoe.origin = max_.origin = FRONT
    seekers: list[Seeker] = []
    try:
        await zoe.signup("Zoe")
        await max_.signup("Max")
        seekers = [await Seeker.open(zoe), await Seeker.open(max_)]
        for s in seekers:
            await s.send(SEEK)
        offers = [await s.next("offer", timeout=10) for s in seekers]
        assert offers[0]["offer"] == offers[1]["offer"]
        for s in seekers:
            await s.send({"type": "confirm", "offer": offers[0]["offer"]})
        paired = [await s.next("paired", timeout=10) for s in seekers]
        assert paired[0]["table"] == paired[1]["table"]
        assert paired[0]["link"] == f"{FRONT}/t/{paired[0]['table']}"
        await asyncio.sleep(2.5)  # more rounds on both relays: nothing more is offered
        for s in seekers:
            assert not s.got("offer") and not s.got("paired") and not s.got("dropped")
        with psycopg.connect(pg_url) as conn:
            offers_made = conn.execute("SELECT id, table_id, confirmed, seats FROM offers").fetchall()
            left = conn.execute("SELECT COUNT(*) FROM seeks").fetchone()
        assert offers_made == [(offers[0]["offer"], paired[0]["table"], 2, 2)]
        assert left == (0,)
    finally:
        for s in seekers:
            await s.close()
        await zoe.close()
        await max_.close()
