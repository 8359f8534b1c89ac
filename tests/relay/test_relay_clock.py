"""The referee's clocks: turn time, disconnect grace, abandoned tables, the rejected-play reserve."""

from __future__ import annotations

import aiohttp
from relaykit import FakeClock, Player, RunningRelay, create_table, seated_game, settle, word_tiles


def journal_types(relay: RunningRelay, table_id: str) -> list[str]:
    table = relay.referee.tables[table_id]
    return [type(e).__name__ for e in relay.referee.full_state(table).events]


async def test_at_the_deadline_the_table_passes_for_the_player_and_the_journal_says_so(
    relay: RunningRelay, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    table_id, (_p0, p1) = await seated_game(session, relay, turn_seconds=30)
    version = relay.referee.tables[table_id].state.version
    clock.advance(29_999)
    await settle(relay)
    assert relay.referee.tables[table_id].state.version == version
    clock.advance(1)
    frame = await p1.wait_for(lambda f: f["type"] == "event" and f["event"]["type"] == "timed_out")
    assert frame["event"]["seat"] == 0
    assert frame["clock"]["turn"] == 1
    assert frame["clock"]["deadline_ms"] == clock() + 30_000
    assert journal_types(relay, table_id)[-1] == "TimedOut"
    # The stored journal holds it too (committed before anyone was told).
    rows = relay.referee.store.events(table_id)
    assert rows[-1].body["type"] == "timed_out"


async def test_a_disconnected_player_on_turn_gets_only_the_grace(
    relay: RunningRelay, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    table_id, (p0, p1) = await seated_game(session, relay, turn_seconds=120)
    start = clock()
    clock.advance(3_000)
    await p0.close()
    frame = await p1.wait_for(lambda f: f["type"] == "clock" and f["clock"]["grace_deadline_ms"] is not None)
    assert frame["clock"]["grace_deadline_ms"] == start + 3_000 + 10_000
    assert frame["clock"]["deadline_ms"] == start + 120_000
    clock.advance(9_999)
    await settle(relay)
    assert journal_types(relay, table_id)[-1] == "GameStarted"
    clock.advance(1)
    ev = await p1.wait_for(lambda f: f["type"] == "event" and f["event"]["type"] == "timed_out")
    assert ev["event"]["seat"] == 0


async def test_reconnecting_restores_the_normal_deadline_without_giving_back_time(
    relay: RunningRelay, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    table_id, (p0, _p1) = await seated_game(session, relay, turn_seconds=30)
    start = clock()
    token = p0.token
    rack = p0.rack
    await p0.close()
    clock.advance(8_000)
    await settle(relay)
    back = await Player.connect(session, relay, table_id)
    welcome = await back.send({"type": "join", "token": token})
    assert welcome["type"] == "welcome" and welcome["seat"] == 0
    snap = await back.wait_for(lambda f: f["type"] == "snapshot")
    assert snap["view"]["rack"] == rack
    assert snap["clock"] == {"turn": 0, "deadline_ms": start + 30_000, "grace_deadline_ms": None}
    clock.advance(5_000)  # past the grace it would have had, but it is back
    await settle(relay)
    assert journal_types(relay, table_id)[-1] == "GameStarted"
    clock.advance(17_000)  # the normal deadline kept running: 30 s after the turn began
    ev = await back.wait_for(lambda f: f["type"] == "event" and f["event"]["type"] == "timed_out")
    assert ev["event"]["seat"] == 0


async def test_a_table_whose_seats_are_all_gone_ends_by_the_two_rounds_rule(
    relay: RunningRelay, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    table_id, players = await seated_game(session, relay, seats=3, turn_seconds=600)
    for p in players:
        await p.close()
    table = relay.referee.tables[table_id]
    for _ in range(2 * 3):
        await settle(relay, 2)
        clock.advance(10_000)
        await settle(relay)
    assert table.status == "ended"
    kinds = [type(e).__name__ for e in relay.referee.full_state(table).events]
    assert kinds[-7:] == ["TimedOut"] * 6 + ["GameEnded"]
    assert relay.referee.store.table(table_id).status == "ended"
    assert table.state.result.reason == "scoreless"


async def test_unknown_words_spend_the_reserve_which_refills_on_the_server_clock(
    relay: RunningRelay, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    table_id, (p0, p1) = await seated_game(session, relay, turn_seconds=600)
    table = relay.referee.tables[table_id]
    rack = p0.rack
    # Four-letter words are not in the test list: every such play is rejected for its word.
    tiles = word_tiles(rack, ["G7", "H7", "I7", "J7"])
    word = "".join(t["letter"] for t in tiles)
    for left in range(9, -1, -1):
        ans = await p0.send({"type": "place", "tiles": tiles})
        assert ans["type"] == "rejected", ans
        assert ans["words"] == [word]
        assert ans["reserve"] == {"tries": left, "next_refill_ms": clock() + 15_000}
        assert table.state.turn == 0 and table.state.seats[0].rack == rack
    version = table.state.version
    refused = await p0.send({"type": "place", "tiles": tiles})
    assert refused["type"] == "error" and refused["code"] == "reserve_empty"
    assert refused["params"]["tries"] == 0
    assert refused["params"]["next_refill_ms"] == clock() + 15_000
    assert table.state.version == version
    # The other seat only learns that a play was refused, not its tiles or words.
    seen = [f["event"] for f in p1.frames if f["type"] == "event" and f["event"]["type"] == "rejected"]
    assert len(seen) == 10 and all(set(e) == {"schema", "type", "at", "seat"} for e in seen)
    clock.advance(15_000)
    again = await p0.send({"type": "place", "tiles": tiles})
    assert again["type"] == "rejected" and again["reserve"]["tries"] == 0
    # Swapping and passing remain possible.
    ok = await p0.send({"type": "pass"})
    assert ok["type"] == "ack"


async def test_before_the_start_a_seat_left_empty_too_long_is_freed(
    relay: RunningRelay, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    table_id = await create_table(session, relay)
    ps = [await Player.connect(session, relay, table_id) for _ in range(3)]
    for i, p in enumerate(ps):
        await p.join(f"P{i}")
    await ps[1].close()
    clock.advance(119_000)
    await settle(relay)
    table = relay.referee.tables[table_id]
    assert [s.name for s in table.state.seats] == ["P0", "P1", "P2"]
    clock.advance(1_000)
    ev = await ps[0].wait_for(lambda f: f["type"] == "event" and f["event"]["type"] == "seat_left")
    assert ev["event"]["seat"] == 1
    assert [s.name for s in table.state.seats] == ["P0", "P2"]
    # P2 moved up to seat 1 and still acts for it.
    assert (await ps[0].send({"type": "start"}))["type"] == "ack"
    assert (await ps[0].send({"type": "pass"}))["type"] == "ack"
    assert (await ps[2].send({"type": "pass"}))["type"] == "ack"
