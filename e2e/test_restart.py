"""The relay is killed (-9) mid-game and started again: both browsers come back by themselves (issue 6, 7)."""

from __future__ import annotations

from typing import Any

from e2e_plan import Planner
from e2e_ui import SEED, Relay, best, pick_table, place_and_submit, seat
from playwright.sync_api import expect

import engine


def test_relay_killed_mid_game_browsers_reconnect_and_finish(
    players: Any, own_relay: Relay, planner: Planner
) -> None:
    relay = own_relay
    names = ["Alice", "Bob"]
    table_id, _ = pick_table(relay, planner, names, lambda st: best(planner, st))
    alice, bob = people = [players(n, base=relay.url) for n in names]
    seat(people, relay.url, table_id)
    st = planner.deal(SEED, table_id, names, 120)
    move = best(planner, st)
    place_and_submit(alice, move, [bob])
    st = planner.play(st, move)

    relay.kill9()
    for p in people:
        expect(p.page.get_by_test_id("offline-banner")).to_be_visible()
    alice.shot("70-relay-down")
    relay.start()  # same port, same SQLite file
    for p in people:
        expect(p.page.get_by_test_id("conn-state")).to_have_text("● connected", timeout=30_000)
        expect(p.page.get_by_test_id("offline-banner")).to_have_count(0)
        expect(p.page.get_by_test_id("player-score")).to_have_text([str(s.score) for s in st.seats])
        expect(p.page.locator(f"#sq-{move.tiles[0].square}.filled")).to_have_count(1)
    assert sorted(bob.rack()) == sorted(st.seats[1].rack)
    # The game goes on to its end on the restarted relay.
    move = best(planner, st)
    place_and_submit(bob, move, [alice])
    st = planner.play(st, move)
    while st.status == "playing":
        p = people[st.turn or 0]
        p.wait_my_turn()
        p.pass_turn()
        st = planner.play(st, engine.Pass())
    assert st.result is not None
    for p in people:
        expect(p.page.get_by_test_id("final-score")).to_have_text([str(s) for s in st.result.scores])
    bob.shot("71-finished-after-restart")
