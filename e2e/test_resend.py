"""A play whose answer is lost with the relay (frozen as it arrived, then killed) is sent again by the
browser, with the same id, once the relay is back: it is applied once and both players see it (issue 15)."""

from __future__ import annotations

import signal
from typing import Any

from e2e_plan import Planner
from e2e_ui import SEED, Relay, best, pick_table, seat
from playwright.sync_api import expect


def test_a_play_lost_with_the_relay_is_resent_by_the_browser_and_applied_once(
    players: Any, own_relay: Relay, planner: Planner
) -> None:
    relay = own_relay
    names = ["Alice", "Bob"]
    table_id, _ = pick_table(relay, planner, names, lambda st: best(planner, st))
    alice, bob = people = [players(n, base=relay.url) for n in names]
    seat(people, relay.url, table_id)
    st = planner.deal(SEED, table_id, names, 120)
    move = best(planner, st)
    alice.wait_my_turn()
    alice.place([(t.square, t.letter, t.blank) for t in move.tiles])
    assert relay.proc.proc is not None
    relay.proc.proc.send_signal(signal.SIGSTOP)  # the play reaches a relay that will never read it
    alice.submit()
    alice.page.wait_for_timeout(500)  # for the frame to leave the browser
    relay.kill9()
    relay.start()  # same port, same journal: the play is not in it
    square = f"#sq-{move.tiles[0].square}.filled"
    for p in people:
        expect(p.page.get_by_test_id("conn-state")).to_have_text("● connected", timeout=30_000)
        expect(p.page.locator(square)).to_have_count(1, timeout=10_000)
        expect(p.page.locator("[data-testid=sheet-row]")).to_have_count(1)
    st = planner.play(st, move)
    for p in people:
        expect(p.page.get_by_test_id("player-score")).to_have_text([str(s.score) for s in st.seats])
    bob.wait_my_turn()
    alice.shot("72-play-resent-after-restart")
