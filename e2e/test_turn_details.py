"""Issue 27 in real Chromium: a time-out clears the turn's debris (point 4), a refused play never moves the
board on a phone and the opponent's last move is read whole there (point 14), the score sheet stays in view
beside the board on a desktop above a foldable chat (point 5)."""

from __future__ import annotations

from typing import Any

from a11y import assert_no_violations
from e2e_plan import Planner, unknown_play
from e2e_ui import ARTIFACTS, LAST, PLACED_RE, Player, Relay, best, box, pick_table, place_and_submit, seat
from playwright.sync_api import Page, expect

import engine

SHOTS = "issue27/"


def shot(p: Player, name: str) -> None:
    (ARTIFACTS / "issue27").mkdir(parents=True, exist_ok=True)
    p.shot(SHOTS + name)


def whole(page: Page, selector: str) -> None:
    """The element's text is all in sight: not cut (no ellipsis, nothing scrolled away), inside the screen."""
    expect(page.locator(selector)).to_be_in_viewport(ratio=1)
    cut = page.locator(selector).evaluate(
        "e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1"
    )
    assert not cut, page.locator(selector).inner_text()


def test_a_time_out_clears_the_refusal_its_tiles_and_the_pass_dialog_and_nothing_moves_the_phone_board(
    players: Any, relay: Relay, planner: Planner
) -> None:
    names = ["Alice", "Bob"]

    def want(st: engine.GameState) -> Any:
        bad = unknown_play(planner, st, 1)
        after = engine.apply(st, engine.TimedOut(0, at=0))
        return (bad, best(planner, after)) if bad is not None and planner.moves(after) else None

    table_id, ((bad, unknown), bob_move) = pick_table(relay, planner, names, want, turn_seconds=30)
    alice = players("Alice", viewport=(375, 667), touch=True)
    bob = players("Bob")
    seat([alice, bob], relay.url, table_id)
    page = alice.page
    alice.wait_my_turn()
    board_at = box(page, "#board")
    alice.place([(t.square, t.letter, t.blank) for t in bad.tiles])
    alice.submit()
    expect(page.get_by_test_id("rejected")).to_be_visible()
    for w in unknown:
        expect(page.get_by_test_id("rejected")).to_contain_text(w)
    # The refusal is said below the board (and in the status line): the board has not moved.
    assert box(page, "#board") == board_at
    assert page.evaluate("scrollY") == 0
    shot(alice, "01-phone-refused-375")
    # The pass confirmation is open when the time runs out.
    page.locator("#btn-pass").click()
    expect(page.locator("#pass-dialog")).to_be_visible()
    expect(page.locator(LAST)).to_have_text("The table passes for Alice (time up)", timeout=40_000)
    expect(page.locator("#pass-dialog")).to_have_count(0)
    expect(page.get_by_test_id("rejected")).to_have_count(0)
    expect(page.locator("#board .sq.has-pending")).to_have_count(0)
    expect(page.locator("#rack [data-testid=rack-tile]")).to_have_count(7)
    assert box(page, "#board") == board_at
    shot(alice, "02-phone-after-time-out-375")
    # Bob plays: on Alice's phone his move is read whole, on a line of its own.
    place_and_submit(bob, bob_move, [alice])
    alice.wait_my_turn()
    line = page.locator(LAST).inner_text()
    assert PLACED_RE.match(line), line
    whole(page, LAST)
    assert box(page, "#board") == board_at
    shot(alice, "03-phone-last-move-375")
    assert_no_violations(page, "the table at 375x667 after a time-out")


def test_on_a_desktop_the_score_sheet_stays_in_view_beside_the_board_above_a_foldable_chat(
    players: Any,
) -> None:
    p = players("Alice", viewport=(1280, 800))
    p.open("/?demo=2")
    page = p.page
    expect(page.get_by_test_id("sheet-row").first).to_be_attached()
    region = page.get_by_test_id("sheet-region")
    expect(region).to_be_in_viewport(ratio=1)
    assert page.evaluate("scrollY") == 0
    sheet, chat, board = box(page, "[data-testid=sheet-region]"), box(page, "#d-chat"), box(page, "#board")
    assert sheet["x"] > board["x"] + board["width"]  # beside the board
    assert chat["y"] > sheet["y"] + sheet["height"]  # the chat under it
    # Room for a dozen rows before it scrolls inside its card (not 2-4 as under the chat).
    assert region.evaluate("e => parseFloat(getComputedStyle(e).maxHeight)") >= 300
    # The chat folds and unfolds (a drawer); the sheet does not move either way.
    page.locator("#d-chat summary").click()
    expect(page.locator("#d-chat")).not_to_have_attribute("open", "")
    assert box(page, "[data-testid=sheet-region]") == sheet
    page.locator("#d-chat summary").click()
    shot(p, "04-desktop-sheet-in-view-1280")
    assert_no_violations(page, "the table at 1280x800")
    # The phone keeps its order: board, rack and actions first, the drawers folded below.
    page.set_viewport_size({"width": 375, "height": 667})
    expect(page.locator("#btn-pass")).to_be_in_viewport(ratio=1)
    assert box(page, "#d-journal")["y"] > box(page, "#btn-pass")["y"]
    shot(p, "05-phone-table-375")
