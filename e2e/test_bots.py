"""A whole game against the `expert` computer player in Chromium, then the analysis on the end screen."""

from __future__ import annotations

from typing import Any

from e2e_ui import Relay
from playwright.sync_api import expect


def test_a_game_against_the_expert_to_the_end_then_the_analysis_of_my_moves(
    players: Any, relay: Relay
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
    page.locator("#start-game").click()
    expect(page.get_by_test_id("turn")).to_be_visible()

    end = page.locator("#end-title")
    mine = page.locator("[data-testid=turn].mine")
    played = 0
    for _ in range(120):
        expect(end.or_(mine)).to_be_visible(timeout=30_000)
        if end.is_visible():
            break
        # Alice plays nothing: the expert plays the bag out, then goes out (or both stop placing).
        alice.pass_turn()
        played += 1
        expect(end.or_(page.locator("[data-testid=turn]:not(.mine)"))).to_be_visible(timeout=30_000)
    expect(end).to_be_visible()
    assert played >= 2
    alice.shot("bots-01-end-vs-expert")

    ask = page.locator("#ask-analysis")
    expect(ask).to_be_enabled()
    ask.click()
    panel = page.get_by_test_id("analysis")
    expect(panel).to_be_visible(timeout=60_000)
    rows = panel.locator("[data-testid=analysis-row]")
    expect(rows).to_have_count(played)
    # Every pass lost equity against the expert's choice (it always had a placement or an exchange).
    expect(panel.get_by_test_id("analysis-summary")).to_contain_text(f"of {played} moves match")
    expect(page.locator("#ask-analysis")).to_have_count(0)
    panel.scroll_into_view_if_needed()
    alice.shot("bots-02-analysis")
