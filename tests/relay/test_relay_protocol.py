"""Bad input of every kind gets its error code, changes nothing and keeps the connection; rejoin; resync."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest
from relaykit import Player, RunningRelay, create_table, seated_game, start_relay


def fingerprint(relay: RunningRelay, table_id: str) -> tuple[Any, ...]:
    st = relay.referee.tables[table_id].state
    return (st.version, st.turn, st.bag, tuple((s.rack, s.score) for s in st.seats), st.board.to_json())


async def assert_still_up(p: Player) -> None:
    pong = await p.send({"type": "ping"})
    assert pong["type"] == "pong"


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("{not json", "bad_json"),
        ("[1, 2]", "bad_json"),
        ('{"type": "teleport", "id": "x"}', "unknown_type"),
        ('{"id": "x"}', "bad_message"),
        ('{"type": "place", "id": "x"}', "bad_message"),
        ('{"type": "place", "id": "x", "tiles": "G7"}', "bad_message"),
        ('{"type": "place", "id": "x", "tiles": [{"sq": 7, "letter": "A"}]}', "bad_message"),
        ('{"type": "place", "id": "x", "tiles": [{"sq": "G7", "letter": "AB"}]}', "bad_message"),
        ('{"type": "pass", "id": "x", "extra": 1}', "bad_message"),
        ('{"type": "swap", "id": "x", "tiles": "A1"}', "bad_message"),
        ('{"type": "add_bot", "id": "x", "level": "godlike"}', "bad_level"),
        ('{"type": "resync", "id": "x", "since": -1}', "bad_message"),
        ('{"type": "join", "id": "x", "name": "Z"}', "already_joined"),
        ("x" * 5000, "frame_too_large"),
        ('{"type": 5, "id": "x"}', "bad_message"),
        ('{"type": "pass", "id": {"nested": [1]}}', "bad_message"),
        ('{"type": "pass", "id": 12}', "bad_message"),
        ('{"type": "place", "id": "x", "tiles": [null]}', "bad_message"),
        (
            '{"type": "place", "id": "x", "tiles": [{"sq": "G7", "letter": "A", "blank": "yes"}]}',
            "bad_message",
        ),
        (
            '{"type": "place", "id": "x", "tiles": [{"sq": "G7", "letter": "A", "x": {"y": [{}]}}]}',
            "bad_message",
        ),
        ('{"type": "place", "id": "x", "tiles": [{"sq": "G7", "letter": "\\u00e9"}]}', "bad_message"),
        ('{"type": "swap", "id": "x", "tiles": ["A"]}', "bad_message"),
        ('{"type": "add_bot", "id": "x", "level": null}', "bad_message"),
        ('{"type": "resync", "id": "x", "since": true}', "bad_message"),
        ('{"type": "resync", "id": "x", "since": 1e999}', "bad_message"),
        ('{"type": "resync", "id": "x", "since": "3"}', "bad_message"),
        ("[" * 3000 + "]" * 1000, "bad_json"),
        ("1e999", "bad_json"),
        # Half a UTF-16 pair is not text: echoing it (the id here) could not even be encoded.
        ('{"type": "pass", "id": "\\ud800"}', "bad_json"),
        ('{"type": "ping", "id": "x", "\\udfff": 1}', "bad_json"),
    ],
)
async def test_malformed_frames_are_answered_with_their_code_and_change_nothing(
    relay: RunningRelay, session: aiohttp.ClientSession, raw: str, code: str
) -> None:
    table_id, (p0, _p1) = await seated_game(session, relay)
    before = fingerprint(relay, table_id)
    err = await p0.send_raw(raw)
    assert err["code"] == code, err
    assert isinstance(err["message"], str) and err["message"]
    assert fingerprint(relay, table_id) == before
    await assert_still_up(p0)


def _not_held(rack: str) -> str:
    return next(ch for ch in "ZYXWVKJQ" if ch not in rack)


def _held(rack: str) -> str:
    return next(ch for ch in rack if ch != "?")


@pytest.mark.parametrize(
    "case", ["out_of_turn", "tiles_not_held", "blank_without_letter", "swap_bigger_than_bag", "swap_not_held"]
)
async def test_illegal_actions_are_refused_by_the_rules_and_change_nothing(
    relay: RunningRelay, session: aiohttp.ClientSession, case: str
) -> None:
    table_id, (p0, p1) = await seated_game(session, relay)
    table = relay.referee.tables[table_id]
    if case == "out_of_turn":
        actor, frame, code = p1, {"type": "pass"}, "not_your_turn"
    elif case == "tiles_not_held":
        missing = _not_held(p0.rack)
        tiles = [
            {"sq": "G7", "letter": missing, "blank": False},
            {"sq": "H7", "letter": _held(p0.rack), "blank": False},
        ]
        actor, frame, code = p0, {"type": "place", "tiles": tiles}, "not_on_rack"
    elif case == "blank_without_letter":
        tiles = [
            {"sq": "G7", "letter": "?", "blank": True},
            {"sq": "H7", "letter": _held(p0.rack), "blank": False},
        ]
        actor, frame, code = p0, {"type": "place", "tiles": tiles}, "blank_without_letter"
    elif case == "swap_not_held":
        actor, frame, code = p0, {"type": "swap", "tiles": _not_held(p0.rack)}, "not_on_rack"
    else:
        # Play real moves until the bag holds fewer tiles than a rack, then try to swap a whole rack.
        players = {0: p0, 1: p1}
        while len(table.state.bag) >= 7:
            mover = players[table.state.turn]
            move = mover.choose()
            assert move["type"] == "place", "the scripted players ran out of room before the bag emptied"
            ans = await mover.send(move)
            assert ans["type"] == "ack"
            await p0.wait_seq(ans["seq"])
            await p1.wait_seq(ans["seq"])
        actor = players[table.state.turn]
        frame, code = {"type": "swap", "tiles": actor.rack}, "swap_too_large"
    before = fingerprint(relay, table_id)
    err = await actor.send(frame)
    assert err["type"] == "error" and err["code"] == code, err
    assert fingerprint(relay, table_id) == before
    await assert_still_up(actor)


async def test_only_a_seat_token_acts_for_the_seat(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, (_p0, _p1) = await seated_game(session, relay)
    intruder = await Player.connect(session, relay, table_id)
    err = await intruder.send({"type": "join", "token": "A" * 32})
    assert err["type"] == "error" and err["code"] == "bad_token"
    err = await intruder.send({"type": "pass"})
    assert err["code"] == "not_joined"
    await assert_still_up(intruder)
    spectator = await Player.connect(session, relay, table_id)
    ans = await spectator.send({"type": "watch"})
    assert ans["type"] == "welcome" and ans["seat"] is None and ans["token"] is None
    err = await spectator.send({"type": "pass"})
    assert err["code"] == "not_a_seat"


async def test_rejoining_with_the_token_gives_back_the_same_seat_and_rack(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, (p0, p1) = await seated_game(session, relay)
    ans = await p0.send(p0.choose())
    assert ans["type"] == "ack"
    await p1.wait_seq(ans["seq"])
    token, rack, seq = p1.token, p1.rack, p1.seq
    await p1.close()
    back = await Player.connect(session, relay, table_id)
    welcome = await back.send({"type": "join", "token": token})
    assert welcome["seat"] == 1 and welcome["token"] == token
    snap = await back.wait_for(lambda f: f["type"] == "snapshot")
    assert snap["seq"] == seq and snap["view"]["rack"] == rack and snap["view"]["you"] == 1
    assert snap["presence"] == [{"seat": 0, "connected": True}, {"seat": 1, "connected": True}]
    ans = await back.send(back.choose())
    assert ans["type"] == "ack"


async def test_a_second_connection_with_the_token_takes_the_seat_over(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, (_p0, p1) = await seated_game(session, relay)
    other = await Player.connect(session, relay, table_id)
    await other.send({"type": "join", "token": p1.token})
    await p1.reader
    assert p1.closed == 4001


async def test_a_client_that_sees_a_gap_resyncs_to_a_full_snapshot(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, (p0, p1) = await seated_game(session, relay)
    last_seen = p1.seq
    for _ in range(3):
        mover = p0 if relay.referee.tables[table_id].state.turn == 0 else p1
        ans = await mover.send(mover.choose())
        assert ans["type"] == "ack"
    await p1.wait_seq(ans["seq"])
    # Pretend the events after last_seen were lost: the next one shows a gap, so the client asks.
    before = len(p1.frames)
    await p1.ws.send_str(json.dumps({"type": "resync", "since": last_seen}))
    snap = await p1.wait_for(lambda f: f["type"] == "snapshot", start=before)
    state = relay.referee.tables[table_id].state
    assert snap["seq"] == state.version == ans["seq"]
    assert len(snap["view"]["journal"]) == state.version
    assert snap["view"]["rack"] == state.seats[1].rack


async def test_joining_a_full_or_started_table_is_refused(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, _ = await seated_game(session, relay, seats=4)
    late = await Player.connect(session, relay, table_id)
    err = await late.send({"type": "join", "name": "Late"})
    assert err["type"] == "error" and err["code"] in ("table_full", "already_started")
    await assert_still_up(late)


async def test_duplicate_names_and_bad_names_are_refused(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id = await create_table(session, relay)
    a = await Player.connect(session, relay, table_id)
    await a.join("Alice")
    b = await Player.connect(session, relay, table_id)
    err = await b.send({"type": "join", "name": "alice"})
    assert err["code"] == "bad_name"
    err = await b.send({"type": "join", "name": "   "})
    assert err["code"] == "bad_name"
    # Empty, too long (25, 31, 101, 3000 characters), control and format characters: the same code.
    for bad in ("", "x" * 25, "x" * 31, "x" * 101, "x" * 3000, "A\u0007B", "a\nb", "\u202eevil", "\x00"):
        err = await b.send({"type": "join", "name": bad})
        assert err["type"] == "error" and err["code"] == "bad_name", (bad, err)
    assert [s.name for s in relay.referee.tables[table_id].state.seats] == ["Alice"]
    # Any printable Unicode is a name, astral characters included (sent as a surrogate pair).
    before = len(b.frames)
    await b.ws.send_str('{"type": "join", "id": "u", "name": " Zo\\u00e9 \\ud83c\\udfb2 "}')
    welcome = await b.wait_for(lambda f: f["type"] == "welcome", start=before)
    assert welcome["seat"] == 1
    assert relay.referee.tables[table_id].state.seats[1].name == "Zoé 🎲"


async def test_leaving_before_the_start_frees_the_seat_and_later_seats_move_up(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id = await create_table(session, relay)
    ps = [await Player.connect(session, relay, table_id) for _ in range(3)]
    for i, p in enumerate(ps):
        await p.join(f"P{i}")
    ans = await ps[1].send({"type": "leave"})
    assert ans["type"] == "ack"
    table = relay.referee.tables[table_id]
    assert [s.name for s in table.state.seats] == ["P0", "P2"]
    assert table.conns[1] is not None
    # P2 now holds seat 1 and can still act (its token follows it).
    ans = await ps[0].send({"type": "start"})
    assert ans["type"] == "ack"
    await ps[2].wait_seq(ans["seq"])
    assert ps[2].frames[-1]["event"]["type"] == "game_started"
    ans = await ps[0].send({"type": "pass"})
    assert ans["type"] == "ack"
    ans = await ps[2].send({"type": "pass"})
    assert ans["type"] == "ack", ans


async def test_add_bot_without_a_driver_says_bots_unavailable(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id = await create_table(session, relay)
    p = await Player.connect(session, relay, table_id)
    await p.join("Host")
    err = await p.send({"type": "add_bot", "level": "easy"})
    assert err["code"] == "bots_unavailable"


async def test_flooding_is_rate_limited_then_dropped(tmp_path: Any, session: aiohttp.ClientSession) -> None:
    relay = await start_relay(tmp_path, rate_burst=5.0, rate_per_second=1.0)
    try:
        table_id = await create_table(session, relay)
        p = await Player.connect(session, relay, table_id)
        codes = []
        for _ in range(5):
            codes.append((await p.send({"type": "ping"}))["type"])
        assert codes == ["pong"] * 5
        err = await p.send({"type": "ping"})
        assert err["code"] == "rate_limited"
        for i in range(20):
            await p.ws.send_str(json.dumps({"type": "ping", "id": f"f{i}"}))
        await p.reader
        assert p.closed == 1008
    finally:
        await relay.stop()


@pytest.mark.parametrize(("origin", "ok"), [(None, True), ("same", True), ("http://evil.example", False)])
async def test_websocket_origin_must_be_this_host_or_allowed(
    relay: RunningRelay, session: aiohttp.ClientSession, origin: str | None, ok: bool
) -> None:
    table_id = await create_table(session, relay)
    headers = {} if origin is None else {"Origin": relay.url if origin == "same" else origin}
    if ok:
        ws = await session.ws_connect(f"{relay.url}/ws/{table_id}", headers=headers)
        await ws.close()
    else:
        with pytest.raises(aiohttp.WSServerHandshakeError) as info:
            await session.ws_connect(f"{relay.url}/ws/{table_id}", headers=headers)
        assert info.value.status == 403


async def test_allow_origin_admits_a_separately_hosted_site(
    tmp_path: Any, session: aiohttp.ClientSession
) -> None:
    relay = await start_relay(tmp_path, allow_origins=("https://play.example",))
    try:
        table_id = await create_table(session, relay)
        ws = await session.ws_connect(
            f"{relay.url}/ws/{table_id}", headers={"Origin": "https://play.example"}
        )
        await ws.close()
    finally:
        await relay.stop()


async def test_a_spectator_can_take_a_seat_on_the_same_socket(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id = await create_table(session, relay)
    p = await Player.connect(session, relay, table_id)
    assert (await p.send({"type": "watch"}))["seat"] is None
    welcome = await p.send({"type": "join", "name": "Later"})
    assert welcome["type"] == "welcome" and welcome["seat"] == 0
    err = await p.send({"type": "watch"})
    assert err["code"] == "already_joined"


async def test_only_the_first_arrival_starts_and_only_with_two_to_four_seated(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id = await create_table(session, relay)
    first = await Player.connect(session, relay, table_id)
    await first.join("First")
    assert (await first.send({"type": "start"}))["code"] == "not_enough_players"
    second = await Player.connect(session, relay, table_id)
    await second.join("Second")
    assert (await second.send({"type": "start"}))["code"] == "not_first_seat"
    assert relay.referee.tables[table_id].status == "waiting"
    assert (await first.send({"type": "start"}))["type"] == "ack"
    assert relay.referee.tables[table_id].state.turn == 0
    assert (await second.send({"type": "leave"}))["code"] == "already_started"


async def test_a_journal_failure_acknowledges_nothing_and_changes_nothing(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, (p0, p1) = await seated_game(session, relay)
    before = fingerprint(relay, table_id)
    relay.referee.store._db.close()  # the disk is gone: every commit now fails
    err = await p0.send({"type": "pass"})
    assert err["type"] == "error" and err["code"] == "internal_error"
    assert fingerprint(relay, table_id) == before
    assert not any(f["type"] == "event" and f["seq"] > before[0] for f in p1.frames)
    await assert_still_up(p0)


async def test_seat_tokens_are_128_plus_random_bits_and_only_their_hash_is_stored(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    import base64
    import hashlib

    table_id, players = await seated_game(session, relay, seats=3)
    tokens = [p.token for p in players]
    assert all(isinstance(t, str) for t in tokens) and len(set(tokens)) == 3
    for t in tokens:
        assert t is not None
        assert len(base64.urlsafe_b64decode(t + "=" * (-len(t) % 4))) * 8 >= 128
    hashes = [r.token_hash for r in relay.referee.store.events(table_id) if r.body["type"] == "seat_joined"]
    assert hashes == [hashlib.sha256(t.encode()).hexdigest() for t in tokens if t is not None]
    relay.referee.store.checkpoint()
    db = relay.referee.config.db
    on_disk = b"".join(p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name))
    assert not any(t is not None and t.encode() in on_disk for t in tokens)


async def test_without_a_test_seed_the_bag_is_drawn_from_the_system_random(
    tmp_path: Any, session: aiohttp.ClientSession
) -> None:
    import secrets

    relay = await start_relay(tmp_path, test_seed=None)
    try:
        table_id = await create_table(session, relay)
        assert isinstance(relay.referee.tables[table_id].rng, secrets.SystemRandom)
    finally:
        await relay.stop()
