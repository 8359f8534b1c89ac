"""A whole game against the `expert` computer player in Chromium, then the analysis on the end screen.

Alice plays as a person would: from the board and the rack the page shows, a real word each turn (a middling
one, not the best: the analysis has something to say), a pass only when she has none."""

from __future__ import annotations

from typing import Any

from e2e_plan import Planner
from e2e_ui import Relay, board_on_page
from playwright.sync_api import expect

from relay.bots import generate


def test_a_game_against_the_expert_to_the_end_then_the_analysis_of_my_moves(
    players: Any, relay: Relay, planner: Planner
) -> None:
    alice = players("Alice")
    page = alice.page
    alice.open(f"/t/{relay.create_table()}")
    page.locator("#join-table").click()  # the link opens the table's invitation, name filled in
    expect(page.locator("#seat-list li")).to_have_count(1)
    levels = page.locator("#bot-level option")
    expect(levels).to_have_count(5)
    assert levels.evaluate_all("os => os.map(o => o.value)") == [
        "beginner",
        "easy",
        "medium",
        "strong",
        "expert",
    ]
    page.locator("#bot-level").select_option("expert")
    page.locator("#add-bot").click()
    expect(page.locator("#seat-list li")).to_have_count(2)
    expect(page.locator("#seat-list li").nth(1)).to_contain_text("expert")
    page.locator("#start-game").click()
    expect(page.get_by_test_id("turn")).to_be_visible()

    end = page.locator("#end-title")
    mine = page.locator("[data-testid=turn].mine")
    played, placed = 0, []
    for _ in range(120):
        expect(end.or_(mine)).to_be_visible(timeout=30_000)
        if end.is_visible():
            break
        board = board_on_page(page)
        found = sorted(generate(board, alice.rack(), planner.graph).moves)
        rows = page.locator("[data-testid=sheet-row]").count()
        if found:
            move = found[len(found) // 2].to_place(board.variant)
            alice.place([(t.square, t.letter, t.blank) for t in move.tiles])
            alice.submit()
            placed.append(move)
        else:
            alice.pass_turn()
        played += 1
        # Accepted: a row more in the sheet (the expert may answer at once, even pass back: at least one).
        expect(end.or_(page.locator("[data-testid=sheet-row]").nth(rows)).first).to_be_attached(
            timeout=30_000
        )
    expect(end).to_be_visible()
    assert played >= 2 and len(placed) >= 2, (played, len(placed))
    # The expert played its share to the end too: the score sheet has its placements.
    expect(page.get_by_test_id("final-row")).to_have_count(2)
    alice.shot("bots-01-end-vs-expert")

    ask = page.locator("#ask-analysis")
    expect(ask).to_be_enabled()
    ask.click()
    panel = page.get_by_test_id("analysis")
    expect(panel).to_be_visible(timeout=90_000)
    # The button is gone: the focus is on what replaced it, not lost to the page.
    expect(page.locator("#analysis-title")).to_be_focused()
    rows = panel.locator("[data-testid=analysis-row]")
    expect(rows).to_have_count(played)  # one row per move of hers, none of the expert's
    expect(panel.get_by_test_id("analysis-summary")).to_contain_text(f"of {played} moves match")
    expect(panel.locator("th", has_text="Expert's choice")).to_have_count(1)
    # Her first word, as she played it, with the expert's choice and the equity it lost (or "the same").
    first = rows.first
    expect(first.locator("td").nth(0)).to_have_text("1")
    # Turn, the rack she held, her move, its points, the expert's choice, its points, the equity lost (a
    # loss, written without a minus sign: issue 27).
    cells = first.locator("td").all_inner_texts()
    assert len(cells[1]) == 7 and cells[2] and cells[4], cells
    assert cells[4] == "the same" or float(cells[6]) > 0, cells
    expect(page.locator("#ask-analysis")).to_have_count(0)
    panel.scroll_into_view_if_needed()
    alice.shot("bots-02-analysis")
