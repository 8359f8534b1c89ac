"""Idempotent actions (docs/protocol.md, "Resending an action"): a frame resent with the same id — on the same
socket, after a reconnect, or after a restart — is applied at most once and told the answer its first copy
got; the same id with other content is a new action."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from clusterkit import send_as
from hypothesis import given, settings
from hypothesis import strategies as st
from relaykit import FakeClock, Player, RunningRelay, seated_game, start_relay

import wire
from relay.protocol import ProtocolError, parse_frame
from relay.tables import resend


def _mover(players: list[Player]) -> Player:
    return next(p for p in players if p.seat == players[0].turn)


def _long_word(p: Player) -> dict[str, Any]:
    """Four tiles in a row: a word the short test list does not hold (it has every 2- and 3-letter one)."""
    tiles = [
        {"sq": sq, "letter": "E" if t == "?" else t, "blank": t == "?"}
        for sq, t in zip(("G7", "H7", "I7", "J7"), p.rack, strict=False)
    ]
    return {"type": "place", "tiles": tiles}


async def _rejoin(session: aiohttp.ClientSession, relay: RunningRelay, table_id: str, token: str) -> Player:
    p = await Player.connect(session, relay, table_id)
    ans = await p.send({"type": "join", "token": token})
    assert ans["type"] == "welcome", ans
    await p.wait_for(lambda f: f["type"] == "snapshot")
    return p


async def test_an_action_resent_with_the_same_id_is_applied_once_and_told_its_first_answer(
    tmp_path: Path, clock: FakeClock, journal_settings: dict[str, Any]
) -> None:
    relay = await start_relay(tmp_path, clock=clock, **journal_settings)
    try:
        async with aiohttp.ClientSession() as session:
            table_id, players = await seated_game(session, relay, turn_seconds=600)
            mover, other = _mover(players), next(p for p in players if p is not _mover(players))
            move = {**mover.choose(), "id": "m1"}
            first = await send_as(mover, move)
            assert first["type"] == "ack"
            table = relay.referee.tables[table_id]
            version = int(table.state.version)
            assert first["seq"] == version
            # The same frame resent on the same socket: the same answer, nothing decided.
            again = await send_as(mover, {**move, "resent": True})
            assert again["type"] == "ack" and again["seq"] == first["seq"]
            # And after a reconnect, as the web client does with an action it never saw answered.
            await mover.close()
            back = await _rejoin(session, relay, table_id, str(mover.token))
            third = await send_as(back, {**move, "resent": True})
            assert third["type"] == "ack" and third["seq"] == first["seq"]
            assert int(table.state.version) == version
            assert len(relay.referee.store.events(table_id)) == version
            events = [f for f in other.frames if f["type"] == "event" and f["event"]["type"] == "placed"]
            assert len(events) == 1
            # The play goes on from there: the next seat plays.
            ans = await other.send(other.choose())
            assert ans["type"] == "ack" and ans["seq"] == version + 1
            await back.close()
            await other.close()
    finally:
        await relay.stop()


async def test_the_same_id_with_other_content_or_not_marked_resent_is_a_new_action(
    tmp_path: Path, clock: FakeClock
) -> None:
    """A reloaded page may count its ids from 1 again, and clients of protocol version 1 may reuse ids on
    each socket: only a frame marked ``resent`` with the same id and content is a resend."""
    relay = await start_relay(tmp_path, clock=clock)
    try:
        async with aiohttp.ClientSession() as session:
            table_id, players = await seated_game(session, relay, turn_seconds=600)
            mover = _mover(players)
            first = await send_as(mover, {**mover.choose(), "id": "x"})
            other = _mover(players)
            await other.wait_seq(first["seq"])
            await send_as(other, {**other.choose(), "id": "x"})  # another seat, same id: its own action
            await mover.wait_seq(first["seq"] + 1)
            second = await send_as(mover, {"type": "pass", "id": "x", "resent": True})
            assert second["type"] == "ack" and second["seq"] == first["seq"] + 2
            await other.wait_seq(second["seq"])
            third = await send_as(other, {"type": "pass", "id": "p"})
            await mover.wait_seq(third["seq"])
            fourth = await send_as(mover, {"type": "pass", "id": "x"})  # same as "second", not marked
            assert fourth["type"] == "ack" and fourth["seq"] == first["seq"] + 4
            assert int(relay.referee.tables[table_id].state.version) == first["seq"] + 4
            for p in players:
                await p.close()
    finally:
        await relay.stop()


async def test_a_rejected_placement_resent_is_rejected_again_without_costing_another_try(
    tmp_path: Path, clock: FakeClock, journal_settings: dict[str, Any]
) -> None:
    relay = await start_relay(tmp_path, clock=clock, **journal_settings)
    try:
        async with aiohttp.ClientSession() as session:
            table_id, players = await seated_game(session, relay, turn_seconds=600)
            mover = _mover(players)
            move = {**_long_word(mover), "id": "w1"}
            first = await send_as(mover, move)
            assert first["type"] == "rejected" and first["words"], first
            again = await send_as(mover, {**move, "resent": True})
            assert again["type"] == "rejected"
            assert (again["seq"], again["words"], again["reserve"]) == (
                first["seq"],
                first["words"],
                first["reserve"],
            )
            assert int(relay.referee.tables[table_id].state.version) == first["seq"]
            for p in players:
                await p.close()
    finally:
        await relay.stop()


async def test_a_resend_after_a_restart_is_recognised_from_the_journal(
    tmp_path: Path, clock: FakeClock, journal_settings: dict[str, Any]
) -> None:
    relay = await start_relay(tmp_path, clock=clock, **journal_settings)
    async with aiohttp.ClientSession() as session:
        try:
            table_id, players = await seated_game(session, relay, turn_seconds=600)
            mover = _mover(players)
            move = {**mover.choose(), "id": "before-restart"}
            first = await send_as(mover, move)
            assert first["type"] == "ack"
            token = str(mover.token)
            for p in players:
                await p.close()
        finally:
            await relay.stop()
        relay = await start_relay(tmp_path, clock=clock, **journal_settings)
        try:
            back = await _rejoin(session, relay, table_id, token)
            again = await send_as(back, {**move, "resent": True})
            assert again["type"] == "ack" and again["seq"] == first["seq"]
            assert int(relay.referee.tables[table_id].state.version) == first["seq"]
            await back.close()
        finally:
            await relay.stop()


def test_resent_is_an_optional_boolean_of_actions_only() -> None:
    assert parse_frame('{"type": "pass", "id": "a"}').resent is False
    assert parse_frame('{"type": "pass", "id": "a", "resent": true}').resent is True
    tiles = [{"sq": "G7", "letter": "A", "blank": False}]
    place = {"type": "place", "id": "a", "resent": False, "tiles": tiles}
    assert parse_frame(json.dumps(place)).resent is False
    with pytest.raises(ProtocolError, match="resent: must be true or false"):
        parse_frame('{"type": "pass", "id": "a", "resent": 1}')
    with pytest.raises(ProtocolError, match="unexpected key"):
        parse_frame('{"type": "chat", "id": "a", "text": "x", "resent": true}')


def test_an_action_digest_keeps_its_journaled_form_across_releases() -> None:
    # Journaled with each action and checked against resends after a restart: a new relay must compute the
    # same digests as the one that wrote the journal (these are the values of protocol version 1).
    place = wire.parse_client_frame(
        '{"type":"place","id":"m1","tiles":[{"sq":"G7","letter":"E","blank":false},'
        '{"sq":"H7","letter":"A","blank":true}]}'
    )
    swap = wire.parse_client_frame('{"type":"swap","id":"m2","tiles":"AB"}')
    assert resend.digest(place) == "d82cfa0a5f23f1c5cd48f3271d82e16b"
    assert resend.digest(swap) == "a4840df7e77d739c1e541f6fbeb03967"


_ANY_TEXT = st.text(max_size=6)


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(sorted(wire.ACTION_TYPES)),
    level=st.none() | _ANY_TEXT,
    tiles=st.lists(st.builds(wire.TileIn, _ANY_TEXT, _ANY_TEXT, st.booleans()), max_size=8),
    swap=_ANY_TEXT,
    seat=st.none() | st.integers(-(2**70), 2**70) | st.booleans(),
)
def test_an_action_digests_the_same_text_as_the_json_encoder_would_write(
    kind: str, level: str | None, tiles: list[wire.TileIn], swap: str, seat: int | None
) -> None:
    content = {"type": kind, "level": level, "tiles": [[t.sq, t.letter, t.blank] for t in tiles]}
    content |= {"swap": swap, "seat": seat}
    assert resend.canonical(kind, level, tiles, swap, seat) == json.dumps(content, sort_keys=True)
