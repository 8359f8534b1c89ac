"""Following the game in real Chromium (issue 12): the last move on every board, the turn before in the
status line, the score sheet, the end screen (final board, adjustments, racks, winners, replay link)."""

from __future__ import annotations

import re
from typing import Any

from e2e_plan import Planner
from e2e_ui import LAST, SEED, Player, Relay, best, pick_table, place_and_submit, seat
from playwright.sync_api import expect

import engine
from engine.gcg import parse_gcg


def test_last_move_sheet_and_end_screen_for_two_seats_and_a_watcher(
    players: Any, relay: Relay, planner: Planner
) -> None:
    names = ["Alice", "Bob"]

    def want(st: engine.GameState) -> Any:
        move = best(planner, st)
        return move if len(move.tiles) >= 2 else None

    table_id, move = pick_table(relay, planner, names, want)
    alice, bob = people = [players(n) for n in names]
    seat(people, relay.url, table_id)
    carol = players("Carol")  # arrives after the start: watches
    carol.open(f"/t/{table_id}")
    carol.page.locator("#watch-table").click()  # the invitation to a running game: watch it
    expect(carol.page.get_by_test_id("turn")).to_be_visible()
    everyone: list[Player] = [alice, bob, carol]
    st = planner.deal(SEED, table_id, names, 120)
    position = engine.format_move(move, st.board).split(" ")[0]
    place_and_submit(alice, move, [bob, carol])
    st = planner.play(st, move)
    squares = sorted(t.square for t in move.tiles)
    for p in everyone:
        marked = p.page.locator("#board .sq.last-move")
        expect(marked).to_have_count(len(squares))
        assert sorted(marked.evaluate_all("els => els.map(e => e.dataset.sq)")) == squares
        for sq in squares:
            expect(p.page.locator(f"#sq-{sq}")).to_have_attribute("aria-label", re.compile(r", last move$"))
        # The mark is a shape too (an outline), not a colour alone.
        outline = p.page.locator(f"#sq-{squares[0]}").evaluate("e => getComputedStyle(e).outlineStyle")
        assert outline == "solid"
        rows = p.page.get_by_test_id("sheet-row")
        expect(rows).to_have_count(1)
        expect(rows.first.locator("td.pos")).to_have_text(position)
    # Bob swaps: everyone's status line says so; the placement stays marked until the next one.
    bob.wait_my_turn()
    bob.swap(bob.rack()[:3])
    for p in everyone:
        expect(p.page.locator(LAST)).to_have_text("Bob swaps 3 tiles")
        expect(p.page.locator("#board .sq.last-move")).to_have_count(len(squares))
        expect(p.page.get_by_test_id("sheet-row").nth(1)).to_contain_text("swap 3")
    alice.wait_my_turn()
    alice.page.set_viewport_size({"width": 1280, "height": 800})
    alice.shot("120-last-move-and-sheet-1280")
    carol.page.set_viewport_size({"width": 375, "height": 667})
    carol.shot("121-last-move-watcher-375")
    # The sheet scrolls from the keyboard: its region takes the focus.
    region = alice.page.get_by_test_id("sheet-region")
    expect(region).to_have_attribute("tabindex", "0")
    region.focus()
    assert alice.page.evaluate("document.activeElement.dataset.testid") == "sheet-region"
    expect(alice.page.locator("[data-testid=sheet] caption")).to_have_count(1)
    # Three passes end the game (two rounds without a placement).
    for p in (alice, bob, alice):
        p.wait_my_turn()
        p.pass_turn()
    for p in everyone:
        expect(p.page.locator("#end-title")).to_be_visible()
    scores = [int(x) for x in alice.page.get_by_test_id("final-score").all_inner_texts()]
    before = [int(x) for x in alice.page.get_by_test_id("before-end").all_inner_texts()]
    adjust = alice.page.get_by_test_id("adjustment").all_inner_texts()
    assert before[0] > 0 and scores[0] <= before[0]
    for b, s, a in zip(before, scores, adjust, strict=True):
        assert a.startswith(f"{s - b:+d}") if s != b else a == "0", (b, s, a)
        if s < b:
            assert "tiles left" in a
    best_score = max(scores)
    won = [n for n, sc in zip(names, scores, strict=True) if sc == best_score]
    winners = f"Shared win: {', '.join(won)}" if len(won) > 1 else f"Winner: {won[0]}"
    for p in everyone:
        expect(p.page.locator(".end-board #board .sq.last-move")).to_have_count(len(squares))
        expect(p.page.get_by_test_id("final-rack")).to_have_count(2)
        expect(p.page.get_by_test_id("winners")).to_have_text(winners)
        expect(p.page.locator("#download-gcg")).to_be_visible()
    expect(alice.page.locator("#new-table")).to_be_visible()
    # The end lines of the sheet: the racks left.
    expect(alice.page.locator("[data-testid=sheet-row][data-kind=end]")).to_have_count(2)
    alice.shot("122-end-screen-1280")
    bob.page.set_viewport_size({"width": 375, "height": 667})
    bob.shot("123-end-screen-375")
    # "Replay" opens the finished table's record in the viewer, on its final position.
    moves = parse_gcg(relay.gcg(table_id)).moves
    alice.page.locator("#replay-link").click()
    expect(alice.page).to_have_url(re.compile(rf"/t/{re.escape(table_id)}/replay$"))
    expect(alice.page.get_by_test_id("replay-now")).to_contain_text(f"Move {len(moves)} of {len(moves)}")
    expect(alice.page.get_by_test_id("replay-row")).to_have_count(len(moves))
    expect(alice.page.locator("#board .sq.last-move")).to_have_count(len(squares))
    alice.page.locator("#replay-first").click()
    expect(alice.page.locator("#board .sq.filled")).to_have_count(0)
    # The same address opened directly (a shared link) works too.
    carol.open(f"/t/{table_id}/replay")
    expect(carol.page.get_by_test_id("replay-row")).to_have_count(len(moves))
