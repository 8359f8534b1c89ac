"""The replay viewer shows a seat's own analysis at each of its moves (issue 13, point 5), privately.

Two people play a short game to its end in two browser contexts. Alice asks for her analysis from the replay
viewer (no socket: POST with her seat token), steps to her moves by keyboard, sees it again after a reload and
on the end screen; Bob, at the same table, never sees hers; a dropped record finds it through its #id, for
Alice only."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from a11y import assert_no_violations
from e2e_plan import Planner
from e2e_ui import Relay, short_game
from playwright.sync_api import Page, expect

import engine


def _row_in_sight(page: Page) -> bool:
    """The current move's row lies inside its score sheet's visible box."""
    return bool(
        page.evaluate(
            """() => { const row = document.querySelector('.sheet-scroll tr[aria-current=step]');
              const box = row.closest('.sheet-scroll').getBoundingClientRect();
              const r = row.getBoundingClientRect();
              return r.top >= box.top - 1 && r.bottom <= box.bottom + 1; }"""
        )
    )


def test_my_analysis_in_the_replay_at_each_of_my_moves_and_nobody_elses(
    players: Any, relay: Relay, planner: Planner, tmp_path: Path
) -> None:
    alice, bob = players("Alice"), players("Bob")
    table_id, move = short_game(relay, planner, alice, bob)
    page = alice.page
    page.get_by_role("link", name="Replay").click()
    expect(page.get_by_test_id("replay-now")).to_be_visible()
    panel = page.get_by_test_id("replay-analysis")
    expect(panel).to_be_visible()
    expect(panel.get_by_role("heading", name="Analysis of your moves")).to_be_visible()
    # Asked with the keyboard: Tab to the button, Enter.
    ask = page.locator("#replay-ask-analysis")
    ask.focus()
    page.keyboard.press("Enter")
    shown = page.get_by_test_id("ra-none")  # the record opens on its last line (the racks left): not hers
    expect(shown).to_be_visible(timeout=60_000)
    expect(page.locator("#replay-ask-analysis")).to_have_count(0)
    expect(page.locator("#ra-title")).to_be_focused()  # not lost with the button
    # Her first move: step 1 (keyboard), the expert's choice with its score, the equity lost.
    page.locator("#replay").focus()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("replay-now")).to_contain_text("Move 1 of")
    card = page.get_by_test_id("ra-move")
    word = engine.format_move(move, engine.Board.empty("lexio"))  # "7E LNM": as the analysis writes it
    expect(card).to_contain_text("Your move")
    expect(card).to_contain_text(word)
    expect(card).to_contain_text("Expert's choice")
    expect(card.locator("dd").nth(1)).to_contain_text(re.compile(r"\d+ points|the same move"))
    assert _row_in_sight(page), "the current move's row is scrolled out of its sheet"
    # The sheet's column says the same; Bob's rows stay blank there.
    expect(page.locator("table.sheet th", has_text="Equity lost")).to_have_count(1)
    # "Your next move" jumps over Bob's pass to hers (step 3).
    page.locator("#ra-next").click()
    expect(page.get_by_test_id("replay-now")).to_contain_text("Move 3 of")
    expect(card).to_contain_text("pass")
    # Her pass: the expert would have placed a word. Put on the board, in place of the pass, named as such.
    filled = page.locator("#board .sq.filled").count()
    show = page.locator("#ra-show-best")
    expect(show).to_have_attribute("aria-pressed", "false")
    show.click()
    expect(show).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_test_id("replay-now")).to_contain_text("the board shows the expert's choice")
    best = page.locator("#board .sq.last-move")
    expect(best.first).to_have_attribute("aria-label", re.compile(r", expert's choice$"))
    assert page.locator("#board .sq.filled").count() == filled + best.count() > filled
    alice.shot("160-replay-analysis-1280")
    assert_no_violations(page, "the replay viewer with the analysis of your moves")
    page.set_viewport_size({"width": 375, "height": 667})
    panel.scroll_into_view_if_needed()
    alice.shot("161-replay-analysis-375")
    page.set_viewport_size({"width": 1280, "height": 900})

    # Kept by this browser: a reload shows it again, without asking (the relay serves it once).
    page.reload()
    page.wait_for_selector("html.ready", state="attached")
    expect(page.get_by_test_id("ra-none").or_(page.get_by_test_id("ra-move"))).to_be_visible()
    expect(page.locator("#replay-ask-analysis")).to_have_count(0)
    # The end screen shown again shows it as well (not a button the relay would refuse).
    alice.open(f"/t/{table_id}")
    expect(page.get_by_test_id("analysis")).to_be_visible()
    expect(page.locator("#ask-analysis")).to_have_count(0)
    expect(page.get_by_test_id("analysis-row")).to_have_count(3)

    # Bob: a seat of his own, offered his own analysis; never Alice's.
    bob.open(f"/t/{table_id}/replay")
    expect(bob.page.get_by_test_id("replay-now")).to_be_visible()
    expect(bob.page.locator("#replay-ask-analysis")).to_be_visible()
    expect(bob.page.get_by_test_id("ra-move")).to_have_count(0)
    expect(bob.page.locator("table.sheet th", has_text="Equity lost")).to_have_count(0)

    # A dropped file: its #id names the table. Alice sees her analysis; Carol (no seat) sees none.
    record = tmp_path / "game.gcg"
    record.write_text(relay.gcg(table_id), "utf-8")
    alice.open("/replay")
    page.set_input_files("#gcg-file", str(record))
    page.locator("#replay-first").click()
    page.locator("#replay-next").click()
    expect(page.get_by_test_id("ra-move")).to_contain_text(word)
    carol = players("Carol")
    carol.open("/replay")
    carol.page.set_input_files("#gcg-file", str(record))
    expect(carol.page.get_by_test_id("replay-now")).to_be_visible()
    expect(carol.page.get_by_test_id("replay-analysis")).to_have_count(0)
