"""Invariants over random action sequences: the journal replays to the live state, every client saw every
event exactly once in order, refused frames change nothing, and no frame shows another seat's rack."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

import aiohttp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from relaykit import Player, private_strings, scan, seated_game, start_relay

import engine
from relay.tables import elide_journal

SQUARES = [f"{c}{r}" for c in "ABCDEFGHIJKLMN" for r in range(0, 15)]

action = st.one_of(
    st.just(("scripted",)),
    st.just(("pass",)),
    st.tuples(st.just("swap"), st.integers(1, 7)),
    st.tuples(
        st.just("junk_place"),
        st.lists(
            st.tuples(st.sampled_from(SQUARES), st.sampled_from("ABEZ?"), st.booleans()),
            min_size=0,
            max_size=8,
        ),
    ),
    st.tuples(
        st.just("raw"), st.sampled_from(['{"type":"pass"', '{"type":"swap","tiles":""}', "null", "{}"])
    ),
    st.just(("resync",)),
)


async def scenario(steps: list[tuple[int, tuple[Any, ...]]], tmp: Path) -> None:
    relay = await start_relay(tmp)
    try:
        async with aiohttp.ClientSession() as session:
            table_id, players = await seated_game(session, relay)
            table = relay.referee.tables[table_id]
            for who, act in steps:
                p: Player = players[who]
                before = table.state
                kind = act[0]
                if kind == "scripted":
                    ans = await p.send(p.choose())
                elif kind == "pass":
                    ans = await p.send({"type": "pass"})
                elif kind == "swap":
                    ans = await p.send({"type": "swap", "tiles": p.rack[: act[1]] or "A"})
                elif kind == "junk_place":
                    tiles = [{"sq": sq, "letter": letter, "blank": blank} for sq, letter, blank in act[1]]
                    ans = await p.send({"type": "place", "tiles": tiles})
                elif kind == "raw":
                    ans = await p.send_raw(act[1])
                else:
                    n = len(p.frames)
                    await p.ws.send_str(json.dumps({"type": "resync", "since": p.seq}))
                    ans = await p.wait_for(lambda f: f["type"] == "snapshot", start=n)
                if ans["type"] == "error":
                    assert table.state is before, ans
                if table.status == "ended":
                    break
            for q in players:
                await q.wait_seq(table.state.version)
            stored = [engine.event_from_dict(r.body) for r in relay.referee.store.events(table_id)]
            # In memory: the fold of the journal, with the journal itself left in SQLite.
            assert len(stored) == table.state.version
            assert elide_journal(engine.replay(stored)) == table.state
            assert engine.replay(stored) == relay.referee.full_state(table)
            own = private_strings(relay, table_id)
            for q in players:
                seqs = [f["seq"] for f in q.frames if f["type"] == "event"]
                first = q.frames[1]
                assert first["type"] == "snapshot"
                snap = first["seq"]
                assert seqs == list(range(snap + 1, snap + 1 + len(seqs)))
                for n, frame in enumerate(q.frames):
                    scan(frame, own[q.seat or 0], f"seat{q.seat}.frame{n}")
    finally:
        await relay.stop()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 1), action), min_size=1, max_size=40))
def test_random_play_keeps_journal_state_and_redaction_consistent(
    steps: list[tuple[int, tuple[Any, ...]]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(scenario(steps, Path(tmp)))
